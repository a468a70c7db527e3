/* gimp-gpu-filters: the CUDA backend's host side: probe, context, bands.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The context outlives calls, so a preview that filters again pays no
 * allocation and no module load: device buffers and pinned staging grow on
 * demand and stay until gpufx_release.  A job runs as bands of output rows
 * (each with its input halo) through two slots, each with its own stream,
 * buffers and staging: while the GPU filters band b, the calling thread
 * stages band b + 1 and collects band b - 1, and copies in one stream
 * overlap kernels in the other.
 */
#include "cuda-internal.h"
#include "gaussian-plan.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_GAUSS_DIRECT_RADIUS GPUFX_CUDA_GAUSS_DIRECT_RADIUS
#define CUDA_SLOTS               3

CudaLimits gpufx_cuda_limits;

struct CudaBuffer
{
  void  *p;
  size_t bytes;
};

struct CudaSlot
{
  cudaStream_t stream;
  cudaEvent_t  done;
  bool         busy;                  /* work issued, not yet collected */
  int          band;                  /* which band the slot holds      */
  CudaBuffer   in, tmp, out, scratch; /* device */
  CudaBuffer   stage_in, stage_out;   /* pinned host */
};

static pthread_mutex_t cuda_lock = PTHREAD_MUTEX_INITIALIZER;
static bool            cuda_probed;
static bool            cuda_usable;
static char            cuda_why[GPUFX_MESSAGE_MAX];
static bool            cuda_have_slots;
static CudaSlot        cuda_slots[CUDA_SLOTS];

/* ---- probe ------------------------------------------------------------ */

static bool
cuda_probe_locked (void)
{
  int            driver = 0, runtime = 0, count = 0, dev = 0;
  cudaDeviceProp prop;
  cudaError_t    err;
  const char    *off = getenv ("GPUFX_CUDA_DISABLE");

  if (cuda_probed)
    return cuda_usable;
  cuda_probed = true;
  cuda_usable = false;

  if (off && *off && strcmp (off, "0") != 0)
    {
      snprintf (cuda_why, sizeof cuda_why,
                "CUDA is disabled by GPUFX_CUDA_DISABLE");
      return false;
    }
  cudaRuntimeGetVersion (&runtime);
  err = cudaDriverGetVersion (&driver);
  if (err != cudaSuccess || driver == 0)
    {
      snprintf (cuda_why, sizeof cuda_why,
                "no NVIDIA driver found (libcuda could not be loaded)");
      return false;
    }
  if (driver < runtime)
    {
      snprintf (cuda_why, sizeof cuda_why,
                "the NVIDIA driver is too old: it supports CUDA %d.%d, this "
                "build needs %d.%d",
                driver / 1000, driver % 1000 / 10, runtime / 1000,
                runtime % 1000 / 10);
      return false;
    }
  err = cudaGetDeviceCount (&count);
  if (err != cudaSuccess || count == 0)
    {
      snprintf (cuda_why, sizeof cuda_why, "no CUDA device found (%s)",
                err != cudaSuccess ? cudaGetErrorString (err) : "0 devices");
      cudaGetLastError ();
      return false;
    }
  if ((err = cudaGetDevice (&dev)) != cudaSuccess
      || (err = cudaGetDeviceProperties (&prop, dev)) != cudaSuccess)
    {
      snprintf (cuda_why, sizeof cuda_why,
                "the CUDA device cannot be used: "
                "%s",
                cudaGetErrorString (err));
      cudaGetLastError ();
      return false;
    }
  err = gpufx_cuda_check_image ();
  if (err != cudaSuccess)
    {
      snprintf (cuda_why, sizeof cuda_why,
                "this build has no kernels for %s (compute capability %d.%d):"
                " %s; rebuild with -Dgpu_archs including %d%d",
                prop.name, prop.major, prop.minor, cudaGetErrorString (err),
                prop.major, prop.minor);
      cudaGetLastError ();
      return false;
    }
  if (cudaDeviceGetAttribute (&gpufx_cuda_limits.smem_optin,
                              cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)
      != cudaSuccess)
    {
      cudaGetLastError ();
      gpufx_cuda_limits.smem_optin = (int) prop.sharedMemPerBlock;
    }
  gpufx_cuda_limits.smem = gpufx_cuda_limits.smem_optin;
  gpufx_cuda_limits.sm_count = prop.multiProcessorCount;
  cuda_usable = true;
  return true;
}

bool
gpufx_cuda_probe (char *why, size_t why_size)
{
  bool ok;

  pthread_mutex_lock (&cuda_lock);
  ok = cuda_probe_locked ();
  if (! ok && why && why_size)
    snprintf (why, why_size, "%s", cuda_why);
  pthread_mutex_unlock (&cuda_lock);
  return ok;
}

/* The shared-memory budget for this job: the device's opt-in maximum, or
 * GPUFX_CUDA_SMEM_LIMIT where set and smaller (a testing aid, read per
 * job so that one test process can run under several caps; clamped to at
 * least GPUFX_CUDA_SMEM_MIN, which every launcher's smallest configuration
 * fits). */
static void
cuda_smem_budget (void)
{
  const char *cap = getenv ("GPUFX_CUDA_SMEM_LIMIT");
  long        v = cap && *cap ? strtol (cap, NULL, 0) : 0;
  int         smem = gpufx_cuda_limits.smem_optin;

  if (v > 0)
    {
      if (v < GPUFX_CUDA_SMEM_MIN)
        v = GPUFX_CUDA_SMEM_MIN;
      if (v < smem)
        smem = (int) v;
    }
  gpufx_cuda_limits.smem = smem;
}

/* ---- context ---------------------------------------------------------- */

static void
cuda_free_buffers (void)
{
  for (int s = 0; s < CUDA_SLOTS; s++)
    {
      CudaSlot *k = &cuda_slots[s];

      cudaFree (k->in.p);
      cudaFree (k->tmp.p);
      cudaFree (k->out.p);
      cudaFree (k->scratch.p);
      cudaFreeHost (k->stage_in.p);
      cudaFreeHost (k->stage_out.p);
      k->in = k->tmp = k->out = k->scratch = CudaBuffer ();
      k->stage_in = k->stage_out = CudaBuffer ();
      k->busy = false;
    }
}

static void
cuda_release_locked (void)
{
  if (! cuda_have_slots)
    return;
  cuda_free_buffers ();
  for (int s = 0; s < CUDA_SLOTS; s++)
    {
      cudaStreamDestroy (cuda_slots[s].stream);
      cudaEventDestroy (cuda_slots[s].done);
    }
  memset (cuda_slots, 0, sizeof cuda_slots);
  cuda_have_slots = false;
  cudaGetLastError ();
}

void
gpufx_cuda_release (void)
{
  pthread_mutex_lock (&cuda_lock);
  if (cuda_usable)
    cuda_release_locked ();
  pthread_mutex_unlock (&cuda_lock);
}

static cudaError_t
cuda_slots_init (void)
{
  cudaError_t err;

  if (cuda_have_slots)
    return cudaSuccess;
  memset (cuda_slots, 0, sizeof cuda_slots);
  for (int s = 0; s < CUDA_SLOTS; s++)
    {
      if ((err = cudaStreamCreateWithFlags (&cuda_slots[s].stream,
                                            cudaStreamNonBlocking))
            != cudaSuccess
          || (err = cudaEventCreateWithFlags (&cuda_slots[s].done,
                                              cudaEventDisableTiming))
               != cudaSuccess)
        return err;
    }
  cuda_have_slots = true;
  return cudaSuccess;
}

static cudaError_t
cuda_grow (CudaBuffer *b, size_t bytes, bool pinned)
{
  cudaError_t err;

  if (b->bytes >= bytes)
    return cudaSuccess;
  if (pinned)
    cudaFreeHost (b->p);
  else
    cudaFree (b->p);
  b->p = NULL;
  b->bytes = 0;
  bytes += bytes / 8; /* a little room: previews change size slightly */
  err = pinned ? cudaHostAlloc (&b->p, bytes, cudaHostAllocDefault)
               : cudaMalloc (&b->p, bytes);
  if (err != cudaSuccess)
    {
      b->p = NULL;
      return err;
    }
  b->bytes = bytes;
  return cudaSuccess;
}

/* ---- a job ------------------------------------------------------------ */

enum CudaMode
{
  MODE_CONVOLVE,
  MODE_SEPARABLE, /* taps along rows, then columns */
  MODE_GAUSSIAN,  /* per axis taps or cosines      */
  MODE_SOBEL,
  MODE_KUWAHARA
};

struct CudaJob
{
  const GpufxJob   *job;
  CudaGeom          geom;
  CudaMode          mode;
  float             scale, offset;
  int               taps_first[2], n_taps[2];
  GpufxGaussianPlan plan[2]; /* Gaussian: x, y */
  bool              staged_in, staged_out;
  int               band_h, n_bands;
  int               in_x0, in_w; /* input columns, every band */
};

/* The CPU backend's rank-1 test, so both split the same matrices. */
extern "C" bool
cpu_matrix_separable (const float *m, int w, int h, double *col, double *row);

static bool
cuda_rank1 (const GpufxConvolveParams *c, float *u, float *v)
{
  double col[GPUFX_MATRIX_MAX], row[GPUFX_MATRIX_MAX];

  if (c->width * c->height == 1
      || ! cpu_matrix_separable (c->matrix, c->width, c->height, col, row))
    return false;
  for (int j = 0; j < c->height; j++)
    u[j] = (float) col[j];
  for (int i = 0; i < c->width; i++)
    v[i] = (float) row[i];
  return true;
}

static cudaError_t
cuda_prepare (CudaJob *cj)
{
  const GpufxFilter *f = &cj->job->filter;
  cudaError_t        err = cudaSuccess;

  cj->scale = 1.0f;
  cj->offset = 0.0f;
  switch (f->kind)
    {
    case GPUFX_FILTER_CONVOLVE:
      {
        const GpufxConvolveParams *c = &f->convolve;
        float                      u[GPUFX_MATRIX_MAX], v[GPUFX_MATRIX_MAX];

        cj->scale = (float) (1.0 / c->divisor);
        cj->offset = (float) c->offset;
        if (cuda_rank1 (c, u, v))
          {
            cj->mode = MODE_SEPARABLE;
            cj->n_taps[0] = c->width;
            cj->taps_first[0] = -(c->width / 2);
            cj->n_taps[1] = c->height;
            cj->taps_first[1] = -(c->height / 2);
            if ((err = gpufx_cuda_line_taps_upload (0, v, c->width))
                == cudaSuccess)
              err = gpufx_cuda_line_taps_upload (1, u, c->height);
          }
        else
          {
            cj->mode = MODE_CONVOLVE;
            err = gpufx_cuda_convolve_upload (c->matrix, c->width, c->height);
          }
        break;
      }

    case GPUFX_FILTER_GAUSSIAN_BLUR:
      cj->mode = MODE_GAUSSIAN;
      for (int a = 0; a < 2 && err == cudaSuccess; a++)
        {
          GpufxGaussianPlan *p = &cj->plan[a];
          double sigma = a ? f->gaussian.std_dev_y : f->gaussian.std_dev_x;

          if (! gpufx_gaussian_plan_init (p, sigma, CUDA_GAUSS_DIRECT_RADIUS))
            return cudaErrorMemoryAllocation;
          if (p->n_terms > 0)
            err = gpufx_cuda_line_cosines_upload (a, p);
          else if (2 * p->radius + 1 <= GPUFX_CUDA_LINE_MAX_TAPS)
            {
              float taps[GPUFX_CUDA_LINE_MAX_TAPS];

              for (int k = 0; k <= 2 * p->radius; k++)
                taps[k] = (float) p->taps[k];
              cj->n_taps[a] = 2 * p->radius + 1;
              cj->taps_first[a] = -p->radius;
              err = gpufx_cuda_line_taps_upload (a, taps, cj->n_taps[a]);
            }
          else
            return cudaErrorNotSupported; /* no fit: the CPU reruns it */
        }
      break;

    case GPUFX_FILTER_SOBEL: cj->mode = MODE_SOBEL; break;

    case GPUFX_FILTER_KUWAHARA: cj->mode = MODE_KUWAHARA; break;
    }
  return err;
}

/* The input rows a band of output rows needs. */
static GpufxRect
cuda_band_input (const CudaJob *cj, int y, int h)
{
  const GpufxJob *job = cj->job;
  GpufxRect       band = { job->dst_rect.x, y, job->dst_rect.width, h };

  return gpufx_input_rect (&job->filter, job->image_width, job->image_height,
                           band);
}

struct CudaBandBytes
{
  size_t in, tmp, out, scratch;
};

static CudaBandBytes
cuda_band_bytes (const CudaJob *cj, int band_h, int in_h)
{
  const GpufxJob *job = cj->job;
  const size_t    px = sizeof (float) * job->channels;
  const int       w = job->dst_rect.width;
  CudaBandBytes   b;

  b.in = px * cj->in_w * in_h;
  b.out = px * w * band_h;
  b.tmp = cj->mode == MODE_SEPARABLE || cj->mode == MODE_GAUSSIAN
            ? px * w * in_h
            : 0;
  b.scratch = cj->mode == MODE_KUWAHARA ? gpufx_cuda_kuwahara_scratch (
                w, band_h, job->filter.kuwahara.radius, in_h, job->channels)
                                        : 0;
  return b;
}

static size_t
cuda_band_total (const CudaJob *cj, int band_h, int in_h)
{
  CudaBandBytes b = cuda_band_bytes (cj, band_h, in_h);
  size_t        t = b.in + b.out + b.tmp + b.scratch;

  if (cj->staged_in)
    t += b.in;
  if (cj->staged_out)
    t += b.out;
  return t;
}

/* The tallest band whose buffers fit the budget, at least one row. */
static int
cuda_pick_band (CudaJob *cj, size_t budget)
{
  const GpufxRect d = cj->job->dst_rect;
  int             lo = 1, hi = d.height;

  while (lo < hi)
    {
      int       mid = lo + (hi - lo + 1) / 2;
      GpufxRect a = cuda_band_input (cj, d.y, mid);
      GpufxRect b = cuda_band_input (cj, d.y + (d.height - mid) / 2, mid);
      int       in_h = a.height > b.height ? a.height : b.height;

      if (cuda_band_total (cj, mid, in_h) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
  return lo;
}

static bool
cuda_is_pinned (const void *p)
{
  cudaPointerAttributes a;

  if (cudaPointerGetAttributes (&a, p) != cudaSuccess)
    {
      cudaGetLastError ();
      return false;
    }
  return a.type == cudaMemoryTypeHost;
}

/* Filters one band already on the device. */
static cudaError_t
cuda_filter_band (const CudaJob   *cj,
                  CudaSlot        *k,
                  const CudaPlane &in,
                  const CudaPlane &out)
{
  const GpufxFilter *f = &cj->job->filter;
  const CudaGeom    &g = cj->geom;
  cudaStream_t       st = k->stream;
  CudaPlane          tmp;
  cudaError_t        err;

  tmp.p = (float *) k->tmp.p;
  tmp.pitch = (ptrdiff_t) out.w * g.channels;
  tmp.x0 = out.x0;
  tmp.y0 = in.y0;
  tmp.w = out.w;
  tmp.h = in.h;

  switch (cj->mode)
    {
    case MODE_CONVOLVE:
      return gpufx_cuda_convolve (g, in, out, f->convolve.width,
                                  f->convolve.height, cj->scale, cj->offset,
                                  st);
    case MODE_SEPARABLE:
      err = gpufx_cuda_line_taps (g, 0, in, tmp, cj->n_taps[0],
                                  cj->taps_first[0], 1.0f, 0.0f, st);
      if (err == cudaSuccess)
        err
          = gpufx_cuda_line_taps (g, 1, tmp, out, cj->n_taps[1],
                                  cj->taps_first[1], cj->scale, cj->offset, st);
      return err;
    case MODE_GAUSSIAN:
      for (int a = 0; a < 2; a++)
        {
          const CudaPlane &src = a ? tmp : in;
          const CudaPlane &dst = a ? out : tmp;

          if (cj->plan[a].n_terms > 0)
            err = gpufx_cuda_line_cosines (g, a, src, dst, cj->plan[a].radius,
                                           cj->plan[a].n_terms, st);
          else
            err = gpufx_cuda_line_taps (g, a, src, dst, cj->n_taps[a],
                                        cj->taps_first[a], 1.0f, 0.0f, st);
          if (err != cudaSuccess)
            return err;
        }
      return cudaSuccess;
    case MODE_SOBEL:
      return gpufx_cuda_sobel (g, in, out, f->sobel.horizontal,
                               f->sobel.vertical, f->sobel.keep_sign, st);
    case MODE_KUWAHARA:
      {
        CudaScratch s = { k->scratch.p, k->scratch.bytes };

        return gpufx_cuda_kuwahara (g, in, out, f->kuwahara.radius, s, st);
      }
    }
  return cudaErrorInvalidValue;
}

/* Copies band b's input to the slot and queues its work. */
static cudaError_t
cuda_issue_band (const CudaJob *cj, CudaSlot *k, int b)
{
  const GpufxJob *job = cj->job;
  const GpufxRect d = job->dst_rect, s = job->src_rect;
  const int       C = job->channels;
  int             y = d.y + b * cj->band_h;
  int h = d.y + d.height - y < cj->band_h ? d.y + d.height - y : cj->band_h;
  GpufxRect     r = cuda_band_input (cj, y, h);
  CudaBandBytes bytes = cuda_band_bytes (cj, h, r.height);
  size_t        row_in = sizeof (float) * C * cj->in_w;
  size_t        row_out = sizeof (float) * C * d.width;
  const float  *src = job->src + (ptrdiff_t) (r.y - s.y) * job->src_stride
                     + (ptrdiff_t) (cj->in_x0 - s.x) * C;
  CudaPlane   in, out;
  cudaError_t err;

  if ((err = cuda_grow (&k->in, bytes.in, false)) != cudaSuccess
      || (err = cuda_grow (&k->out, bytes.out, false)) != cudaSuccess
      || (err = cuda_grow (&k->tmp, bytes.tmp, false)) != cudaSuccess
      || (err = cuda_grow (&k->scratch, bytes.scratch, false)) != cudaSuccess
      || (cj->staged_in
          && (err = cuda_grow (&k->stage_in, bytes.in, true)) != cudaSuccess)
      || (cj->staged_out
          && (err = cuda_grow (&k->stage_out, bytes.out, true)) != cudaSuccess))
    return err;

  if (cj->staged_in)
    {
      for (int j = 0; j < r.height; j++)
        memcpy ((char *) k->stage_in.p + row_in * j,
                src + (ptrdiff_t) j * job->src_stride, row_in);
      err = cudaMemcpyAsync (k->in.p, k->stage_in.p, row_in * r.height,
                             cudaMemcpyHostToDevice, k->stream);
    }
  else
    err = cudaMemcpy2DAsync (k->in.p, row_in, src,
                             sizeof (float) * job->src_stride, row_in, r.height,
                             cudaMemcpyHostToDevice, k->stream);
  if (err != cudaSuccess)
    return err;

  in.p = (float *) k->in.p;
  in.pitch = (ptrdiff_t) C * cj->in_w;
  in.x0 = cj->in_x0;
  in.y0 = r.y;
  in.w = cj->in_w;
  in.h = r.height;
  out.p = (float *) k->out.p;
  out.pitch = (ptrdiff_t) C * d.width;
  out.x0 = d.x;
  out.y0 = y;
  out.w = d.width;
  out.h = h;
  if ((err = cuda_filter_band (cj, k, in, out)) != cudaSuccess)
    return err;

  if (cj->staged_out)
    err = cudaMemcpyAsync (k->stage_out.p, k->out.p, row_out * h,
                           cudaMemcpyDeviceToHost, k->stream);
  else
    err
      = cudaMemcpy2DAsync (job->dst + (ptrdiff_t) (y - d.y) * job->dst_stride,
                           sizeof (float) * job->dst_stride, k->out.p, row_out,
                           row_out, h, cudaMemcpyDeviceToHost, k->stream);
  if (err != cudaSuccess)
    return err;
  k->band = b;
  k->busy = true;
  return cudaEventRecord (k->done, k->stream);
}

/* Waits for a slot's band and puts its rows in place. */
static cudaError_t
cuda_collect_band (const CudaJob *cj, CudaSlot *k)
{
  const GpufxJob *job = cj->job;
  const GpufxRect d = job->dst_rect;
  size_t          row_out = sizeof (float) * job->channels * d.width;
  int             y, h;
  cudaError_t     err;

  if (! k->busy)
    return cudaSuccess;
  k->busy = false;
  if ((err = cudaEventSynchronize (k->done)) != cudaSuccess)
    return err;
  if (! cj->staged_out)
    return cudaSuccess;
  y = k->band * cj->band_h;
  h = d.height - y < cj->band_h ? d.height - y : cj->band_h;
  for (int j = 0; j < h; j++)
    memcpy (job->dst + (ptrdiff_t) (y + j) * job->dst_stride,
            (char *) k->stage_out.p + row_out * j, row_out);
  return cudaSuccess;
}

static GpufxStatus
cuda_fail_locked (cudaError_t err, const char *what, GpufxReport *report)
{
  cudaError_t again;

  cudaGetLastError ();
  for (int s = 0; s < CUDA_SLOTS && cuda_have_slots; s++)
    {
      cudaStreamSynchronize (cuda_slots[s].stream);
      cuda_slots[s].busy = false;
    }
  again = cudaDeviceSynchronize ();
  cudaGetLastError ();
  if (again != cudaSuccess)
    {
      /* A sticky error: this process's CUDA context is gone for good. */
      cuda_usable = false;
      snprintf (cuda_why, sizeof cuda_why,
                "CUDA failed earlier in this process (%s)",
                cudaGetErrorString (err));
    }
  else if (err == cudaErrorMemoryAllocation)
    cuda_free_buffers (); /* give the memory back; the next try regrows */
  return gpufx_fail (report, GPUFX_ERROR_BACKEND_FAILED, "CUDA %s: %s", what,
                     cudaGetErrorString (err));
}

static GpufxStatus
cuda_run_locked (const GpufxJob *job, GpufxReport *report)
{
  CudaJob     cj;
  size_t      budget = job->options->cuda_band_bytes;
  GpufxRect   whole_in;
  cudaError_t err;
  GpufxStatus status = GPUFX_OK;
  int         next;

  memset (&cj, 0, sizeof cj);
  cj.job = job;
  cj.geom.image_w = job->image_width;
  cj.geom.image_h = job->image_height;
  cj.geom.channels = job->channels;
  cj.geom.alpha = job->alpha;
  cj.geom.border = job->filter.border;
  cuda_smem_budget ();

  if ((err = cuda_slots_init ()) != cudaSuccess)
    return cuda_fail_locked (err, "could not create its streams", report);
  err = cuda_prepare (&cj);
  if (err != cudaSuccess)
    {
      status = err == cudaErrorNotSupported
                 ? gpufx_fail (report, GPUFX_ERROR_BACKEND_FAILED,
                               "CUDA has no plan for this Gaussian")
                 : cuda_fail_locked (err, "could not load the filter", report);
      goto out;
    }

  whole_in = cuda_band_input (&cj, job->dst_rect.y, job->dst_rect.height);
  cj.in_x0 = whole_in.x;
  cj.in_w = whole_in.width;
  cj.staged_in = ! cuda_is_pinned (job->src);
  cj.staged_out = ! cuda_is_pinned (job->dst);
  if (budget == 0)
    {
      size_t free_b = 0, total_b = 0;

      if (cudaMemGetInfo (&free_b, &total_b) != cudaSuccess)
        cudaGetLastError ();
      /* Ours already held counts as free for us. */
      for (int s = 0; s < CUDA_SLOTS; s++)
        free_b += cuda_slots[s].in.bytes + cuda_slots[s].tmp.bytes
                  + cuda_slots[s].out.bytes + cuda_slots[s].scratch.bytes;
      budget = (size_t) (free_b * 0.8) / CUDA_SLOTS;
      /* Cap bands so that a big image makes many, whose copies (both
       * directions) and kernels overlap across the three slots; but keep
       * each band at least 8 times its halo, so that re-sending halo rows
       * costs little. */
      cj.band_h = cuda_pick_band (
        &cj, budget < ((size_t) 24 << 20) ? budget : (size_t) 24 << 20);
      {
        GpufxRect a = cuda_band_input (
          &cj, job->dst_rect.y + job->dst_rect.height / 2, cj.band_h);
        int halo = a.height - cj.band_h;

        if (cj.band_h < 8 * halo)
          {
            int most = cuda_pick_band (&cj, budget);

            cj.band_h = most < 8 * halo ? most : 8 * halo;
          }
      }
    }
  else
    cj.band_h = cuda_pick_band (&cj, budget);
  cj.n_bands = (job->dst_rect.height + cj.band_h - 1) / cj.band_h;

  next = 0;
  for (int b = 0; b < cj.n_bands; b++)
    {
      CudaSlot *k = &cuda_slots[b % CUDA_SLOTS];

      if ((err = cuda_collect_band (&cj, k)) != cudaSuccess)
        {
          status = cuda_fail_locked (err, "failed", report);
          goto out;
        }
      if (k->band >= 0 && b >= CUDA_SLOTS)
        {
          next = b - CUDA_SLOTS + 1;
          if (! gpufx_job_progress (job, (double) next / cj.n_bands))
            {
              status = gpufx_fail (report, GPUFX_ERROR_CANCELLED, "cancelled");
              break;
            }
        }
      if ((err = cuda_issue_band (&cj, k, b)) != cudaSuccess)
        {
          status = cuda_fail_locked (err,
                                     err == cudaErrorMemoryAllocation
                                       ? "ran out of GPU memory"
                                       : "failed",
                                     report);
          goto out;
        }
    }
  for (int i = 0; i < CUDA_SLOTS; i++)
    {
      /* Oldest first. */
      CudaSlot *k = &cuda_slots[(cj.n_bands + i) % CUDA_SLOTS];

      if ((err = cuda_collect_band (&cj, k)) != cudaSuccess)
        {
          status = cuda_fail_locked (err, "failed", report);
          goto out;
        }
    }
  if (status == GPUFX_OK)
    gpufx_job_progress (job, 1.0);

out:
  gpufx_gaussian_plan_clear (&cj.plan[0]);
  gpufx_gaussian_plan_clear (&cj.plan[1]);
  return status;
}

GpufxStatus
gpufx_cuda_run (const GpufxJob *job, GpufxReport *report)
{
  GpufxStatus status;

  pthread_mutex_lock (&cuda_lock);
  if (! cuda_probe_locked ())
    status = gpufx_fail (report, GPUFX_ERROR_BACKEND_UNAVAILABLE,
                         "the CUDA backend is not available: %s", cuda_why);
  else
    status = cuda_run_locked (job, report);
  pthread_mutex_unlock (&cuda_lock);
  return status;
}

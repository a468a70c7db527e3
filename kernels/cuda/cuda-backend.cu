/* gimp-gpu-filters: the CUDA backend's host side: probe, context, bands.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The context outlives calls, so a preview that filters again pays no
 * allocation and no module load: device buffers and pinned staging grow on
 * demand and stay until gpufx_release.
 *
 * Where the whole job fits the device's memory (the usual case), its input,
 * output and the separable filters' intermediate live there whole, and the
 * job runs as bands of output rows: uploads (one stream) send each input
 * row once, in order; band b's kernels wait (an event) only for the rows
 * it needs, the row pass of a two-pass filter runs on each chunk as it
 * arrives and the column pass per band once the rows below it exist (one
 * stream; one-pass filters spread their bands over five, so that short
 * bands overlap); band b's download (a third stream) overlaps later
 * uploads.  Eight slots hold the bands' events, and their pinned staging
 * where the caller's memory is not page-locked.
 *
 * Otherwise the job runs as bands each sent with its input halo through
 * three slots, each with its own stream, buffers and staging: while the GPU
 * filters bands b - 2 and b - 1, the calling thread collects band b - 3
 * and stages band b, and copies in one stream overlap kernels in the
 * others.
 */
#include "cuda-internal.h"
#include "gaussian-plan.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_GAUSS_DIRECT_RADIUS GPUFX_CUDA_GAUSS_DIRECT_RADIUS
#define CUDA_SLOTS               8 /* bands in flight, whole image   */
#define CUDA_BAND_SLOTS          3 /* bands in flight, halo per band */

/* Whole-image bands: an output band of about this many bytes (a sixteenth
 * of the image, 1 to 4 MiB): the first upload and the last download are
 * what the overlap cannot hide, and each copy's fixed cost is small
 * against 20 to 80 microseconds of transfer. */
#define CUDA_WHOLE_BAND_MIN ((size_t) 1 << 20)
#define CUDA_WHOLE_BAND_MAX ((size_t) 4 << 20)

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
  cudaEvent_t  up, filtered;          /* whole image: input sent, band made */
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
static bool            cuda_held_whole; /* the buffers hold a whole image */

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
                "this build has no kernels for %.64s (compute capability "
                "%d.%d):"
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
  gpufx_cuda_limits.cc_major = prop.major;
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
      cudaEventDestroy (cuda_slots[s].up);
      cudaEventDestroy (cuda_slots[s].filtered);
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
               != cudaSuccess
          || (err = cudaEventCreateWithFlags (&cuda_slots[s].up,
                                              cudaEventDisableTiming))
               != cudaSuccess
          || (err = cudaEventCreateWithFlags (&cuda_slots[s].filtered,
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
  bool              whole; /* the whole image on the device */
  int               band_h, n_bands;
  int               in_x0, in_w; /* input columns, every band */
  int               in_y0, in_h; /* whole image: its input rows */
  int               sent;        /* whole image: rows [in_y0, sent) sent */
  cudaEvent_t       sent_ev;     /* whole image: recorded once they are  */
  bool              spread;      /* whole image: bands' kernels in streams
                                    of their own (they may overlap)      */
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

/* GPUFX_CUDA_MEM_LIMIT (bytes; 0 where unset): a testing aid, read per
 * job, so that the gpu tests can make the whole image not fit. */
static long long
cuda_mem_limit (void)
{
  const char *cap = getenv ("GPUFX_CUDA_MEM_LIMIT");

  return cap && *cap ? strtoll (cap, NULL, 0) : 0;
}

/* Device memory free for this job: what the device has free plus what we
 * hold, or less under GPUFX_CUDA_MEM_LIMIT. */
static size_t
cuda_free_bytes (void)
{
  long long v = cuda_mem_limit ();
  size_t    free_b = 0, total_b = 0;

  if (cudaMemGetInfo (&free_b, &total_b) != cudaSuccess)
    cudaGetLastError ();
  for (int s = 0; s < CUDA_SLOTS; s++)
    free_b += cuda_slots[s].in.bytes + cuda_slots[s].tmp.bytes
              + cuda_slots[s].out.bytes + cuda_slots[s].scratch.bytes;
  if (v > 0 && (size_t) v < free_b)
    free_b = (size_t) v;
  return free_b;
}

/* Whole-image bands: rows for about a sixteenth of the output (1 to 4 MiB;
 * GPUFX_CUDA_BAND_ROWS, a testing aid, sets them).  Where the column pass
 * is a sum of cosines, whose cost per band grows with the band's input
 * rows (band + 2r: its chunks walk them one thread each), taller: r / 6,
 * but no more than an eighth of the output, so that the kernels keep up
 * with the copies while the rows that come down after the last upload
 * (r and the band holding row H - r) stay few (4K host to host, same
 * call: sigma 200, r 800: 100-135 rows 3.85-3.89 ms, 69 rows 4.45, 270
 * rows 4.00; sigma 50, r 200: 69-135 rows 3.15-3.19 ms, 270 rows 3.29). */
static int
cuda_whole_band (const CudaJob *cj)
{
  const GpufxRect d = cj->job->dst_rect;
  const char     *force = getenv ("GPUFX_CUDA_BAND_ROWS");
  size_t          row = sizeof (float) * cj->geom.channels * d.width;
  size_t          want = row * d.height / 16;
  long            rows;

  if (force && *force && (rows = strtol (force, NULL, 0)) > 0)
    return rows < d.height ? (int) rows : d.height;
  if (want < CUDA_WHOLE_BAND_MIN)
    want = CUDA_WHOLE_BAND_MIN;
  if (want > CUDA_WHOLE_BAND_MAX)
    want = CUDA_WHOLE_BAND_MAX;
  rows = (long) ((want + row - 1) / row);
  if (cj->mode == MODE_GAUSSIAN && cj->plan[1].n_terms > 0)
    {
      long tall = cj->plan[1].radius / 6;

      if (tall > d.height / 8)
        tall = d.height / 8;
      if (rows < tall)
        rows = tall;
    }
  return rows < d.height ? (int) rows : d.height;
}

/* What each band slot may take of free_b bytes of device memory. */
static size_t
cuda_band_budget (size_t free_b)
{
  return (size_t) (free_b * 0.8) / CUDA_BAND_SLOTS;
}

/* Whether the whole image (input, output, intermediate) fits: in the
 * buffers slot 0 holds already (held: no cudaMemGetInfo, a driver call of
 * ~4 us of each call's host time), else in 80% of free_b bytes of device
 * memory; sets the band height when it does. */
static bool
cuda_whole_fits (CudaJob *cj, bool held, size_t free_b)
{
  const CudaSlot *k = &cuda_slots[0];
  int             band_h = cuda_whole_band (cj);
  CudaBandBytes all = cuda_band_bytes (cj, cj->job->dst_rect.height, cj->in_h);
  CudaBandBytes band = cuda_band_bytes (cj, band_h, cj->in_h);
  bool          fits;

  if (held)
    fits = k->in.bytes >= all.in && k->out.bytes >= all.out
           && k->tmp.bytes >= all.tmp && k->scratch.bytes >= band.scratch;
  else
    fits = all.in + all.out + all.tmp + band.scratch <= (size_t) (free_b * 0.8);
  if (fits)
    cj->band_h = band_h;
  return fits;
}

/* The whole image's device buffers, in slot 0. */
static cudaError_t
cuda_grow_whole (const CudaJob *cj)
{
  CudaBandBytes all = cuda_band_bytes (cj, cj->job->dst_rect.height, cj->in_h);
  CudaBandBytes band = cuda_band_bytes (cj, cj->band_h, cj->in_h);
  CudaSlot     *k = &cuda_slots[0];
  cudaError_t   err;

  if ((err = cuda_grow (&k->in, all.in, false)) != cudaSuccess
      || (err = cuda_grow (&k->out, all.out, false)) != cudaSuccess
      || (err = cuda_grow (&k->tmp, all.tmp, false)) != cudaSuccess)
    return err;
  return cuda_grow (&k->scratch, band.scratch, false);
}

/* Bands with halos, sized from free memory: capped so that a big image
 * makes many, whose copies (both directions) and kernels overlap across
 * the three slots; but each at least 8 times its halo, so that re-sending
 * halo rows costs little. */
static int
cuda_auto_band (CudaJob *cj, size_t budget)
{
  const GpufxRect d = cj->job->dst_rect;
  int             band_h = cuda_pick_band (
                cj, budget < ((size_t) 24 << 20) ? budget : (size_t) 24 << 20);
  GpufxRect a = cuda_band_input (cj, d.y + d.height / 2, band_h);
  int       halo = a.height - band_h;

  if (band_h < 8 * halo)
    {
      int most = cuda_pick_band (cj, budget);

      band_h = most < 8 * halo ? most : 8 * halo;
    }
  return band_h;
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

/* One pass of a separable filter along rows (axis 0) or columns (axis 1);
 * the scale and offset apply on the second. */
static cudaError_t
cuda_line_pass (const CudaJob   *cj,
                int              axis,
                const CudaPlane &src,
                const CudaPlane &dst,
                cudaStream_t     st)
{
  if (cj->mode == MODE_GAUSSIAN && cj->plan[axis].n_terms > 0)
    return gpufx_cuda_line_cosines (cj->geom, axis, src, dst,
                                    cj->plan[axis].radius,
                                    cj->plan[axis].n_terms, st);
  return gpufx_cuda_line_taps (cj->geom, axis, src, dst, cj->n_taps[axis],
                               cj->taps_first[axis], axis ? cj->scale : 1.0f,
                               axis ? cj->offset : 0.0f, st);
}

static bool
cuda_two_pass (const CudaJob *cj)
{
  return cj->mode == MODE_SEPARABLE || cj->mode == MODE_GAUSSIAN;
}

/* The intermediate of a two-pass filter: the output's columns over the
 * input rows [y0, y0 + h), in buffer b whose first row is row `first'. */
static CudaPlane
cuda_tmp_plane (const CudaJob    *cj,
                const CudaBuffer &b,
                int               first,
                int               y0,
                int               h)
{
  const GpufxRect d = cj->job->dst_rect;
  CudaPlane       tmp;

  tmp.pitch = (ptrdiff_t) d.width * cj->geom.channels;
  tmp.p = (float *) b.p + (ptrdiff_t) (y0 - first) * tmp.pitch;
  tmp.x0 = d.x;
  tmp.y0 = y0;
  tmp.w = d.width;
  tmp.h = h;
  return tmp;
}

/* Filters one band already on the device, with the buffers (tmp, scratch)
 * of slot k, in stream st. */
static cudaError_t
cuda_filter_band (const CudaJob   *cj,
                  CudaSlot        *k,
                  const CudaPlane &in,
                  const CudaPlane &out,
                  cudaStream_t     st)
{
  const GpufxFilter *f = &cj->job->filter;
  const CudaGeom    &g = cj->geom;
  cudaError_t        err;

  switch (cj->mode)
    {
    case MODE_CONVOLVE:
      return gpufx_cuda_convolve (g, in, out, f->convolve.width,
                                  f->convolve.height, cj->scale, cj->offset,
                                  st);
    case MODE_SEPARABLE:
    case MODE_GAUSSIAN:
      {
        CudaPlane tmp = cuda_tmp_plane (cj, k->tmp, in.y0, in.y0, in.h);

        err = cuda_line_pass (cj, 0, in, tmp, st);
        return err == cudaSuccess ? cuda_line_pass (cj, 1, tmp, out, st) : err;
      }
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

/* Band b's output rows [*y, *y + *h). */
static void
cuda_band_rows (const CudaJob *cj, int b, int *y, int *h)
{
  const GpufxRect d = cj->job->dst_rect;

  *y = d.y + b * cj->band_h;
  *h = d.y + d.height - *y < cj->band_h ? d.y + d.height - *y : cj->band_h;
}

/* Queues the upload of input rows [y, y + n) to dev (their first row),
 * through slot k's staging where the caller's memory is not page-locked. */
static cudaError_t
cuda_send_rows (const CudaJob *cj,
                CudaSlot      *k,
                void          *dev,
                int            y,
                int            n,
                cudaStream_t   st)
{
  const GpufxJob *job = cj->job;
  const GpufxRect s = job->src_rect;
  size_t          row = sizeof (float) * job->channels * cj->in_w;
  const float    *src = job->src + (ptrdiff_t) (y - s.y) * job->src_stride
                     + (ptrdiff_t) (cj->in_x0 - s.x) * job->channels;
  cudaError_t err;

  if (! cj->staged_in)
    return cudaMemcpy2DAsync (dev, row, src, sizeof (float) * job->src_stride,
                              row, n, cudaMemcpyHostToDevice, st);
  if ((err = cuda_grow (&k->stage_in, row * n, true)) != cudaSuccess)
    return err;
  gpufx_copy_rows (job, k->stage_in.p, row, src,
                   sizeof (float) * job->src_stride, row, n);
  return cudaMemcpyAsync (dev, k->stage_in.p, row * n, cudaMemcpyHostToDevice,
                          st);
}

/* Queues the download of band b's output rows from dev (their first row)
 * to the caller or to slot k's staging (cuda_collect_band copies that),
 * then marks the band done. */
static cudaError_t
cuda_fetch_band (const CudaJob *cj,
                 CudaSlot      *k,
                 int            b,
                 const void    *dev,
                 cudaStream_t   st)
{
  const GpufxJob *job = cj->job;
  const GpufxRect d = job->dst_rect;
  size_t          row = sizeof (float) * job->channels * d.width;
  int             y, h;
  cudaError_t     err;

  cuda_band_rows (cj, b, &y, &h);
  if (cj->staged_out)
    {
      if ((err = cuda_grow (&k->stage_out, row * h, true)) == cudaSuccess)
        err = cudaMemcpyAsync (k->stage_out.p, dev, row * h,
                               cudaMemcpyDeviceToHost, st);
    }
  else
    err = cudaMemcpy2DAsync (job->dst + (ptrdiff_t) (y - d.y) * job->dst_stride,
                             sizeof (float) * job->dst_stride, dev, row, row, h,
                             cudaMemcpyDeviceToHost, st);
  if (err != cudaSuccess)
    return err;
  k->band = b;
  k->busy = true;
  return cudaEventRecord (k->done, st);
}

/* The device planes over input rows [y0, y0 + h) in buffer in and output
 * rows [y, y + h) in buffer out. */
static CudaPlane
cuda_in_plane (const CudaJob *cj, const CudaBuffer &b, int y0, int h)
{
  CudaPlane in;

  in.p = (float *) b.p;
  in.pitch = (ptrdiff_t) cj->geom.channels * cj->in_w;
  in.x0 = cj->in_x0;
  in.y0 = y0;
  in.w = cj->in_w;
  in.h = h;
  return in;
}

static CudaPlane
cuda_out_plane (const CudaJob *cj, void *p, int y, int h)
{
  const GpufxRect d = cj->job->dst_rect;
  CudaPlane       out;

  out.p = (float *) p;
  out.pitch = (ptrdiff_t) cj->geom.channels * d.width;
  out.x0 = d.x;
  out.y0 = y;
  out.w = d.width;
  out.h = h;
  return out;
}

/* Bands with halos: copies band b's input to the slot and queues its
 * work, all in the slot's stream. */
static cudaError_t
cuda_issue_band (const CudaJob *cj, CudaSlot *k, int b)
{
  int           y, h;
  GpufxRect     r;
  CudaBandBytes bytes;
  cudaError_t   err;

  cuda_band_rows (cj, b, &y, &h);
  r = cuda_band_input (cj, y, h);
  bytes = cuda_band_bytes (cj, h, r.height);
  if ((err = cuda_grow (&k->in, bytes.in, false)) != cudaSuccess
      || (err = cuda_grow (&k->out, bytes.out, false)) != cudaSuccess
      || (err = cuda_grow (&k->tmp, bytes.tmp, false)) != cudaSuccess
      || (err = cuda_grow (&k->scratch, bytes.scratch, false)) != cudaSuccess
      || (err = cuda_send_rows (cj, k, k->in.p, r.y, r.height, k->stream))
           != cudaSuccess
      || (err
          = cuda_filter_band (cj, k, cuda_in_plane (cj, k->in, r.y, r.height),
                              cuda_out_plane (cj, k->out.p, y, h), k->stream))
           != cudaSuccess)
    return err;
  return cuda_fetch_band (cj, k, b, k->out.p, k->stream);
}

/* The whole image on the device (slot 0's buffers): sends the input rows
 * band b needs that are not there yet (slot 0's stream), runs the row pass
 * of a two-pass filter on them and then band b's kernels (slot 1's stream,
 * after those rows arrive), and fetches band b (slot 2's stream, after
 * its kernels).  k is band b's slot: its events and staging.  Where bands
 * are independent (one pass, no scratch) their kernels go to streams 3 and
 * up in turn instead, so that a band too short to fill the GPU (Kuwahara:
 * a block per 236 columns and 104 rows at r = 10) overlaps the next. */
static cudaError_t
cuda_issue_whole (CudaJob *cj, CudaSlot *k, int b)
{
  const size_t row_in = sizeof (float) * cj->geom.channels * cj->in_w;
  const size_t row_out
    = sizeof (float) * cj->geom.channels * cj->job->dst_rect.width;
  CudaSlot    *whole = &cuda_slots[0];
  cudaStream_t send = cuda_slots[0].stream, fetch = cuda_slots[2].stream;
  cudaStream_t run = cj->spread ? cuda_slots[3 + b % (CUDA_SLOTS - 3)].stream
                                : cuda_slots[1].stream;
  CudaPlane    in = cuda_in_plane (cj, whole->in, cj->in_y0, cj->in_h), out;
  char        *out_p;
  int          y, h, end, n;
  GpufxRect    r;
  cudaError_t  err;

  cuda_band_rows (cj, b, &y, &h);
  r = cuda_band_input (cj, y, h);
  end = r.y + r.height;
  n = end - cj->sent;
  if (n > 0)
    {
      if ((err = cuda_send_rows (
             cj, k, (char *) whole->in.p + row_in * (cj->sent - cj->in_y0),
             cj->sent, n, send))
            != cudaSuccess
          || (err = cudaEventRecord (k->up, send)) != cudaSuccess)
        return err;
      cj->sent_ev = k->up;
    }
  /* A later record of sent_ev (by its slot's next band) only waits
   * longer. */
  if ((err = cudaStreamWaitEvent (run, cj->sent_ev, 0)) != cudaSuccess)
    return err;
  if (n > 0)
    {
      if (cuda_two_pass (cj)
          && (err = cuda_line_pass (
                cj, 0, in,
                cuda_tmp_plane (cj, whole->tmp, cj->in_y0, cj->sent, n), run))
               != cudaSuccess)
        return err;
      cj->sent = end;
    }

  out_p = (char *) whole->out.p + row_out * (y - cj->job->dst_rect.y);
  out = cuda_out_plane (cj, out_p, y, h);
  /* The column pass sees band b's input rows only: the sum of cosines
   * walks every row of the plane it is given. */
  if (cuda_two_pass (cj))
    err = cuda_line_pass (
      cj, 1, cuda_tmp_plane (cj, whole->tmp, cj->in_y0, r.y, r.height), out,
      run);
  else
    err = cuda_filter_band (cj, whole, in, out, run);
  if (err != cudaSuccess
      || (err = cudaEventRecord (k->filtered, run)) != cudaSuccess
      || (err = cudaStreamWaitEvent (fetch, k->filtered, 0)) != cudaSuccess)
    return err;
  return cuda_fetch_band (cj, k, b, out_p, fetch);
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
  cuda_band_rows (cj, k->band, &y, &h);
  y -= d.y;
  gpufx_copy_rows (job, job->dst + (ptrdiff_t) y * job->dst_stride,
                   sizeof (float) * job->dst_stride, k->stage_out.p, row_out,
                   row_out, h);
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
  int         next, depth = CUDA_BAND_SLOTS;

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
  cj.in_y0 = cj.sent = whole_in.y;
  cj.in_h = whole_in.height;
  cj.staged_in = ! cuda_is_pinned (job->src);
  cj.staged_out = ! cuda_is_pinned (job->dst);
  /* The buffers held fit the job: no need to ask the driver (not under
   * GPUFX_CUDA_MEM_LIMIT, which the tests use to force bands with halos). */
  if (budget == 0 && cuda_held_whole && cuda_mem_limit () <= 0
      && cuda_whole_fits (&cj, true, 0))
    cj.whole = true;
  else if (budget == 0)
    {
      size_t free_b = cuda_free_bytes ();

      cj.whole = cuda_whole_fits (&cj, false, free_b);
      budget = cuda_band_budget (free_b);
      if (! cj.whole)
        cj.band_h = cuda_auto_band (&cj, budget);
    }
  else
    cj.band_h = cuda_pick_band (&cj, budget);
  if (cj.whole != cuda_held_whole)
    {
      /* The other layout's buffers are in the way: give them back. */
      cuda_free_buffers ();
      cuda_held_whole = cj.whole;
    }
  if (cj.whole && (err = cuda_grow_whole (&cj)) != cudaSuccess)
    {
      if (err != cudaErrorMemoryAllocation)
        {
          status = cuda_fail_locked (err, "failed", report);
          goto out;
        }
      /* Someone else took the memory meanwhile: bands with halos. */
      cudaGetLastError ();
      cuda_free_buffers ();
      cj.whole = cuda_held_whole = false;
      if (budget == 0)
        budget = cuda_band_budget (cuda_free_bytes ());
      cj.band_h = cuda_auto_band (&cj, budget);
    }
  if (cj.whole)
    {
      depth = CUDA_SLOTS;
      cj.spread = ! cuda_two_pass (&cj)
                  && cuda_band_bytes (&cj, cj.band_h, cj.in_h).scratch == 0;
    }
  cj.n_bands = (job->dst_rect.height + cj.band_h - 1) / cj.band_h;

  next = 0;
  for (int b = 0; b < cj.n_bands; b++)
    {
      CudaSlot *k = &cuda_slots[b % depth];

      if ((err = cuda_collect_band (&cj, k)) != cudaSuccess)
        {
          status = cuda_fail_locked (err, "failed", report);
          goto out;
        }
      if (b >= depth)
        {
          next = b - depth + 1;
          if (! gpufx_job_progress (job, (double) next / cj.n_bands))
            {
              status = gpufx_fail (report, GPUFX_ERROR_CANCELLED, "cancelled");
              break;
            }
        }
      err
        = cj.whole ? cuda_issue_whole (&cj, k, b) : cuda_issue_band (&cj, k, b);
      if (err != cudaSuccess)
        {
          status = cuda_fail_locked (err,
                                     err == cudaErrorMemoryAllocation
                                       ? "ran out of GPU memory"
                                       : "failed",
                                     report);
          goto out;
        }
    }
  for (int i = 0; i < depth; i++)
    {
      /* Oldest first. */
      CudaSlot *k = &cuda_slots[(cj.n_bands + i) % depth];

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

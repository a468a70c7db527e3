/* gimp-gpu-filters: GPU benchmark.  Device-resident times (data already on
 * the GPU, CUDA events, warm-up, median, inputs rotated over buffers larger
 * than L2), host-to-host times through gpufx_run with pinned memory, each
 * interleaved with the copy bound it is measured against, naive
 * one-thread-per-pixel kernels, and the machine's limits measured in the
 * same run (D2D copy bandwidth, pinned PCIe bandwidth, FP32 FMA rate).
 * A device-resident row's ms is the GPU's own time for the call and its
 * note gives the call from an idle GPU too, which also holds the host's
 * submission of the launches (bench-time.h; at 4K on an H200 up to 10 us
 * of a copy kernel's 76).  "bench-gpu --h2h" runs the limits and the
 * host-to-host rows only.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"
#include "gaussian-plan.h"

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <time.h>
#include <vector>

#include "bench-check.h"
#include "bench-time.h"

static const int NBUF = 4;
static float    *g_in[NBUF], *g_out, *g_tmp;
static void     *g_scratch;
static size_t    g_scratch_bytes;
static int       W, H;
static const int C = 4;
static double    g_d2d_gbs; /* bytes read + written per second / 1e9 */

static CudaGeom
geom (void)
{
  CudaGeom g = { W, H, C, 3, GPUFX_BORDER_CLAMP };
  return g;
}

static CudaPlane
plane (float *p)
{
  CudaPlane q = { p, (ptrdiff_t) W * C, 0, 0, W, H };
  return q;
}

/* ---- naive kernels: one thread per pixel, global memory, border mapped */

__constant__ float naive_m[63 * 63];

/* The benchmark's 13 x 13 matrix: not separable, centre weighted. */
static void
bench_matrix13 (float *m)
{
  for (int k = 0; k < 169; k++)
    m[k] = (float) ((k * 37) % 11) / 100.f + (k == 84);
}

__global__ void
naive_conv (CudaGeom g, const float *in, float *out, int mw, int mh)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x,
      y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.image_w || y >= g.image_h)
    return;
  for (int c = 0; c < C; c++)
    {
      float acc = 0;
      for (int j = 0; j < mh; j++)
        for (int i = 0; i < mw; i++)
          {
            int xi = gpufx_border_index (x + i - mw / 2, g.image_w, g.border);
            int yi = gpufx_border_index (y + j - mh / 2, g.image_h, g.border);
            acc += naive_m[j * mw + i]
                   * in[((size_t) yi * g.image_w + xi) * C + c];
          }
      out[((size_t) y * g.image_w + x) * C + c] = acc;
    }
}

__global__ void
naive_sobel (CudaGeom g, const float *in, float *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x,
      y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.image_w || y >= g.image_h)
    return;
  for (int c = 0; c < C; c++)
    {
      float       gx = 0, gy = 0;
      const float kx[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
      const float ky[9] = { 1, 2, 1, 0, 0, 0, -1, -2, -1 };
      for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
          {
            int   xi = gpufx_border_index (x + i - 1, g.image_w, g.border);
            int   yi = gpufx_border_index (y + j - 1, g.image_h, g.border);
            float v = in[((size_t) yi * g.image_w + xi) * C + c];
            gx += kx[j * 3 + i] * v;
            gy += ky[j * 3 + i] * v;
          }
      out[((size_t) y * g.image_w + x) * C + c]
        = c == 3 ? in[((size_t) y * g.image_w + x) * C + c]
                 : sqrtf (gx * gx + gy * gy) * 0.1767767f;
    }
}

__global__ void
naive_kuwahara (CudaGeom g, const float *in, float *out, int r)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x,
      y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.image_w || y >= g.image_h)
    return;
  double best = 1e300;
  float  mean[C] = { 0, 0, 0, 0 };
  for (int q = 0; q < 4; q++)
    {
      int    x0 = q & 1 ? x : x - r, y0 = q & 2 ? y : y - r;
      double s1 = 0, s2 = 0;
      float  sc[C] = { 0, 0, 0, 0 };
      for (int j = 0; j <= r; j++)
        for (int i = 0; i <= r; i++)
          {
            int          xi = gpufx_border_index (x0 + i, g.image_w, g.border);
            int          yi = gpufx_border_index (y0 + j, g.image_h, g.border);
            const float *p = in + ((size_t) yi * g.image_w + xi) * C;
            float        v = fmaxf (p[0], fmaxf (p[1], p[2]));
            s1 += v;
            s2 += (double) v * v;
            for (int c = 0; c < C; c++)
              sc[c] += p[c];
          }
      double n = (r + 1.0) * (r + 1.0), var = s2 / n - (s1 / n) * (s1 / n);
      if (var < best)
        {
          best = var;
          for (int c = 0; c < C; c++)
            mean[c] = sc[c] / n;
        }
    }
  for (int c = 0; c < C; c++)
    out[((size_t) y * g.image_w + x) * C + c] = mean[c];
}

/* FMA rate: 4 independent chains per thread (T = float, and double for
 * the sum of cosines' arithmetic). */
__device__ __forceinline__ float
bench_fma (float a, float b, float c)
{
  return fmaf (a, b, c);
}
__device__ __forceinline__ double
bench_fma (double a, double b, double c)
{
  return fma (a, b, c);
}

template <class T>
__global__ void
fma_kernel (T *out, int n)
{
  T a = threadIdx.x * (T) 1e-3, b = (T) 1.0001, c0 = (T) 0.5, c1 = (T) 0.25,
    c2 = (T) 0.125, c3 = (T) 0.0625;
  for (int i = 0; i < n; i++)
    {
      c0 = bench_fma (a, b, c0);
      c1 = bench_fma (a, b, c1);
      c2 = bench_fma (a, b, c2);
      c3 = bench_fma (a, b, c3);
      a = bench_fma (c0, (T) 1e-7, a);
    }
  if (c0 + c1 + c2 + c3 == (T) 12345)
    out[0] = a;
}

static dim3
g2 (void)
{
  return dim3 ((W + 15) / 16, (H + 15) / 16);
}

/* A device-resident call's time both ways (bench-time.h): the GPU's own,
 * which the roofline is a rate of, and the call from an idle GPU, which also
 * holds the host's submission of the launches. */
struct Ms
{
  double gpu, call;
};

template <class F>
static Ms
time_both (F f, int reps = 30)
{
  Ms m;

  m.gpu = time_gpu_ms (f, reps);
  m.call = time_ms (f, reps);
  return m;
}

static void
row (const char *filter,
     const char *impl,
     Ms          ms,
     double      bytes,
     const char *note)
{
  double roof = bytes / (g_d2d_gbs * 1e9) * 1e3;

  printf ("| %dx%d | %-24s | %-22s | %9.3f | %9.3f | %5.0f%% | call from idle "
          "%.3f ms (%.0f%%)%s%s |\n",
          W, H, filter, impl, ms.gpu, roof, roof / ms.gpu * 100, ms.call,
          roof / ms.call * 100, *note ? "; " : "", note);
}

static void
run_size (int w, int h)
{
  size_t    n = (size_t) w * h * C, bytes = n * sizeof (float);
  CudaGeom  g;
  CudaPlane in, out, tmp;
  double    pass = 2.0 * bytes; /* read + write of one image */

  W = w;
  H = h;
  g = geom ();
  for (int i = 0; i < NBUF; i++)
    {
      std::vector<float> hbuf (n);
      for (size_t k = 0; k < n; k++)
        hbuf[k] = (float) ((k * 2654435761u) % 1000) / 1000.f;
      CK (cudaMalloc (&g_in[i], bytes));
      CK (cudaMemcpy (g_in[i], hbuf.data (), bytes, cudaMemcpyHostToDevice));
    }
  CK (cudaMalloc (&g_out, bytes));
  CK (cudaMalloc (&g_tmp, bytes));
  g_scratch_bytes = gpufx_cuda_kuwahara_scratch (w, h, 30, h + 60, C);
  CK (cudaMalloc (&g_scratch, g_scratch_bytes));
  out = plane (g_out);
  tmp = plane (g_tmp);
  dim3 blk (16, 16);

  /* Sobel */
  row ("sobel", "ours", time_both ([&] (int i) {
         in = plane (g_in[i % NBUF]);
         gpufx_cuda_sobel (g, in, out, true, true, false, 0);
       }),
       pass, "");
  /* A gray image of the same size (a quarter of the bytes): its own kernel,
   * four columns a lane. */
  row ("sobel gray", "ours", time_both ([&] (int i) {
         CudaGeom  g1 = { W, H, 1, -1, GPUFX_BORDER_CLAMP };
         CudaPlane i1 = { g_in[i % NBUF], W, 0, 0, W, H };
         CudaPlane o1 = { g_out, W, 0, 0, W, H };

         gpufx_cuda_sobel (g1, i1, o1, true, true, false, 0);
       }),
       pass / C, "");
  row ("sobel", "naive", time_both ([&] (int i) {
         naive_sobel<<<g2 (), blk>>> (g, g_in[i % NBUF], g_out);
       }),
       pass, "");

  /* Gaussian */
  const double sig[]
    = { 2, 5, 10, 15, 16, 25, 50, 100, 120, 150, 200, 500, 1500 };
  for (double s : sig)
    {
      GpufxGaussianPlan p;
      char              name[64];
      int               n_taps = 0;

      gpufx_gaussian_plan_init (&p, s, GPUFX_CUDA_GAUSS_DIRECT_RADIUS);
      if (p.n_terms)
        for (int a = 0; a < 2; a++)
          CK (gpufx_cuda_line_cosines_upload (a, &p));
      else
        {
          std::vector<float> t (2 * p.radius + 1);
          for (int k = 0; k <= 2 * p.radius; k++)
            t[k] = (float) p.taps[k];
          n_taps = 2 * p.radius + 1;
          for (int a = 0; a < 2; a++)
            CK (gpufx_cuda_line_taps_upload (a, t.data (), n_taps));
        }
      snprintf (name, sizeof name, "gaussian s=%g", s);
      row (name, p.n_terms ? "ours (cosines)" : "ours (taps)",
           time_both (
             [&] (int i) {
               in = plane (g_in[i % NBUF]);
               if (p.n_terms)
                 {
                   gpufx_cuda_line_cosines (g, 0, in, tmp, p.radius, p.n_terms,
                                            0);
                   gpufx_cuda_line_cosines (g, 1, tmp, out, p.radius, p.n_terms,
                                            0);
                 }
               else
                 {
                   gpufx_cuda_line_taps (g, 0, in, tmp, n_taps, -p.radius, 1, 0,
                                         0);
                   gpufx_cuda_line_taps (g, 1, tmp, out, n_taps, -p.radius, 1,
                                         0, 0);
                 }
             },
             10),
           2 * pass, "roofline: two passes");
      gpufx_gaussian_plan_clear (&p);
    }

  /* Convolution 13x13, not separable */
  {
    float m[169];
    bench_matrix13 (m);
    CK (gpufx_cuda_convolve_upload (m, 13, 13));
    CK (cudaMemcpyToSymbol (naive_m, m, sizeof m));
    Ms   ms = time_both ([&] (int i) {
      in = plane (g_in[i % NBUF]);
      gpufx_cuda_convolve (g, in, out, 13, 13, 1, 0, 0);
    });
    char note[96];
    snprintf (note, sizeof note, "%.0f GFMA/s",
              (double) W * H * C * 169 / ms.gpu / 1e6);
    row ("convolve 13x13", "ours", ms, pass, note);
    row ("convolve 13x13", "naive",
         time_both (
           [&] (int i) {
             naive_conv<<<g2 (), blk>>> (g, g_in[i % NBUF], g_out, 13, 13);
           },
           5),
         pass, "");
  }

  /* Kuwahara */
  const int radii[] = { 1, 2, 10, 30 };
  for (int r : radii)
    {
      char        name[64];
      CudaScratch sc = { g_scratch, g_scratch_bytes };
      snprintf (name, sizeof name, "kuwahara r=%d", r);
      row (name, "ours",
           time_both (
             [&] (int i) {
               in = plane (g_in[i % NBUF]);
               gpufx_cuda_kuwahara (g, in, out, r, sc, 0);
             },
             10),
           pass, "");
      if (r == 10)
        row (name, "naive",
             time_both (
               [&] (int i) {
                 naive_kuwahara<<<g2 (), blk>>> (g, g_in[i % NBUF], g_out, r);
               },
               2),
             pass, "");
    }

  for (int i = 0; i < NBUF; i++)
    cudaFree (g_in[i]);
  cudaFree (g_out);
  cudaFree (g_tmp);
  cudaFree (g_scratch);
}

/* ---- host to host: gpufx_run, what the plug-in sees -------------------- */

static double g_h2d_gbs, g_d2h_gbs; /* pinned, one way, bytes / s / 1e9 */
static std::vector<std::string> g_late_limits; /* printed after the table */

static double
host_ms (const struct timespec &a, const struct timespec &b)
{
  return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6;
}

/* The q-quantile (0..1) of v. */
static double
quantile (std::vector<double> v, double q)
{
  std::sort (v.begin (), v.end ());
  return v[(size_t) (q * (v.size () - 1) + 0.5)];
}

struct H2hLink
{
  void        *dev_in, *dev_out;
  const float *src;
  float       *dst;
  size_t       bytes;
  cudaStream_t up, down;
};

/* The host-to-host bound, once: what a perfect pipeline must move over the
 * link, the whole input up and the whole output down, both at once (one
 * stream each way), from and to the page-locked buffers the filter reads
 * and writes, timed as gpufx_run is (host clock, to the last byte). */
static double
h2h_bound_once (const H2hLink &l)
{
  struct timespec a, b;

  clock_gettime (CLOCK_MONOTONIC, &a);
  CK (cudaMemcpyAsync (l.dev_in, l.src, l.bytes, cudaMemcpyHostToDevice, l.up));
  CK (cudaMemcpyAsync (l.dst, l.dev_out, l.bytes, cudaMemcpyDeviceToHost,
                       l.down));
  CK (cudaStreamSynchronize (l.up));
  CK (cudaStreamSynchronize (l.down));
  clock_gettime (CLOCK_MONOTONIC, &b);
  return host_ms (a, b);
}

static const int H2H_PAIRS = 31;

/* GPUFX_BENCH_H2H_ROWS: the host-to-host rows to run, by name, separated
 * by commas (every row where unset), for runs under several settings in
 * one call. */
static bool
h2h_row_wanted (const char *name)
{
  const char *want = getenv ("GPUFX_BENCH_H2H_ROWS");

  if (! want || ! *want)
    return true;
  return (std::string (",") + want + ",").find (std::string (",") + name + ",")
         != std::string::npos;
}

/* gpufx_run on page-locked buffers (cudaHostAllocPortable, as
 * gpufx_host_alloc gives GIMP's operations), interleaved with the bound:
 * bound, filter, bound, filter, ... so that both see the same link.  The
 * row's ms is the filter's median, "roofline ms" the bound's, and % the
 * median of the per-pair ratios bound / filter.  The note adds the bound
 * a filter of this reach (rows of input beyond an output row) could reach
 * at best: no output row is final before `reach' rows beyond it are up,
 * so the first reach rows go up alone and the last reach rows come down
 * alone:  reach / H (up + down, one way each) + (H - reach) / H bound. */
static void
run_h2h (int w, int h)
{
  const size_t        n = (size_t) w * h * C, bytes = n * sizeof (float);
  float              *hs, *hd;
  H2hLink             l;
  GpufxOptions        o;
  std::vector<double> all_bound;

  W = w;
  H = h;
  CK (cudaHostAlloc (&hs, bytes, cudaHostAllocPortable));
  CK (cudaHostAlloc (&hd, bytes, cudaHostAllocPortable));
  for (size_t k = 0; k < n; k++)
    {
      hs[k] = (float) (k % 977) / 977.f;
      hd[k] = 0;
    }
  l.src = hs;
  l.dst = hd;
  l.bytes = bytes;
  CK (cudaMalloc (&l.dev_in, bytes));
  CK (cudaMalloc (&l.dev_out, bytes));
  CK (cudaMemset (l.dev_out, 0, bytes));
  CK (cudaStreamCreateWithFlags (&l.up, cudaStreamNonBlocking));
  CK (cudaStreamCreateWithFlags (&l.down, cudaStreamNonBlocking));

  /* No alpha: the core's alpha conversion runs on the CPU and is not
   * what this measures. */
  GpufxImage vs = { hs, W, H, C, (ptrdiff_t) W * C, -1, false };
  GpufxImage vd = { hd, W, H, C, (ptrdiff_t) W * C, -1, false };
  gpufx_options_init (&o);
  o.backend = GPUFX_BACKEND_CUDA;

  struct Case
  {
    const char     *name;
    GpufxFilterKind kind;
    double          param;
  };
  const Case cases[] = {
    { "sobel", GPUFX_FILTER_SOBEL, 0 },
    { "gaussian s=2", GPUFX_FILTER_GAUSSIAN_BLUR, 2 },
    { "gaussian s=10", GPUFX_FILTER_GAUSSIAN_BLUR, 10 },
    { "gaussian s=50", GPUFX_FILTER_GAUSSIAN_BLUR, 50 },
    { "gaussian s=200", GPUFX_FILTER_GAUSSIAN_BLUR, 200 },
    { "convolve 13x13", GPUFX_FILTER_CONVOLVE, 13 },
    { "kuwahara r=10", GPUFX_FILTER_KUWAHARA, 10 },
    { "kuwahara r=30", GPUFX_FILTER_KUWAHARA, 30 },
  };
  for (const Case &c : cases)
    {
      GpufxFilter         f;
      std::vector<double> tf, tb, ratio;
      int                 reach, left, right, bottom;
      bool                ok = true;
      double              first = 0; /* the first call's time */

      if (! h2h_row_wanted (c.name))
        continue;
      gpufx_filter_init (&f, c.kind);
      switch (c.kind)
        {
        case GPUFX_FILTER_SOBEL: break;
        case GPUFX_FILTER_GAUSSIAN_BLUR:
          f.gaussian.std_dev_x = f.gaussian.std_dev_y = c.param;
          break;
        case GPUFX_FILTER_CONVOLVE:
          /* bench's device-resident 13x13 matrix (not rank 1) */
          f.convolve.width = f.convolve.height = 13;
          bench_matrix13 (f.convolve.matrix);
          f.convolve.divisor = 1;
          f.convolve.offset = 0;
          f.convolve.normalize = false;
          break;
        case GPUFX_FILTER_KUWAHARA: f.kuwahara.radius = (int) c.param; break;
        }
      /* Rows of input beyond an output row (the bands run down the image). */
      gpufx_filter_reach (&f, &left, &right, &reach, &bottom);
      reach = std::max (reach, bottom);
      for (int rep = -2; rep < H2H_PAIRS && ok; rep++)
        {
          GpufxReport     rr;
          struct timespec a, b;
          double          bound = h2h_bound_once (l);

          clock_gettime (CLOCK_MONOTONIC, &a);
          GpufxStatus st = gpufx_run (&f, &vs, &vd, &o, &rr);
          clock_gettime (CLOCK_MONOTONIC, &b);
          if (st != GPUFX_OK || rr.backend_used != GPUFX_BACKEND_CUDA)
            {
              printf ("host-to-host %s failed: %s\n", c.name, rr.message);
              ok = false;
            }
          else if (rep == -2)
            first = host_ms (a, b);
          else if (rep >= 0) /* two warm-up pairs */
            {
              tb.push_back (bound);
              tf.push_back (host_ms (a, b));
              ratio.push_back (bound / host_ms (a, b));
            }
        }
      if (! ok)
        continue;
      all_bound.insert (all_bound.end (), tb.begin (), tb.end ());

      double up1 = bytes / g_h2d_gbs / 1e6, down1 = bytes / g_d2h_gbs / 1e6;
      double share = std::min (1.0, (double) reach / H);
      double dep = share * (up1 + down1) + (1 - share) * quantile (tb, 0.5);
      printf ("| %dx%d | %-24s | %-22s | %9.3f | %9.3f | %5.0f%% | "
              "host-to-host, pinned, gpufx_run; bound: in up + out down at "
              "once, %d pairs interleaved; filter p10-p90 %.3f-%.3f, bound "
              "%.3f-%.3f; reach %d rows: %.3f ms at best (%.0f%%); first "
              "call %.3f ms |\n",
              W, H, c.name, "ours h2h", quantile (tf, 0.5), quantile (tb, 0.5),
              100 * quantile (ratio, 0.5), H2H_PAIRS, quantile (tf, 0.1),
              quantile (tf, 0.9), quantile (tb, 0.1), quantile (tb, 0.9), reach,
              dep, 100 * quantile (tb, 0.5) / dep, first);
      fflush (stdout);
    }
  /* What a call costs besides the copies: Sobel on a 64 x 64 corner of the
   * same page-locked buffers. */
  {
    GpufxImage          ts = { hs, 64, 64, C, (ptrdiff_t) W * C, -1, false };
    GpufxImage          td = { hd, 64, 64, C, (ptrdiff_t) W * C, -1, false };
    GpufxFilter         f;
    std::vector<double> t;
    char                line[256];

    gpufx_filter_init (&f, GPUFX_FILTER_SOBEL);
    for (int rep = -2; rep < H2H_PAIRS; rep++)
      {
        GpufxReport     rr;
        struct timespec a, b;

        clock_gettime (CLOCK_MONOTONIC, &a);
        GpufxStatus st = gpufx_run (&f, &ts, &td, &o, &rr);
        clock_gettime (CLOCK_MONOTONIC, &b);
        if (st == GPUFX_OK && rep >= 0)
          t.push_back (host_ms (a, b));
      }
    if (! t.empty ())
      {
        snprintf (line, sizeof line,
                  "cost: gpufx_run sobel 64x64 of the %dx%d pinned buffers "
                  "(a call's fixed cost) %.3f ms, p10-p90 %.3f-%.3f",
                  W, H, quantile (t, 0.5), quantile (t, 0.1),
                  quantile (t, 0.9));
        g_late_limits.push_back (line);
      }
  }
  if (! all_bound.empty ())
    {
      char line[256];

      snprintf (line, sizeof line,
                "limit: host-to-host bound %dx%d RGBA f32 (pinned, in up + out "
                "down at once, interleaved with the h2h rows) %.3f ms, p10-p90 "
                "%.3f-%.3f, %zu copies",
                W, H, quantile (all_bound, 0.5), quantile (all_bound, 0.1),
                quantile (all_bound, 0.9), all_bound.size ());
      g_late_limits.push_back (line);
    }
  cudaStreamDestroy (l.up);
  cudaStreamDestroy (l.down);
  cudaFree (l.dev_in);
  cudaFree (l.dev_out);
  cudaFreeHost (hs);
  cudaFreeHost (hd);
  gpufx_release ();
}

int
main (int argc, char **argv)
{
  char           why[256];
  cudaDeviceProp prop;
  /* --h2h: the limits and the host-to-host rows only (quick, for runs
   * under several settings in one call). */
  bool h2h_only = argc > 1 && strcmp (argv[1], "--h2h") == 0;

  if (! gpufx_backend_available (GPUFX_BACKEND_CUDA, why, sizeof why))
    {
      printf ("SKIP: %s\n", why);
      return 77;
    }
  CK (cudaGetDeviceProperties (&prop, 0));
  printf ("device: %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
          prop.l2CacheSize >> 20);

  /* Limits */
  {
    size_t b = (size_t) 1 << 30;
    void  *x, *y, *h;
    CK (cudaMalloc (&x, b));
    CK (cudaMalloc (&y, b));
    double ms = time_ms (
      [&] (int) { cudaMemcpyAsync (y, x, b, cudaMemcpyDeviceToDevice); }, 10);
    g_d2d_gbs = 2.0 * b / ms / 1e6;
    printf ("limit: D2D copy %.0f GB/s (read+write)\n", g_d2d_gbs);
    CK (cudaHostAlloc (&h, b, 0));
    double h2d = time_ms (
      [&] (int) { cudaMemcpyAsync (x, h, b, cudaMemcpyHostToDevice); }, 5);
    double d2h = time_ms (
      [&] (int) { cudaMemcpyAsync (h, x, b, cudaMemcpyDeviceToHost); }, 5);
    g_h2d_gbs = b / h2d / 1e6;
    g_d2h_gbs = b / d2h / 1e6;
    printf ("limit: pinned H2D %.1f GB/s, D2H %.1f GB/s\n", g_h2d_gbs,
            g_d2h_gbs);
    printf ("limit: host-to-host bound 4K RGBA f32 (in+out, overlapped) %.3f "
            "ms, serial %.3f ms\n",
            std::max (h2d, d2h) * (3840.0 * 2160 * 16 / b),
            (h2d + d2h) * (3840.0 * 2160 * 16 / b));
    printf ("limit: host-to-host bound 1080p RGBA f32 serial %.3f ms\n",
            (h2d + d2h) * (1920.0 * 1080 * 16 / b));
    /* Both directions at once, as an overlapped pipeline runs them: one
     * 4K image up in one stream while another comes down in a second (a
     * link may not give both directions their one-way speed at once). */
    {
      size_t       img = (size_t) 3840 * 2160 * 16;
      cudaStream_t s1, s2;
      CK (cudaStreamCreate (&s1));
      CK (cudaStreamCreate (&s2));
      double both = time_ms (
        [&] (int) {
          cudaMemcpyAsync (x, h, img, cudaMemcpyHostToDevice, s1);
          cudaMemcpyAsync ((char *) h + img, y, img, cudaMemcpyDeviceToHost,
                           s2);
        },
        15);
      printf ("limit: host-to-host bound 4K RGBA f32 (in+out at once, "
              "measured) %.3f ms\n",
              both);
      /* The same bytes both ways at once, copied as a pipeline might:
       * 2D copies of 3840-pixel rows; 69-row (4 MiB) pieces queued in the
       * two streams; each direction split over two streams. */
      const size_t row = (size_t) 3840 * 16, piece = 69 * row;
      cudaStream_t s3, s4;
      CK (cudaStreamCreate (&s3));
      CK (cudaStreamCreate (&s4));
      double rows2d = time_ms (
        [&] (int) {
          cudaMemcpy2DAsync (x, row, h, row, row, 2160, cudaMemcpyHostToDevice,
                             s1);
          cudaMemcpy2DAsync ((char *) h + img, row, y, row, row, 2160,
                             cudaMemcpyDeviceToHost, s2);
        },
        15);
      double pieces = time_ms (
        [&] (int) {
          for (size_t o = 0; o < img; o += piece)
            {
              size_t m = std::min (piece, img - o);
              cudaMemcpyAsync ((char *) x + o, (char *) h + o, m,
                               cudaMemcpyHostToDevice, s1);
              cudaMemcpyAsync ((char *) h + img + o, (char *) y + o, m,
                               cudaMemcpyDeviceToHost, s2);
            }
        },
        15);
      double two = time_ms (
        [&] (int) {
          size_t half = img / 2;
          cudaMemcpyAsync (x, h, half, cudaMemcpyHostToDevice, s1);
          cudaMemcpyAsync ((char *) x + half, (char *) h + half, img - half,
                           cudaMemcpyHostToDevice, s3);
          cudaMemcpyAsync ((char *) h + img, y, half, cudaMemcpyDeviceToHost,
                           s2);
          cudaMemcpyAsync ((char *) h + img + half, (char *) y + half,
                           img - half, cudaMemcpyDeviceToHost, s4);
        },
        15);
      printf ("limit: host-to-host 4K both ways at once, copied as: 2D rows "
              "%.3f ms, 4 MiB pieces %.3f ms, two streams each way %.3f ms\n",
              rows2d, pieces, two);
      cudaStreamDestroy (s1);
      cudaStreamDestroy (s2);
      cudaStreamDestroy (s3);
      cudaStreamDestroy (s4);
    }
    cudaFreeHost (h);
    float *o;
    CK (cudaMalloc (&o, 4));
    int    blocks = prop.multiProcessorCount * 16, iters = 4096;
    double fms = time_ms (
      [&] (int) { fma_kernel<float><<<blocks, 256>>> (o, iters); }, 5);
    printf ("limit: FP32 FMA %.0f GFMA/s\n",
            (double) blocks * 256 * iters * 5 / fms / 1e6);
    double *od;
    CK (cudaMalloc (&od, 8));
    fms = time_ms (
      [&] (int) { fma_kernel<double><<<blocks, 256>>> (od, iters); }, 5);
    printf ("limit: FP64 FMA %.0f GFMA/s\n",
            (double) blocks * 256 * iters * 5 / fms / 1e6);
    cudaFree (od);
    cudaFree (o);
    cudaFree (x);
    cudaFree (y);
  }
  printf ("\n| size | filter | impl | ms | roofline ms | %% of roof | note "
          "|\n|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < 2; k++)
    {
      int w = k ? 3840 : 1920, h = k ? 2160 : 1080;

      if (! h2h_only)
        run_size (w, h);
      run_h2h (w, h);
    }
  printf ("\n");
  for (const std::string &line : g_late_limits)
    printf ("%s\n", line.c_str ());
  return 0;
}

/* gimp-gpu-filters: the tree's Sobel kernel against other designs of it and
 * against a plain copy, on whatever GPU this runs on.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Why: Sobel is the one filter that should run at memory speed, and which
 * design gets closest moves with the GPU (round 27: on the H200, with
 * 1.4x the H100's bandwidth, the tree's design fell from 88% to 76% of
 * the roofline).  The designs here are specialised: RGBA, clamp, both
 * directions, a whole image whose width is a multiple of 64.  The tree's
 * kernel also handles regions of bands, 1 to 4 channels, every border and
 * the single-direction modes.  rows3 is the tree's design to round 27
 * specialised the same way, and shuffle the design the tree took in round
 * 28 (round 27: shuffles led rows3 by 3-4% here, but a general shuffle
 * kernel ran 5-8% slower than the tree's; round 28's, which shuffles each
 * row once, runs as fast as the specialised one).  Every design must match the
 * tree's output bit for bit (the same arithmetic in the same order); a mismatch
 * fails the run.  Times: CUDA events, median of 41 after 3 warm-ups, inputs
 * rotated over 4 buffers (larger than L2), every design timed in two passes in
 * opposite orders, each as the call from an idle GPU and as the GPU's own time
 * (bench-time.h).
 * "% roof" is against bench-gpu's roofline (a 1 GiB device copy's rate), "%
 * best copy" against the fastest copy of the same bytes (two copy kernels
 * and cudaMemcpyAsync), which pay the same launch and ramp.
 *
 *   bench-sobel-designs [W H [tree]]   (default 3840 2160; "tree": the
 *                                       tree's kernel and the copies only,
 *                                       for sweeps of its shape) */
#include "bench-check.h"
#include "bench-time.h"
#include "cuda-internal.h"

#include <algorithm>
#include <functional>
#include <cuda_pipeline.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static const int NBUF = 4, REPS = 41;

/* The tree's arithmetic on one output: rows t, m, b, columns 0..2. */
static __device__ __forceinline__ float4
designs_sobel (const float4 *t, const float4 *m, const float4 *b, int alpha)
{
  float o[4];

#pragma unroll
  for (int c = 0; c < 4; c++)
    {
      auto ch = [c] (const float4 &p) {
        return c == 0 ? p.x : c == 1 ? p.y : c == 2 ? p.z : p.w;
      };
      float gx, gy;

      if (c == alpha)
        {
          o[c] = ch (m[1]);
          continue;
        }
      gx = (ch (t[2]) + 2.0f * ch (m[2]) + ch (b[2]))
           - (ch (t[0]) + 2.0f * ch (m[0]) + ch (b[0]));
      gy = (ch (t[0]) + 2.0f * ch (t[1]) + ch (t[2]))
           - (ch (b[0]) + 2.0f * ch (b[1]) + ch (b[2]));
      o[c] = sqrtf (gx * gx + gy * gy) * 0.17677669529663688f;
    }
  return make_float4 (o[0], o[1], o[2], o[3]);
}

static __device__ __forceinline__ const float4 *
designs_row (const CudaGeom &g, const CudaPlane &in, int y)
{
  int yi = gpufx_border_index (y, g.image_h, g.border);

  return (const float4 *) (in.p + (ptrdiff_t) yi * in.pitch);
}

/* Three loads per row: a thread slides a 3 x 3 window down R rows of one
 * column, loading the left, centre and right pixel of each row (the tree's
 * design in rounds 5-27: 32 x 4 blocks of 4 rows, the H100's best). */
template <int TX, int TY, int R>
__global__ void
__launch_bounds__ (TX *TY)
  designs_rows3 (CudaGeom g, CudaPlane in, CudaPlane out)
{
  const int x = blockIdx.x * TX + threadIdx.x;
  const int y0 = (blockIdx.y * TY + threadIdx.y) * R;
  int       xs[3];
  float4    w[3][3];

  if (x >= out.w || y0 >= out.h)
    return;
  for (int i = 0; i < 3; i++)
    xs[i] = gpufx_border_index (x + i - 1, g.image_w, g.border);
  auto load_row = [&] (int y, float4 *p) {
    const float4 *line = designs_row (g, in, min (y, out.h));

#pragma unroll
    for (int i = 0; i < 3; i++)
      p[i] = __ldg (line + xs[i]);
  };

  load_row (y0 - 1, w[0]);
  load_row (y0, w[1]);
#pragma unroll
  for (int k = 0; k < R; k++)
    {
      if (y0 + k >= out.h)
        break;
      load_row (y0 + k + 1, w[(k + 2) % 3]);
      ((float4 *) (out.p + (ptrdiff_t) (y0 + k) * out.pitch))[x]
        = designs_sobel (w[k % 3], w[(k + 1) % 3], w[(k + 2) % 3], g.alpha);
    }
}

/* Preload: a thread's R + 2 rows of three pixels loaded before any
 * arithmetic (no early exit; rows past the end clamped). */
template <int TX, int TY, int R>
__global__ void
__launch_bounds__ (TX *TY)
  designs_preload (CudaGeom g, CudaPlane in, CudaPlane out)
{
  const int x = blockIdx.x * TX + threadIdx.x;
  const int y0 = (blockIdx.y * TY + threadIdx.y) * R;
  int       xs[3];
  float4    w[R + 2][3];

  if (x >= out.w || y0 >= out.h)
    return;
  for (int i = 0; i < 3; i++)
    xs[i] = gpufx_border_index (x + i - 1, g.image_w, g.border);
#pragma unroll
  for (int k = 0; k < R + 2; k++)
    {
      const float4 *line = designs_row (g, in, min (y0 + k - 1, out.h));

#pragma unroll
      for (int i = 0; i < 3; i++)
        w[k][i] = __ldg (line + xs[i]);
    }
#pragma unroll
  for (int k = 0; k < R; k++)
    if (y0 + k < out.h)
      ((float4 *) (out.p + (ptrdiff_t) (y0 + k) * out.pitch))[x]
        = designs_sobel (w[k], w[k + 1], w[k + 2], g.alpha);
}

/* Shuffle: a lane loads its own column; its neighbours come by shuffles,
 * lanes 0 and 31 load the pixel beyond the warp.  Needs w % 32 == 0. */
template <int TY, int R>
__global__ void __launch_bounds__ (32 * TY)
  designs_shuffle (CudaGeom g, CudaPlane in, CudaPlane out)
{
  const int lane = threadIdx.x, x = blockIdx.x * 32 + lane;
  const int y0 = (blockIdx.y * TY + threadIdx.y) * R;
  const int xe
    = gpufx_border_index (lane == 0 ? x - 1 : x + 1, g.image_w, g.border);
  float4 c[R + 2], e[R + 2];

  if (y0 >= out.h)
    return;
#pragma unroll
  for (int k = 0; k < R + 2; k++)
    {
      const float4 *line = designs_row (g, in, min (y0 + k - 1, out.h));

      c[k] = __ldg (line + x);
      if (lane == 0 || lane == 31)
        e[k] = __ldg (line + xe);
    }
#pragma unroll
  for (int k = 0; k < R; k++)
    {
      float4 w[3][3];

#pragma unroll
      for (int i = 0; i < 3; i++)
        {
          float4 m = c[k + i], l, r;

          l.x = __shfl_up_sync (~0u, m.x, 1);
          l.y = __shfl_up_sync (~0u, m.y, 1);
          l.z = __shfl_up_sync (~0u, m.z, 1);
          l.w = __shfl_up_sync (~0u, m.w, 1);
          r.x = __shfl_down_sync (~0u, m.x, 1);
          r.y = __shfl_down_sync (~0u, m.y, 1);
          r.z = __shfl_down_sync (~0u, m.z, 1);
          r.w = __shfl_down_sync (~0u, m.w, 1);
          w[i][0] = lane == 0 ? e[k + i] : l;
          w[i][1] = m;
          w[i][2] = lane == 31 ? e[k + i] : r;
        }
      if (y0 + k < out.h)
        ((float4 *) (out.p + (ptrdiff_t) (y0 + k) * out.pitch))[x]
          = designs_sobel (w[0], w[1], w[2], g.alpha);
    }
}

/* Tile: the block's outputs and a one-pixel rim copied to shared memory by
 * cp.async, then each thread slides down R rows of one column. */
template <int TX, int TY, int R>
__global__ void
__launch_bounds__ (TX *TY)
  designs_tile (CudaGeom g, CudaPlane in, CudaPlane out)
{
  constexpr int     IW = TX + 2, IH = TY * R + 2;
  __shared__ float4 s[IH][IW];
  const int         bx = blockIdx.x * TX, by = blockIdx.y * TY * R;
  const int         x = bx + threadIdx.x, ly = threadIdx.y * R;
  float4            w[3][3];

  for (int i = threadIdx.y * TX + threadIdx.x; i < IW * IH; i += TX * TY)
    {
      int r = i / IW, c = i - r * IW;
      int xi
        = gpufx_border_index (min (bx + c - 1, out.w), g.image_w, g.border);

      __pipeline_memcpy_async (
        &s[r][c], designs_row (g, in, min (by + r - 1, out.h)) + xi, 16);
    }
  __pipeline_commit ();
  __pipeline_wait_prior (0);
  __syncthreads ();
#pragma unroll
  for (int k = 0; k < R + 2; k++)
    {
#pragma unroll
      for (int i = 0; i < 3; i++)
        w[k % 3][i] = s[ly + k][threadIdx.x + i];
      if (k >= 2 && x < out.w && by + ly + k - 2 < out.h)
        ((float4 *) (out.p + (ptrdiff_t) (by + ly + k - 2) * out.pitch))[x]
          = designs_sobel (w[(k + 1) % 3], w[(k + 2) % 3], w[k % 3], g.alpha);
    }
}

/* Ring: a warp walks 32 columns down SEG rows, its input rows flowing
 * through a ring of D rows in shared memory that cp.async fills D - 3 rows
 * ahead.  Needs w % 32 == 0. */
template <int WARPS, int D, int SEG>
__global__ void __launch_bounds__ (32 * WARPS)
  designs_ring (CudaGeom g, CudaPlane in, CudaPlane out)
{
  __shared__ float4 ring[WARPS][D][34];
  const int         lane = threadIdx.x;
  const int         x0 = (blockIdx.x * WARPS + threadIdx.y) * 32;
  const int         x = x0 + lane, y0 = blockIdx.y * SEG;
  float4 (*rg)[34] = ring[threadIdx.y];
  float4 w[3][3];

  if (x0 >= out.w)
    return;
  const int xe
    = gpufx_border_index (lane == 0 ? x0 - 1 : x0 + 32, g.image_w, g.border);
  const int rows = min (SEG, out.h - y0) + 2;
  auto      issue = [&] (int i) {
    if (i < rows)
      {
        const float4 *line = designs_row (g, in, min (y0 + i - 1, out.h));

        __pipeline_memcpy_async (&rg[i % D][lane + 1], line + x, 16);
        if (lane == 0 || lane == 31)
          __pipeline_memcpy_async (&rg[i % D][lane == 0 ? 0 : 33], line + xe,
                                        16);
      }
    __pipeline_commit ();
  };

  for (int i = 0; i < D - 1; i++)
    issue (i);
  __pipeline_wait_prior (D - 3);
  __syncwarp ();
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      w[i][j] = rg[i][lane + j];
  for (int k = 0; k < rows - 2; k += 3)
#pragma unroll
    for (int u = 0; u < 3; u++)
      {
        if (k + u >= rows - 2)
          break;
        __syncwarp (); /* row k + u - 1's slot is free */
        issue (k + u + D - 1);
        __pipeline_wait_prior (D - 3); /* rows up to k + u + 2 are in */
        __syncwarp ();
#pragma unroll
        for (int j = 0; j < 3; j++)
          w[(u + 2) % 3][j] = rg[(k + u + 2) % D][lane + j];
        ((float4 *) (out.p + (ptrdiff_t) (y0 + k + u) * out.pitch))[x]
          = designs_sobel (w[u % 3], w[(u + 1) % 3], w[(u + 2) % 3], g.alpha);
      }
}

/* A copy of U float4 a thread, all loads before the stores. */
template <int U>
__global__ void
designs_copy (const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
  size_t i = (size_t) blockIdx.x * blockDim.x * U + threadIdx.x;
  float4 v[U];

#pragma unroll
  for (int u = 0; u < U; u++)
    if (i + u * blockDim.x < n)
      v[u] = __ldg (a + i + u * blockDim.x);
#pragma unroll
  for (int u = 0; u < U; u++)
    if (i + u * blockDim.x < n)
      b[i + u * blockDim.x] = v[u];
}

struct Design
{
  const char *name;
  void (*launch) (CudaGeom, CudaPlane, CudaPlane);
  double ms[2] = {}, gpu[2] = {};
};

/* Blocks of TX x TY threads, each making TX x TY R outputs. */
template <void (*K) (CudaGeom, CudaPlane, CudaPlane), int TX, int TY, int R>
static void
designs_launch (CudaGeom g, CudaPlane in, CudaPlane out)
{
  dim3 grid (gpufx_cuda_div_up (out.w, TX), gpufx_cuda_div_up (out.h, TY * R));

  K<<<grid, dim3 (TX, TY)>>> (g, in, out);
}

template <int WARPS, int D, int SEG>
static void
designs_launch_ring (CudaGeom g, CudaPlane in, CudaPlane out)
{
  dim3 grid (gpufx_cuda_div_up (out.w, 32 * WARPS),
             gpufx_cuda_div_up (out.h, SEG));

  designs_ring<WARPS, D, SEG><<<grid, dim3 (32, WARPS)>>> (g, in, out);
}

static void
designs_launch_tree (CudaGeom g, CudaPlane in, CudaPlane out)
{
  CK (gpufx_cuda_sobel (g, in, out, true, true, false, 0));
}

int
main (int argc, char **argv)
{
  int W = argc > 2 ? atoi (argv[1]) : 3840,
      H = argc > 2 ? atoi (argv[2]) : 2160;
  size_t             n = (size_t) W * H * 4, bytes = n * sizeof (float);
  float             *in[NBUF], *out, *ref;
  std::vector<float> host (n), got (n), want (n);
  cudaDeviceProp     prop;
  CudaGeom           g = { W, H, 4, 3, GPUFX_BORDER_CLAMP };
  char               why[256];
  int                bad = 0;
  Design             ds[] = {
                { "tree (cuda-sobel.cu)", designs_launch_tree, {} },
                { "preload 64x2, 2 rows",
                  designs_launch<designs_preload<64, 2, 2>, 64, 2, 2>,
                  {} },
                { "preload 32x4, 2 rows",
                  designs_launch<designs_preload<32, 4, 2>, 32, 4, 2>,
                  {} },
                { "rows3 32x4, 4 rows (the tree's to round 27)",
                  designs_launch<designs_rows3<32, 4, 4>, 32, 4, 4>,
                  {} },
                { "shuffle 32x2, 4 rows",
                  designs_launch<designs_shuffle<2, 4>, 32, 2, 4>,
                  {} },
                { "shuffle 32x4, 4 rows",
                  designs_launch<designs_shuffle<4, 4>, 32, 4, 4>,
                  {} },
                { "tile 64x4, 8 rows",
                  designs_launch<designs_tile<64, 4, 8>, 64, 4, 8>,
                  {} },
                { "tile 32x8, 4 rows",
                  designs_launch<designs_tile<32, 8, 4>, 32, 8, 4>,
                  {} },
                { "ring 4 warps, 8 rows, 32", designs_launch_ring<4, 8, 32>, {} },
  };
  const int nd
    = argc > 3 && strcmp (argv[3], "tree") == 0 ? 1 : sizeof ds / sizeof ds[0];

  if (W < 64 || H < 8 || W % 64)
    {
      fprintf (stderr, "bench-sobel-designs: W a multiple of 64, H >= 8\n");
      return 2;
    }
  if (! gpufx_backend_available (GPUFX_BACKEND_CUDA, why, sizeof why))
    {
      printf ("SKIP: %s\n", why);
      return 77;
    }
  CK (cudaGetDeviceProperties (&prop, 0));
  for (size_t i = 0; i < n; i++)
    host[i] = (float) ((i * 2654435761u) % 1000) / 1000.f;
  for (int i = 0; i < NBUF; i++)
    {
      CK (cudaMalloc (&in[i], bytes));
      CK (cudaMemcpy (in[i], host.data (), bytes, cudaMemcpyHostToDevice));
    }
  CK (cudaMalloc (&out, bytes));
  CK (cudaMalloc (&ref, bytes));
  auto plane = [&] (float *p) {
    CudaPlane q = { p, (ptrdiff_t) W * 4, 0, 0, W, H };
    return q;
  };

  /* bench-gpu's roofline: a 1 GiB copy's rate. */
  double roof_ms;
  {
    size_t b = (size_t) 1 << 30;
    void  *x, *y;

    CK (cudaMalloc (&x, b));
    CK (cudaMalloc (&y, b));
    roof_ms
      = time_ms (
          [&] (int) { cudaMemcpyAsync (y, x, b, cudaMemcpyDeviceToDevice); },
          REPS)
        * (double) bytes / b;
    CK (cudaFree (x));
    CK (cudaFree (y));
  }
  /* The same bytes copied, as the call and as the GPU's time. */
  struct
  {
    const char               *name;
    std::function<void (int)> run;
    double                    ms = 0, gpu = 0;
  } copies[] = {
    { "copy kernel, 1 float4 a thread",
      [&] (int i) {
        designs_copy<1><<<gpufx_cuda_div_up (n / 4, 256), 256>>> (
          (const float4 *) in[i % NBUF], (float4 *) out, n / 4);
      } },
    { "copy kernel, 4 float4 a thread",
      [&] (int i) {
        designs_copy<4><<<gpufx_cuda_div_up (n / 4, 1024), 256>>> (
          (const float4 *) in[i % NBUF], (float4 *) out, n / 4);
      } },
    { "cudaMemcpyAsync device to device",
      [&] (int i) {
        cudaMemcpyAsync (out, in[i % NBUF], bytes, cudaMemcpyDeviceToDevice);
      } },
  };
  double copy_ms = 1e30, copy_gpu = 1e30;

  for (auto &c : copies)
    {
      c.ms = time_ms (c.run, REPS);
      c.gpu = time_gpu_ms (c.run, REPS);
      copy_ms = std::min (copy_ms, c.ms);
      copy_gpu = std::min (copy_gpu, c.gpu);
    }

  designs_launch_tree (g, plane (in[0]), plane (ref));
  CK (cudaMemcpy (want.data (), ref, bytes, cudaMemcpyDeviceToHost));
  for (int d = 0; d < nd; d++)
    {
      double worst = 0;

      CK (cudaMemset (out, 0, bytes));
      ds[d].launch (g, plane (in[0]), plane (out));
      CK (cudaGetLastError ());
      CK (cudaMemcpy (got.data (), out, bytes, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < n; i++)
        worst = std::max (worst, (double) fabsf (got[i] - want[i]));
      if (worst != 0)
        {
          printf ("FAIL: %s differs from the tree by up to %g\n", ds[d].name,
                  worst);
          bad = 1;
        }
    }
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < nd; k++)
      {
        Design &d = ds[pass ? nd - 1 - k : k];

        auto run
          = [&] (int i) { d.launch (g, plane (in[i % NBUF]), plane (out)); };

        d.ms[pass] = time_ms (run, REPS);
        d.gpu[pass] = time_gpu_ms (run, REPS);
      }
  printf ("device: %s, %d SMs; %dx%d RGBA float\n", prop.name,
          prop.multiProcessorCount, W, H);
  printf ("roofline (1 GiB copy's rate) %.4f ms\n", roof_ms);
  printf ("\n| copy of the same bytes | call ms | GPU ms | %% roof (call / "
          "GPU) |\n|---|---|---|---|\n");
  for (auto &c : copies)
    printf ("| %s | %.4f | %.4f | %.1f / %.1f |\n", c.name, c.ms, c.gpu,
            100 * roof_ms / c.ms, 100 * roof_ms / c.gpu);
  printf (
    "\n| design | call ms (two passes) | GPU ms (two passes) | %% roof "
    "(call / GPU) | %% best copy (call / GPU) |\n|---|---|---|---|---|\n");
  for (int d = 0; d < nd; d++)
    {
      double best = std::min (ds[d].ms[0], ds[d].ms[1]);
      double best_gpu = std::min (ds[d].gpu[0], ds[d].gpu[1]);

      printf ("| %s | %.4f / %.4f | %.4f / %.4f | %.1f / %.1f | %.1f / %.1f "
              "|\n",
              ds[d].name, ds[d].ms[0], ds[d].ms[1], ds[d].gpu[0], ds[d].gpu[1],
              100 * roof_ms / best, 100 * roof_ms / best_gpu,
              100 * copy_ms / best, 100 * copy_gpu / best_gpu);
    }
  return bad;
}

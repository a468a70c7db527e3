/* gimp-gpu-filters: one-dimensional direct taps along rows or columns
 * (small Gaussians, rank-1 matrices).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"

#include <stdint.h>

#define LINES_MAX_TAPS GPUFX_CUDA_LINE_MAX_TAPS

/* Two slots: the row pass and the column pass of one job. */
__constant__ float lines_taps[2][LINES_MAX_TAPS];

/* A pixel of C floats, aligned so that C = 4 loads as one float4. */
template <int C> struct alignas (C == 4 ? 16 : C == 2 ? 8 : 4) LinesPix
{
  float v[C];
};

/* Row pass: a block is RT_TY rows of RT_TX threads; each row's tile of
 * RT_TILE outputs (plus the taps' reach) sits in shared memory, skewed by
 * one pixel every RT_P so that the lanes' float4 reads (RT_P pixels apart)
 * hit distinct banks.  Each thread makes RT_P consecutive outputs from a
 * window that slides through registers: one shared load per tap feeds
 * RT_P * C FMAs. */
#define RT_P    8
#define RT_TX   64
#define RT_TY   4 /* rows per block, at most (blockDim.y) */
#define RT_TILE (RT_P * RT_TX)

static __host__ __device__ __forceinline__ int
rt_tile_len (int n_taps)
{
  int len = RT_TILE + n_taps - 1;

  return len + len / RT_P + 1;
}

template <int C>
__global__ void
__launch_bounds__ (RT_TX *RT_TY) taps_rows_kernel (CudaGeom  g,
                                                   int       slot,
                                                   CudaPlane in,
                                                   CudaPlane out,
                                                   int       n_taps,
                                                   int       first,
                                                   float     scale,
                                                   float     offset)
{
  extern __shared__ float4 rt_smem[];
  const int                tx = threadIdx.x, ty = threadIdx.y;
  const int                len = RT_TILE + n_taps - 1;
  LinesPix<C> *s = (LinesPix<C> *) rt_smem + ty * rt_tile_len (n_taps);
  const int    y = blockIdx.y * blockDim.y + ty;
  const int    ox0 = blockIdx.x * RT_TILE;
  const bool   row_ok = y < out.h;
  const float *taps = lines_taps[slot];

  if (row_ok)
    {
      const float *line = in.p + (ptrdiff_t) (out.y0 + y - in.y0) * in.pitch;
      /* The input the band's outputs need: tile positions past it feed
       * only outputs that are not written, so they read its edge. */
      const int need0 = out.x0 + first;
      const int need1 = out.x0 + out.w - 1 + first + n_taps - 1;

      for (int q = tx; q < len; q += RT_TX)
        {
          int         x = min (max (out.x0 + ox0 + first + q, need0), need1);
          int         xi = gpufx_border_index (x, g.image_w, g.border);
          LinesPix<C> v;

          if (xi >= 0)
            /* A plain load: the read-only path (__ldg) measured 6% slower
             * here. */
            v = *(const LinesPix<C> *) (line + (ptrdiff_t) (xi - in.x0) * C);
          else
#pragma unroll
            for (int c = 0; c < C; c++)
              v.v[c] = 0.0f;
          s[q + q / RT_P] = v;
        }
    }
  __syncthreads ();
  if (! row_ok)
    return;

  /* Tile pixel tx * RT_P + m sits at sb + m + m / RT_P. */
  const LinesPix<C> *sb = s + tx * (RT_P + 1);
  float              acc[RT_P][C];
  LinesPix<C>        win[2 * RT_P - 1];
  int                k = 0;

#pragma unroll
  for (int o = 0; o < RT_P; o++)
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[o][c] = 0.0f;
#pragma unroll
  for (int j = 0; j < RT_P - 1; j++)
    win[j] = sb[j + j / RT_P];
  for (; k + RT_P <= n_taps; k += RT_P)
    {
#pragma unroll
      for (int j = 0; j < RT_P; j++)
        {
          int m = k + RT_P - 1 + j;

          win[RT_P - 1 + j] = sb[m + m / RT_P];
        }
#pragma unroll
      for (int kk = 0; kk < RT_P; kk++)
        {
          float w = taps[k + kk];

#pragma unroll
          for (int o = 0; o < RT_P; o++)
#pragma unroll
            for (int c = 0; c < C; c++)
              acc[o][c] = fmaf (w, win[kk + o].v[c], acc[o][c]);
        }
#pragma unroll
      for (int j = 0; j < RT_P - 1; j++)
        win[j] = win[j + RT_P];
    }
  for (; k < n_taps; k++)
    {
      float w = taps[k];

#pragma unroll
      for (int o = 0; o < RT_P; o++)
        {
          int         m = k + o;
          LinesPix<C> v = sb[m + m / RT_P];

#pragma unroll
          for (int c = 0; c < C; c++)
            acc[o][c] = fmaf (w, v.v[c], acc[o][c]);
        }
    }

  float *d = out.p + (ptrdiff_t) y * out.pitch;
#pragma unroll
  for (int o = 0; o < RT_P; o++)
    {
      int x = ox0 + tx * RT_P + o;

      if (x < out.w)
        {
          LinesPix<C> v;

#pragma unroll
          for (int c = 0; c < C; c++)
            v.v[c] = acc[o][c] * scale + (c != g.alpha ? offset : 0.0f);
          *(LinesPix<C> *) (d + (ptrdiff_t) x * C) = v;
        }
    }
}

/* Column pass: every float of a row is its own line, so channels do not
 * matter: a thread takes V adjacent floats (one float4 where rows allow)
 * and CT_P consecutive output rows, sliding a window of input rows through
 * registers; reads are coalesced along the row, and the rows that the
 * block's threads share come from L1. */
#define CT_TX 32
#define CT_TY 8
#define CT_P  8

template <int V> struct LinesVec;
template <> struct LinesVec<1>
{
  typedef float T;
};
template <> struct LinesVec<4>
{
  typedef float4 T;
};

__device__ __forceinline__ float
lv_get (const float &v, int)
{
  return v;
}
__device__ __forceinline__ float
lv_get (const float4 &v, int i)
{
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}
__device__ __forceinline__ void
lv_zero (float &v)
{
  v = 0.0f;
}
__device__ __forceinline__ void
lv_zero (float4 &v)
{
  v = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
}

template <int V>
__global__ void
__launch_bounds__ (CT_TX *CT_TY) taps_cols_kernel (CudaGeom  g,
                                                   int       slot,
                                                   CudaPlane in,
                                                   CudaPlane out,
                                                   int       n_taps,
                                                   int       first,
                                                   float     scale,
                                                   float     offset)
{
  typedef typename LinesVec<V>::T Vec;
  const int                       C = g.channels;
  const int                       row_len = out.w * C;
  const int                       e0 = (blockIdx.x * CT_TX + threadIdx.x) * V;
  const int    y0 = (blockIdx.y * CT_TY + threadIdx.y) * CT_P;
  const float *taps = lines_taps[slot];

  if (e0 >= row_len || y0 >= out.h)
    return;

  const float *col = in.p + (ptrdiff_t) (out.x0 - in.x0) * C + e0;
  const int    need0 = out.y0 + first;
  const int    need1 = out.y0 + out.h - 1 + first + n_taps - 1;
  const int    pos0 = out.y0 + y0 + first;
  float        acc[CT_P][V];
  Vec          win[2 * CT_P - 1];
  int          k = 0;

  auto load = [&] (int m) -> Vec {
    int pos = min (max (pos0 + m, need0), need1);
    int yi = gpufx_border_index (pos, g.image_h, g.border);
    Vec v;

    if (yi >= 0)
      v = __ldg ((const Vec *) (col + (ptrdiff_t) (yi - in.y0) * in.pitch));
    else
      lv_zero (v);
    return v;
  };

#pragma unroll
  for (int o = 0; o < CT_P; o++)
#pragma unroll
    for (int v = 0; v < V; v++)
      acc[o][v] = 0.0f;
#pragma unroll
  for (int j = 0; j < CT_P - 1; j++)
    win[j] = load (j);
  for (; k + CT_P <= n_taps; k += CT_P)
    {
#pragma unroll
      for (int j = 0; j < CT_P; j++)
        win[CT_P - 1 + j] = load (k + CT_P - 1 + j);
#pragma unroll
      for (int kk = 0; kk < CT_P; kk++)
        {
          float w = taps[k + kk];

#pragma unroll
          for (int o = 0; o < CT_P; o++)
#pragma unroll
            for (int v = 0; v < V; v++)
              acc[o][v] = fmaf (w, lv_get (win[kk + o], v), acc[o][v]);
        }
#pragma unroll
      for (int j = 0; j < CT_P - 1; j++)
        win[j] = win[j + CT_P];
    }
  for (; k < n_taps; k++)
    {
      float w = taps[k];

#pragma unroll
      for (int o = 0; o < CT_P; o++)
        {
          Vec x = load (k + o);

#pragma unroll
          for (int v = 0; v < V; v++)
            acc[o][v] = fmaf (w, lv_get (x, v), acc[o][v]);
        }
    }

  float offs[V];
#pragma unroll
  for (int v = 0; v < V; v++)
    offs[v] = (e0 + v) % C != g.alpha ? offset : 0.0f;
#pragma unroll
  for (int o = 0; o < CT_P; o++)
    if (y0 + o < out.h)
      {
        float *d = out.p + (ptrdiff_t) (y0 + o) * out.pitch + e0;

        if (V == 4)
          *(float4 *) d = make_float4 (acc[o][0] * scale + offs[0],
                                       acc[o][1 % V] * scale + offs[1 % V],
                                       acc[o][2 % V] * scale + offs[2 % V],
                                       acc[o][3 % V] * scale + offs[3 % V]);
        else
          d[0] = acc[o][0] * scale + offs[0];
      }
}

cudaError_t
gpufx_cuda_line_taps_upload (int axis, const float *taps, int n_taps)
{
  if (n_taps < 1 || n_taps > LINES_MAX_TAPS)
    return cudaErrorInvalidValue;
  return cudaMemcpyToSymbol (lines_taps, taps, sizeof (float) * n_taps,
                             sizeof (float) * LINES_MAX_TAPS * axis,
                             cudaMemcpyHostToDevice);
}

template <int C>
static cudaError_t
taps_rows_launch (const CudaGeom  &g,
                  const CudaPlane &in,
                  const CudaPlane &out,
                  int              n_taps,
                  int              first,
                  float            scale,
                  float            offset,
                  cudaStream_t     stream)
{
  size_t      row = sizeof (LinesPix<C>) * rt_tile_len (n_taps);
  int         ty = RT_TY;
  cudaError_t err;

  /* 46 KB at most (128 RGBA taps) for 4 rows; fewer rows per block where
   * the budget is smaller. */
  while (ty > 1 && row * ty > (size_t) gpufx_cuda_limits.smem)
    ty /= 2;
  if (row * ty > (size_t) gpufx_cuda_limits.smem)
    return cudaErrorInvalidConfiguration;

  size_t smem = row * ty;
  dim3 grid (gpufx_cuda_div_up (out.w, RT_TILE), gpufx_cuda_div_up (out.h, ty));
  dim3 block (RT_TX, ty);

  if ((err = gpufx_cuda_allow_smem (taps_rows_kernel<C>, smem)) != cudaSuccess)
    return err;
  taps_rows_kernel<C><<<grid, block, smem, stream>>> (g, 0, in, out, n_taps,
                                                      first, scale, offset);
  return cudaGetLastError ();
}

cudaError_t
gpufx_cuda_line_taps (const CudaGeom  &g,
                      int              axis,
                      const CudaPlane &in,
                      const CudaPlane &out,
                      int              n_taps,
                      int              first,
                      float            scale,
                      float            offset,
                      cudaStream_t     stream)
{
  if (n_taps < 1 || n_taps > LINES_MAX_TAPS)
    return cudaErrorInvalidValue;
  if (axis == 0)
    switch (g.channels)
      {
      case 1:
        return taps_rows_launch<1> (g, in, out, n_taps, first, scale, offset,
                                    stream);
      case 2:
        return taps_rows_launch<2> (g, in, out, n_taps, first, scale, offset,
                                    stream);
      case 3:
        return taps_rows_launch<3> (g, in, out, n_taps, first, scale, offset,
                                    stream);
      default:
        return taps_rows_launch<4> (g, in, out, n_taps, first, scale, offset,
                                    stream);
      }

  const int  row_len = out.w * g.channels;
  const bool vec = row_len % 4 == 0 && in.pitch % 4 == 0 && out.pitch % 4 == 0
                   && ((out.x0 - in.x0) * g.channels) % 4 == 0
                   && ((uintptr_t) in.p & 15) == 0
                   && ((uintptr_t) out.p & 15) == 0;
  const int V = vec ? 4 : 1;
  dim3      grid (gpufx_cuda_div_up (row_len, CT_TX * V),
                  gpufx_cuda_div_up (out.h, CT_TY * CT_P));
  dim3      block (CT_TX, CT_TY);

  if (vec)
    taps_cols_kernel<4><<<grid, block, 0, stream>>> (g, 1, in, out, n_taps,
                                                     first, scale, offset);
  else
    taps_cols_kernel<1><<<grid, block, 0, stream>>> (g, 1, in, out, n_taps,
                                                     first, scale, offset);
  return cudaGetLastError ();
}

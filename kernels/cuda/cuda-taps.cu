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

/* Both passes slide a window of P consecutive outputs over the taps, P
 * taps at a time: chunk k needs input positions k .. k + 2P - 2, of which
 * the first P - 1 came with the chunk before.  Position m lives in window
 * slot m mod 2P, and the loop body does two chunks (k = 0 and P mod 2P),
 * so every slot index is a compile-time constant and the window never
 * moves between registers.  fetch (kb, off) returns input position
 * kb + off, kb a multiple of P.  The sum's order (tap 0 first) is the
 * same as one tap at a time. */
template <int P, int C, int PH, class Pix, class Fetch>
static __device__ __forceinline__ void
taps_chunk (float (&acc)[P][C],
            Pix (&win)[2 * P],
            int          k,
            const float *taps,
            Fetch       &fetch)
{
#pragma unroll
  for (int j = 0; j < P; j++)
    win[(PH + P - 1 + j) % (2 * P)] = fetch (k, P - 1 + j);
#pragma unroll
  for (int kk = 0; kk < P; kk++)
    {
      float w = taps[k + kk];

#pragma unroll
      for (int o = 0; o < P; o++)
#pragma unroll
        for (int c = 0; c < C; c++)
          acc[o][c] = fmaf (w, win[(PH + kk + o) % (2 * P)].v[c], acc[o][c]);
    }
}

template <int P, int C, class Pix, class Fetch>
static __device__ __forceinline__ void
taps_slide (float (&acc)[P][C], int n_taps, const float *taps, Fetch &fetch)
{
  Pix win[2 * P];
  int k = 0;

#pragma unroll
  for (int o = 0; o < P; o++)
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[o][c] = 0.0f;
#pragma unroll
  for (int j = 0; j < P - 1; j++)
    win[j] = fetch (0, j);
  for (; k + 2 * P <= n_taps; k += 2 * P)
    {
      taps_chunk<P, C, 0> (acc, win, k, taps, fetch);
      taps_chunk<P, C, P> (acc, win, k + P, taps, fetch);
    }
  if (k + P <= n_taps)
    {
      taps_chunk<P, C, 0> (acc, win, k, taps, fetch);
      k += P;
    }
  for (int t = 0; k + t < n_taps; t++)
    {
      float w = taps[k + t];

#pragma unroll
      for (int o = 0; o < P; o++)
        {
          Pix v = fetch (k, t + o);

#pragma unroll
          for (int c = 0; c < C; c++)
            acc[o][c] = fmaf (w, v.v[c], acc[o][c]);
        }
    }
}

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

/* Tile pixel kb + off of a thread's window (kb a multiple of RT_P) at
 * sb + kb + kb / RT_P + off + off / RT_P. */
template <int C> struct RtFetch
{
  const LinesPix<C> *sb;

  __device__ __forceinline__ LinesPix<C> operator() (int kb, int off) const
  {
    return sb[(kb / RT_P) * (RT_P + 1) + off + off / RT_P];
  }
};

/* Tile fill inside the image: on sm_80 and later, pixels of 4, 8 or 16
 * bytes go straight from global to shared memory (cp.async), so that a
 * thread's loads are all in flight at once instead of each waiting for
 * its store. */
template <int C>
static __device__ __forceinline__ void
rt_fill_inside (LinesPix<C> *s, const LinesPix<C> *src, int len)
{
#if __CUDA_ARCH__ >= 800
  if (C != 3)
    {
      for (int q = threadIdx.x; q < len; q += RT_TX)
        {
          unsigned sa = (unsigned) __cvta_generic_to_shared (s + q + q / RT_P);
          const void *ga = src + q;

          if (C == 4)
            asm volatile(
              "cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(ga));
          else
            asm volatile(
              "cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(sa), "l"(ga),
              "n"(C == 2 ? 8 : 4));
        }
      asm volatile("cp.async.wait_all;\n" ::: "memory");
    }
  else
#endif
#pragma unroll 4
    for (int q = threadIdx.x; q < len; q += RT_TX)
      s[q + q / RT_P] = src[q];
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
      const int x0 = out.x0 + ox0 + first;

      if (x0 >= max (need0, 0) && x0 + len - 1 <= min (need1, g.image_w - 1))
        /* Inside the image and the band's input: no border map. */
        rt_fill_inside<C> (
          s, (const LinesPix<C> *) (line + (ptrdiff_t) (x0 - in.x0) * C), len);
      else
#pragma unroll 4
        for (int q = tx; q < len; q += RT_TX)
          {
            int         x = min (max (x0 + q, need0), need1);
            int         xi = gpufx_border_index (x, g.image_w, g.border);
            LinesPix<C> v;

            if (xi >= 0)
              /* A plain load: the read-only path (__ldg) measured 6%
               * slower here. */
              v = *(const LinesPix<C> *) (line + (ptrdiff_t) (xi - in.x0) * C);
            else
#pragma unroll
              for (int c = 0; c < C; c++)
                v.v[c] = 0.0f;
            s[q + q / RT_P] = v;
          }
    }
  __syncthreads ();

  /* The outputs go back through the tile (output p at s[p + p / RT_P],
   * conflict-free both ways) so that the stores are coalesced: lane tx
   * writes pixels tx, tx + RT_TX, ... instead of RT_P adjacent ones. */
  float acc[RT_P][C];

  /* Threads past the band's last output (the image's last tile) skip
   * the arithmetic; they only take part in the barriers. */
  if (row_ok && ox0 + tx * RT_P < out.w)
    {
      RtFetch<C> fetch = { s + tx * (RT_P + 1) };

      taps_slide<RT_P, C, LinesPix<C>> (acc, n_taps, taps, fetch);
    }
  __syncthreads ();
  if (row_ok && ox0 + tx * RT_P < out.w)
#pragma unroll
    for (int o = 0; o < RT_P; o++)
      {
        LinesPix<C> v;

#pragma unroll
        for (int c = 0; c < C; c++)
          v.v[c] = acc[o][c] * scale + (c != g.alpha ? offset : 0.0f);
        s[tx * (RT_P + 1) + o] = v;
      }
  __syncthreads ();
  if (! row_ok)
    return;

  float *d = out.p + (ptrdiff_t) y * out.pitch;
#pragma unroll
  for (int i = 0; i < RT_P; i++)
    {
      int p = tx + i * RT_TX;
      int x = ox0 + p;

      if (x < out.w)
        *(LinesPix<C> *) (d + (ptrdiff_t) x * C) = s[p + p / RT_P];
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
  typedef float Raw;
};
template <> struct LinesVec<4>
{
  typedef float4 Raw;
};

template <int V>
static __device__ __forceinline__ LinesPix<V>
                                  lv_load (const float *p)
{
  typedef typename LinesVec<V>::Raw Raw;
  Raw                               r = __ldg ((const Raw *) p);
  LinesPix<V>                       v;

  memcpy (&v, &r, sizeof v);
  return v;
}

/* Rows inside the image and the band's input: a plain pointer. */
template <int V> struct CtFetchFast
{
  const float *p; /* input row pos0 */
  ptrdiff_t    pitch;

  __device__ __forceinline__ LinesPix<V> operator() (int kb, int off) const
  {
    return lv_load<V> (p + (ptrdiff_t) (kb + off) * pitch);
  }
};

/* Anywhere: clamp to the band's input, then the border map. */
template <int V> struct CtFetchBorder
{
  const float *col;
  ptrdiff_t    pitch;
  int          pos0, need0, need1, in_y0, image_h, border;

  __device__ __forceinline__ LinesPix<V> operator() (int kb, int off) const
  {
    int         pos = min (max (pos0 + kb + off, need0), need1);
    int         yi = gpufx_border_index (pos, image_h, border);
    LinesPix<V> v;

    if (yi >= 0)
      v = lv_load<V> (col + (ptrdiff_t) (yi - in_y0) * pitch);
    else
#pragma unroll
      for (int c = 0; c < V; c++)
        v.v[c] = 0.0f;
    return v;
  }
};

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
  const int    C = g.channels;
  const int    row_len = out.w * C;
  const int    e0 = (blockIdx.x * CT_TX + threadIdx.x) * V;
  const int    y0 = (blockIdx.y * CT_TY + threadIdx.y) * CT_P;
  const float *taps = lines_taps[slot];

  if (e0 >= row_len || y0 >= out.h)
    return;

  const float *col = in.p + (ptrdiff_t) (out.x0 - in.x0) * C + e0;
  const int    need0 = out.y0 + first;
  const int    need1 = out.y0 + out.h - 1 + first + n_taps - 1;
  const int    pos0 = out.y0 + y0 + first;
  float        acc[CT_P][V];

  if (pos0 >= max (need0, 0)
      && pos0 + CT_P + n_taps - 2 <= min (need1, g.image_h - 1))
    {
      CtFetchFast<V> fetch
        = { col + (ptrdiff_t) (pos0 - in.y0) * in.pitch, in.pitch };

      taps_slide<CT_P, V, LinesPix<V>> (acc, n_taps, taps, fetch);
    }
  else
    {
      CtFetchBorder<V> fetch
        = { col, in.pitch, pos0, need0, need1, in.y0, g.image_h, g.border };

      taps_slide<CT_P, V, LinesPix<V>> (acc, n_taps, taps, fetch);
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

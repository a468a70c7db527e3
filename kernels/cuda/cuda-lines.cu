/* gimp-gpu-filters: one-dimensional passes along rows or columns: direct
 * taps (small Gaussians, rank-1 matrices) and the Gaussian's sum of cosines
 * (large sigma, cost independent of sigma).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"
#include "gaussian-plan.h"

#include <stdint.h>

#define LINES_MAX_TAPS GPUFX_CUDA_LINE_MAX_TAPS

/* Two slots: the row pass and the column pass of one job. */
__constant__ float lines_taps[2][LINES_MAX_TAPS];

struct LinesCosines
{
  int n_terms;
  int radius;
  int period;
  /* Per term m (w = omega[m]); terms past n_terms are all zero. */
  double coeff[GPUFX_GAUSS_MAX_TERMS];
  double two_cos[GPUFX_GAUSS_MAX_TERMS]; /* 2 cos w       */
  double cos_w[GPUFX_GAUSS_MAX_TERMS];   /* cos w         */
  double sin_w[GPUFX_GAUSS_MAX_TERMS];   /* sin w         */
  double cos_r[GPUFX_GAUSS_MAX_TERMS];   /* cos (w r)     */
  double sin_r[GPUFX_GAUSS_MAX_TERMS];   /* sin (w r)     */
  double cos_r1[GPUFX_GAUSS_MAX_TERMS];  /* cos (w (r+1)) */
  double sin_r1[GPUFX_GAUSS_MAX_TERMS];  /* sin (w (r+1)) */
};

__constant__ LinesCosines lines_cos[2];

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

/* The sum of cosines with a cost independent of r, in double.  A block
 * takes COS_LANES lines (lanes; channel fastest, so the column pass reads
 * whole 32-byte sectors) and cuts each padded line (len + 2r samples,
 * j = 0 .. np-1, image position p0 + j) into NCH = blockDim.y chunks of S
 * samples, one per threadIdx.y.  With
 *     P_m[j] = sum_{q < j} e^{i w_m q} x_q
 * the window sum of output o (0-based) is P_m[o + 2r + 1] - P_m[o], and
 * with 2r + 1 = a S + b the window of the thread owning outputs
 * [tS, tS + S) is  sum_{t <= u < t + a} A_u + B_{t + a}, A_u the chunk's
 * sum and B_u that of its first b samples: no cancellation.
 *
 * Chunk sums by Goertzel's real recurrence (2 flops per sample and term
 * instead of Horner's 4):  s_n = x_n + 2 cos w s_{n-1} - s_{n-2}  gives
 * s_{N-1} - e^{-iw} s_{N-2} = sum_q x_q e^{iw (N-1-q)}.
 *
 * Outputs by the real second-order recurrence of C_m[o] = Re T_m[o],
 * T_m[o] = sum_{|k| <= r} e^{i w k} x[o + k]  (4 flops per output and term
 * instead of 9 for the complex slide):
 *     C[o+2] = 2 cos w C[o+1] - C[o]
 *              + cos (w r) (x[o+r+2] + x[o-r])
 *              - cos (w (r+1)) (x[o+r+1] + x[o+1-r]),
 * started from C[tS] and C[tS + 1] of the exchanged window.  Rounding
 * grows at most like S min (S, 1 / sin w) eps over a chunk, far below
 * the engine's tolerance in double (the recurrences restart every chunk).
 * Phases at chunk starts come from sincospi of (m q mod 2L) / L, exact in
 * the integers. */
__device__ __forceinline__ void
lines_phase (int m, long long q, int L, double *c, double *s)
{
  long long k = ((long long) m * q) % (2LL * L);

  if (k < 0)
    k += 2LL * L;
  sincospi ((double) k / L, s, c);
}

#define COS_LANES 8
#define COS_U     8  /* samples in flight, chunk sums  */
#define COS_V     4  /* outputs in flight, recurrence */
#define COS_NCH   16 /* chunks per line, at most (blockDim.y) */

template <bool B> struct LinesBool
{
  static constexpr bool value = B;
};

/* AXIS is a template argument so that the plan's constants are read
 * at fixed constant-bank addresses.  4 blocks per SM cap the registers at
 * 128 (round 3: the output loop then reloads its constants with LDC, and
 * the column pass spills 128 bytes; see tests/bench/NOTES-gpu.md). */
template <int NT, int AXIS>
__global__ void
__launch_bounds__ (COS_LANES *COS_NCH, 4)
  lines_cosines_kernel (CudaGeom g, CudaPlane in, CudaPlane out)
{
  const int                 axis = AXIS;
  extern __shared__ double2 cos_smem[];
  const LinesCosines       &k = lines_cos[AXIS];
  const int                 C = g.channels;
  const int  lane = threadIdx.x, t = threadIdx.y, NCH = blockDim.y;
  const int  n_lines = (axis == 0 ? out.h : out.w) * C;
  const int  len = axis == 0 ? out.w : out.h;
  const int  n = axis == 0 ? g.image_w : g.image_h;
  const int  r = k.radius, L = k.period;
  const int  l = blockIdx.x * COS_LANES + lane;
  const bool active = l < n_lines;
  /* Inactive lanes read the last line and write nothing. */
  const int lr = min (l, n_lines - 1);
  const int c = lr % C, lidx = lr / C;
  const int line = axis == 0 ? out.y0 + lidx : out.x0 + lidx;
  const int o0 = axis == 0 ? out.x0 : out.y0;
  const int p0 = o0 - r;
  const int np = len + 2 * r;
  const int S = (np + NCH) / NCH; /* NCH * S > np */
  const int a = (2 * r + 1) / S, b = (2 * r + 1) % S;
  const int j0 = t * S;
  /* Samples of this chunk inside the padded line. */
  const int    N = max (0, min (S, np - j0));
  double2     *sA = cos_smem;
  double2     *sB = cos_smem + NCH * NT * COS_LANES;
  const float *base;
  ptrdiff_t    step;

  if (axis == 0)
    {
      base = in.p + (ptrdiff_t) (line - in.y0) * in.pitch
             - (ptrdiff_t) in.x0 * C + c;
      step = C;
    }
  else
    {
      base = in.p + (ptrdiff_t) (line - in.x0) * C
             - (ptrdiff_t) in.y0 * in.pitch + c;
      step = in.pitch;
    }

  /* Sample j of the padded line (border mapped; 0 outside under zero).
   * Clamp, the common rule, needs no division. */
  auto at = [&] (int j) -> float {
    int p = p0 + j, i;

    if (g.border == GPUFX_BORDER_CLAMP)
      i = min (max (p, 0), n - 1);
    else if ((unsigned) p < (unsigned) n)
      i = p;
    else
      i = gpufx_border_index (p, n, g.border);
    return i >= 0 ? __ldg (base + (ptrdiff_t) i * step) : 0.0f;
  };

  double s1[NT], s2[NT];

#pragma unroll
  for (int m = 0; m < NT; m++)
    s1[m] = s2[m] = 0.0;

  auto goertzel = [&] (float xf) {
    const double x = xf;

#pragma unroll
    for (int m = 0; m < NT; m++)
      {
        double s = fma (k.two_cos[m], s1[m], x - s2[m]);

        s2[m] = s1[m];
        s1[m] = s;
      }
  };

  /* Goertzel over local samples [from, to): where they lie inside the
   * image, a pointer walk with the next COS_U loads in flight while the
   * current ones are summed; the border map elsewhere. */
  auto walk = [&] (int from, int to) {
    const int f0 = min (max (from, -p0 - j0), to);
    const int f1 = max (min (to, n - p0 - j0), f0);
    const int cnt = f1 - f0;
    int       jj = from, done = 0;

    for (; jj < f0; jj++)
      goertzel (at (j0 + jj));
    if (cnt >= COS_U)
      {
        const float *q = base + (ptrdiff_t) (p0 + j0 + f0) * step;
        float        cur[COS_U];

#pragma unroll
        for (int u = 0; u < COS_U; u++)
          cur[u] = __ldg (q + (ptrdiff_t) u * step);
        q += (ptrdiff_t) COS_U * step;
        for (done = COS_U; done + COS_U <= cnt; done += COS_U)
          {
            float nxt[COS_U];

#pragma unroll
            for (int u = 0; u < COS_U; u++)
              nxt[u] = __ldg (q + (ptrdiff_t) u * step);
            q += (ptrdiff_t) COS_U * step;
#pragma unroll
            for (int u = 0; u < COS_U; u++)
              {
                goertzel (cur[u]);
                cur[u] = nxt[u];
              }
          }
#pragma unroll
        for (int u = 0; u < COS_U; u++)
          goertzel (cur[u]);
      }
    for (jj = f0 + done; jj < to; jj++)
      goertzel (at (j0 + jj));
  };

  /* The sum of the first cnt samples, in absolute phase, to dst. */
  auto keep = [&] (double2 *dst, int cnt) {
#pragma unroll
    for (int m = 0; m < NT; m++)
      {
        /* conj (s1 - e^{-iw} s2) = sum_q x_q e^{-iw (cnt-1-q)} */
        double hre = fma (-k.cos_w[m], s2[m], s1[m]);
        double him = -k.sin_w[m] * s2[m];
        double pc, ps;

        lines_phase (m, (long long) j0 + cnt - 1, L, &pc, &ps);
        dst[(t * NT + m) * COS_LANES + lane]
          = make_double2 (hre * pc - him * ps, hre * ps + him * pc);
      }
  };

  const int nb = min (b, N);

  walk (0, nb);
  keep (sB, nb);
  walk (nb, N);
  keep (sA, N);
  __syncthreads ();

  if (! active || j0 >= len)
    return;

  const float xa = at (j0), xb = at (j0 + 2 * r + 1);
  double      c0[NT], c1[NT];

#pragma unroll
  for (int m = 0; m < NT; m++)
    {
      double2 wsum = sB[((t + a) * NT + m) * COS_LANES + lane];
      double  pc, ps, tre, tim, xre, xim;

      for (int u = t; u < t + a; u++)
        {
          double2 v = sA[(u * NT + m) * COS_LANES + lane];

          wsum.x += v.x;
          wsum.y += v.y;
        }
      /* T[j0] = e^{-i w (j0 + r)} wsum */
      lines_phase (m, (long long) j0 + r, L, &pc, &ps);
      tre = wsum.x * pc + wsum.y * ps;
      tim = wsum.y * pc - wsum.x * ps;
      /* T[j0+1] = e^{-iw} (T[j0] - e^{-iwr} x_a + e^{iw(r+1)} x_b) */
      xre = tre - k.cos_r[m] * xa + k.cos_r1[m] * xb;
      xim = tim + k.sin_r[m] * xa + k.sin_r1[m] * xb;
      c0[m] = tre;
      c1[m] = k.cos_w[m] * xre + k.sin_w[m] * xim;
    }

  const int o_end = min (j0 + S, len);
  float    *o;
  ptrdiff_t ostep;

  if (axis == 0)
    {
      o = out.p + (ptrdiff_t) lidx * out.pitch + (ptrdiff_t) j0 * C + c;
      ostep = C;
    }
  else
    {
      o = out.p + (ptrdiff_t) j0 * out.pitch + (ptrdiff_t) lidx * C + c;
      ostep = out.pitch;
    }

  /* Output j needs x at j + 1 and j + 2r + 2 (padded) for C[j + 2], up
   * to j = o_end - 3; FL, FH: those of the low and the high end all lie
   * inside the image, so they are plain loads. */
  auto outputs = [&] (auto fl, auto fh) {
    constexpr bool FL = decltype (fl)::value, FH = decltype (fh)::value;
    const float   *ql = base + (ptrdiff_t) (p0 + j0 + 1) * step;
    const float   *qh = base + (ptrdiff_t) (p0 + j0 + 2 * r + 2) * step;
    float          lo = xa, hi = xb; /* x at j and j + 2r + 1 */

    auto fetch = [&] (int jb, float *xl, float *xh) {
#pragma unroll
      for (int u = 0; u < COS_V; u++)
        {
          const int j = jb + u;

          if (j + 2 < o_end)
            {
              xl[u]
                = FL ? __ldg (ql + (ptrdiff_t) (j - j0) * step) : at (j + 1);
              xh[u] = FH ? __ldg (qh + (ptrdiff_t) (j - j0) * step)
                         : at (j + 2 * r + 2);
            }
          else
            xl[u] = xh[u] = 0.0f;
        }
    };
    float xl[COS_V], xh[COS_V];

    fetch (j0, xl, xh);
    for (int j = j0; j < o_end; j += COS_V)
      {
        float nl[COS_V], nh[COS_V];

        /* The next batch's loads are in flight during this one. */
        fetch (j + COS_V, nl, nh);
#pragma unroll
        for (int u = 0; u < COS_V; u++)
          {
            double y = 0.0;

            if (j + u >= o_end)
              break;
#pragma unroll
            for (int m = 0; m < NT; m++)
              y = fma (k.coeff[m], c0[m], y);
            *o = (float) y;
            o += ostep;

            const double sp = (double) xh[u] + lo, sm = (double) xl[u] + hi;

#pragma unroll
            for (int m = 0; m < NT; m++)
              {
                double c2 = fma (k.two_cos[m], c1[m], -c0[m]);

                c2 = fma (k.cos_r[m], sp, c2);
                c2 = fma (-k.cos_r1[m], sm, c2);
                c0[m] = c1[m];
                c1[m] = c2;
              }
            lo = xl[u];
            hi = xh[u];
          }
#pragma unroll
        for (int u = 0; u < COS_V; u++)
          {
            xl[u] = nl[u];
            xh[u] = nh[u];
          }
      }
  };
  const bool fast_lo = p0 + j0 + 1 >= 0 && p0 + o_end - 2 < n;
  const bool fast_hi = p0 + j0 + 2 * r + 2 >= 0 && p0 + o_end + 2 * r - 1 < n;

  if (fast_lo && fast_hi)
    outputs (LinesBool<true> (), LinesBool<true> ());
  else if (fast_lo)
    outputs (LinesBool<true> (), LinesBool<false> ());
  else if (fast_hi)
    outputs (LinesBool<false> (), LinesBool<true> ());
  else
    outputs (LinesBool<false> (), LinesBool<false> ());
}

cudaError_t
gpufx_cuda_line_cosines_upload (int axis, const GpufxGaussianPlan *plan)
{
  LinesCosines k;

  if (plan->n_terms < 1 || plan->n_terms > GPUFX_GAUSS_MAX_TERMS)
    return cudaErrorInvalidValue;
  memset (&k, 0, sizeof k);
  k.n_terms = plan->n_terms;
  k.radius = plan->radius;
  k.period = plan->period;
  for (int m = 0; m < plan->n_terms; m++)
    {
      double w = plan->omega[m];

      k.coeff[m] = plan->coeff[m];
      k.two_cos[m] = 2.0 * cos (w);
      k.cos_w[m] = cos (w);
      k.sin_w[m] = sin (w);
      k.cos_r[m] = cos (w * plan->radius);
      k.sin_r[m] = sin (w * plan->radius);
      k.cos_r1[m] = cos (w * (plan->radius + 1));
      k.sin_r1[m] = sin (w * (plan->radius + 1));
    }
  return cudaMemcpyToSymbol (lines_cos, &k, sizeof k, sizeof k * axis,
                             cudaMemcpyHostToDevice);
}

template <int NT, int AXIS>
static cudaError_t
cosines_launch (const CudaGeom  &g,
                const CudaPlane &in,
                const CudaPlane &out,
                cudaStream_t     stream)
{
  const int    n_lines = (AXIS == 0 ? out.h : out.w) * g.channels;
  const size_t per_chunk = 2 * sizeof (double2) * NT * COS_LANES;
  int          nch = COS_NCH;
  cudaError_t  err;

  while (nch > 1 && per_chunk * nch > (size_t) gpufx_cuda_limits.smem)
    nch /= 2;
  if (per_chunk * nch > (size_t) gpufx_cuda_limits.smem)
    return cudaErrorInvalidConfiguration;

  size_t smem = per_chunk * nch;
  dim3   grid (gpufx_cuda_div_up (n_lines, COS_LANES));
  dim3   block (COS_LANES, nch);

  if ((err = gpufx_cuda_allow_smem (lines_cosines_kernel<NT, AXIS>, smem))
      != cudaSuccess)
    return err;
  lines_cosines_kernel<NT, AXIS><<<grid, block, smem, stream>>> (g, in, out);
  return cudaGetLastError ();
}

template <int NT>
static cudaError_t
cosines_launch (const CudaGeom  &g,
                int              axis,
                const CudaPlane &in,
                const CudaPlane &out,
                cudaStream_t     stream)
{
  return axis == 0 ? cosines_launch<NT, 0> (g, in, out, stream)
                   : cosines_launch<NT, 1> (g, in, out, stream);
}

cudaError_t
gpufx_cuda_line_cosines (const CudaGeom  &g,
                         int              axis,
                         const CudaPlane &in,
                         const CudaPlane &out,
                         int              radius,
                         int              n_terms,
                         cudaStream_t     stream)
{
  (void) radius;
  /* The fewest terms the registers must hold; the plan's terms past
   * n_terms are zero. */
  if (n_terms <= 4)
    return cosines_launch<4> (g, axis, in, out, stream);
  if (n_terms <= 8)
    return cosines_launch<8> (g, axis, in, out, stream);
  return cosines_launch<GPUFX_GAUSS_MAX_TERMS> (g, axis, in, out, stream);
}

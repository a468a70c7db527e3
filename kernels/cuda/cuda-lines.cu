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
  int    n_terms;
  int    radius;
  int    period;
  double coeff[GPUFX_GAUSS_MAX_TERMS];
  double rot_re[GPUFX_GAUSS_MAX_TERMS], rot_im[GPUFX_GAUSS_MAX_TERMS];
  double old_re[GPUFX_GAUSS_MAX_TERMS], old_im[GPUFX_GAUSS_MAX_TERMS];
  double new_re[GPUFX_GAUSS_MAX_TERMS], new_im[GPUFX_GAUSS_MAX_TERMS];
  double step_re[GPUFX_GAUSS_MAX_TERMS], step_im[GPUFX_GAUSS_MAX_TERMS];
};

__constant__ LinesCosines lines_cos[2];

/* The element at position pos of a line (border mapped along the axis),
 * or 0 outside under the zero rule. */
__device__ __forceinline__ float
lines_read (const CudaPlane &in,
            int              axis,
            int              n,
            int              border,
            int              line_coord,
            int              pos,
            int              c,
            int              channels)
{
  int i = gpufx_border_index (pos, n, border);

  if (i < 0)
    return 0.0f;
  if (axis == 0)
    return in.p[(ptrdiff_t) (line_coord - in.y0) * in.pitch
                + (ptrdiff_t) (i - in.x0) * channels + c];
  return in.p[(ptrdiff_t) (i - in.y0) * in.pitch
              + (ptrdiff_t) (line_coord - in.x0) * channels + c];
}

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

/* The sum of cosines with a cost independent of r.  A block takes 32
 * lines (lanes; channel fastest, so the column pass reads whole rows) and
 * cuts each padded line (len + 2r samples, j = 0 .. np-1, image position
 * p0 + j) into NCH = blockDim.y chunks of S samples, one per threadIdx.y
 * (NCH = COS_NCH, 8, where its 2 NCH n_terms 32 double2 of shared memory
 * fit the budget: 64 KB for 8 terms; else 4, 2 or 1, e.g. 16 terms under a
 * 48 KB budget run as 2 chunks per line, 32 KB).  With
 *     P_m[j] = sum_{q < j} e^{i w_m q} x_q          (double)
 * the window sums are  T_m[o] = e^{-i w_m (o + r)} (P_m[o + 2r + 1] - P_m[o])
 * for output o (0-based).  Each thread sums its chunk (A) and the chunk's
 * first b samples (B), 2r + 1 = a S + b; after a block-wide exchange, the
 * thread owning outputs [tS, tS + S) starts from
 *     P[tS] = sum_{u<t} A_u,   P[tS + 2r + 1] = sum_{u<t+a} A_u + B_{t+a}
 * and slides T_m as the CPU does.  Every thread does about 2S steps, so the
 * cost per output does not grow with r.  Phases at chunk starts come from
 * sincospi of (m q mod 2L) / L, exact in the integers. */
__device__ __forceinline__ void
lines_phase (int m, long long q, int L, double *c, double *s)
{
  long long k = ((long long) m * q) % (2LL * L);

  if (k < 0)
    k += 2LL * L;
  sincospi ((double) k / L, s, c);
}

#define COS_LANES 32
#define COS_U     4
#define COS_NCH   8 /* chunks per line, at most (blockDim.y) */

/* AXIS is a template argument so that the plan's constants are read
 * with fixed constant-bank addresses (operands of the DFMAs) instead of
 * one indexed constant load each. */
template <int NT, int AXIS>
__global__ void
__launch_bounds__ (COS_LANES *COS_NCH, NT <= 8 ? 2 : 1)
  lines_cosines_kernel (CudaGeom g, CudaPlane in, CudaPlane out)
{
  const int                 axis = AXIS, slot = AXIS;
  extern __shared__ double2 cos_smem[];
  const LinesCosines       &k = lines_cos[slot];
  const int                 C = g.channels;
  const int  lane = threadIdx.x, t = threadIdx.y, NCH = blockDim.y;
  const int  n_lines = (axis == 0 ? out.h : out.w) * C;
  const int  len = axis == 0 ? out.w : out.h;
  const int  n = axis == 0 ? g.image_w : g.image_h;
  const int  r = k.radius, L = k.period, nt = k.n_terms;
  const int  l = blockIdx.x * COS_LANES + lane;
  const bool active = l < n_lines;
  const int  c = l % C, lidx = l / C;
  const int  line = axis == 0 ? out.y0 + lidx : out.x0 + lidx;
  const int  o0 = axis == 0 ? out.x0 : out.y0;
  const int  p0 = o0 - r;
  const int  np = len + 2 * r;
  const int  S = (np + NCH) / NCH; /* NCH * S > np */
  const int  a = (2 * r + 1) / S, b = (2 * r + 1) % S;
  const int  j0 = t * S;
  double2   *sA = cos_smem;
  double2   *sB = cos_smem + NCH * nt * COS_LANES;
  double     hre[NT], him[NT], bre[NT], bim[NT];

#pragma unroll
  for (int m = 0; m < NT; m++)
    hre[m] = him[m] = bre[m] = bim[m] = 0.0;

  /* Horner: h = h e^{-iw} + x_j, so h = sum_j x_j e^{-iw (last - j)}.
   * Samples are loaded COS_U at a time so that the loads' latency
   * overlaps instead of stalling every step. */
  for (int jj0 = 0; jj0 < S; jj0 += COS_U)
    {
      double xs[COS_U];

#pragma unroll
      for (int u = 0; u < COS_U; u++)
        {
          int j = j0 + jj0 + u;

          xs[u] = active && jj0 + u < S && j < np ? (double) lines_read (
                    in, axis, n, g.border, line, p0 + j, c, C)
                                                  : 0.0;
        }
#pragma unroll
      for (int u = 0; u < COS_U; u++)
        {
          if (jj0 + u == b)
#pragma unroll
            for (int m = 0; m < NT; m++)
              {
                bre[m] = hre[m];
                bim[m] = him[m];
              }
          if (jj0 + u < S)
#pragma unroll
            for (int m = 0; m < NT; m++)
              if (m < nt)
                {
                  double nre = fma (hre[m], k.rot_re[m],
                                    fma (-him[m], k.rot_im[m], xs[u]));
                  double nim = fma (hre[m], k.rot_im[m], him[m] * k.rot_re[m]);

                  hre[m] = nre;
                  him[m] = nim;
                }
        }
    }
#pragma unroll
  for (int m = 0; m < NT; m++)
    if (m < nt)
      {
        double pc, ps;

        lines_phase (m, (long long) j0 + S - 1, L, &pc, &ps);
        sA[(t * nt + m) * COS_LANES + lane]
          = make_double2 (hre[m] * pc - him[m] * ps, hre[m] * ps + him[m] * pc);
        lines_phase (m, (long long) j0 + b - 1, L, &pc, &ps);
        sB[(t * nt + m) * COS_LANES + lane]
          = make_double2 (bre[m] * pc - bim[m] * ps, bre[m] * ps + bim[m] * pc);
      }
  __syncthreads ();

  if (! active || j0 >= len)
    return;

  double tre[NT], tim[NT];

#pragma unroll
  for (int m = 0; m < NT; m++)
    if (m < nt)
      {
        double2 lead = sB[((t + a) * nt + m) * COS_LANES + lane];
        double  dre, dim, pc, ps;

        for (int u = 0; u < t + a; u++)
          {
            double2 v = sA[(u * nt + m) * COS_LANES + lane];

            lead.x += v.x;
            lead.y += v.y;
          }
        dre = lead.x;
        dim = lead.y;
        for (int u = 0; u < t; u++)
          {
            double2 v = sA[(u * nt + m) * COS_LANES + lane];

            dre -= v.x;
            dim -= v.y;
          }
        /* e^{-i w (j0 + r)} */
        lines_phase (m, (long long) j0 + r, L, &pc, &ps);
        tre[m] = dre * pc + dim * ps;
        tim[m] = dim * pc - dre * ps;
      }
    else
      tre[m] = tim[m] = 0.0;

  const int p_begin = o0 + j0;
  const int p_end = o0 + min (j0 + S, len);
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
  for (int p0b = p_begin; p0b < p_end; p0b += COS_U)
    {
      double xo[COS_U], xn[COS_U];

#pragma unroll
      for (int u = 0; u < COS_U; u++)
        {
          int p = p0b + u;

          /* The update after the last output is not needed. */
          if (p + 1 < p_end)
            {
              xo[u] = lines_read (in, axis, n, g.border, line, p - r, c, C);
              xn[u] = lines_read (in, axis, n, g.border, line, p + r + 1, c, C);
            }
          else
            xo[u] = xn[u] = 0.0;
        }
#pragma unroll
      for (int u = 0; u < COS_U; u++)
        {
          double y = 0.0;

          if (p0b + u >= p_end)
            break;
#pragma unroll
          for (int m = 0; m < NT; m++)
            if (m < nt)
              y = fma (k.coeff[m], tre[m], y);
          *o = (float) y;
          o += ostep;
#pragma unroll
          for (int m = 0; m < NT; m++)
            if (m < nt)
              {
                double are = tre[m] - k.old_re[m] * xo[u] + k.new_re[m] * xn[u];
                double aim = tim[m] - k.old_im[m] * xo[u] + k.new_im[m] * xn[u];

                tre[m] = are * k.rot_re[m] - aim * k.rot_im[m];
                tim[m] = are * k.rot_im[m] + aim * k.rot_re[m];
              }
        }
    }
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
      k.rot_re[m] = cos (w);
      k.rot_im[m] = -sin (w);
      k.old_re[m] = cos (w * plan->radius);
      k.old_im[m] = -sin (w * plan->radius);
      k.new_re[m] = cos (w * (plan->radius + 1));
      k.new_im[m] = sin (w * (plan->radius + 1));
      k.step_re[m] = cos (w);
      k.step_im[m] = sin (w);
    }
  return cudaMemcpyToSymbol (lines_cos, &k, sizeof k, sizeof k * axis,
                             cudaMemcpyHostToDevice);
}

template <int NT, int AXIS>
static cudaError_t
cosines_launch (const CudaGeom  &g,
                const CudaPlane &in,
                const CudaPlane &out,
                int              n_terms,
                cudaStream_t     stream)
{
  const int    n_lines = (AXIS == 0 ? out.h : out.w) * g.channels;
  const size_t per_chunk = 2 * sizeof (double2) * n_terms * COS_LANES;
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
                int              n_terms,
                cudaStream_t     stream)
{
  return axis == 0 ? cosines_launch<NT, 0> (g, in, out, n_terms, stream)
                   : cosines_launch<NT, 1> (g, in, out, n_terms, stream);
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
  /* The fewest terms the registers must hold. */
  if (n_terms <= 4)
    return cosines_launch<4> (g, axis, in, out, n_terms, stream);
  if (n_terms <= 8)
    return cosines_launch<8> (g, axis, in, out, n_terms, stream);
  return cosines_launch<GPUFX_GAUSS_MAX_TERMS> (g, axis, in, out, n_terms,
                                                stream);
}

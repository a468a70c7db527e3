/* gimp-gpu-filters: classic Kuwahara with cost independent of the radius.
 * Radii up to KUWA_FUSED_MAX_R run as one fused pass (below); larger ones
 * as the three global passes described here.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every quadrant is an (r+1) x (r+1) box, so all four come from one table
 * of box sums B(x, y) = sum over [x, x+r] x [y, y+r] of (colour channels,
 * V, V^2).  Two sliding passes build it (rows, then columns), each sliding
 * in double and storing float; segments restart their sums directly so no
 * rounding drifts along a whole line.  A float summed-area table over a
 * whole 4K image would lose the low bits that the variance needs.  The
 * last pass picks, per pixel, the quadrant of least variance of V (in
 * double from the float sums: E[V^2] - E[V]^2 over at most 257^2 values).
 */
#include "cuda-internal.h"

#define KUWA_SEG 128

/* V: the gray value, or max(R, G, B) of the first three colour channels. */
template <int C>
__device__ __forceinline__ float
kuwa_value (const float *v, int alpha)
{
  float m = -INFINITY;
  int   n = 0;

#pragma unroll
  for (int c = 0; c < C; c++)
    if (c != alpha && n < 3)
      {
        m = n ? fmaxf (m, v[c]) : v[c];
        n++;
      }
  return n ? m : v[0]; /* alpha only: V is alpha, as on the CPU */
}

/* H(x, y) = sum_{i=0..r} q(x + i, y) for x in [hx0, hx0 + hw), rows
 * [hy0, hy0 + hh).  One thread per row segment. */
template <int C>
__global__ void
kuwa_rows (CudaGeom  g,
           CudaPlane in,
           float    *h,
           int       hx0,
           int       hy0,
           int       hw,
           int       hh,
           int       r)
{
  const int    NS = C + 2;
  const int    n_segs = (hw + KUWA_SEG - 1) / KUWA_SEG;
  long         t = (long) blockIdx.x * blockDim.x + threadIdx.x;
  int          row, seg, x0, x1, yi;
  double       s[NS];
  const float *line;

  if (t >= (long) hh * n_segs)
    return;
  row = (int) (t % hh);
  seg = (int) (t / hh);
  x0 = seg * KUWA_SEG;
  x1 = min (x0 + KUWA_SEG, hw);
  yi = gpufx_border_index (hy0 + row, g.image_h, g.border);
  line = yi >= 0 ? in.p + (ptrdiff_t) (yi - in.y0) * in.pitch : NULL;

#pragma unroll
  for (int k = 0; k < NS; k++)
    s[k] = 0.0;

  auto add = [&] (int x, double sign) {
    int   xi = gpufx_border_index (x, g.image_w, g.border);
    float v[C];

    if (line && xi >= 0)
      {
#pragma unroll
        for (int c = 0; c < C; c++)
          v[c] = __ldg (line + (ptrdiff_t) (xi - in.x0) * C + c);
      }
    else
#pragma unroll
      for (int c = 0; c < C; c++)
        v[c] = 0.0f;
    double val = kuwa_value<C> (v, g.alpha);
#pragma unroll
    for (int c = 0; c < C; c++)
      s[c] += sign * v[c];
    s[C] += sign * val;
    s[C + 1] += sign * val * val;
  };

  for (int i = 0; i <= r; i++)
    add (hx0 + x0 + i, 1.0);
  float *o = h + ((ptrdiff_t) row * hw + x0) * NS;
  for (int x = x0; x < x1; x++)
    {
#pragma unroll
      for (int k = 0; k < NS; k++)
        o[k] = (float) s[k];
      o += NS;
      if (x + 1 < x1)
        {
          add (hx0 + x, -1.0);
          add (hx0 + x + r + 1, 1.0);
        }
    }
}

/* B(x, y) = sum_{j=0..r} H(x, y + j), one thread per column of one
 * component and one segment of rows; coalesced across threads. */
__global__ void
kuwa_cols (const float *h, float *b, int width_elems, int bh, int r)
{
  const int n_segs = (bh + KUWA_SEG - 1) / KUWA_SEG;
  long      t = (long) blockIdx.x * blockDim.x + threadIdx.x;
  int       e, seg, y0, y1;
  double    s = 0.0;

  if (t >= (long) width_elems * n_segs)
    return;
  e = (int) (t % width_elems);
  seg = (int) (t / width_elems);
  y0 = seg * KUWA_SEG;
  y1 = min (y0 + KUWA_SEG, bh);
  for (int j = 0; j <= r; j++)
    s += h[(ptrdiff_t) (y0 + j) * width_elems + e];
  for (int y = y0; y < y1; y++)
    {
      b[(ptrdiff_t) y * width_elems + e] = (float) s;
      if (y + 1 < y1)
        s += (double) h[(ptrdiff_t) (y + r + 1) * width_elems + e]
             - (double) h[(ptrdiff_t) y * width_elems + e];
    }
}

template <int C>
__global__ void
kuwa_pick (CudaGeom g, const float *b, int bw, CudaPlane out, int r)
{
  const int    NS = C + 2;
  int          x = blockIdx.x * blockDim.x + threadIdx.x;
  int          y = blockIdx.y * blockDim.y + threadIdx.y;
  const double inv_n = 1.0 / ((double) (r + 1) * (r + 1));
  const float *q[4];
  const float *w;
  double       best = INFINITY;

  if (x >= out.w || y >= out.h)
    return;
  /* TL, TR, BL, BR: boxes starting at (X-r, Y-r), (X, Y-r), (X-r, Y),
   * (X, Y); the table's origin is (out.x0 - r, out.y0 - r). */
  q[0] = b + ((ptrdiff_t) y * bw + x) * NS;
  q[1] = b + ((ptrdiff_t) y * bw + x + r) * NS;
  q[2] = b + ((ptrdiff_t) (y + r) * bw + x) * NS;
  q[3] = b + ((ptrdiff_t) (y + r) * bw + x + r) * NS;
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      double m = q[k][C] * inv_n;
      double var = q[k][C + 1] * inv_n - m * m;

      /* A later quadrant must win by more than the float sums' rounding,
       * so flat areas keep the first quadrant as the CPU does. */
      if (k == 0 || var < best - 1e-6 * q[0][C + 1] * inv_n)
        {
          best = var;
          w = q[k];
        }
    }
  float *d = out.p + (ptrdiff_t) y * out.pitch + (ptrdiff_t) x * C;
#pragma unroll
  for (int c = 0; c < C; c++)
    d[c] = (float) (w[c] * inv_n);
}

/* The fused path (r <= KUWA_FUSED_MAX_R): one pass, nothing in global
 * memory but the image.  A block of KUWA_FT threads owns KUWA_FT tile
 * columns (image columns x0 - r .. x0 - r + KUWA_FT - 1, giving
 * KUWA_FT - 2r outputs) and a segment of output rows.  Each thread keeps,
 * in double, its column's sums of (channels, V, V^2) over the rows
 * y - r .. y (set A) and y .. y + r (set B), sliding them down one row per
 * step as the CPU does.  Per row, a block-wide prefix sum (warp shuffles,
 * double) of both sets gives every (r+1)-wide box as a difference, so the
 * cost per output does not grow with r.  The pick uses the CPU's exact
 * tie rule on double sums. */
#define KUWA_FT          256
#define KUWA_FUSED_MAX_R 30

template <int C>
__device__ __forceinline__ void
kuwa_px (const CudaGeom &g, const CudaPlane &in, int xi, int y, double *v)
{
  const int NS = C + 2;
  int       yi = gpufx_border_index (y, g.image_h, g.border);
  float     p[C];

  if (xi >= 0 && yi >= 0)
    {
      gpufx_cuda_ldg_pixel<C> (in.p + (ptrdiff_t) (yi - in.y0) * in.pitch
                                 + (ptrdiff_t) (xi - in.x0) * C,
                               p);
    }
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      p[c] = 0.0f;
  float val = kuwa_value<C> (p, g.alpha);
#pragma unroll
  for (int c = 0; c < C; c++)
    v[c] = p[c];
  v[NS - 2] = val;
  v[NS - 1] = (double) val * val;
}

template <int C>
__global__ void
__launch_bounds__ (KUWA_FT)
  kuwa_fused (CudaGeom g, CudaPlane in, CudaPlane out, int r, int seg_h)
{
  const int         NS = C + 2;
  __shared__ double pre[2][NS][KUWA_FT]; /* [set][k][col] */
  __shared__ double wsum[2 * NS][KUWA_FT / 32];
  const int         q = threadIdx.x, lane = q & 31, warp = q >> 5;
  const int         tw = KUWA_FT - 2 * r; /* outputs per block */
  const int         ox = blockIdx.x * tw; /* first output column */
  const int         y_begin = blockIdx.y * seg_h;
  const int         y_end = min (y_begin + seg_h, out.h);
  const int         need_x0 = out.x0 - r, need_x1 = out.x0 + out.w - 1 + r;
  const int         need_y1 = out.y0 + out.h - 1 + r;
  const int         ix = min (out.x0 + ox - r + q, need_x1);
  const int    xi = gpufx_border_index (max (ix, need_x0), g.image_w, g.border);
  const double inv_n = 1.0 / ((double) (r + 1) * (r + 1));
  double       a[NS], b[NS], v[NS];

#pragma unroll
  for (int k = 0; k < NS; k++)
    a[k] = b[k] = 0.0;
  /* Start: A = rows y - r .. y, B = rows y .. y + r, y = first row. */
  {
    const int y = out.y0 + y_begin;

    for (int d = -r; d <= r; d++)
      {
        kuwa_px<C> (g, in, xi, min (y + d, need_y1), v);
        if (d <= 0)
#pragma unroll
          for (int k = 0; k < NS; k++)
            a[k] += v[k];
        if (d >= 0)
#pragma unroll
          for (int k = 0; k < NS; k++)
            b[k] += v[k];
      }
  }

  for (int yy = y_begin; yy < y_end; yy++)
    {
      const int y = out.y0 + yy;

      if (yy > y_begin)
        {
          double u[NS];

          /* A: + row y, - row y - r - 1; B: + row y + r, - row y - 1. */
          kuwa_px<C> (g, in, xi, y, v);
          kuwa_px<C> (g, in, xi, y - r - 1, u);
#pragma unroll
          for (int k = 0; k < NS; k++)
            a[k] += v[k] - u[k];
          kuwa_px<C> (g, in, xi, min (y + r, need_y1), v);
          kuwa_px<C> (g, in, xi, y - 1, u);
#pragma unroll
          for (int k = 0; k < NS; k++)
            b[k] += v[k] - u[k];
        }

      /* Inclusive prefix over the block's columns of both sets. */
      double sa[NS], sb[NS];

#pragma unroll
      for (int k = 0; k < NS; k++)
        {
          sa[k] = a[k];
          sb[k] = b[k];
        }
#pragma unroll
      for (int off = 1; off < 32; off <<= 1)
#pragma unroll
        for (int k = 0; k < NS; k++)
          {
            double ta = __shfl_up_sync (0xffffffffu, sa[k], off);
            double tb = __shfl_up_sync (0xffffffffu, sb[k], off);

            if (lane >= off)
              {
                sa[k] += ta;
                sb[k] += tb;
              }
          }
      if (lane == 31)
#pragma unroll
        for (int k = 0; k < NS; k++)
          {
            wsum[k][warp] = sa[k];
            wsum[NS + k][warp] = sb[k];
          }
      __syncthreads ();
      for (int w = 0; w < warp; w++)
#pragma unroll
        for (int k = 0; k < NS; k++)
          {
            sa[k] += wsum[k][w];
            sb[k] += wsum[NS + k][w];
          }
#pragma unroll
      for (int k = 0; k < NS; k++)
        {
          pre[0][k][q] = sa[k];
          pre[1][k][q] = sb[k];
        }
      __syncthreads ();

      if (q < tw && ox + q < out.w)
        {
          /* Tile column q is image column x - r: the box of columns
           * x - r .. x is P[q + r] - P[q - 1], x .. x + r is
           * P[q + 2r] - P[q + r - 1]. */
          const int lo[2] = { q - 1, q + r - 1 };
          int       best = 0;
          double    best_var = 0, best_ev2 = 0;

#pragma unroll
          for (int i = 0; i < 4; i++)
            {
              const int set = i >> 1, h = lo[i & 1];
              double    s1 = pre[set][NS - 2][h + r + 1]
                          - (h >= 0 ? pre[set][NS - 2][h] : 0.0);
              double s2 = pre[set][NS - 1][h + r + 1]
                          - (h >= 0 ? pre[set][NS - 1][h] : 0.0);
              double mean = s1 * inv_n, ev2 = s2 * inv_n;
              double var = ev2 - mean * mean;

              if (i == 0 || var < best_var - 1e-11 * fabs (best_ev2))
                {
                  best = i;
                  best_var = var;
                  best_ev2 = ev2;
                }
            }
          const int set = best >> 1, h = lo[best & 1];
          float    *d
            = out.p + (ptrdiff_t) yy * out.pitch + (ptrdiff_t) (ox + q) * C;

#pragma unroll
          for (int c = 0; c < C; c++)
            d[c] = (float) ((pre[set][c][h + r + 1]
                             - (h >= 0 ? pre[set][c][h] : 0.0))
                            * inv_n);
        }
      __syncthreads (); /* pre and wsum are rewritten next row */
    }
}

size_t
gpufx_cuda_kuwahara_scratch (int w, int h, int radius, int in_h, int channels)
{
  size_t ns = channels + 2;
  size_t hw = (size_t) w + radius;

  (void) in_h;
  if (radius <= KUWA_FUSED_MAX_R)
    return 0; /* the fused pass needs no scratch */
  return sizeof (float) * ns * hw
         * ((size_t) h + 2 * radius + (size_t) h + radius);
}

template <int C>
static cudaError_t
kuwa_launch (const CudaGeom  &g,
             const CudaPlane &in,
             const CudaPlane &out,
             int              r,
             CudaScratch      scratch,
             cudaStream_t     stream)
{
  if (r <= KUWA_FUSED_MAX_R)
    {
      /* Segments pay 2r + 1 rows to start: keep that a fraction. */
      int  seg_h = 64 + 4 * r;
      dim3 grid (gpufx_cuda_div_up (out.w, KUWA_FT - 2 * r),
                 gpufx_cuda_div_up (out.h, seg_h));

      kuwa_fused<C><<<grid, KUWA_FT, 0, stream>>> (g, in, out, r, seg_h);
      return cudaGetLastError ();
    }

  const int NS = C + 2;
  int       hw = out.w + r, hh = out.h + 2 * r, bh = out.h + r;
  float    *hbuf = (float *) scratch.p;
  float    *bbuf = hbuf + (size_t) hw * hh * NS;
  long      n;

  if (gpufx_cuda_kuwahara_scratch (out.w, out.h, r, 0, C) > scratch.bytes)
    return cudaErrorInvalidValue;
  n = (long) hh * ((hw + KUWA_SEG - 1) / KUWA_SEG);
  kuwa_rows<C><<<gpufx_cuda_div_up (n, 128), 128, 0, stream>>> (
    g, in, hbuf, out.x0 - r, out.y0 - r, hw, hh, r);
  n = (long) hw * NS * ((bh + KUWA_SEG - 1) / KUWA_SEG);
  kuwa_cols<<<gpufx_cuda_div_up (n, 256), 256, 0, stream>>> (hbuf, bbuf,
                                                             hw * NS, bh, r);
  dim3 block (32, 8);
  dim3 grid (gpufx_cuda_div_up (out.w, 32), gpufx_cuda_div_up (out.h, 8));
  kuwa_pick<C><<<grid, block, 0, stream>>> (g, bbuf, hw, out, r);
  return cudaGetLastError ();
}

cudaError_t
gpufx_cuda_kuwahara (const CudaGeom  &g,
                     const CudaPlane &in,
                     const CudaPlane &out,
                     int              radius,
                     CudaScratch      scratch,
                     cudaStream_t     stream)
{
  switch (g.channels)
    {
    case 1: return kuwa_launch<1> (g, in, out, radius, scratch, stream);
    case 2: return kuwa_launch<2> (g, in, out, radius, scratch, stream);
    case 3: return kuwa_launch<3> (g, in, out, radius, scratch, stream);
    default: return kuwa_launch<4> (g, in, out, radius, scratch, stream);
    }
}

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
 * step as the CPU does.  Per row, prefix sums of both sets within each
 * warp (shuffles; V and V^2 in double, the channels in float) give every
 * (r+1)-wide box, r < 32, from at most two warps' segments, so the cost
 * per output does not grow with r and there is no block-wide scan.  The
 * pick uses the CPU's exact tie rule on double sums. */
#define KUWA_FT          256
#define KUWA_FUSED_MAX_R 30

/* The pixel at (xi, y) of the image, border mapped (zero outside). */
template <int C>
__device__ __forceinline__ void
kuwa_load (const CudaGeom &g, const CudaPlane &in, int xi, int y, float *p)
{
  int yi = gpufx_border_index (y, g.image_h, g.border);

  if (xi >= 0 && yi >= 0)
    gpufx_cuda_ldg_pixel<C> (in.p + (ptrdiff_t) (yi - in.y0) * in.pitch
                               + (ptrdiff_t) (xi - in.x0) * C,
                             p);
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      p[c] = 0.0f;
}

/* (channels, V, V^2) of a pixel, in double. */
template <int C>
__device__ __forceinline__ void
kuwa_vals (const float *p, int alpha, double *v)
{
  const int NS = C + 2;
  float     val = kuwa_value<C> (p, alpha);

#pragma unroll
  for (int c = 0; c < C; c++)
    v[c] = p[c];
  v[NS - 2] = val;
  v[NS - 1] = (double) val * val;
}

/* Box sum over columns lo .. hi (hi - lo <= 30) from prefix sums that
 * restart at every warp's first column (p[k]: the sum of columns
 * k & ~31 .. k), so a box spans at most two segments. */
template <typename T>
__device__ __forceinline__ T
kuwa_box (const T *p, int lo, int hi)
{
  /* Without branches: at large r most boxes span two segments, and lanes
   * that took different paths ran both. */
  T e = (lo >> 5) != (hi >> 5) ? p[lo | 31] : (T) 0;
  T f = (lo & 31) ? p[lo - 1] : (T) 0;

  return p[hi] + (e - f);
}

template <int C>
__global__ void
__launch_bounds__ (KUWA_FT, 3)
  kuwa_fused (CudaGeom g, CudaPlane in, CudaPlane out, int r, int seg_h)
{
  const int NS = C + 2;
  /* Per row, prefix sums restarting per warp (no block-wide scan): V and
   * V^2 in double, the channels in float (over 32 columns at most: the
   * gpu suite's worst difference from the CPU is 1.6e-6, at r = 1); two
   * buffers, alternating by row, so one barrier per row suffices. */
  __shared__ double pv[2][2][2][KUWA_FT]; /* [buffer][set][V, V^2][col] */
  __shared__ float  pc[2][2][C][KUWA_FT]; /* [buffer][set][channel][col] */
  const int         q = threadIdx.x, lane = q & 31;
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

#pragma unroll 4
    for (int d = -r; d <= r; d++)
      {
        float p[C];

        kuwa_load<C> (g, in, xi, min (y + d, need_y1), p);
        kuwa_vals<C> (p, g.alpha, v);
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

  /* The next row's four pixels (A: + row y, - row y - r - 1; B: + row
   * y + r, - row y - 1) load one row ahead, so that their latency hides
   * behind this row's scan and pick. */
  float nx[4][C];
  auto  fetch = [&] (int yy) {
    const int y = out.y0 + yy;

    kuwa_load<C> (g, in, xi, y, nx[0]);
    kuwa_load<C> (g, in, xi, y - r - 1, nx[1]);
    kuwa_load<C> (g, in, xi, min (y + r, need_y1), nx[2]);
    kuwa_load<C> (g, in, xi, y - 1, nx[3]);
  };

  if (y_begin + 1 < y_end)
    fetch (y_begin + 1);
  for (int yy = y_begin; yy < y_end; yy++)
    {
      const int buf = (yy - y_begin) & 1;

      if (yy > y_begin)
        {
          double u[NS];

          kuwa_vals<C> (nx[0], g.alpha, v);
          kuwa_vals<C> (nx[1], g.alpha, u);
#pragma unroll
          for (int k = 0; k < NS; k++)
            a[k] += v[k] - u[k];
          kuwa_vals<C> (nx[2], g.alpha, v);
          kuwa_vals<C> (nx[3], g.alpha, u);
#pragma unroll
          for (int k = 0; k < NS; k++)
            b[k] += v[k] - u[k];
          if (yy + 1 < y_end)
            fetch (yy + 1);
        }

      /* Inclusive prefix within the warp of both sets. */
      double sv[2][2];
      float  sc[2][C];

#pragma unroll
      for (int k = 0; k < 2; k++)
        {
          sv[0][k] = a[C + k];
          sv[1][k] = b[C + k];
        }
#pragma unroll
      for (int c = 0; c < C; c++)
        {
          sc[0][c] = (float) a[c];
          sc[1][c] = (float) b[c];
        }
#pragma unroll
      for (int off = 1; off < 32; off <<= 1)
#pragma unroll
        for (int set = 0; set < 2; set++)
          {
            double t[2];
            float  tc[C];

#pragma unroll
            for (int k = 0; k < 2; k++)
              t[k] = __shfl_up_sync (0xffffffffu, sv[set][k], off);
#pragma unroll
            for (int c = 0; c < C; c++)
              tc[c] = __shfl_up_sync (0xffffffffu, sc[set][c], off);
            if (lane >= off)
              {
#pragma unroll
                for (int k = 0; k < 2; k++)
                  sv[set][k] += t[k];
#pragma unroll
                for (int c = 0; c < C; c++)
                  sc[set][c] += tc[c];
              }
          }
#pragma unroll
      for (int set = 0; set < 2; set++)
        {
#pragma unroll
          for (int k = 0; k < 2; k++)
            pv[buf][set][k][q] = sv[set][k];
#pragma unroll
          for (int c = 0; c < C; c++)
            pc[buf][set][c][q] = sc[set][c];
        }
      __syncthreads ();

      if (q < tw && ox + q < out.w)
        {
          /* Tile column q is image column x - r: the box of columns
           * x - r .. x is q .. q + r, x .. x + r is q + r .. q + 2r. */
          int    best = 0;
          double best_var = 0, best_ev2 = 0;

#pragma unroll
          for (int i = 0; i < 4; i++)
            {
              const int set = i >> 1, l = q + (i & 1) * r;
              double    s1 = kuwa_box (pv[buf][set][0], l, l + r);
              double    s2 = kuwa_box (pv[buf][set][1], l, l + r);
              double    mean = s1 * inv_n, ev2 = s2 * inv_n;
              double    var = ev2 - mean * mean;

              if (i == 0 || var < best_var - 1e-11 * fabs (best_ev2))
                {
                  best = i;
                  best_var = var;
                  best_ev2 = ev2;
                }
            }
          const int set = best >> 1, l = q + (best & 1) * r;
          float    *d
            = out.p + (ptrdiff_t) yy * out.pitch + (ptrdiff_t) (ox + q) * C;

#pragma unroll
          for (int c = 0; c < C; c++)
            d[c] = (float) (kuwa_box (pc[buf][set][c], l, l + r) * inv_n);
        }
      /* (no second barrier: the next row writes the other buffer) */
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
      /* Segments pay 2r + 1 rows of column sums to start (loads and
       * adds only, far cheaper than an output row), against enough
       * blocks for the GPU at 1080p. */
      int  seg_h = 32 + 2 * r;
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

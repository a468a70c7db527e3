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

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

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

/* The alpha index that the fused kernels with VA compile in: RGBA, RGB,
 * gray + alpha (one channel: V is that channel whatever alpha is).  With
 * g.alpha read at run time, kuwa_value compiled to a chain of compares,
 * branches and copies per value (~15 instructions instead of 2 FMNMX, 8
 * values per lane and row of the main loop): VA took 3.5-7.4% off the 4K
 * times (H100, round 17).  Other alpha positions run kernels without VA. */
template <int C>
__host__ __device__ constexpr int
kuwa_usual_alpha ()
{
  return C == 4 ? 3 : C == 3 ? -1 : C == 2 ? 1 : 0;
}

/* Can the VA kernels take alpha a?  Four channels without alpha have the
 * same V as RGBA (the first three). */
template <int C>
static bool
kuwa_va_fits (int a)
{
  return C == 1 || a == kuwa_usual_alpha<C> () || (C == 4 && a < 0);
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
 * memory but the image.  A block of nw warps (kuwa_plan picks 16, 8, 4 or 2)
 * owns TW = 64 nw tile columns (image columns x0 - r - dx .. x0 - r - dx +
 * TW - 1, giving tw <= TW - 2r - dx outputs from x0; dx = 0 and tw = TW - 2r
 * unless the tiles are aligned, see kuwa_launch) and a segment of output
 * rows.  Each lane owns
 * two adjacent tile columns, of which it keeps the sums of (channels, V,
 * V^2) over the rows y - r .. y (set A) and y .. y + r (set B), sliding
 * them one row per step (down; up in odd segments) as the CPU does: V and
 * V^2 in double, the channels in float.  Per row, prefix sums of both sets
 * within each warp's 64 columns (the lane's pair sum scanned by shuffles: half
 * the shuffles per output of one column per lane; V and V^2 in double, the
 * channels in float) give every (r+1)-wide box, r < 64, from at most two
 * warps' segments, so the cost per output does not grow with r and there
 * is no block-wide scan.  Then each lane picks for tile columns lane and
 * lane + 32 of its warp's 64, with the CPU's exact tie rule on double
 * sums.  Each box's variance (per set and first column) is computed once
 * for the two outputs that use it: in registers, passed on by shuffles
 * (one phase: sm_90+, and 16 warps everywhere), or in shared memory, read
 * after a second barrier (two phases: below 16 warps before sm_90, where
 * that was faster without the split barrier).  The float channel sums
 * (sliding over at most seg_h rows, prefix over 64 columns) stayed within
 * 6e-6 of the double-sliding kernel before on a 4K image at r = 1 (less at
 * larger r). */
#define KUWA_NT          512
#define KUWA_FUSED_MAX_R 30
#define KUWA_BATCH_R     10 /* see the start */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define KUWA_SPLIT 1 /* mbarrier try_wait: see the one-phase loop */
#else
#define KUWA_SPLIT 0
#endif

/* The input row y, border mapped (NULL: zero outside). */
__device__ __forceinline__ const float *
kuwa_row (const CudaGeom &g, const CudaPlane &in, int y)
{
  int yi = gpufx_border_index (y, g.image_h, g.border);

  return yi >= 0 ? in.p + (ptrdiff_t) (yi - in.y0) * in.pitch : NULL;
}

/* The pixel at column xi (border mapped, < 0: zero) of a row. */
template <int C>
__device__ __forceinline__ void
kuwa_load (const CudaPlane &in, const float *row, int xi, float *p)
{
  if (row && xi >= 0)
    gpufx_cuda_ldg_pixel<C> (row + (ptrdiff_t) (xi - in.x0) * C, p);
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      p[c] = 0.0f;
}

/* Box sum over columns lo .. hi (hi - lo < 64) from prefix sums that
 * restart at every warp's first column (p[k]: the sum of columns
 * k & ~63 .. k), so a box spans at most two segments. */
template <typename T>
__device__ __forceinline__ T
kuwa_box (const T *p, int lo, int hi)
{
  /* Without branches: at large r most boxes span two segments, and lanes
   * that took different paths ran both. */
  T e = (lo >> 6) != (hi >> 6) ? p[lo | 63] : (T) 0;
  T f = (lo & 63) ? p[lo - 1] : (T) 0;

  return p[hi] + (e - f);
}

/* kuwa_box where lo and hi are in one segment (the same sum: e is 0). */
template <typename T>
__device__ __forceinline__ T
kuwa_box1 (const T *p, int lo, int hi)
{
  return p[hi] - ((lo & 63) ? p[lo - 1] : (T) 0);
}

/* The CUDA vector type of N values of T that one load or store moves (16
 * or 8 bytes), or void. */
template <typename T, int N> struct KuwaVec
{
  typedef void type;
};
template <> struct KuwaVec<double, 2>
{
  typedef double2 type;
};
template <> struct KuwaVec<float, 4>
{
  typedef float4 type;
};
template <> struct KuwaVec<float, 2>
{
  typedef float2 type;
};

/* N values of one column from a layout of N per column: one vector load
 * where KuwaVec has a type. */
template <typename T, int N>
__device__ __forceinline__ void
kuwa_ldv (const T *p, T *v)
{
  typedef typename KuwaVec<T, N>::type Vec;

  if constexpr (! std::is_void<Vec>::value)
    {
      const Vec d = *(const Vec *) p;

      memcpy (v, &d, sizeof d);
    }
  else
#pragma unroll
    for (int c = 0; c < N; c++)
      v[c] = p[c];
}

/* kuwa_ldv's store. */
template <typename T, int N>
__device__ __forceinline__ void
kuwa_stv (T *p, const T *v)
{
  typedef typename KuwaVec<T, N>::type Vec;

  if constexpr (! std::is_void<Vec>::value)
    {
      Vec d;

      memcpy (&d, v, sizeof d);
      *(Vec *) p = d;
    }
  else
#pragma unroll
    for (int c = 0; c < N; c++)
      p[c] = v[c];
}

/* Four floats to shared memory in one 16-byte store, whatever registers
 * hold them (through kuwa_stv, after selects, ptxas split such a store into
 * 8 + 4 + 4 bytes, round 23). */
__device__ __forceinline__ void
kuwa_sts4 (float *p, const float *v)
{
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(
                 (unsigned) __cvta_generic_to_shared (p)),
               "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3])
               : "memory");
}

/* kuwa_box (G: spanning two segments maybe) or kuwa_box1 (! G) of N sums
 * stored together per column: s[c] = the box sum of value c, the same
 * arithmetic per value. */
template <bool G, typename T, int N>
__device__ __forceinline__ void
kuwa_boxv (const T *p, int lo, int hi, T *s)
{
  T h[N], e[N], f[N];

  kuwa_ldv<T, N> (p + hi * N, h);
  if (G && (lo >> 6) != (hi >> 6))
    kuwa_ldv<T, N> (p + (lo | 63) * N, e);
  else
#pragma unroll
    for (int c = 0; c < N; c++)
      e[c] = 0;
  if (lo & 63)
    kuwa_ldv<T, N> (p + (lo - 1) * N, f);
  else
#pragma unroll
    for (int c = 0; c < N; c++)
      f[c] = 0;
#pragma unroll
  for (int c = 0; c < N; c++)
    s[c] = G ? h[c] + (e[c] - f[c]) : h[c] - f[c];
}

/* Quadrant qd of (variance var, E[V^2] ev2) against the best so far, with
 * the CPU's tie rule: a later quadrant must win by more than the sums'
 * rounding, so flat areas keep the first. */
__device__ __forceinline__ void
kuwa_take (int qd, double var, double ev2, int &best, double &bv, double &be)
{
  if (qd == 0 || var < bv - 1e-11 * fabs (be))
    {
      best = qd;
      bv = var;
      be = ev2;
    }
}

/* The one-phase pick's share of one set (see kuwa_fused): from the set's
 * prefix sums p of V and V^2, each lane's (variance, E[V^2]) of the boxes
 * starting at tile columns 64 w + 32 g + lane, g = 0, 1, 2, each once; an
 * output's right box (r columns on) comes from lane src = (lane + r) & 31
 * (wrap: lane + r >= 32), which offers group 2 if lane < r (else 0) and
 * group 1; then both quadrants of the set for the lane's two outputs (h)
 * go to kuwa_take.  One helper for the plain and the LM loops: the 4K
 * outputs bit-identical and the times within -4..+0.4% of the two copies
 * it replaced (H100, round 24; the SASS differs in register allocation).
 * Only lanes < r send var[2]; group 2's box loads in those lanes alone
 * (the WS ring, whose L1 data pipe was 77% busy) cut the shared load
 * wavefronts 10%, but ran 0.3-1% slower at 4K RGBA r = 8..12 and 5% at 2
 * channels (H100, round 24). */
__device__ __forceinline__ void
kuwa_pick_set (const double *p,
               int           set,
               int           w0,
               int           lane,
               int           r,
               int           tw_all,
               double        inv_n,
               int           src,
               bool          wrap,
               int (&bq)[2],
               double (&bvar)[2],
               double (&bev2)[2])
{
  double var[3], ev2[3];

#pragma unroll
  for (int g = 0; g < 3; g++)
    {
      /* Past the tile (no output reads them): its last box. */
      const int l
        = g ? min (2 * w0 + 32 * g + lane, tw_all - 1 - r) : 2 * w0 + lane;
      double mean, sv[2];

      if (g == 1)
        kuwa_boxv<true, double, 2> (p, l, l + r, sv);
      else
        kuwa_boxv<false, double, 2> (p, l, l + r, sv);
      mean = sv[0] * inv_n;
      ev2[g] = sv[1] * inv_n;
      var[g] = ev2[g] - mean * mean;
    }

  const double a_var
    = __shfl_sync (0xffffffffu, lane < r ? var[2] : var[0], src);
  const double a_ev2
    = __shfl_sync (0xffffffffu, lane < r ? ev2[2] : ev2[0], src);
  const double b_var = __shfl_sync (0xffffffffu, var[1], src);
  const double b_ev2 = __shfl_sync (0xffffffffu, ev2[1], src);

#pragma unroll
  for (int h = 0; h < 2; h++)
    {
      const bool b = (h == 0) == wrap;

      kuwa_take (2 * set, var[h], ev2[h], bq[h], bvar[h], bev2[h]);
      kuwa_take (2 * set + 1, b ? b_var : a_var, b ? b_ev2 : a_ev2, bq[h],
                 bvar[h], bev2[h]);
    }
}

/* A lane's sums of one set for its two columns: V, V^2 and the channels. */
template <int C> struct KuwaSums
{
  double v[2][2]; /* [column][V, V^2] */
  float  c[2][C]; /* [column][channel] */
};

/* s += pixel p (sign +1) or -= it, for column j. */
template <int C>
__device__ __forceinline__ void
kuwa_add (KuwaSums<C> &s, int j, const float *p, int alpha)
{
  double val = kuwa_value<C> (p, alpha);

  s.v[j][0] += val;
  s.v[j][1] += val * val;
#pragma unroll
  for (int c = 0; c < C; c++)
    s.c[j][c] += p[c];
}

/* s += pixel p - pixel u for column j, as the CPU slides (the difference
 * of the exact double values, then one addition). */
template <int C>
__device__ __forceinline__ void
kuwa_slide (KuwaSums<C> &s, int j, const float *p, const float *u, int alpha)
{
  double vp = kuwa_value<C> (p, alpha), vu = kuwa_value<C> (u, alpha);

  s.v[j][0] += vp - vu;
  s.v[j][1] += fma (-vu, vu, vp * vp);
#pragma unroll
  for (int c = 0; c < C; c++)
    s.c[j][c] += p[c] - u[c];
}

/* Inclusive prefix over the warp of x; returns it.  For a double each
 * step compiles to a DADD and two FSEL; a predicated add.f64 or fma.rn.f64
 * in inline PTX under the shuffle's own predicate compiled the same
 * (ptxas 13.0, round 17). */
template <typename T>
__device__ __forceinline__ T
kuwa_scan (T x, int lane)
{
#pragma unroll
  for (int off = 1; off < 32; off <<= 1)
    {
      T t = __shfl_up_sync (0xffffffffu, x, off);

      if (lane >= off)
        x += t;
    }
  return x;
}

/* One output pixel; vec: one vector store where C is 4 or 2 (the plane
 * aligned to the pixel). */
template <int C>
__device__ __forceinline__ void
kuwa_store_pixel (float *d, const float *v, bool vec)
{
  if (C == 4 && vec)
    *(float4 *) d = make_float4 (v[0], v[1 % C], v[2 % C], v[3 % C]);
  else if (C == 2 && vec)
    *(float2 *) d = make_float2 (v[0], v[1 % C]);
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      d[c] = v[c];
}

/* Dynamic shared memory of a block of nt threads: per buffer (2) and set
 * (2), the prefix sums of V and V^2 (double) and of the channels. */
static size_t
kuwa_fused_smem (int nt, int channels)
{
  return (size_t) 4 * 2 * nt
         * (2 * sizeof (double) + channels * sizeof (float));
}

/* Barrier ID over n threads, waited on from different places (the WS
 * roles' loops).  __syncthreads and bar.sync are aligned barriers (PTX:
 * bar.sync is barrier.sync.aligned), which every thread must reach at the same
 * instruction: compute-sanitizer's synccheck failed the WS kernels on
 * __syncthreads.  barrier.sync without .aligned allows that, as long as
 * each warp arrives whole; ptxas 13.0 gives it the same BAR.SYNC (H100,
 * round 24: the same times as bar.sync, synccheck clean). */
template <int ID>
__device__ __forceinline__ void
kuwa_bar_sync (int n)
{
  asm volatile("barrier.sync %0, %1;" ::"n"(ID), "r"(n) : "memory");
}

/* Dynamic shared memory of the ring (RG) kernel of nt threads at radius r:
 * kuwa_ring_slots (r) rows of the leading set's prefix sums. */
__host__ __device__ static inline int
kuwa_ring_slots (int r)
{
  return r + 2;
}

static size_t
kuwa_ring_smem (int nt, int channels, int r)
{
  return (size_t) kuwa_ring_slots (r) * 2 * nt
         * (2 * sizeof (double) + channels * sizeof (float));
}

/* AL: aligned tiles, tw and dx given (RGBA only); else tw = TW - 2r, dx = 0
 * (the arguments unused).  VA: g.alpha is kuwa_usual_alpha's (see there).
 * RG (one phase only): the ring.  The trailing set at row k is the leading
 * set at row k - r (B(y) = A(y + r)), so only the leading set slides and is
 * scanned, and its prefix sums stay in shared memory for r + 2 rows: per
 * row half the scans and prefix stores, two rows loaded instead of three
 * (each row read twice, r + 1 steps apart, instead of three times over
 * 2r + 1 steps).  The segment starts r rows early (the trailing set's start
 * rows), then slides r rows without a pick to fill the ring.  WS (with RG
 * and LM): specialized warps, twice as many per block as column warps (see
 * the loop). */
template <int  C,
          bool TP,
          bool AL,
          bool VA,
          bool RG = false,
          bool LM = false,
          bool WS = false>
__global__ void
__launch_bounds__ (KUWA_NT, 1) kuwa_fused (CudaGeom  g,
                                           CudaPlane in,
                                           CudaPlane out,
                                           int       r,
                                           int       seg_h,
                                           int       tw_al,
                                           int       dx_al)
{
  /* WS: threads [0, nct) produce the ring's rows, [nct, 2 nct) pick from
   * them, each over the same columns (q).  prod from lane 0's shuffle, so
   * that ptxas knows each warp takes one role: from the thread index it
   * gave every shuffle a divergent path too (BRA.DIV, WARPSYNC; 3528
   * instructions instead of 2872). */
  extern __shared__ double kuwa_smem[];
  const int                nct = WS ? blockDim.x / 2 : blockDim.x;
  const bool               prod
    = ! WS || __shfl_sync (0xffffffffu, (int) threadIdx.x < nct, 0);
  const int tw_all = 2 * nct; /* tile columns */
  const int q = prod ? threadIdx.x : threadIdx.x - nct;
  const int lane = q & 31, w0 = q & ~31;
  const int c0 = 2 * q;                       /* 64 w + 2 lane */
  const int tw = AL ? tw_al : tw_all - 2 * r; /* outputs */
  const int dx = AL ? dx_al : 0;
  const int ox = blockIdx.x * tw; /* first output column */
  const int y_begin = blockIdx.y * seg_h;
  const int y_end = min (y_begin + seg_h, out.h);
  /* Odd segments run upwards, so that two neighbouring segments start at
   * their common edge together (the 2r + 1 rows that start both read
   * once from DRAM) and end together at the next. */
  const bool   up = blockIdx.y & 1;
  const int    dir = up ? -1 : 1;
  const int    y_first = up ? y_end - 1 : y_begin;
  const int    n_rows = y_end - y_begin;
  const int    need_x0 = out.x0 - r, need_x1 = out.x0 + out.w - 1 + r;
  const int    need_y1 = out.y0 + out.h - 1 + r;
  const double inv_n = 1.0 / ((double) (r + 1) * (r + 1));
  const float  inv_nf = (float) inv_n;
  const int    alpha = VA ? kuwa_usual_alpha<C> () : g.alpha;
  const bool   vec
    = ((uintptr_t) out.p & (sizeof (float) * C - 1)) == 0 && out.pitch % C == 0;
  /* [buffer][set][V, V^2][column] then [buffer][set][channel][column].
   * The registers hold the trailing set (s[0]: A going down, B going up)
   * and the leading one (s[1]); slot set ^ up of a buffer is A (0) or B
   * (1).  TP (two phases): V and V^2 in one buffer, [set][V, V^2][column],
   * read only before the second barrier, and in place of the other, per
   * set and box start, the box's (variance, E[V^2]). */
  int         xi[2];
  KuwaSums<C> s[2]; /* trailing, leading */

#pragma unroll
  for (int j = 0; j < 2; j++)
    {
      int ix = min (out.x0 + ox - r - dx + c0 + j, need_x1);

      xi[j] = gpufx_border_index (max (ix, need_x0), g.image_w, g.border);
#pragma unroll
      for (int k = 0; k < 2; k++)
        s[0].v[j][k] = s[1].v[j][k] = 0.0;
#pragma unroll
      for (int c = 0; c < C; c++)
        s[0].c[j][c] = s[1].c[j][c] = 0.0f;
    }
  /* Start: A = rows y - r .. y, B = rows y .. y + r, y = first row.  With
   * one phase from KUWA_BATCH_R on, 8 rows' loads at a time: the start's
   * loads wait on DRAM with nothing else to do (16-warp blocks, one per SM,
   * 4K r >= 22: 3-5% faster).  Not in the two-phase kernels: there the
   * branch alone made the main loop's code 15% slower (H100).  WS: the
   * producers only (no rows for the others). */
  {
    const int y = out.y0 + y_first;
    /* RG: only the trailing set's rows, into the leading set's registers
     * (the leading set at row -r). */
    const int dlo = RG && up ? 0 : -r;
    const int dhi = ! prod ? dlo - 1 : RG && ! up ? 0 : r;
    auto      add = [&] (int d, float (*p)[C]) {
#pragma unroll
      for (int j = 0; j < 2; j++)
        {
          if (RG)
            kuwa_add<C> (s[1], j, p[j], alpha);
          else
            {
              if (up ? d >= 0 : d <= 0)
                kuwa_add<C> (s[0], j, p[j], alpha);
              if (up ? d <= 0 : d >= 0)
                kuwa_add<C> (s[1], j, p[j], alpha);
            }
        }
    };

    if (! TP && r >= KUWA_BATCH_R)
      for (int d0 = dlo; d0 <= dhi; d0 += 8)
        {
          float p[8][2][C];

#pragma unroll
          for (int u = 0; u < 8; u++)
            if (d0 + u <= dhi)
              {
                const float *row = kuwa_row (g, in, min (y + d0 + u, need_y1));

#pragma unroll
                for (int j = 0; j < 2; j++)
                  kuwa_load<C> (in, row, xi[j], p[u][j]);
              }
#pragma unroll
          for (int u = 0; u < 8; u++)
            if (d0 + u <= dhi)
              add (d0 + u, p[u]);
        }
    else
#pragma unroll 2
      for (int d = dlo; d <= dhi; d++)
        {
          const float *row = kuwa_row (g, in, min (y + d, need_y1));
          float        p[2][C];

#pragma unroll
          for (int j = 0; j < 2; j++)
            kuwa_load<C> (in, row, xi[j], p[j]);
          add (d, p);
        }
  }

  /* The next row's pixels load one row ahead, so that their latency
   * hides behind this row's scan and pick: at row y going down (up), the
   * trailing set A (B) adds row y and drops y - r - 1 (y + r + 1), the
   * leading set B (A) adds y + r (y - r) and drops y - 1 (y + 1), the row
   * before's y (pr). */
  float nx[3][2][C], pr[2][C];
  /* Where the three rows lie in the image (and, going down, y + r within
   * the rows needed) and the warp's columns too, plain loads from column
   * pointers: the border mapping of three rows per step, with its wrap /
   * mirror divisions inlined, and the zero fill of each load were ~90 of
   * the main loop's instructions per lane and row (with VA: 4K 0.6-2.9%
   * faster, H100, round 17).  Not without VA: there the pointers' registers
   * made the kernel for 3 channels with alpha spill.  Tried and dropped (H100,
   * round 17): the border-mapped path out of line, so that no register copies
   * surround it (4K +1..31%: the loads' latency showed), that and the row
   * before's y (pr) loaded again instead of copied (+2..48%), the same plain
   * loads in the start (4K -0.4..+2.4%, 1080p -4.7..+2.3%). */
  const bool   cols_in = __all_sync (0xffffffffu, xi[0] >= 0 && xi[1] >= 0);
  const float *col[2] = { in.p + (ptrdiff_t) (max (xi[0], 0) - in.x0) * C,
                          in.p + (ptrdiff_t) (max (xi[1], 0) - in.x0) * C };
  /* RG: nx[2] the row that the leading set adds (y + r going down), nx[1]
   * the one it drops (y - 1); nx[0] unused. */
  const ptrdiff_t d1
    = RG ? -(ptrdiff_t) dir * in.pitch : -(ptrdiff_t) dir * (r + 1) * in.pitch;
  const ptrdiff_t d2 = (ptrdiff_t) dir * r * in.pitch;
  auto            fetch = [&] (int k) {
    const int y = out.y0 + y_first + dir * k;
    const int lo = up ? y - r : RG ? y - 1 : y - r - 1;
    const int hi = up ? (RG ? y + 1 : y + r + 1) : y + r;

    if (VA && cols_in && lo >= 0 && hi < g.image_h && (up || hi <= need_y1))
      {
        const ptrdiff_t o0 = (ptrdiff_t) (y - in.y0) * in.pitch;
        const ptrdiff_t o1 = o0 + d1, o2 = o0 + d2;

#pragma unroll
        for (int j = 0; j < 2; j++)
          {
            if (! RG)
              gpufx_cuda_ldg_pixel<C> (col[j] + o0, nx[0][j]);
            gpufx_cuda_ldg_pixel<C> (col[j] + o1, nx[1][j]);
            gpufx_cuda_ldg_pixel<C> (col[j] + o2, nx[2][j]);
          }
        return;
      }

    const float *r0 = RG ? NULL : kuwa_row (g, in, y);
    const float *r1 = kuwa_row (g, in, RG ? y - dir : y - dir * (r + 1));
    const float *r2 = kuwa_row (g, in, up ? y - r : min (y + r, need_y1));

#pragma unroll
    for (int j = 0; j < 2; j++)
      {
        if (! RG)
          kuwa_load<C> (in, r0, xi[j], nx[0][j]);
        kuwa_load<C> (in, r1, xi[j], nx[1][j]);
        kuwa_load<C> (in, r2, xi[j], nx[2][j]);
      }
  };

  /* One phase on sm_90+: the row's barrier is split.  Each thread arrives
   * on an mbarrier after its prefix stores, slides its sums to the next row
   * and issues that row's loads, and only then waits: the warps waited for
   * the slowest with nothing to do (16-warp blocks, one per SM, 4K r =
   * 17..30: 4-5% faster; 8-warp blocks 3-10%, round 14; H100).  Every
   * thread arrives (not one per warp), so that compute-sanitizer's
   * racecheck sees each thread's stores ordered before the others' loads. */
  constexpr bool SPL = KUWA_SPLIT && ! TP && ! WS;
  /* The sums t (both sets) to the next row, from the fetched pixels. */
  auto slide = [&] (KuwaSums<C> (&t)[2]) {
#pragma unroll
    for (int j = 0; j < 2; j++)
      if (RG)
        kuwa_slide<C> (t[1], j, nx[2][j], nx[1][j], alpha);
      else
        {
          kuwa_slide<C> (t[0], j, nx[0][j], nx[1][j], alpha);
          kuwa_slide<C> (t[1], j, nx[2][j], pr[j], alpha);
#pragma unroll
          for (int c = 0; c < C; c++)
            pr[j][c] = nx[0][j][c];
        }
  };
#if KUWA_SPLIT
  __shared__ unsigned long long kuwa_mbar;
  const unsigned mbar = (unsigned) __cvta_generic_to_shared (&kuwa_mbar);

  if (SPL)
    {
      if (q == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(mbar),
                     "r"(blockDim.x)
                     : "memory");
      __syncthreads ();
    }
#endif
  /* The sums s to row k + 1 and row k + 2's loads. */
  auto advance = [&] (int k) {
    if (k + 1 < n_rows)
      {
        slide (s);
        if (k + 2 < n_rows)
          fetch (k + 2);
      }
  };
  /* Row k's barrier: split where SPL (see above), else whole. */
  auto row_barrier = [&] (int k) {
#if KUWA_SPLIT
    if (SPL)
      {
        unsigned long long st;
        unsigned           ok;

        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
                     : "=l"(st)
                     : "r"(mbar)
                     : "memory");
        advance (k);
        do
          asm volatile("{\n\t.reg .pred p;\n\t"
                       "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], "
                       "%2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                       : "=r"(ok)
                       : "r"(mbar), "r"((unsigned) k & 1)
                       : "memory");
        while (! ok);
        return;
      }
#endif
    __syncthreads ();
  };

  /* RG: rows k0 .. -1 fill the ring; ring slot sw holds row k, and slot
   * sw + 2 (mod nsl) row k - r. */
  const int k0 = RG ? -r : 0, nsl = kuwa_ring_slots (r);
  int       sw = 0;

  if constexpr (RG && LM)
    {
      /* LM: the ring's loop below restated through lambdas: row k's sums
       * (cur) to prefix sums in ring slot sl, then, after the barrier, row
       * k's pick from them (row k in slot sl, row k - r in slot sl + 2), in
       * two parts.  The same arithmetic in the same order (outputs bit-
       * identical), but ptxas schedules and allocates it otherwise, and the
       * ring waits on its dependency chains (ncu, 4K RGBA r = 10, 8 warps:
       * 4.5 cycles per instruction at 2 warps per scheduler, stalls "wait"
       * and short scoreboard, no MIO throttle).  4K RGBA r = 6..12 ran
       * 0.6-3.8% faster (forced 8- and 4-warp rings 2-4.6%), 1080p r = 6..12
       * 1.5-2.4%, 1, 2 and 3 channels 0.8-6% (4K r = 1..16), but 4K RGBA
       * r = 1..5 0.2-3.2% slower (H100, round 23): kuwa_launch takes it where
       * it was faster (KUWA_RING_LM).  The other kernels keep the loop below:
       * from lambdas they ran 2-4% slower at 1080p r = 13, 20.  The code
       * shape is what was measured: small rewrites (the loop over one set
       * below as a constant) compiled the RGBA kernels otherwise again.
       * What each step does: see the loop below. */
      auto store_row = [&] (KuwaSums<C> (&cur)[2], int sl) {
        double *pv = kuwa_smem;
        float  *pc = (float *) (pv + 2 * nsl * tw_all);

#pragma unroll
        for (int set = 1; set < 2; set++)
          {
            const int slot = sl;
            double    a[2], b[2];
            float     ac[C], bc[C];

            /* WS: conflict-free stores.  A lane's two columns lie 2 x 16
             * bytes apart, so that lanes 2 apart hit the same banks in each
             * 16-byte store (2-way conflicts); in each group of 8 lanes (one
             * wavefront) lanes 4..7 store their odd column first, so that
             * the group covers every bank once.  With WS, 4K RGBA r = 8..12
             * ran 3.5-5% faster (8aw 0.1686 -> 0.1628 ms at r = 10; the L1
             * data pipe was 81% busy), 1080p 5-8%, RGB 1-1.5%; without (2
             * warps per scheduler), the selects cost more than they saved
             * (round 23).  Not at 2 channels, whose WS kernel ran 4% slower
             * with them (4K r = 10; not analysed). */
            const int ov = WS && C != 2 ? (lane >> 2) & 1 : 0;
            const int oc = C == 4 ? ov : 0;

#pragma unroll
            for (int kk = 0; kk < 2; kk++)
              {
                b[kk] = kuwa_scan (cur[set].v[0][kk] + cur[set].v[1][kk], lane);
                a[kk] = b[kk] - cur[set].v[1][kk];
                if (ov)
                  {
                    const double t = a[kk];

                    a[kk] = b[kk];
                    b[kk] = t;
                  }
              }
            kuwa_stv<double, 2> (pv + 2 * (slot * tw_all + c0 + ov), a);
            kuwa_stv<double, 2> (pv + 2 * (slot * tw_all + c0 + 1 - ov), b);
#pragma unroll
            for (int c = 0; c < C; c++)
              {
                bc[c] = kuwa_scan (cur[set].c[0][c] + cur[set].c[1][c], lane);
                ac[c] = bc[c] - cur[set].c[1][c];
                if (oc)
                  {
                    const float t = ac[c];

                    ac[c] = bc[c];
                    bc[c] = t;
                  }
              }
            if constexpr (C != 3)
              {
                if constexpr (WS && C == 4)
                  {
                    /* (through kuwa_stv, after the selects, 8 + 4 + 4) */
                    kuwa_sts4 (pc + C * (slot * tw_all + c0 + oc), ac);
                    kuwa_sts4 (pc + C * (slot * tw_all + c0 + 1 - oc), bc);
                  }
                else
                  {
                    kuwa_stv<float, C> (pc + C * (slot * tw_all + c0 + oc), ac);
                    kuwa_stv<float, C> (pc + C * (slot * tw_all + c0 + 1 - oc),
                                        bc);
                  }
              }
            else
#pragma unroll
              for (int c = 0; c < C; c++)
                *(float2 *) (pc + (slot * C + c) * tw_all + c0)
                  = make_float2 (ac[c], bc[c]);
          }
      };
      /* The pick in two parts: each output's quadrant (bq), then its box of
       * channels, stored; sl0 and sl1: the ring slots of sets A and B. */
      auto pick_var = [&] (int sl, int (&bq)[2]) {
        const double *pv = kuwa_smem;
        const int     st = sl + 2 >= nsl ? sl + 2 - nsl : sl + 2;
        const int     sl0 = up ? sl : st, sl1 = up ? st : sl;
        double        bvar[2] = { 0, 0 }, bev2[2] = { 0, 0 };

        bq[0] = bq[1] = 0;
        {
          const int  src = (lane + r) & 31;
          const bool wrap = lane + r >= 32;

#pragma unroll
          for (int set = 0; set < 2; set++)
            kuwa_pick_set (pv + (set ? sl1 : sl0) * 2 * tw_all, set, w0, lane,
                           r, tw_all, inv_n, src, wrap, bq, bvar, bev2);
        }
      };
      auto pick_out = [&] (int k, int sl, const int (&bq)[2]) {
        const double *pv = kuwa_smem;
        const float  *pc = (const float *) (pv + 2 * nsl * tw_all);
        const int     yy = y_first + dir * k;
        const int     st = sl + 2 >= nsl ? sl + 2 - nsl : sl + 2;
        const int     sl0 = up ? sl : st, sl1 = up ? st : sl;

#pragma unroll
        for (int h = 0; h < 2; h++)
          {
            const int tc = 2 * w0 + 32 * h + lane, t = tc - dx;

            if ((AL && t < 0) || t >= tw || ox + t >= out.w)
              continue;

            const int    best = bq[h];
            const int    set = best >> 1, l = tc + (best & 1) * r;
            const float *p = pc + (set ? sl1 : sl0) * C * tw_all;
            float        o[C];

            if constexpr (C != 3)
              {
                kuwa_boxv<true, float, C> (p, l, l + r, o);
#pragma unroll
                for (int c = 0; c < C; c++)
                  o[c] *= inv_nf;
              }
            else
#pragma unroll
              for (int c = 0; c < C; c++)
                o[c] = kuwa_box (p + c * tw_all, l, l + r) * inv_nf;
            kuwa_store_pixel<C> (out.p + (ptrdiff_t) yy * out.pitch
                                   + (ptrdiff_t) (ox + t) * C,
                                 o, vec);
          }
      };

      if constexpr (WS)
        {
          /* Specialized warps: the producers store row k in its slot, slide
           * and fetch the next row; the consumers pick row k from slots k
           * and k - r.  The ring waits on its dependency chains with 2 warps
           * per scheduler (its shared memory admits one 8-warp block per SM
           * at 4K r = 10): here each scheduler has 4, with the same work per
           * row.  One barrier per row: between barriers k and k + 1 the
           * consumers read slots k and k - r while the producers write slot
           * k + 1 (the row k - r - 1, read last by the pick of row k - 1).
           * Two named barriers per parity (FULL: row k stored, EMPTY: row k
           * picked, bar.arrive and bar.sync), which let the producers run a
           * row ahead, ran 0-4% slower (H100, round 24), and racecheck
           * reported hazards on them (not settled whether real). */
          const int nthr = blockDim.x;

          if (prod)
            {
              fetch (k0 + 1);
              for (int k = k0; k < n_rows; k++)
                {
                  store_row (s, sw);
                  if (k >= 0)
                    kuwa_bar_sync<1> (nthr);
                  advance (k);
                  sw = sw + 1 == nsl ? 0 : sw + 1;
                }
            }
          else
            for (int k = 0, sl = r; k < n_rows; k++)
              {
                int bq[2];

                kuwa_bar_sync<1> (nthr);
                pick_var (sl, bq);
                pick_out (k, sl, bq);
                sl = sl + 1 == nsl ? 0 : sl + 1;
              }
          return;
        }
      fetch (k0 + 1);
      for (int k = k0; k < n_rows; k++)
        {
          KuwaSums<C> cur[2];

#pragma unroll
          for (int set = 0; set < 2; set++)
            cur[set] = s[set];
          if (! SPL && k > k0)
            slide (cur);
#pragma unroll
          for (int set = 0; set < 2; set++)
            s[set] = cur[set];
          if (! SPL && k > k0)
            if (k + 1 < n_rows)
              fetch (k + 1);

          store_row (cur, sw);
          if (k < 0)
            {
              if (SPL)
                advance (k);
              sw = sw + 1 == nsl ? 0 : sw + 1;
              continue;
            }
          row_barrier (k);

          {
            int bq[2];

            pick_var (sw, bq);
            pick_out (k, sw, bq);
          }
          sw = sw + 1 == nsl ? 0 : sw + 1;
        }
      return;
    }
  if (RG)
    fetch (k0 + 1);
  else if (n_rows > 1)
    {
      const float *r3 = kuwa_row (g, in, out.y0 + y_first);

#pragma unroll
      for (int j = 0; j < 2; j++)
        kuwa_load<C> (in, r3, xi[j], pr[j]);
      fetch (1);
    }
  for (int k = k0; k < n_rows; k++)
    {
      const int buf = k & 1;
      /* The sums at row k, slid in a copy, and the fetch's two tests
       * apart: this form compiled to 1-3% faster code at r <= 20 than
       * sliding s in place (H100, round 9; the same arithmetic). */
      KuwaSums<C> cur[2];

#pragma unroll
      for (int set = 0; set < 2; set++)
        cur[set] = s[set];
      if (! SPL && k > k0)
        slide (cur);
#pragma unroll
      for (int set = 0; set < 2; set++)
        s[set] = cur[set];
      if (! SPL && k > k0)
        if (k + 1 < n_rows)
          fetch (k + 1);

      /* Prefix within the warp's 64 columns of both sets: the lane's pair
       * sum scanned, then the first column's as that minus the second. */
      {
        double *pv = kuwa_smem;
        float  *pc = (float *) (pv + (RG ? 2 * nsl : 8) * tw_all);

#pragma unroll
        for (int set = RG ? 1 : 0; set < 2; set++)
          {
            const int slot = RG ? sw : buf * 2 + (set ^ (int) up);

            if constexpr (! TP)
              {
                /* One phase: (V, V^2) together per column, and the
                 * channels (but RGB's): the pick reads each box's sums
                 * with one vector load per end, 20 loads per lane and row
                 * instead of 52 (16 warps: 11% fewer instructions, 1-3%
                 * faster, H100, round 14), though each lane's two 16-byte
                 * stores, 32 bytes apart, now conflict 2-way: lanes 4..7 of
                 * each 8 storing their other column first compiled to
                 * twice as many (predicated) stores, or, through inline
                 * PTX, to 7% more instructions (selects); both ran slower
                 * at 16 warps. */
                double a[2], b[2];
                float  ac[C], bc[C];

#pragma unroll
                for (int kk = 0; kk < 2; kk++)
                  {
                    b[kk]
                      = kuwa_scan (cur[set].v[0][kk] + cur[set].v[1][kk], lane);
                    a[kk] = b[kk] - cur[set].v[1][kk];
                  }
                kuwa_stv<double, 2> (pv + 2 * (slot * tw_all + c0), a);
                kuwa_stv<double, 2> (pv + 2 * (slot * tw_all + c0 + 1), b);
#pragma unroll
                for (int c = 0; c < C; c++)
                  {
                    bc[c]
                      = kuwa_scan (cur[set].c[0][c] + cur[set].c[1][c], lane);
                    ac[c] = bc[c] - cur[set].c[1][c];
                  }
                if constexpr (C != 3)
                  {
                    kuwa_stv<float, C> (pc + C * (slot * tw_all + c0), ac);
                    kuwa_stv<float, C> (pc + C * (slot * tw_all + c0 + 1), bc);
                  }
                else
#pragma unroll
                  for (int c = 0; c < C; c++)
                    *(float2 *) (pc + (slot * C + c) * tw_all + c0)
                      = make_float2 (ac[c], bc[c]);
              }
            else
              {
#pragma unroll
                for (int kk = 0; kk < 2; kk++)
                  {
                    double hi
                      = kuwa_scan (cur[set].v[0][kk] + cur[set].v[1][kk], lane);

                    *(double2 *) (pv + ((set ^ (int) up) * 2 + kk) * tw_all
                                  + c0)
                      = make_double2 (hi - cur[set].v[1][kk], hi);
                  }
#pragma unroll
                for (int c = 0; c < C; c++)
                  {
                    float hi
                      = kuwa_scan (cur[set].c[0][c] + cur[set].c[1][c], lane);

                    *(float2 *) (pc + (slot * C + c) * tw_all + c0)
                      = make_float2 (hi - cur[set].c[1][c], hi);
                  }
              }
          }
      }
      if (RG && k < 0)
        {
          /* Filling the ring: no pick, so no barrier (the first pick's
           * orders these stores). */
          if (SPL)
            advance (k);
          sw = sw + 1 == nsl ? 0 : sw + 1;
          continue;
        }
      row_barrier (k);
      if (TP)
        {
          /* Phase 1: per set and box start l (columns l .. l + r <
           * tw_all), the variance and E[V^2], each used by two outputs. */
          const double *pv = kuwa_smem;
          double2      *vv = (double2 *) (pv + 4 * tw_all);

#pragma unroll
          for (int h = 0; h < 2; h++)
            {
              const int l = 2 * w0 + 32 * h + lane;

              if (l < tw_all - r)
#pragma unroll
                for (int set = 0; set < 2; set++)
                  {
                    const double *p = pv + set * 2 * tw_all;
                    double        mean = kuwa_box (p, l, l + r) * inv_n;
                    double        ev2 = kuwa_box (p + tw_all, l, l + r) * inv_n;

                    vv[set * tw_all + l]
                      = make_double2 (ev2 - mean * mean, ev2);
                  }
            }
          __syncthreads ();
        }

      {
        const double  *pv = kuwa_smem;
        const float   *pc = (const float *) (pv + (RG ? 2 * nsl : 8) * tw_all);
        const double2 *vv = (const double2 *) (pv + 4 * tw_all);
        const int      yy = y_first + dir * k;
        /* RG: the ring slots of sets A and B. */
        const int st = sw + 2 >= nsl ? sw + 2 - nsl : sw + 2;
        const int sl0 = up ? sw : st, sl1 = up ? st : sw;
        /* One phase: per set, each lane's (variance, E[V^2]) of the boxes
         * starting at tile columns 64 w + 32 g + lane, g = 0, 1 and 2 (the
         * next warp's first columns, recomputed: the right boxes reach r
         * past the warp's 64), each once; an output's right box (tc + r)
         * comes from lane (lane + r) & 31, which offers group 2 if lane < r
         * (else 0) and group 1.  The same sums and order as per output, 6
         * box variances per lane and set pair instead of 8: 7-12% faster
         * than each output's four boxes (H100, round 13; round 12's ncu had
         * that pick at 23% more instructions than two phases).  Groups 0
         * and 2 never span two segments (r < 32). */
        int    bq[2] = { 0, 0 };
        double bvar[2] = { 0, 0 }, bev2[2] = { 0, 0 };

        if (! TP)
          {
            const int  src = (lane + r) & 31;
            const bool wrap = lane + r >= 32;

#pragma unroll
            for (int set = 0; set < 2; set++)
              kuwa_pick_set (
                pv + (RG ? (set ? sl1 : sl0) : buf * 2 + set) * 2 * tw_all, set,
                w0, lane, r, tw_all, inv_n, src, wrap, bq, bvar, bev2);
          }

#pragma unroll
        for (int h = 0; h < 2; h++)
          {
            /* Tile column tc is image column x - r for the output x =
             * ox + t: the box of columns x - r .. x is tc .. tc + r, x ..
             * x + r is tc + r .. tc + 2r.  (Aligned tiles keep this pick
             * and shift the stores by dx: shifting the pick instead, so
             * that the stores start on lines too, compiled to 1-5% slower
             * code, H100, round 11.) */
            const int tc = 2 * w0 + 32 * h + lane, t = tc - dx;

            if ((AL && t < 0) || t >= tw || ox + t >= out.w)
              continue;

            int    best = bq[h];
            double best_var = 0, best_ev2 = 0;

            if (TP)
#pragma unroll
              for (int qd = 0; qd < 4; qd++)
                {
                  const double2 qv = vv[(qd >> 1) * tw_all + tc + (qd & 1) * r];

                  /* kuwa_take's rule, written out: through that function
                   * these kernels compiled to other code. */
                  if (qd == 0 || qv.x < best_var - 1e-11 * fabs (best_ev2))
                    {
                      best = qd;
                      best_var = qv.x;
                      best_ev2 = qv.y;
                    }
                }
            const int    set = best >> 1, l = tc + (best & 1) * r;
            const float *p
              = pc + (RG ? (set ? sl1 : sl0) : buf * 2 + set) * C * tw_all;
            float o[C];

            if constexpr (! TP && C != 3)
              {
                kuwa_boxv<true, float, C> (p, l, l + r, o);
#pragma unroll
                for (int c = 0; c < C; c++)
                  o[c] *= inv_nf;
              }
            else
#pragma unroll
              for (int c = 0; c < C; c++)
                o[c] = kuwa_box (p + c * tw_all, l, l + r) * inv_nf;
            kuwa_store_pixel<C> (out.p + (ptrdiff_t) yy * out.pitch
                                   + (ptrdiff_t) (ox + t) * C,
                                 o, vec);
          }
      }
      /* (no second barrier: the next row writes the other buffer, or
       * RG the next slot) */
      if (RG)
        sw = sw + 1 == nsl ? 0 : sw + 1;
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

/* Capped residency: at most KUWA_CAP_COLS[i] tile columns resident per SM
 * (instead of 64 KUWA_NT / 32), set by asking for more dynamic shared memory
 * than the block needs.  kuwa_plan weighs each size at full and at capped
 * residency: fewer blocks per SM give taller segments, so fewer start rows
 * (2r + 1 per segment), for less latency hidden (see kuwa_plan).  Round 20
 * (H100, RGBA): 1080p r = 5, 6 and 10..25 ran 2-19% faster capped; at 4K
 * capping the 8-, 4- and 2-warp blocks to 512 columns cut their DRAM reads
 * (r = 10: 363 -> 205-233 MB: the rows re-read r and 2r + 1 steps later
 * hit L2 more) but ran 10-18% slower (the plan keeps full residency there). */
static const int KUWA_CAP_COLS[2] = { 512, 768 };

/* The ring (RG) in kuwa_plan: a row's rate against the other kernels', a
 * row that fills the ring (no pick), the exponent of the residency term,
 * and no 16-warp rating but 14 units for 8 warps (fitted on H100 RGBA
 * forced-configuration sweeps, ring and not, at 4K and 1080p, r = 1..30:
 * build-kuwa21/fit21.py; round 21).  The ring fits in shared memory only
 * at small r, and more columns per SM only at smaller r: (r + 2) x 32
 * bytes per tile column at RGBA, so 16 warps resident to r = 5, 8 to
 * r = 12. */
#define KUWA_RING_ROW  0.5
#define KUWA_RING_FILL 1.0
#define KUWA_RING_OCC  0.5

/* The ring's aligned 4-warp blocks, rated as a factor (in place of 0.98,
 * see kuwa_plan): at equal residency (16 warps at 4K r = 1, 2, 1080p r = 2;
 * 8 warps at 4K and 1080p r = 8) the 4-warp aligned ring ran 0.4-2.2%
 * faster than the 8-warp one, where the 0.98 rating had it 2% slower
 * (H100 RGBA, round 22, call 2: build-kuwa22; the measured over the modelled
 * ratio is 0.969 on those five, so 0.98 x 0.969).  From 0.945 to 0.96 the
 * same picks: 4K r = 3, 4, 8 and 1080p r = 1, 2, 8 take 4 warps instead
 * of 8; 4K r = 5 (4 warps 2% faster at 12 warps resident against 16)
 * stays at 8, which the residency term cannot give without moving others. */
#define KUWA_RING_AL4 0.95

/* The ring kernel from lambdas (LM, see kuwa_fused) where it ran faster
 * than the plain form: from r = 6 at RGBA, at every r below (H100, 4K and
 * 1080p, round 23). */
#define KUWA_RING_LM(c, r) ((c) != 4 || (r) >= 6)

/* The ring with specialized warps (WS, see kuwa_fused): its rate as a
 * factor of the ring's at the same column warps (H100 RGBA, round 24: at
 * equal blocks per SM, 4K r = 8..12 and 1080p r = 8..12, 0.92-0.96 of the
 * ring's time; where the ring has more blocks per SM (WS: 2 per SM at most
 * at 4 warps, by registers), at 4K r <= 7, WS ran 2-18% slower, which the
 * residency term gives).  With 0.95 the plan took 4aw at 4K r = 8, 8aw at
 * r = 9..12 and at 1080p r = 10, 4aw at 1080p r = 6 and 8 (each the faster
 * WS size or within 0.4%), the ring as before at 4K r <= 7, and at 1080p
 * r = 2 4ar, 2.5% slower than 4aw. */
#define KUWA_RING_WS 0.95

/* The channel counts with WS kernels: not gray, where their instantiation
 * changed the code of the other gray kernels (ptxas 13.0: other inlining,
 * it seems). */
#define KUWA_WS_FITS(c) ((c) != 1)

/* The dynamic shared memory that caps a block of nt threads (2 nt tile
 * columns) at cols columns per SM, given smem_sm per SM; 0 where no
 * block would fit.  3 KB per block are left for the static and the
 * reserved shared memory. */
static size_t
kuwa_capped_smem (int nt, int cols, int smem_sm)
{
  int k = cols / (2 * nt);

  if (k < 1 || smem_sm <= 0)
    return 0;
  return (size_t) std::max (smem_sm / k - 3072, 0);
}

/* The fused pass's plan for blocks of nw warps (64 nw tile columns, tw
 * outputs), per_sm of them resident per SM (0: unknown): the
 * block columns, the rows per block, and the modelled time.  Segments pay
 * 2r + 1 rows of column sums to start (loads and adds only: rated 0.15 of
 * an output row): 32 + 2r rows, then as many as make whole waves of
 * blocks on the GPU (at least 16 + r, for small bands).  The time is the
 * busiest SM's tile columns times rows, with 1.5% more per warp of a block
 * (at equal work, 4-warp blocks ran 4-6% faster than 8-warp ones; H100,
 * 4K and 1080p, r = 1..30: this picked the fastest of 2, 4 and 8 warps
 * or one within 1-2%; 16-warp blocks, one per SM, it picks at 4K for
 * r >= 22, where their halo of 2r in 1024 columns pays: 3-4% faster than
 * 8 warps at r = 25 and 30).  Round 11 (H100): aligned tiles (al, tw a
 * multiple of 8, see kuwa_launch) are rated 2% (4 warps; the ring: see
 * KUWA_RING_AL4) and 3% (8 and 16) faster, none at 2 warps, and 16-warp
 * blocks on sm_90+ 11% faster (the split barrier 5%; round 13, the
 * one-phase pick with each box's variance once, 7-10% more): at 4K this
 * picks 16 warps aligned from r = 9 on.  Round 14 (H100): on sm_90+ every size
 * runs one phase (see kuwa_fused_for), and 8-warp blocks are rated 7 units
 * faster: at 4K this picks 2 warps at r <= 4, 4 aligned at r = 5..8, 8 aligned
 * at r = 9..16 (one phase: 2-3% faster than 16 warps there) and 16 aligned from
 * r = 17 on, at 1080p the same sizes as before; any rating from 5 to 9 units
 * off picks the same; every pick was within 4.5% of the fastest measured
 * configuration but at 1080p r = 21 and 25 (2 warps, 13% and 9%). */
static double
kuwa_plan (int  w,
           int  h,
           int  r,
           int  nw,
           int  tw,
           bool al,
           bool rg,
           bool ws,
           int  per_sm,
           int *nbx,
           int *seg_h)
{
  const int sms = std::max (gpufx_cuda_limits.sm_count, 1);
  int       sh = 32 + 2 * r;
  double    rate = 200 + 3 * nw;
  double    t;
  long      nb;

  *nbx = gpufx_cuda_div_up (w, tw);
  /* The waves rounded to the nearest; the ring in one wave, all its blocks
   * resident at once in the tallest segments (its r + 1 start rows and r
   * fill rows, which only the producers of WS work on, once per SM).  On
   * the H100 (round 24, the same kernels) the plan ran 4K RGBA r = 6 and
   * 8..12 3-5.5% faster than with the ring's waves rounded to the nearest
   * or down, whichever rated better (at r = 10: 2 waves of 66-row
   * segments), RGB r = 10, 12 3-5%, gray r = 16 5%; 4K r = 1..5, 7, 13..30
   * and the other channel counts within 2% (gray r = 1 1% slower), 1080p
   * (mostly one wave already) within 1.3% both ways. */
  if (per_sm > 0 && gpufx_cuda_limits.sm_count > 0)
    {
      long slots = (long) per_sm * sms;
      long n = (long) *nbx * gpufx_cuda_div_up (h, sh);
      long waves = rg ? 1 : std::max (1L, (n + slots / 2) / slots);
      int  nby = (int) std::max (1L, waves * slots / *nbx);

      sh = std::max ((int) gpufx_cuda_div_up (h, nby), std::min (sh, 16 + r));
    }
  nb = (long) *nbx * gpufx_cuda_div_up (h, sh);
  if (rg) /* see KUWA_RING_ROW */
    rate -= nw == 8 ? 14 : 0;
  else if (gpufx_cuda_limits.cc_major >= 9) /* one phase, split barrier */
    rate -= nw == KUWA_NT / 32 ? 28 : nw == 8 ? 7 : 0;
  if (ws) /* see KUWA_RING_WS */
    rate *= KUWA_RING_WS;
  if (al && nw >= 4)
    rate *= nw == 4 ? (rg ? KUWA_RING_AL4 : 0.98) : 0.97;
  /* Fewer than KUWA_NT / 32 warps resident per SM hide less latency:
   * the time over (warps / 16)^0.35, fitted with capped residency (see
   * KUWA_CAP_COLS) on H100 RGBA forced-configuration sweeps at 4K and
   * 1080p, r = 1..30 (round 20: 0.35 to 0.4 pick the same; at 4K and
   * for full residency at 1080p the same picks as without it). */
  if (per_sm > 0)
    {
      long wps = std::min ((long) per_sm, (nb + sms - 1) / sms) * nw;

      if (wps < KUWA_NT / 32)
        rate /= pow ((double) wps / (KUWA_NT / 32), rg ? KUWA_RING_OCC : 0.35);
    }
  if (rg) /* the ring: r + 1 start rows, r rows without a pick */
    t = (double) ((nb + sms - 1) / sms) * 64 * nw
        * (20.0 * KUWA_RING_ROW * std::min (sh, h) + 3.0 * (r + 1)
           + 20.0 * KUWA_RING_FILL * r)
        * rate;
  else
    t = (double) ((nb + sms - 1) / sms) * 64 * nw
        * (20.0 * std::min (sh, h) + 3.0 * (2 * r + 1)) * rate;
  *seg_h = sh;
  return t;
}

/* The block sizes kuwa_launch weighs, in warps. */
static const int kuwa_sizes[] = { KUWA_NT / 32, 8, 4, 2 };

/* GPUFX_CUDA_KUWA_BLOCK, e.g. "16a", "2u", "8at", "2ur" or "8aw" (warps,
 * aligned or unaligned tiles, and t: two phases, r: the ring, w: the ring
 * with specialized warps, twice the warps per block): a testing aid, read
 * per job, so that the gpu tests' small images run the block sizes and
 * tilings that kuwa_plan picks only for large ones, and the two-phase
 * kernels, which sm_90+ never picks.  Returns that configuration's index in
 * kuwa_launch's loop, or -1 (unset or not understood: kuwa_plan chooses);
 * *tp: two phases asked for, *rg: the ring (where it cannot run, the plan
 * chooses), *ws: with specialized warps. */
static int
kuwa_forced (bool *tp, bool *rg, bool *ws)
{
  const char *v = getenv ("GPUFX_CUDA_KUWA_BLOCK");
  char       *end;
  long        nw;

  *tp = *rg = *ws = false;
  if (! v || ! *v)
    return -1;
  nw = strtol (v, &end, 10);
  for (int s = 0; s < 4; s++)
    if (nw == kuwa_sizes[s] && (*end == 'a' || *end == 'u')
        && (! end[1] || (strchr ("trw", end[1]) && ! end[2])))
      {
        *tp = end[1] == 't';
        *rg = end[1] == 'r' || end[1] == 'w';
        *ws = end[1] == 'w';
        return 2 * s + (*end == 'a');
      }
  return -1;
}

/* Two phases for blocks of nw warps?  One phase at 16 warps, where the
 * second barrier cost 1% (and the variances in registers, round 13: 7-12%
 * faster than each output's four boxes), and on sm_90+ at every size (with
 * the split barrier and, round 14, the sums read with vector loads: at 2,
 * 4 and 8 warps up to 8-12% faster than two phases at 4K and 12-19% at
 * 1080p, at worst 1.4% slower; H100).  Below 16 warps before sm_90, two
 * phases (round 7, H100 without the split: 3-6% faster at 4K r = 1..20;
 * not measured since). */
static bool
kuwa_two_phase (int nw)
{
  return nw < KUWA_NT / 32 && gpufx_cuda_limits.cc_major < 9;
}

typedef void (*KuwaFused) (CudaGeom, CudaPlane, CudaPlane, int, int, int, int);

/* The kernel for two phases (tp) or not, aligned tiles (al) or not, V
 * compiled for kuwa_usual_alpha (VA) or read from g.alpha (one channel:
 * always the first, the same V). */
template <int C, bool VA>
static KuwaFused
kuwa_fused_for (bool tp,
                bool al,
                bool rg = false,
                bool lm = false,
                bool ws = false)
{
  constexpr bool V = VA || C == 1;

  /* The ring: one phase, V compiled in; lm: see LM; ws (LM's loop): see WS */
  if constexpr (V)
    if (rg)
      {
        if constexpr (C == 4)
          {
            if (al)
              return ws   ? kuwa_fused<C, false, true, V, true, true, true>
                     : lm ? kuwa_fused<C, false, true, V, true, true>
                          : kuwa_fused<C, false, true, V, true>;
            return ws   ? kuwa_fused<C, false, false, V, true, true, true>
                   : lm ? kuwa_fused<C, false, false, V, true, true>
                        : kuwa_fused<C, false, false, V, true>;
          }
        if constexpr (KUWA_WS_FITS (C))
          if (ws)
            return kuwa_fused<C, false, false, V, true, true, true>;
        return kuwa_fused<C, false, false, V, true, true>;
      }
  if constexpr (C == 4)
    if (al)
      return tp ? kuwa_fused<C, true, true, V> : kuwa_fused<C, false, true, V>;
  return tp ? kuwa_fused<C, true, false, V> : kuwa_fused<C, false, false, V>;
}

/* kuwa_fused_for with VA where alpha a allows it. */
template <int C>
static KuwaFused
kuwa_fused_for (bool tp,
                bool al,
                int  a,
                bool rg = false,
                bool lm = false,
                bool ws = false)
{
  return kuwa_va_fits<C> (a) ? kuwa_fused_for<C, true> (tp, al, rg, lm, ws)
                             : kuwa_fused_for<C, false> (tp, al);
}

/* What kuwa_launch chose for one job, and what the choice depends on.
 * The plan weighs up to 64 configurations (kuwa_plan, with pow) on the
 * host before each launch, while the GPU waits: a few microseconds that a
 * preview or a batch paid again for the same size and radius (round 22:
 * 2-4 us inferred from forced against planned launches, 1-2% of a 4K
 * job).  So the last few choices are kept, per channel count. */
struct KuwaChoice
{
  int    nw, nbx, seg_h, tw, dx;
  bool   al, rg, ws, took_forced;
  size_t smem;
};

struct KuwaPick
{
  /* The key: the job's shape and everything else the choice reads. */
  int        w, h, r, alpha, line_dx, smem_limit, sms, forced;
  bool       tp_f, rg_f, ws_f;
  KuwaChoice choice;
};

#define KUWA_PICKS 4

static bool
kuwa_pick_same (const KuwaPick &a, const KuwaPick &b)
{
  return a.w == b.w && a.h == b.h && a.r == b.r && a.alpha == b.alpha
         && a.line_dx == b.line_dx && a.smem_limit == b.smem_limit
         && a.sms == b.sms && a.forced == b.forced && a.tp_f == b.tp_f
         && a.rg_f == b.rg_f && a.ws_f == b.ws_f;
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
      /* Blocks of 16, 8, 4 or 2 warps (fewer where the shared memory budget
       * asks), each with tiles as they fall or aligned, whichever kuwa_plan
       * rates fastest; the occupancy of each size is asked once (per
       * channel count). */
      static std::atomic<int> per_sm_of[3][KUWA_NT / 32 + 1];
      static std::atomic<int> per_sm_rg[2][KUWA_NT / 32 + 1]
                                       [KUWA_FUSED_MAX_R + 3]; /* ring, WS */
      static std::atomic<size_t> allowed;    /* dynamic shared memory set */
      static std::atomic<size_t> allowed_rg; /* the same, ring kernels */
      static std::atomic<int>    smem_sm;    /* shared memory per SM */
      KuwaChoice                 ch = {};
      int &nw = ch.nw, &nbx = ch.nbx, &seg_h = ch.seg_h, &tw = ch.tw,
          &dx = ch.dx;
      bool &al = ch.al, &rg = ch.rg, &ws = ch.ws, &took_forced = ch.took_forced;
      size_t &smem = ch.smem;
      int     nw_max = KUWA_NT / 32, line_dx = -1;
      bool    tp = false, rg_f = false, ws_f = false;
      /* The ring: sm_90+ (one phase), V compiled in. */
      const bool rg_ok
        = gpufx_cuda_limits.cc_major >= 9 && kuwa_va_fits<C> (g.alpha);
      const bool lm = KUWA_RING_LM (C, r);
      /* The most dynamic shared memory a block may ask (2 KB left for
       * the static). */
      const size_t smem_max
        = (size_t) std::max (gpufx_cuda_limits.smem - 2048, 0);
      double      best = 0;
      cudaError_t err;

      /* RGBA input whose rows all start at the same phase of a 128-byte
       * line: each tile may start line_dx columns further left, with a
       * multiple of 8 outputs per block, so that every warp's loads begin on
       * a line (9 lines per 64 pixels become 8).  At equal block counts
       * that ran 2-4% faster (H100, 4K, 4 to 16 warps); it also gives 8
       * blocks of 480 outputs at 4K r = 9..16 (8 warps, no ninth column). */
      if (C == 4 && (in.pitch * sizeof (float)) % 128 == 0)
        {
          uintptr_t a = (uintptr_t) (in.p + (ptrdiff_t) (out.x0 - in.x0) * C);

          if (a % 16 == 0)
            line_dx = (int) ((a / 16 + 8 - r % 8) % 8);
        }

      while (nw_max > 1
             && kuwa_fused_smem (32 * nw_max, C)
                  > (size_t) gpufx_cuda_limits.smem)
        nw_max--;
      if (smem_sm.load () == 0)
        {
          int dev = 0, v = 0;

          if (cudaGetDevice (&dev) == cudaSuccess
              && cudaDeviceGetAttribute (
                   &v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev)
                   == cudaSuccess
              && v > 0)
            smem_sm.store (v);
          else
            smem_sm.store (-1);
        }
      /* The most that a capped launch asks (one block per SM). */
      const size_t a
        = std::max (kuwa_fused_smem (32 * nw_max, C),
                    std::min (smem_max, kuwa_capped_smem (KUWA_CAP_COLS[0] / 2,
                                                          KUWA_CAP_COLS[0],
                                                          smem_sm.load ())));

      if (a > allowed.load ())
        {
          for (int i = 0; i < 8; i++)
            if ((err = gpufx_cuda_allow_smem (
                   i & 4 ? kuwa_fused_for<C, true> (i & 1, i & 2)
                         : kuwa_fused_for<C, false> (i & 1, i & 2),
                   a))
                != cudaSuccess)
              return err;
          allowed.store (a);
        }
      if (rg_ok && smem_max > allowed_rg.load ())
        {
          for (int i = 0; i < 8; i++)
            if ((err = gpufx_cuda_allow_smem (
                   kuwa_fused_for<C, true> (false, i & 1, true, i & 2, i & 4),
                   smem_max))
                != cudaSuccess)
              return err;
          allowed_rg.store (smem_max);
        }
      static std::mutex picks_lock;
      static KuwaPick   picks[KUWA_PICKS];
      static int        n_picks, next_pick;
      const int         forced0 = kuwa_forced (&tp, &rg_f, &ws_f);
      KuwaPick          pick = { out.w,
                                 out.h,
                                 r,
                                 g.alpha,
                                 line_dx,
                                 gpufx_cuda_limits.smem,
                                 gpufx_cuda_limits.sm_count,
                                 forced0,
                                 tp,
                                 rg_f,
                                 ws_f,
                                 {} };
      bool              known = false;

      {
        std::lock_guard<std::mutex> hold (picks_lock);

        for (int i = 0; i < n_picks && ! known; i++)
          if (kuwa_pick_same (picks[i], pick))
            {
              ch = picks[i].choice;
              known = true;
            }
      }
      const int c_forced = ws_f ? 4 : rg_f ? 3 : 0; /* c of the loop below */

      /* A forced configuration the image cannot take (aligned tiles of an
       * input off the lines, a ring too large) leaves nw at 0: then the
       * plan chooses. */
      for (int pass = 0, forced = forced0; nw == 0 && pass < 2;
           pass++, forced = -1)
        /* residency: all, capped (2); ring; ring with specialized warps */
        for (int c = 0; c < 5; c++)
          for (int i = 0; i < 8; i++)
            {
              int    k = std::min (kuwa_sizes[i / 2], nw_max), bx, sh;
              int    w = 64 * k - 2 * r, d = i & 1 ? line_dx : 0;
              int    per_sm = c >= 3 ? per_sm_rg[c - 3][k][r].load ()
                                     : per_sm_of[c][k].load ();
              size_t sk = c >= 3 ? kuwa_ring_smem (32 * k, C, r)
                          : c ? kuwa_capped_smem (32 * k, KUWA_CAP_COLS[c - 1],
                                                  smem_sm.load ())
                              : kuwa_fused_smem (32 * k, C);
              double cost;

              if (forced >= 0 && (i != forced || c != c_forced))
                continue;
              if (c >= 3 && (! rg_ok || sk > smem_max))
                continue;
              if (c == 4 && (! KUWA_WS_FITS (C) || 64 * k > KUWA_NT))
                continue; /* WS: 2 k warps */
              if (c == 1 || c == 2)
                if (sk < kuwa_fused_smem (32 * k, C) || sk > a)
                  continue;
              if (i & 1)
                {
                  if (d < 0 || (w - d) / 8 * 8 < 8)
                    continue;
                  w = (w - d) / 8 * 8;
                }
              if (per_sm == 0
                  && cudaOccupancyMaxActiveBlocksPerMultiprocessor (
                       &per_sm,
                       kuwa_fused_for<C> (c >= 3 ? false : kuwa_two_phase (k),
                                          false, g.alpha, c >= 3, lm, c == 4),
                       (c == 4 ? 64 : 32) * k, sk)
                       == cudaSuccess
                  && per_sm > 0)
                (c >= 3 ? per_sm_rg[c - 3][k][r] : per_sm_of[c][k])
                  .store (per_sm);
              if (c >= 3 && per_sm <= 0)
                continue;
              if ((c == 1 || c == 2)
                  && (per_sm <= 0 || per_sm >= per_sm_of[0][k].load ()))
                continue; /* no fewer blocks than uncapped */
              cost = kuwa_plan (out.w, out.h, r, k, w, i & 1, c >= 3, c == 4,
                                per_sm, &bx, &sh);
              if (nw == 0 || cost < best)
                {
                  nw = k;
                  nbx = bx;
                  seg_h = sh;
                  tw = w;
                  dx = d;
                  al = i & 1;
                  smem = sk;
                  rg = c >= 3;
                  ws = c == 4;
                  took_forced = forced >= 0;
                  best = cost;
                }
            }
      if (nw == 0)
        return cudaErrorInvalidConfiguration; /* no configuration fits */
      if (! known)
        {
          std::lock_guard<std::mutex> hold (picks_lock);

          pick.choice = ch;
          picks[next_pick] = pick;
          next_pick = (next_pick + 1) % KUWA_PICKS;
          n_picks = std::min (n_picks + 1, KUWA_PICKS);
        }
      dim3      grid (nbx, gpufx_cuda_div_up (out.h, seg_h));
      KuwaFused kern
        = rg ? kuwa_fused_for<C> (false, al, g.alpha, true, lm, ws)
             : kuwa_fused_for<C> ((tp && took_forced) || kuwa_two_phase (nw),
                                  al, g.alpha);

      kern<<<grid, (ws ? 64 : 32) * nw, smem, stream>>> (g, in, out, r, seg_h,
                                                         tw, dx);
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

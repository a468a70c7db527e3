/* gimp-gpu-filters: the Gaussian's sum of cosines along rows or columns
 * (large sigma, cost independent of sigma).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"
#include "gaussian-plan.h"

#include <stdint.h>

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

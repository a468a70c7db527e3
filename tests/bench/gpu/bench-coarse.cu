/* gimp-gpu-filters: a measured prototype (round 30, tests/bench/NOTES-gpu.md)
 * of the large-sigma column Gaussian on a coarse grid, against the
 * engine's cosine column pass in the same run.  Not used by the engine.
 *   z:  the Gaussian out to 6 sigma (normalised as the engine's 4-sigma
 *       one) at every h-th row, by direct float taps in polyphase form,
 *       each phase summed in a fresh float (kernel A, phase groups as
 *       partial sums);
 *   y:  the rows between by an L-tap least-squares FIR of the nearest
 *       coarse rows, less the 6-sigma window's part beyond the engine's
 *       radius, fitted by two one-sided exponentials and applied by
 *       first-order recursions: their states at each interval's first
 *       row by a walk with a warm-up (kernel B), then along the interval
 *       (kernel C; the anticausal one stepped forwards, s' <- (s' - x) /
 *       rho, whose error grows by at most e^(lambda h / sigma) < 16).
 * Clamp border, 4K RGBA float, device-resident, median of 15 after 3
 * warm-ups, 4 inputs rotated; accuracy against an exact float64 column
 * Gaussian at 4096 sampled outputs (the first and last 64 rows among
 * them) and against the cosine pass everywhere.
 *   bench-coarse [hdiv:L ...]   h = floor (sigma / hdiv), L FIR taps
 *                               (default 4:8 3:12 2:16)
 *   bench-coarse cpu            the same arithmetic emulated on the host
 *                               on three columns (no GPU needed)
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"
#include "gaussian-plan.h"
#include "gpufx.h"
#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include <vector>

#include "bench-check.h"
#include "bench-exact.h"

static const int W = 3840, H = 2160, C = 4, NB = 4;
static const int W4 = W * C / 4;
#define CP   8  /* coarse outputs per thread in kernel A */
#define CSEG 16 /* intervals per thread in kernel B */

struct Coarse
{
  double             sigma, S;
  int                R, Rw, h, L, D, NT, G, pg, jlo, nz, nJ, wu;
  std::vector<float> ptaps, fir;
  double             a[2], rho[2], tail_l1, fit_l2;
};

static double
g6 (const Coarse &c, long m)
{
  if (m < -c.Rw || m > c.Rw)
    return 0;
  return exp (-0.5 * (double) m * m / (c.sigma * c.sigma)) / c.S;
}

/* Least squares by Householder QR: A (nr x nc, row-major), b (nr). */
static void
ls_solve (std::vector<double> &A,
          int                  nr,
          int                  nc,
          std::vector<double> &b,
          double              *x)
{
  for (int k = 0; k < nc; k++)
    {
      double norm = 0;
      for (int r = k; r < nr; r++)
        norm += A[(size_t) r * nc + k] * A[(size_t) r * nc + k];
      norm = sqrt (norm);
      if (norm == 0)
        continue;
      double              alpha = A[(size_t) k * nc + k] > 0 ? -norm : norm;
      std::vector<double> v (nr - k);
      v[0] = A[(size_t) k * nc + k] - alpha;
      for (int r = k + 1; r < nr; r++)
        v[r - k] = A[(size_t) r * nc + k];
      double vn = 0;
      for (double q : v)
        vn += q * q;
      if (vn == 0)
        continue;
      for (int cc = k; cc < nc; cc++)
        {
          double d = 0;
          for (int r = k; r < nr; r++)
            d += v[r - k] * A[(size_t) r * nc + cc];
          double f = 2 * d / vn;
          for (int r = k; r < nr; r++)
            A[(size_t) r * nc + cc] -= f * v[r - k];
        }
      double d = 0;
      for (int r = k; r < nr; r++)
        d += v[r - k] * b[r];
      double f = 2 * d / vn;
      for (int r = k; r < nr; r++)
        b[r] -= f * v[r - k];
    }
  for (int k = nc - 1; k >= 0; k--)
    {
      double s = b[k];
      for (int cc = k + 1; cc < nc; cc++)
        s -= A[(size_t) k * nc + cc] * x[cc];
      x[k] = s / A[(size_t) k * nc + k];
    }
}

static void
coarse_init (Coarse &c, double sigma, int hdiv, int L)
{
  c.sigma = sigma;
  c.R = (int) floor (4 * sigma + 0.5);
  c.Rw = (int) ceil (6 * sigma);
  c.S = 0;
  for (int k = -c.R; k <= c.R; k++)
    c.S += exp (-0.5 * (double) k * k / (sigma * sigma));
  c.h = std::max (1, (int) floor (sigma / hdiv));
  c.L = L;
  const int h = c.h;
  c.D = (c.Rw + h - 1) / h + 1;
  c.NT = (2 * c.D + 1 + CP - 1) / CP * CP;
  c.ptaps.assign ((size_t) h * c.NT, 0.0f);
  for (int p = 0; p < h; p++)
    for (int k = 0; k < c.NT; k++)
      c.ptaps[(size_t) p * c.NT + k] = (float) g6 (c, (long) (c.D - k) * h - p);
  /* FIR: phase i of an interval from nodes (l - L/2 + 1) h - i away. */
  c.fir.assign ((size_t) h * L, 0.0f);
  const int step = std::max (1, (int) floor (sigma / 16));
  const int ext = c.Rw + L * h;
  c.fit_l2 = 0;
  for (int i = 0; i < h; i++)
    {
      int                 nr = 2 * ext / step + 1;
      std::vector<double> A ((size_t) nr * L), b (nr);
      double              x[64];
      for (int r = 0; r < nr; r++)
        {
          long u = -ext + (long) r * step;
          for (int l = 0; l < L; l++)
            A[(size_t) r * L + l] = g6 (c, u + (long) (l - L / 2 + 1) * h - i);
          b[r] = g6 (c, u);
        }
      std::vector<double> A0 = A, b0 = b;
      ls_solve (A, nr, L, b, x);
      double e2 = 0;
      for (int r = 0; r < nr; r++)
        {
          double s = -b0[r];
          for (int l = 0; l < L; l++)
            s += A0[(size_t) r * L + l] * x[l];
          e2 += s * s * step;
        }
      c.fit_l2 = std::max (c.fit_l2, sqrt (e2));
      for (int l = 0; l < L; l++)
        c.fir[(size_t) i * L + l] = (float) x[l];
    }
  /* Tail: T(t) = g6 (R + 1 + t), fitted by a1 rho1^t + a2 rho2^t. */
  const double T0 = g6 (c, c.R + 1);
  const int    ts = std::max (1, (int) floor (sigma / 32));
  const int    tmax = (int) ceil (14 * sigma);
  double       best = INFINITY;
  for (double l1 = 3.0; l1 < 9.0; l1 += 0.05)
    for (double l2 = l1 + 0.05; l2 < 9.0; l2 += 0.05)
      {
        double r1 = exp (-l1 / sigma), r2 = exp (-l2 / sigma);
        double m11 = 0, m12 = 0, m22 = 0, v1 = 0, v2 = 0;
        for (int t = 0; t <= tmax; t += ts)
          {
            double e1 = pow (r1, t), e2 = pow (r2, t), T = g6 (c, c.R + 1 + t);
            m11 += e1 * e1;
            m12 += e1 * e2;
            m22 += e2 * e2;
            v1 += e1 * T;
            v2 += e2 * T;
          }
        double det = m11 * m22 - m12 * m12;
        if (fabs (det) < 1e-300)
          continue;
        double a1 = (v1 * m22 - v2 * m12) / det,
               a2 = (m11 * v2 - m12 * v1) / det;
        if (fabs (a1) > 4 * T0 || fabs (a2) > 4 * T0)
          continue;
        double err = 0;
        for (int t = 0; t <= tmax; t += ts)
          err
            += fabs (a1 * pow (r1, t) + a2 * pow (r2, t) - g6 (c, c.R + 1 + t));
        err *= ts;
        if (err < best)
          {
            best = err;
            c.a[0] = a1;
            c.a[1] = a2;
            c.rho[0] = r1;
            c.rho[1] = r2;
          }
      }
  double err = 0;
  for (int t = 0; t <= 30 * sigma; t++)
    err += fabs (c.a[0] * pow (c.rho[0], t) + c.a[1] * pow (c.rho[1], t)
                 - g6 (c, c.R + 1 + t));
  c.tail_l1 = 2 * err;
  /* Warm-up of the recursions: the neglected part below 1e-9. */
  double rmax = std::max (c.rho[0], c.rho[1]);
  double amax = std::max (fabs (c.a[0]), fabs (c.a[1]));
  c.wu = (int) ceil (log (1e-9 * (1 - rmax) / amax) / log (rmax));
  c.jlo = -(L / 2 - 1);
  c.nJ = (H - 1) / h + 1;
  c.nz = (H - 1) / h + L / 2 - c.jlo + 1;
  long ncb = (c.nz + CP - 1) / CP;
  c.G = (int) std::min ((long) h,
                        std::max (1L, (200000L + W4 * ncb - 1) / (W4 * ncb)));
  c.pg = (h + c.G - 1) / c.G;
  c.G = (h + c.pg - 1) / c.pg;
}

__device__ __forceinline__ float4
ld4 (const float4 *x, int row, int col)
{
  row = min (max (row, 0), H - 1);
  return __ldg (x + (size_t) row * W4 + col);
}

__device__ __forceinline__ void
fma4 (float4 &a, float w, float4 v)
{
  a.x = fmaf (w, v.x, a.x);
  a.y = fmaf (w, v.y, a.y);
  a.z = fmaf (w, v.z, a.z);
  a.w = fmaf (w, v.w, a.w);
}

/* One step of both causal recursions: s = x + rho s. */
__device__ __forceinline__ void
rec2 (float4 &s1, float4 &s2, float r1, float r2, float4 v)
{
  s1 = make_float4 (fmaf (r1, s1.x, v.x), fmaf (r1, s1.y, v.y),
                    fmaf (r1, s1.z, v.z), fmaf (r1, s1.w, v.w));
  s2 = make_float4 (fmaf (r2, s2.x, v.x), fmaf (r2, s2.y, v.y),
                    fmaf (r2, s2.z, v.z), fmaf (r2, s2.w, v.w));
}

/* A: partial coarse outputs of phase group blockIdx.z. */
__global__ void __launch_bounds__ (128) coarse_a (const float4 *x,
                                                  float4       *zp,
                                                  const float  *ptaps,
                                                  int           h,
                                                  int           D,
                                                  int           NT,
                                                  int           pg,
                                                  int           jlo,
                                                  int           nz)
{
  const int col = blockIdx.x * 32 + threadIdx.x;
  const int cb = blockIdx.y * blockDim.y + threadIdx.y;
  const int j0 = jlo + cb * CP;
  const int p0 = blockIdx.z * pg, p1 = min (h, p0 + pg);
  if (cb * CP >= nz)
    return;
  float4 acc[CP];
#pragma unroll
  for (int o = 0; o < CP; o++)
    acc[o] = make_float4 (0, 0, 0, 0);
  for (int p = p0; p < p1; p++)
    {
      const float *tp = ptaps + (size_t) p * NT;
      const int    rb = (j0 - D) * h + p;
      float4       win[CP];
#pragma unroll
      for (int u = 0; u < CP - 1; u++)
        win[u] = ld4 (x, rb + u * h, col);
      /* Each phase in a fresh sum: one float sum over all 12 sigma taps
       * drifted to 1e-5 at sigma 1500 (host emulation), per phase 2.3e-7. */
      float4 ph[CP];
#pragma unroll
      for (int o = 0; o < CP; o++)
        ph[o] = make_float4 (0, 0, 0, 0);
      for (int k = 0; k < NT; k += CP)
        {
#pragma unroll
          for (int kk = 0; kk < CP; kk++)
            {
              win[(kk + CP - 1) % CP]
                = ld4 (x, rb + (k + kk + CP - 1) * h, col);
              const float w = __ldg (tp + k + kk);
#pragma unroll
              for (int o = 0; o < CP; o++)
                fma4 (ph[o], w, win[(kk + o) % CP]);
            }
        }
#pragma unroll
      for (int o = 0; o < CP; o++)
        {
          acc[o].x += ph[o].x;
          acc[o].y += ph[o].y;
          acc[o].z += ph[o].z;
          acc[o].w += ph[o].w;
        }
    }
#pragma unroll
  for (int o = 0; o < CP; o++)
    if (cb * CP + o < nz)
      zp[((size_t) blockIdx.z * nz + cb * CP + o) * W4 + col] = acc[o];
}

/* B: the recursions' states at each interval's first output. */
__global__ void
coarse_b (const float4 *x,
          float4       *st,
          int           h,
          int           R,
          int           nJ,
          int           wu,
          float         r1,
          float         r2)
{
  const int col = blockIdx.x * 32 + threadIdx.x;
  const int js = (blockIdx.y * blockDim.y + threadIdx.y) * CSEG;
  if (js >= nJ)
    return;
  const int je = min (nJ, js + CSEG);
  float4    s1 = make_float4 (0, 0, 0, 0), s2 = s1;
  int       k = js * h - R - 1 - wu;
  for (int j = js; j < je; j++)
    {
      const int kend = j * h - R - 1;
      for (; k <= kend; k++)
        {
          rec2 (s1, s2, r1, r2, ld4 (x, k, col));
        }
      st[((size_t) 0 * nJ + j) * W4 + col] = s1;
      st[((size_t) 1 * nJ + j) * W4 + col] = s2;
    }
  s1 = make_float4 (0, 0, 0, 0);
  s2 = s1;
  k = (je - 1) * h + R + 1 + wu;
  for (int j = je - 1; j >= js; j--)
    {
      const int kend = j * h + R + 1;
      for (; k >= kend; k--)
        {
          rec2 (s1, s2, r1, r2, ld4 (x, k, col));
        }
      st[((size_t) 2 * nJ + j) * W4 + col] = s1;
      st[((size_t) 3 * nJ + j) * W4 + col] = s2;
    }
}

/* C: an interval's h outputs: the FIR of its L nodes less the tails. */
template <int L>
__global__ void
coarse_c (const float4 *x,
          const float4 *zp,
          const float4 *st,
          float4       *y,
          const float  *fir,
          int           h,
          int           R,
          int           nJ,
          int           nz,
          int           G,
          float         r1,
          float         r2,
          float         a1,
          float         a2)
{
  const int col = blockIdx.x * 32 + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (j >= nJ)
    return;
  float4 z[L];
#pragma unroll
  for (int l = 0; l < L; l++)
    {
      /* node j + l - L/2 + 1 is z index j + l (jlo = 1 - L/2) */
      float4 s = zp[(size_t) (j + l) * W4 + col];
      for (int g = 1; g < G; g++)
        {
          float4 q = zp[((size_t) g * nz + j + l) * W4 + col];
          s.x += q.x;
          s.y += q.y;
          s.z += q.z;
          s.w += q.w;
        }
      z[l] = s;
    }
  float4      s1 = st[((size_t) 0 * nJ + j) * W4 + col];
  float4      s2 = st[((size_t) 1 * nJ + j) * W4 + col];
  float4      q1 = st[((size_t) 2 * nJ + j) * W4 + col];
  float4      q2 = st[((size_t) 3 * nJ + j) * W4 + col];
  const float i1 = 1.0f / r1, i2 = 1.0f / r2;
  const int   k0 = j * h - R - 1, k1 = j * h + R + 1;
  for (int i = 0; i < h && j * h + i < H; i++)
    {
      if (i > 0)
        {
          float4 v = ld4 (x, k0 + i, col), u = ld4 (x, k1 + i - 1, col);
          rec2 (s1, s2, r1, r2, v);
          q1 = make_float4 ((q1.x - u.x) * i1, (q1.y - u.y) * i1,
                            (q1.z - u.z) * i1, (q1.w - u.w) * i1);
          q2 = make_float4 ((q2.x - u.x) * i2, (q2.y - u.y) * i2,
                            (q2.z - u.z) * i2, (q2.w - u.w) * i2);
        }
      float4 o = make_float4 (0, 0, 0, 0);
#pragma unroll
      for (int l = 0; l < L; l++)
        fma4 (o, __ldg (fir + (size_t) i * L + l), z[l]);
      o.x -= a1 * (s1.x + q1.x) + a2 * (s2.x + q2.x);
      o.y -= a1 * (s1.y + q1.y) + a2 * (s2.y + q2.y);
      o.z -= a1 * (s1.z + q1.z) + a2 * (s2.z + q2.z);
      o.w -= a1 * (s1.w + q1.w) + a2 * (s2.w + q2.w);
      y[(size_t) (j * h + i) * W4 + col] = o;
    }
}

struct Dev
{
  float  *ptaps, *fir;
  float4 *zp, *st;
};

static void
coarse_run (const Coarse &c,
            Dev          &d,
            const float  *src,
            float        *dst,
            cudaEvent_t  *ev)
{
  const float4 *x = (const float4 *) src;
  const long    ncb = (c.nz + CP - 1) / CP;
  if (ev)
    CK (cudaEventRecord (ev[0]));
  coarse_a<<<dim3 (W4 / 32, (unsigned) ((ncb + 3) / 4), c.G), dim3 (32, 4)>>> (
    x, d.zp, d.ptaps, c.h, c.D, c.NT, c.pg, c.jlo, c.nz);
  if (ev)
    CK (cudaEventRecord (ev[1]));
  const int nseg = (c.nJ + CSEG - 1) / CSEG;
  coarse_b<<<dim3 (W4 / 32, (nseg + 3) / 4), dim3 (32, 4)>>> (
    x, d.st, c.h, c.R, c.nJ, c.wu, (float) c.rho[0], (float) c.rho[1]);
  if (ev)
    CK (cudaEventRecord (ev[2]));
  dim3    gc (W4 / 32, (c.nJ + 7) / 8), bc (32, 8);
  float4 *y = (float4 *) dst;
  float   r1 = (float) c.rho[0], r2 = (float) c.rho[1], a1 = (float) c.a[0],
        a2 = (float) c.a[1];
  if (c.L == 8)
    coarse_c<8><<<gc, bc>>> (x, d.zp, d.st, y, d.fir, c.h, c.R, c.nJ, c.nz, c.G,
                             r1, r2, a1, a2);
  else if (c.L == 12)
    coarse_c<12><<<gc, bc>>> (x, d.zp, d.st, y, d.fir, c.h, c.R, c.nJ, c.nz,
                              c.G, r1, r2, a1, a2);
  else
    coarse_c<16><<<gc, bc>>> (x, d.zp, d.st, y, d.fir, c.h, c.R, c.nJ, c.nz,
                              c.G, r1, r2, a1, a2);
  if (ev)
    CK (cudaEventRecord (ev[3]));
}

/* Host emulation of kernels A, B and C on a few columns (no GPU needed):
 * the same arithmetic order per output, in float. */
static void
cpu_check (double sg, int hdiv, int L)
{
  Coarse c;
  coarse_init (c, sg, hdiv, L);
  const int          NC = 3;
  std::vector<float> x ((size_t) H * NC);
  unsigned long long s = 88172645463325252ULL;
  for (int r = 0; r < H; r++)
    for (int q = 0; q < NC; q++)
      {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[(size_t) r * NC + q] = q == 0   ? (float) ((r / 97) & 1)
                                 : q == 1 ? (s >> 40) * (1.0f / 16777216.0f)
                                          : (r < 5 ? 1.0f : 0.0f);
      }
  auto X = [&] (long r, int q) {
    r = std::min (std::max (r, 0L), (long) H - 1);
    return x[(size_t) r * NC + q];
  };
  std::vector<float> z ((size_t) c.nz * NC, 0.0f);
  for (int q = 0; q < NC; q++)
    for (int zi = 0; zi < c.nz; zi++)
      {
        int   j = c.jlo + zi;
        float tot = 0;
        for (int gg = 0; gg < c.G; gg++)
          {
            float acc = 0;
            for (int p = gg * c.pg; p < std::min (c.h, (gg + 1) * c.pg); p++)
              {
                float ph = 0;
                for (int k = 0; k < c.NT; k++)
                  ph = fmaf (c.ptaps[(size_t) p * c.NT + k],
                             X ((long) (j - c.D + k) * c.h + p, q), ph);
                acc += ph;
              }
            tot += acc;
          }
        z[(size_t) zi * NC + q] = tot;
      }
  double worst = 0;
  float  r1 = (float) c.rho[0], r2 = (float) c.rho[1];
  for (int q = 0; q < NC; q++)
    for (int j = 0; j < c.nJ; j++)
      {
        float s1 = 0, s2 = 0, q1 = 0, q2 = 0;
        for (long k = (long) j * c.h - c.R - 1 - c.wu;
             k <= (long) j * c.h - c.R - 1; k++)
          {
            float v = X (k, q);
            s1 = fmaf (r1, s1, v);
            s2 = fmaf (r2, s2, v);
          }
        for (long k = (long) j * c.h + c.R + 1 + c.wu;
             k >= (long) j * c.h + c.R + 1; k--)
          {
            float v = X (k, q);
            q1 = fmaf (r1, q1, v);
            q2 = fmaf (r2, q2, v);
          }
        for (int i = 0; i < c.h && j * c.h + i < H; i++)
          {
            if (i > 0)
              {
                float v = X ((long) j * c.h - c.R - 1 + i, q),
                      u = X ((long) j * c.h + c.R + i, q);
                s1 = fmaf (r1, s1, v);
                s2 = fmaf (r2, s2, v);
                q1 = (q1 - u) * (1.0f / r1);
                q2 = (q2 - u) * (1.0f / r2);
              }
            float o = 0;
            for (int l = 0; l < L; l++)
              o = fmaf (c.fir[(size_t) i * L + l], z[(size_t) (j + l) * NC + q],
                        o);
            o -= (float) c.a[0] * (s1 + q1) + (float) c.a[1] * (s2 + q2);
            int    n = j * c.h + i;
            double e = 0;
            for (int kk = -c.R; kk <= c.R; kk++)
              e += exp (-0.5 * (double) kk * kk / (sg * sg)) / c.S
                   * X (n + kk, q);
            worst = std::max (worst, fabs (o - e));
          }
      }
  printf ("cpu sigma %5g h=s/%d (h %d) L %2d: worst %.2e  fir L2 %.1e tail L1 "
          "%.1e a %.3g %.3g lam %.3f %.3f wu %d G %d\n",
          sg, hdiv, c.h, L, worst, c.fit_l2, c.tail_l1,
          c.a[0] / g6 (c, c.R + 1), c.a[1] / g6 (c, c.R + 1),
          -log (c.rho[0]) * sg, -log (c.rho[1]) * sg, c.wu, c.G);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && std::string (argv[1]) == "cpu")
    {
      for (double sg : { 16.0, 25.0, 50.0, 100.0, 200.0, 500.0, 1500.0 })
        for (auto hl : { std::pair<int, int>{ 4, 8 }, { 3, 12 }, { 2, 16 } })
          cpu_check (sg, hl.first, hl.second);
      return 0;
    }
  std::vector<std::pair<int, int>> cfg;
  for (int i = 1; i < argc; i++)
    {
      int a, b;
      if (sscanf (argv[i], "%d:%d", &a, &b) == 2)
        cfg.push_back ({ a, b });
    }
  if (cfg.empty ())
    cfg = { { 4, 8 }, { 3, 12 }, { 2, 16 } };
  const double sig[] = { 16, 25, 50, 100, 200, 500, 1500 };
  size_t       n = (size_t) W * H * C;
  float       *in[NB], *out, *ref;
  char         why[512];
  if (! gpufx_backend_available (GPUFX_BACKEND_CUDA, why, sizeof why))
    {
      printf ("SKIP: %s\n", why);
      return 77;
    }
  for (int i = 0; i < NB; i++)
    CK (cudaMalloc (&in[i], n * 4));
  CK (cudaMalloc (&out, n * 4));
  CK (cudaMalloc (&ref, n * 4));
  std::vector<float> h (n);
  unsigned long long s = 88172645463325252ULL;
  for (int b = 0; b < NB; b++)
    {
      bench_noise (h.data (), n, &s);
      /* buffer 0: steps and flat areas too */
      if (b == 0)
        for (int y = 0; y < H; y++)
          for (int x = 0; x < W / 2; x++)
            for (int ch = 0; ch < C; ch++)
              h[((size_t) y * W + x) * C + ch]
                = ((y / 97 + x / 53) & 1) ? 1.0f : 0.0f;
      CK (cudaMemcpy (in[b], h.data (), n * 4, cudaMemcpyHostToDevice));
    }
  std::vector<float> hi (n), ho (n), hr (n);
  CK (cudaMemcpy (hi.data (), in[0], n * 4, cudaMemcpyDeviceToHost));
  cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  printf ("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  cudaEvent_t ev[4];
  for (int i = 0; i < 4; i++)
    CK (cudaEventCreate (&ev[i]));
  CudaGeom g = { W, H, C, 3, GPUFX_BORDER_CLAMP };
  auto     plane = [&] (float *q) {
    CudaPlane pl = { q, (ptrdiff_t) W * C, 0, 0, W, H };
    return pl;
  };
  for (double sg : sig)
    {
      GpufxGaussianPlan p;
      gpufx_gaussian_plan_init (&p, sg, GPUFX_CUDA_GAUSS_DIRECT_RADIUS);
      for (int a = 0; a < 2; a++)
        CK (gpufx_cuda_line_cosines_upload (a, &p));
      /* the engine's column pass */
      std::vector<float> t;
      for (int it = 0; it < 18; it++)
        {
          CK (cudaEventRecord (ev[0]));
          gpufx_cuda_line_cosines (g, 1, plane (in[it % NB]), plane (ref),
                                   p.radius, p.n_terms, 0);
          CK (cudaEventRecord (ev[1]));
          CK (cudaEventSynchronize (ev[1]));
          float ms;
          CK (cudaEventElapsedTime (&ms, ev[0], ev[1]));
          if (it >= 3)
            t.push_back (ms);
        }
      std::sort (t.begin (), t.end ());
      gpufx_cuda_line_cosines (g, 1, plane (in[0]), plane (ref), p.radius,
                               p.n_terms, 0);
      CK (cudaDeviceSynchronize ());
      CK (cudaMemcpy (hr.data (), ref, n * 4, cudaMemcpyDeviceToHost));
      double dcos = 0;
      bench_exact_samples (hi, W, H, C, p, 1, GPUFX_BORDER_CLAMP, 12345,
                           [&] (size_t ix, double e) {
                             dcos = std::max (dcos, fabs (hr[ix] - e));
                           });
      printf ("sigma %5g  cosines col %.4f ms  vs exact %.2e\n", sg,
              t[t.size () / 2], dcos);
      for (auto hl : cfg)
        {
          Coarse c;
          coarse_init (c, sg, hl.first, hl.second);
          Dev d;
          CK (cudaMalloc (&d.ptaps, c.ptaps.size () * 4));
          CK (cudaMalloc (&d.fir, c.fir.size () * 4));
          CK (cudaMalloc (&d.zp, (size_t) c.G * c.nz * W4 * 16));
          CK (cudaMalloc (&d.st, (size_t) 4 * c.nJ * W4 * 16));
          CK (cudaMemcpy (d.ptaps, c.ptaps.data (), c.ptaps.size () * 4,
                          cudaMemcpyHostToDevice));
          CK (cudaMemcpy (d.fir, c.fir.data (), c.fir.size () * 4,
                          cudaMemcpyHostToDevice));
          std::vector<float> ta, tb, tc, tt;
          for (int it = 0; it < 18; it++)
            {
              coarse_run (c, d, in[it % NB], out, ev);
              CK (cudaEventSynchronize (ev[3]));
              float m1, m2, m3;
              CK (cudaEventElapsedTime (&m1, ev[0], ev[1]));
              CK (cudaEventElapsedTime (&m2, ev[1], ev[2]));
              CK (cudaEventElapsedTime (&m3, ev[2], ev[3]));
              if (it >= 3)
                {
                  ta.push_back (m1);
                  tb.push_back (m2);
                  tc.push_back (m3);
                  tt.push_back (m1 + m2 + m3);
                }
            }
          CK (cudaGetLastError ());
          for (auto *v : { &ta, &tb, &tc, &tt })
            std::sort (v->begin (), v->end ());
          coarse_run (c, d, in[0], out, NULL);
          CK (cudaDeviceSynchronize ());
          CK (cudaMemcpy (ho.data (), out, n * 4, cudaMemcpyDeviceToHost));
          double dex = 0, dvs = 0;
          bench_exact_samples (hi, W, H, C, p, 1, GPUFX_BORDER_CLAMP, 12345,
                               [&] (size_t ix, double e) {
                                 dex = std::max (dex, fabs (ho[ix] - e));
                               });
          for (size_t i = 0; i < n; i++)
            {
              double dd = fabs ((double) ho[i] - hr[i]);
              if (! (dd <= dvs))
                dvs = isnan (dd) ? INFINITY : dd;
            }
          printf ("  h=s/%d (h %d) L %2d G %2d: A %.4f B %.4f C %.4f = %.4f ms"
                  "  | vs exact %.2e, vs cosines %.2e | fir L2 %.1e tail L1 "
                  "%.1e wu %d\n",
                  hl.first, c.h, c.L, c.G, ta[ta.size () / 2],
                  tb[tb.size () / 2], tc[tc.size () / 2], tt[tt.size () / 2],
                  dex, dvs, c.fit_l2, c.tail_l1, c.wu);
          fflush (stdout);
          cudaFree (d.ptaps);
          cudaFree (d.fir);
          cudaFree (d.zp);
          cudaFree (d.st);
        }
      gpufx_gaussian_plan_clear (&p);
    }
  return 0;
}

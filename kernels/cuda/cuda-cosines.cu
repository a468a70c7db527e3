/* gimp-gpu-filters: the Gaussian's sum of cosines along rows or columns
 * (large sigma, cost independent of sigma).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"
#include "gaussian-plan.h"

#include <stdint.h>
#include <stdlib.h>

struct LinesCosines
{
  int n_terms;
  int radius;
  /* Per term m (w = omega[m]); terms past n_terms are all zero. */
  double omega[GPUFX_GAUSS_MAX_TERMS];
  double coeff[GPUFX_GAUSS_MAX_TERMS];
  double two_cos[GPUFX_GAUSS_MAX_TERMS]; /* 2 cos w               */
  double cos_w[GPUFX_GAUSS_MAX_TERMS];   /* cos w                 */
  double sin_w[GPUFX_GAUSS_MAX_TERMS];   /* sin w                 */
  double cos_r[GPUFX_GAUSS_MAX_TERMS];   /* cos (w r)             */
  double sin_r[GPUFX_GAUSS_MAX_TERMS];   /* sin (w r)             */
  double cos_r1[GPUFX_GAUSS_MAX_TERMS];  /* cos (w (r+1))         */
  double sin_r1[GPUFX_GAUSS_MAX_TERMS];  /* sin (w (r+1))         */
  double alpha[GPUFX_GAUSS_MAX_TERMS];   /* coeff cos (w r)       */
  double beta[GPUFX_GAUSS_MAX_TERMS];    /* coeff cos (w (r+1))   */
  double inv_re[GPUFX_GAUSS_MAX_TERMS];  /* 1 / (e^{iw} - 1), m>0 */
  double inv_im[GPUFX_GAUSS_MAX_TERMS];
  /* The phase-2 constants of the terms kept in float (lines_float_terms). */
  float two_cos_f[GPUFX_GAUSS_MAX_TERMS];
  float alpha_f[GPUFX_GAUSS_MAX_TERMS];
  float beta_f[GPUFX_GAUSS_MAX_TERMS];
};

__constant__ LinesCosines lines_cos[2];

/* The plan's free frequencies (period 0): e^{i w_m q} for any position
 * |q| < 2^(2 COS_TAB_BITS) as the product of two entries of a table per
 * axis and term, w_m j and w_m j 2^COS_TAB_BITS for j < 2^COS_TAB_BITS,
 * made once per upload on the GPU (lines_table_kernel).  Free frequencies
 * are not powers of one phase, as harmonics were, and each term's own
 * sincos in the kernels cost 20-36% (H200, round 30). */
#define COS_TAB_BITS  11
#define COS_TAB_N     (1 << COS_TAB_BITS)
#define COS_TAB_TERMS 8
/* [axis][high part][j][term]: a position's terms in one 128-byte line. */
__device__ double2 lines_phase_table[2][2][COS_TAB_N][COS_TAB_TERMS];

__global__ void
lines_table_kernel (int axis, int n_terms, const LinesCosines k)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = i % COS_TAB_TERMS, j = i / COS_TAB_TERMS % COS_TAB_N;
  const int hi = i / (COS_TAB_TERMS * COS_TAB_N);
  double    c = 1.0, sn = 0.0;

  if (hi > 1)
    return;
  if (m < n_terms)
    sincos (k.omega[m] * ((double) j * (hi ? COS_TAB_N : 1)), &sn, &c);
  lines_phase_table[axis][hi][j][m] = make_double2 (c, sn);
}

/* The sum of cosines with a cost independent of r, in double.  A block
 * takes LANES lines (lanes; channel fastest, so the column pass reads
 * whole lines) and cuts each line into NCH = blockDim.y chunks
 * of S samples, one per threadIdx.y: phase 1 sums each chunk's samples
 * (per term, with phase e^{i w q} at image position q), phase 2 computes
 * the outputs [tS, tS + S) of chunk t by a recurrence started from the
 * window sum that the chunk sums give.
 *
 * Clamp and zero borders (FLAT): the chunks cover the input plane's
 * image samples only, and the padding's share of a window is a geometric
 * series (clamp: the edge value times sum_{a <= p < b} e^{iwp}
 * = (e^{iwb} - e^{iwa}) / (e^{iw} - 1); zero: nothing), so the cost does
 * not grow with r.  With I(q) the sum over plane samples before q, the
 * window of output o needs I at clamp (o - r) and clamp (o + r + 1); for
 * the chunk starts o = o0 + tS those lie at the same two offsets b1, b2
 * within their chunks for every t (or at chunk boundaries, or at the
 * plane's end), so each chunk keeps its Goertzel state at b1 and b2 and
 * its total: I (c S + f) = sum_{c' < c} A_c' + (the first f of chunk c).
 * Mirror and wrap (PADDED): chunks of the padded line (len + 2r samples,
 * j = 0 .. np-1, image position p0 + j), each keeping its total A and the
 * sum B of its first b samples, with 2r + 1 = a S + b; the window of
 * output tS is sum_{t <= u < t + a} A_u + B_{t + a}.
 * Mirror and wrap where the padded line is longer than a period P of the
 * border (PERIODIC; P = n for wrap, 2n - 2 for mirror, 1 for a mirrored
 * line of 1): the chunks cover one period of the padded line, j = 0 ..
 * P-1, and the padded line repeats it, so with Y(J) the sum over its
 * first J samples (absolute phase), Y(K P + f) = Y(P) sum_{k < K} z^k
 * + z^K Y(f), z = e^{iwP}, and the window of output tS is Y(tS + 2r + 1)
 * - Y(tS).  Y(tS) is a sum of chunk totals; f = tS + 2r + 1 - K P lies at
 * one of two offsets within its chunk (K takes two values at most, as
 * tS < len <= P), where each chunk keeps its Goertzel state, as FLAT
 * does.  sum_{k < K} z^k = e^{i (K-1) theta / 2} sin (K theta / 2) /
 * sin (theta / 2), theta = wP (K where z = 1), from exact phases.  The
 * cost is P samples per line (the image for wrap, twice it for mirror),
 * whatever r.  No cancellation worth the name in double (magnitudes up to
 * the line length times 2r / P).
 * Mirror where the plane holds the whole line and r is not short
 * (MIRROR): the chunks cover the image alone, as FLAT.  The mirrored
 * line is the image forwards, then backwards (positions n .. P-1 read
 * x_{P-p}), so with I(q) the sum over image samples before q, its sum
 * over [0, q) is I(q) for q <= n and I(n) + z_P conj (I(n-1) - I(P-q+1))
 * up to P (x real, z_P = e^{iwP}), and repeats with period P as above;
 * each window end needs I at one image point, which for the chunk starts
 * lies at one of two fixed offsets within its chunk (see mir_seg0), where
 * the chunks keep their Goertzel states.  So the cost is n samples per
 * line whatever r, and phase 2 steps each stream's mirrored index, with
 * plain loads between the folds.
 * The chunk totals are turned into running sums over the chunks after
 * phase 1, so that any run of chunks costs one difference (not NCH adds
 * per term at large r).  Positions outside the image are mapped without
 * divisions: clamp and zero directly, mirror and wrap by stepping the
 * mapped index of consecutive positions (map_start, map_next).
 * Columns under clamp and zero where r is short against the line (SOLO):
 * each chunk (a warp) sums its first output's window itself, the image
 * part by Goertzel and the padding in closed form as FLAT does, in
 * relative phase; no phase 1 over the line, no shared memory, no barrier,
 * and the walk (at most 2r + 1 samples per chunk) replaces FLAT's walk of
 * the whole line.  In 1 or 2 chunks per line (DEEP) there are fewer warps
 * to wait on the loads, so phase 2's samples pass through a ring in shared
 * memory per warp, copied there (cp.async) groups ahead of their use.
 * Rows of 4 channels that fit twice in an SM's shared memory (RS) are
 * copied there whole first (one row per block, 4 lanes x 32 chunks, S
 * odd so that the chunks of a warp read different banks): phase 1 and
 * both streams of phase 2 then read shared memory instead of re-reading
 * lines that no longer sit in L1 or L2.  Under clamp and zero, once the
 * window sums are taken, the slots next to the row take its padding
 * (r <= 1024), so that phase 2 reads no border map.
 *
 * Chunk sums by Goertzel's real recurrence (2 flops per sample and term
 * instead of Horner's 4):  s_n = x_n + 2 cos w s_{n-1} - s_{n-2}  gives
 * s_{N-1} - e^{-iw} s_{N-2} = sum_q x_q e^{iw (N-1-q)}.
 *
 * Outputs by the real second-order recurrence of D_m[o] = coeff_m Re T_m[o],
 * T_m[o] = sum_{|k| <= r} e^{i w k} x[o + k]  (3 FMA per output and term,
 * and one add for the sum over terms):
 *     D[o+2] = 2 cos w D[o+1] - D[o]
 *              + coeff cos (w r) (x[o+r+2] + x[o-r])
 *              - coeff cos (w (r+1)) (x[o+r+1] + x[o+1-r]),
 * the two sums shared by all terms, started from D[tS] and D[tS + 1].
 * Rounding grows at most like S min (S, 1 / sin w) eps over a chunk, far
 * below the engine's tolerance in double (the recurrences restart every
 * chunk); the 6-term kernels run their lightest term in float
 * (COS_F32).  The plan's frequencies are free (not harmonics of one), so
 * the phases e^{i w_m q} come from a table per term (lines_phases). */
/* e^{i w_m q} of term m from the phase table of the axis. */
template <int AXIS>
__device__ __forceinline__ double2
lines_table_one (int m, long long q)
{
  const unsigned a = (unsigned) (q < 0 ? -q : q);
  const double2  x = __ldg (&lines_phase_table[AXIS][0][a % COS_TAB_N][m]);
  const double2  y = __ldg (&lines_phase_table[AXIS][1][a / COS_TAB_N][m]);
  const double   im = fma (x.x, y.y, x.y * y.x);

  return make_double2 (x.x * y.x - x.y * y.y, q < 0 ? -im : im);
}

/* z[m] = e^{i w_m q} for m < NT (term 0: w = 0; terms past the table's
 * have no weight). */
template <int NT, int AXIS>
__device__ __forceinline__ void
lines_phases (long long q, double2 *z)
{
  z[0] = make_double2 (1.0, 0.0);
#pragma unroll
  for (int m = 1; m < NT; m++)
    z[m] = m < COS_TAB_TERMS ? lines_table_one<AXIS> (m, q)
                             : make_double2 (1.0, 0.0);
}

/* Block shape per axis: lanes (lines, blockDim.x) and chunks per line
 * at most (blockDim.y).  Rows: 8 lanes (2 pixels x 4 channels) x 16
 * chunks.  Columns: 32 lanes (8 pixels x 4 channels: a warp is one
 * chunk and its loads are whole 128-byte lines) x 4 chunks, or x 8
 * (nch_max) where the grid would not fill one wave (see cosines_launch:
 * 1080p and less; 4K under mirror and wrap). */
#ifndef COS_ROW_LANES
#define COS_ROW_LANES 8
#endif
#ifndef COS_ROW_NCH
#define COS_ROW_NCH 16
#endif
#ifndef COS_COL_LANES
#define COS_COL_LANES 32
#endif
#ifndef COS_COL_NCH
#define COS_COL_NCH 4
#endif
#ifndef COS_U
#define COS_U 8 /* samples in flight, chunk sums  */
#endif
/* Per axis: the column pass reads phase 1 from global memory, the whole
 * grid at once (one wave), so more loads in flight there (H100: 16 1-4%
 * faster than 8; 24 and 32 slower). */
#ifndef COS_ROW_U
#define COS_ROW_U COS_U
#endif
#ifndef COS_COL_U
#define COS_COL_U 16
#endif
#ifndef COS_V
#define COS_V 4 /* outputs in flight, recurrence (even) */
#endif
/* Per axis: the column pass waits on global loads, so 8 outputs in flight
 * there (H100: 2-4% faster); the row pass (shared memory) is slower at 8.
 * Rows under mirror and wrap: 6 (H200, 4K, 6 terms, round 31, both passes:
 * mirror sigma 50 / 500 -2.2 / -2.9%, where 6 under clamp ran +0.5..3%). */
#ifndef COS_ROW_V
#define COS_ROW_V COS_V
#endif
#ifndef COS_ROW_V_MAP
#define COS_ROW_V_MAP 6
#endif
#ifndef COS_COL_V
#define COS_COL_V 8
#endif

template <int AXIS> struct CosShape
{
  static constexpr int lanes = AXIS == 0 ? COS_ROW_LANES : COS_COL_LANES;
  static constexpr int nch = AXIS == 0 ? COS_ROW_NCH : COS_COL_NCH;
  static constexpr int nch_max = AXIS == 0 ? nch : 2 * nch;
  /* 512 threads per SM: 128 registers each. */
  static constexpr int min_blocks = 512 / (lanes * nch_max);
};

/* Rows held whole in shared memory (RS, 4 channels, rows that fit): one
 * row per block, 4 lanes (its channels) x 32 chunks, 2 blocks per SM. */
#ifndef COS_RS
#define COS_RS 1
#endif
#ifndef COS_RS_NCH
#define COS_RS_NCH 32
#endif
#ifndef COS_DC
#define COS_DC 1 /* term 0 (w = 0) by plain sums */
#endif
/* The last term of the 6-term kernels in float: its phase 2 and its chunk
 * sums (Goertzel), in both passes (H200, 4K, round 31: the rows' chunk sums
 * in float too, both passes -0.3..-1.8% at sigma 16..1500, the same
 * errors; with 8 terms, round 26 had measured the rows slower).  It
 * weighs |coeff_5| (2r + 1) <= 2.5e-4 of an output (COS_F32_WEIGHT bounds
 * it, checked per plan), as light as term 6 of the former 8-term harmonic
 * fits, which ran in float with term 7 (round 26: the float recurrences'
 * drift over a chunk, about S min (S, 1 / sin w) 6e-8 of the term,
 * measured at 4K against all-double kernels on noise and on images that
 * resonate with the float terms: at most 2.4e-7, where a term 16 times
 * heavier in float reached 3.6e-6 at sigma 1500).  The float term joins
 * the output after it is rounded to float (one more rounding, no
 * conversion).  Plans whose last term weighs more, and every plan under
 * GPUFX_CUDA_COS_F64 (a testing aid), run the 8-term kernels all in double
 * (lines_cos_nt). */
#ifndef COS_F32
#define COS_F32 1
#endif
#define COS_F32_WEIGHT 1e-3

template <int NT>
__host__ __device__ constexpr int
lines_float_terms ()
{
  return NT == 6 ? COS_F32 : 0;
}

#ifndef COS_BULK
#define COS_BULK 1 /* RS rows: one bulk copy (TMA, sm_90+) */
#endif
#ifndef COS_HOIST
#define COS_HOIST 1 /* RS: the set-up's phases while the row is copied */
#endif
#ifndef COS_REL
#define COS_REL 1 /* FLAT: window ends inside the image by z(o) e^{iwr} */
#endif
#ifndef COS_SEG
#define COS_SEG 1 /* FLAT, one chunk per warp: phase 2 in runs */
#endif
#ifndef COS_HINT
#define COS_HINT 1 /* columns: L2 keeps the high stream's samples */
#endif
#ifndef COS_CC
#define COS_CC 1 /* FLAT by warps: a variant for both streams outside */
#endif
#ifndef COS_MIR
#define COS_MIR 1 /* mirror: phase 1 over the image, as FLAT */
#endif
/* COS_MIRROR where the padded line is longer than n + n / COS_MIR_ROW
 * (rows) or n + n / COS_MIR_COL (columns); PADDED below. */
#ifndef COS_MIR_ROW
#define COS_MIR_ROW 16
#endif
#ifndef COS_MIR_COL
#define COS_MIR_COL 4
#endif
#ifndef COS_WALK1
#define COS_WALK1 1 /* phase 1: one call site of walk (code size) */
#endif
/* RS rows under clamp and zero: slot 0 before the row and slots 1, 2
 * after it, so that after the window sums they hold the row's padding
 * and every chunk's phase 2 takes plain loads (see pad below). */
#ifndef COS_PADR
#define COS_PADR 1
#endif
template <int AXIS, bool RS> struct CosBlock : CosShape<AXIS>
{
};
template <> struct CosBlock<0, true>
{
  static constexpr int lanes = 4;
  static constexpr int nch = COS_RS_NCH;
  static constexpr int nch_max = nch;
  static constexpr int min_blocks = 2;
};

template <int I> struct LinesInt
{
  static constexpr int value = I;
};

/* How phase 2 reads a stream (see outputs). */
enum
{
  COS_GEN,  /* through the border map (at)             */
  COS_LOAD, /* plain loads: all inside the image       */
  COS_CONST /* one value: all outside (clamp or zero)  */
};

/* What the chunks of phase 1 walk (see above). */
enum
{
  COS_PADDED,   /* the padded line (mirror, wrap; short r) */
  COS_FLAT,     /* the image (clamp, zero)                 */
  COS_PERIODIC, /* one period (mirror, wrap; long r)       */
  COS_MIRROR,   /* the image, mirror (whole lines)         */
  COS_SOLO,     /* columns, clamp / zero: each chunk alone */
  COS_DEEP      /* SOLO in 1-2 chunks, phase 2 through a ring */
};

/* DEEP (see cosines_launch_solo): SOLO with at most COS_DEEP_NCH chunks
 * per line, so fewer warps, whose phase-2 loads are copied (cp.async)
 * COS_DEEP_PF groups of outputs ahead into a ring in shared memory
 * instead of waiting in registers.  H100, 4K columns at sigma 100, round
 * 25: 2 groups ahead 0.182 ms, 4 0.188, 6 0.187 (2 chunks); 16 outputs
 * per group or 32 phase-1 loads in flight no faster. */
#ifndef COS_DEEP_NCH
#define COS_DEEP_NCH 2
#endif
#ifndef COS_DEEP_PF
#define COS_DEEP_PF 2
#endif
/* The ring's copies need cp.async (sm_80+); before, DEEP is SOLO. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define COS_DEEP_RING 0
#else
#define COS_DEEP_RING 1
#endif
/* DEEP's ring of each warp, in floats: PF + 2 groups of V outputs, two
 * streams (the group copied into a slot was read two groups before). */
__host__ __device__ constexpr int
lines_ring_floats ()
{
  return (COS_DEEP_PF + 2) * COS_COL_V * 2 * COS_COL_LANES;
}

/* A float or a float4 from global to shared memory without a register
 * (cp.async, sm_80+: 16 bytes past L1, 4 through it; before, a plain
 * copy), and the wait until at most N of the committed groups are
 * pending (N = 0: all, cp.async.wait_all). */
template <typename T>
__device__ __forceinline__ void
lines_copy (T *dst, const T *src)
{
  static_assert (sizeof (T) == 4 || sizeof (T) == 16, "float or float4");
#if __CUDA_ARCH__ >= 800
  const unsigned d = (unsigned) __cvta_generic_to_shared (dst);

  if (sizeof (T) == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(src)
                 : "memory");
#else
  *dst = __ldg (src);
#endif
}
template <int N>
__device__ __forceinline__ void
lines_copy_commit_wait ()
{
#if __CUDA_ARCH__ >= 800
  if (N == 0)
    asm volatile("cp.async.wait_all;" ::: "memory");
  else
    asm volatile("cp.async.commit_group;\n\t"
                 "cp.async.wait_group %0;" ::"n"(N)
                 : "memory");
#endif
}
/* The first K elements of a and b exchanged (K constant: in registers). */
template <int K, typename T>
__device__ __forceinline__ void
lines_swap (T *a, T *b)
{
#pragma unroll
  for (int m = 0; m < K; m++)
    {
      const T t = a[m];

      a[m] = b[m];
      b[m] = t;
    }
}

/* Launch bounds per kernel: the block shape's, but for DEEP. */
template <int AXIS, bool RS, int MODE> struct CosBounds
{
  static constexpr int threads
    = CosBlock<AXIS, RS>::lanes * CosBlock<AXIS, RS>::nch_max;
  static constexpr int min_blocks = CosBlock<AXIS, RS>::min_blocks;
};
/* DEEP: blocks of up to 3 warps, 4 per SM (170 registers; it takes 122,
 * none spilled), as measured: under a bound of 2 warps ptxas schedules it
 * otherwise. */
template <> struct CosBounds<1, false, COS_DEEP>
{
  static constexpr int threads = COS_COL_LANES * 3;
  static constexpr int min_blocks = 4;
};

__host__ __device__ constexpr int
lines_slots (int mode)
{
  return mode == COS_PADDED ? 2 : 3;
}

/* Shared memory before an RS row, in units of NT x LANES double2: the
 * slots, and under COS_MIRROR a per-line constant (R; more would cost
 * 4K columns a block per SM). */
__host__ __device__ constexpr int
lines_smem_units (int mode, int nch)
{
  return lines_slots (mode) * nch + (mode == COS_MIRROR);
}

/* PADR: the double2 units before the row, slot 0 and room for the
 * padding below the row (r <= this; 1024 as at 8 terms, sigma <= 256). */
__host__ __device__ constexpr int
lines_pad_lead (int nt)
{
  return COS_RS_NCH * nt * 4 > 1024 ? COS_RS_NCH * nt * 4 : 1024;
}

/* The period of the padded line under mirror or wrap. */
__host__ __device__ inline int
lines_border_period (int n, int border)
{
  return border == GPUFX_BORDER_WRAP ? n : max (2 * n - 2, 1);
}

/* AXIS is a template argument so that the plan's constants are read
 * at fixed constant-bank addresses.  RS: the block's row (the input
 * plane's samples, 4 channels) is copied to shared memory first, and
 * every later read is a shared-memory one. */
template <int NT, int AXIS, int MODE, bool RS, bool PAD = false>
__global__ void
__launch_bounds__ (CosBounds<AXIS, RS, MODE>::threads,
                   CosBounds<AXIS, RS, MODE>::min_blocks)
  lines_cosines_kernel (CudaGeom g, CudaPlane in, CudaPlane out)
{
  /* SOLO keeps FLAT's border semantics (image positions, runs). */
  constexpr bool            SOLO = MODE == COS_SOLO || MODE == COS_DEEP;
  constexpr bool            DEEP = MODE == COS_DEEP;
  constexpr bool            FLAT = MODE == COS_FLAT || SOLO;
  constexpr bool            PER = MODE == COS_PERIODIC;
  constexpr bool            MIR = MODE == COS_MIRROR;
  constexpr int             LANES = CosBlock<AXIS, RS>::lanes;
  constexpr int             V = AXIS == 1          ? COS_COL_V
                                : MODE == COS_FLAT ? COS_ROW_V
                                                   : COS_ROW_V_MAP;
  constexpr int             U = AXIS == 0 ? COS_ROW_U : COS_COL_U;
  const int                 axis = AXIS;
  extern __shared__ double2 cos_smem[];
  const LinesCosines       &k = lines_cos[AXIS];
  const int                 C = RS ? 4 : g.channels; /* RS: 4 (launcher) */
  const int  lane = threadIdx.x, t = threadIdx.y, NCH = blockDim.y;
  const int  n_lines = (axis == 0 ? out.h : out.w) * C;
  const int  len = axis == 0 ? out.w : out.h;
  const int  n = axis == 0 ? g.image_w : g.image_h;
  const int  r = k.radius;
  const int  l = blockIdx.x * LANES + lane;
  const bool active = l < n_lines;
  /* Inactive lanes read the last line and write nothing. */
  const int lr = min (l, n_lines - 1);
  const int c = lr % C, lidx = lr / C;
  const int line = axis == 0 ? out.y0 + lidx : out.x0 + lidx;
  const int o0 = axis == 0 ? out.x0 : out.y0;
  const int p0 = o0 - r;
  const int np = len + 2 * r;
  /* FLAT: the plane's samples [qa, qa + ni) of the axis. */
  const int qa = axis == 0 ? in.x0 : in.y0;
  const int ni = axis == 0 ? in.w : in.h;
  const int per = PER || MIR ? lines_border_period (n, g.border) : 1;
  /* Phase 1 walks the samples [pbase, pbase + nw) of the (padded) line. */
  const int pbase = FLAT || MIR ? qa : p0;
  const int nw = FLAT || MIR ? ni : PER ? per : np;
  const int S0 = FLAT || MIR
                   ? max (max ((len + NCH - 1) / NCH, (ni + NCH - 1) / NCH), 1)
                 : PER ? (per + NCH - 1) / NCH
                       : (np + NCH) / NCH; /* NCH * S > np */
  /* RS: S odd, so that the chunks of a warp read different banks.
   * SOLO: chunks of the outputs alone. */
  const int S = SOLO ? max ((len + NCH - 1) / NCH, 1) : RS ? S0 | 1 : S0;
  const int j0 = t * S;
  /* SOLO: the window of the chunk's first output, its image part
   * [sol_lo, sol_hi), which the plane holds (none past the outputs). */
  const int sol_lo = max (o0 + j0 - r, 0);
  const int sol_hi = j0 < len ? min (o0 + j0 + r + 1, n) : sol_lo;
  /* Where this chunk's phase-1 samples start (image position) and how
   * many there are (SOLO: the window's image part). */
  const int    pw = SOLO ? sol_lo : pbase + j0;
  const int    N = SOLO ? sol_hi - sol_lo : max (0, min (S, nw - j0));
  const float *base;
  ptrdiff_t    step;
  /* RS rows under clamp and zero where r fits slot 0 (PADR; sigma <=
   * 256): phase 2 reads the row padded in shared memory (pad), every
   * chunk by plain loads, instead of the border map in the chunks near
   * the ends (a warp takes the slowest variant of its 8 chunks, so 2 of
   * the 4 warps did).  The chunks past the outputs then stay to the
   * barriers, their window sums those of the first output (jw).  H100,
   * 4K RGBA clamp, round 23: rows sigma 16 / 25 / 50 / 100 / 200 -2 /
   * -4 / -4 / -3.5 / -4%, both passes 0.332 / 0.350 / 0.365 / 0.379 /
   * 0.374 -> 0.329 / 0.342 / 0.357 / 0.372 / 0.365 ms; the same
   * arithmetic (errors unchanged).  Sigma 500 and 1500, which do not pad,
   * ran 1-2% slower with this layout: they take the kernel without PAD
   * (cosines_launch_rs). */
  constexpr bool PADR = PAD && RS && MODE == COS_FLAT;
  constexpr int  SLOT = NT * LANES; /* a slot of one chunk, in double2 */
  constexpr int  LEAD = PADR ? lines_pad_lead (NT) : 0;
  const bool     pad = PADR && r <= LEAD;
  const bool     idle = ! active || j0 >= len;
  const int      jw = pad && idle ? 0 : j0;
  /* The row (RS): after the slots, or after slot 0 (PADR), the plane's
   * sample q at 4 q + c; under PADR slots 1 and 2 follow it. */
  float *const row
    = (float *) (cos_smem
                 + (PADR ? LEAD : lines_smem_units (MODE, NCH) * SLOT));
  /* RS (COS_HOIST): the phases of the chunk's last sample (zn) and of its
   * first output (zh) read from the table while the row is copied: their
   * loads wait on L2 and the chunk's set-up on them (the registers are
   * there: the row and slots allow 2 blocks of 128 threads an SM). */
  constexpr bool HOIST = COS_HOIST && RS;
  double2        zn[HOIST ? NT : 1], zh[HOIST ? NT : 1];

  if (RS)
    {
      const float *src = in.p + (ptrdiff_t) (line - in.y0) * in.pitch;

#if __CUDA_ARCH__ >= 900 && COS_BULK
      /* One bulk copy (TMA) of the whole row, its completion counted on
       * an mbarrier after the row and its slots. */
      const unsigned bar = (unsigned) __cvta_generic_to_shared (
        row + 4 * (size_t) ni + (PADR ? 4 * 2 * NCH * SLOT : 0));

      if (t == 0 && lane == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n\t"
                     "fence.mbarrier_init.release.cluster;" ::"r"(bar)
                     : "memory");
      __syncthreads ();
      if (t == 0 && lane == 0)
        asm volatile(
          "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n\t"
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
          " [%2], [%3], %1, [%0];" ::"r"(bar),
          "r"(16 * ni), "r"((unsigned) __cvta_generic_to_shared (row)), "l"(src)
          : "memory");
#else
      for (int q = t * LANES + lane; q < ni; q += LANES * NCH)
        lines_copy ((float4 *) (row + 4 * q), (const float4 *) (src + 4 * q));
#endif
      if (HOIST)
        {
          lines_phases<NT, AXIS> ((long long) pw + N - 1, zn);
          lines_phases<NT, AXIS> (o0 + jw, zh);
        }
#if __CUDA_ARCH__ >= 900 && COS_BULK
      asm volatile("{\n\t.reg .pred p;\n\t"
                   "WAIT_%=:\n\t"
                   "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
                   "@!p bra WAIT_%=;\n\t}" ::"r"(bar)
                   : "memory");
#else
      lines_copy_commit_wait<0> ();
      __syncthreads ();
#endif
      base = row - (ptrdiff_t) in.x0 * C + c;
      step = C;
    }
  else if (axis == 0)
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

  /* A sample: from shared memory (RS) or through the read-only cache. */
  auto ld = [&] (const float *q) -> float { return RS ? *q : __ldg (q); };
  /* Columns (COS_HINT): what is read once more at most (phase 1, the low
   * stream) and the outputs pass L2 as evict-first (.cs), leaving it to
   * the high stream's samples, which the low stream reads again 2r + 1
   * outputs later (H100: sigma >= 200 1-6% faster, even below). */
  constexpr bool HINT = COS_HINT && AXIS == 1 && ! RS;
  auto           ld1
    = [&] (const float *q) -> float { return HINT ? __ldcs (q) : ld (q); };
  /* Phase 1's loads: SOLO's window is read again by the low stream. */
  auto ldw = [&] (const float *q) -> float { return SOLO ? ld (q) : ld1 (q); };
  /* The sample at image position p (border mapped; 0 outside under
   * zero).  Clamp and zero need no division. */
  auto at = [&] (int p) -> float {
    int i;

    if (g.border == GPUFX_BORDER_CLAMP)
      i = min (max (p, 0), n - 1);
    else if ((unsigned) p < (unsigned) n)
      i = p;
    else if (FLAT) /* zero */
      i = -1;
    else
      i = gpufx_border_index (p, n, g.border);
    return i >= 0 ? ld (base + (ptrdiff_t) i * step) : 0.0f;
  };

  /* Mirror and wrap: the border map of consecutive positions without
   * divisions.  map_start gives the index of position p and its step d
   * (wrap 1; mirror 1 or -1, 0 on a line of 1), map_next the index of
   * the next position. */
  auto map_start = [&] (int p, int *d) -> int {
    if (g.border == GPUFX_BORDER_WRAP)
      {
        *d = 1;
        return gpufx_border_index (p, n, GPUFX_BORDER_WRAP);
      }
    if (n == 1)
      {
        *d = 0;
        return 0;
      }

    const int P = 2 * n - 2;
    int       q = p % P;

    if (q < 0)
      q += P;
    *d = q < n - 1 ? 1 : -1;
    return q < n - 1 ? q : P - q;
  };
  auto map_next = [&] (int i, int *d) -> int {
    if (g.border == GPUFX_BORDER_WRAP)
      return i + 1 == n ? 0 : i + 1;
    i += *d;
    if ((unsigned) (i - 1) >= (unsigned) (n - 2))
      *d = -*d;
    return i;
  };

  /* Goertzel's states; the last GF terms in float (g1, g2). */
  constexpr int GF = lines_float_terms<NT> (), GD = NT - GF;
  double        s1[NT], s2[NT];
  float         g1[GF ? GF : 1], g2[GF ? GF : 1];

#pragma unroll
  for (int m = 0; m < NT; m++)
    s1[m] = s2[m] = 0.0;
#pragma unroll
  for (int m = 0; m < GF; m++)
    g1[m] = g2[m] = 0.0f;
  auto st1
    = [&] (int m) -> double { return m < GD ? s1[m] : (double) g1[m - GD]; };
  auto st2
    = [&] (int m) -> double { return m < GD ? s2[m] : (double) g2[m - GD]; };

  auto goertzel = [&] (float xf) {
    const double x = xf;

    /* Term 0 (w = 0) is a plain sum (its s2 stays 0). */
    if (COS_DC)
      s1[0] += x;
#pragma unroll
    for (int m = COS_DC; m < GD; m++)
      {
        double s = fma (k.two_cos[m], s1[m], x - s2[m]);

        s2[m] = s1[m];
        s1[m] = s;
      }
#pragma unroll
    for (int m = 0; m < GF; m++)
      {
        float s = fmaf (k.two_cos_f[GD + m], g1[m], xf - g2[m]);

        g2[m] = g1[m];
        g1[m] = s;
      }
  };

  /* Mirror and wrap: Goertzel over the positions [p, p + cnt) through
   * the border map, U loads at a time. */
  auto walk_mapped = [&] (int p, int cnt) {
    int d, i;

    if (cnt <= 0)
      return;
    i = map_start (p, &d);
    for (; cnt >= U; cnt -= U)
      {
        float x[U];

#pragma unroll
        for (int u = 0; u < U; u++)
          {
            x[u] = ld1 (base + (ptrdiff_t) i * step);
            i = map_next (i, &d);
          }
#pragma unroll
        for (int u = 0; u < U; u++)
          goertzel (x[u]);
      }
    for (; cnt > 0; cnt--)
      {
        goertzel (ld1 (base + (ptrdiff_t) i * step));
        i = map_next (i, &d);
      }
  };

  /* Goertzel over the chunk's samples [from, to) (image positions pw +
   * from ...): where they lie inside the image, a pointer walk with the
   * next U loads in flight while the current ones are summed; the
   * border map elsewhere. */
  auto walk = [&] (int from, int to) {
    const int f0 = min (max (from, -pw), to);
    const int f1 = max (min (to, n - pw), f0);
    const int cnt = f1 - f0;
    int       jj = from, done = 0;

    if (FLAT)
      for (; jj < f0; jj++)
        goertzel (at (pw + jj));
    else if (! MIR) /* (MIR: all inside) */
      walk_mapped (pw + from, f0 - from);
    if (cnt >= U)
      {
        const float *q = base + (ptrdiff_t) (pw + f0) * step;
        float        cur[U];

#pragma unroll
        for (int u = 0; u < U; u++)
          cur[u] = ldw (q + (ptrdiff_t) u * step);
        q += (ptrdiff_t) U * step;
        for (done = U; done + U <= cnt; done += U)
          {
            float nxt[U];

#pragma unroll
            for (int u = 0; u < U; u++)
              nxt[u] = ldw (q + (ptrdiff_t) u * step);
            q += (ptrdiff_t) U * step;
#pragma unroll
            for (int u = 0; u < U; u++)
              {
                goertzel (cur[u]);
                cur[u] = nxt[u];
              }
          }
#pragma unroll
        for (int u = 0; u < U; u++)
          goertzel (cur[u]);
      }
    if (FLAT)
      for (jj = f0 + done; jj < to; jj++)
        goertzel (at (pw + jj));
    else if (MIR)
      {
        /* The last cnt - done (< U) samples, their loads at once. */
        const float *q = base + (ptrdiff_t) (pw + f0 + done) * step;
        const int    rest = cnt - done;
        float        x[U];

#pragma unroll
        for (int u = 0; u < U; u++)
          x[u] = u < rest ? ld1 (q + (ptrdiff_t) u * step) : 0.0f;
#pragma unroll
        for (int u = 0; u < U; u++)
          if (u < rest)
            goertzel (x[u]);
      }
    else
      walk_mapped (pw + f0 + done, to - f0 - done);
  };

  /* Shared memory: slot s of chunk u, term m, this lane. */
  auto slot = [&] (int s, int u, int m) -> double2 & {
    return cos_smem[((s * NCH + u) * NT + m) * LANES + lane
                    + (PADR && s > 0 ? ni + LEAD - NCH * SLOT : 0)];
  };
  /* Slot s gets the sum of the first cnt samples, in absolute phase. */
  auto keep = [&] (int s, int cnt, long long q) {
    double2 z[NT];

    if (HOIST && q == (long long) pw + N - 1)
#pragma unroll
      for (int m = 0; m < NT; m++)
        z[m] = zn[m];
    else
      lines_phases<NT, AXIS> (q, z);
#pragma unroll
    for (int m = 0; m < NT; m++)
      {
        /* conj (s1 - e^{-iw} s2) = sum_q x_q e^{-iw (cnt-1-q)} */
        double hre = fma (-k.cos_w[m], st2 (m), st1 (m));
        double him = -k.sin_w[m] * st2 (m);

        slot (s, t, m) = make_double2 (hre * z[m].x - him * z[m].y,
                                       hre * z[m].y + him * z[m].x);
      }
  };
  /* Slot s of chunk u gets this chunk's Goertzel state as it is (FLAT,
   * PERIODIC: u = t; MIRROR: the chunk whose window end lies here). */
  auto keep_raw_at = [&] (int s, int u) {
#pragma unroll
    for (int m = 0; m < NT; m++)
      slot (s, u, m) = make_double2 (st1 (m), st2 (m));
  };
  auto keep_raw = [&] (int s) { keep_raw_at (s, t); };

  /* MIRROR: the mirrored line has the period P = 2n - 2 and is made of
   * segments, s = 2K the image forwards (positions [KP, KP + n - 1]),
   * s = 2K + 1 backwards ([KP + n - 1, (K+1) P]); consecutive segments
   * share their ends.  The window ends of the chunks' first outputs,
   * q = Q0 + tS (Q0 = o0 - r low, o0 + r + 1 high), span less than n - 1,
   * so they lie in the segment s0 that holds Q0 (half-open) or the next:
   * each end takes two families (K, direction), and within a family the
   * image point pt that the end needs moves by +-S per chunk, i.e. it
   * lies at one offset within its chunk (see the window sums below). */
  const int P2 = 2 * n - 2;
  auto      mir_q0 = [&] (int e) -> int { return e ? o0 + r + 1 : o0 - r; };
  auto      mir_seg0 = [&] (int q) -> int {
    const int K = q >= 0 ? q / P2 : -((P2 - 1 - q) / P2);

    return 2 * K + (q - K * P2 >= n - 1);
  };
  auto mir_end
    = [&] (int s) -> int { return (s >> 1) * P2 + (s & 1 ? P2 : n - 1); };

  /* FLAT, PERIODIC: slots 0 and 1 the states at offsets bl <= bh, slot 2
   * the total; else slot 0 the total A, slot 1 the first b samples B. */
  const int K0 = PER ? (2 * r + 1) / per : 0;
  const int b1 = FLAT  ? ((o0 - r - qa) % S + S) % S
                 : PER ? (2 * r + 1 - K0 * per) % S
                       : 0;
  const int b2 = FLAT  ? ((o0 + r + 1 - qa) % S + S) % S
                 : PER ? ((2 * r + 1 - (K0 + 1) * per) % S + S) % S
                       : 0;
  const int bl = min (b1, b2), bh = max (b1, b2);
  const int a = (2 * r + 1) / S, b = (2 * r + 1) % S;

  if (SOLO)
    walk (0, N);
  else if (MIR)
    {
      /* Family f (end f >> 1, segment s0 + (f & 1)): its offset b within
       * the chunks and the output chunk tgt whose window end this chunk
       * holds (-1: none); keys b * 4 + f, sorted, cut the walk. */
      const int T = min (NCH, (len + S - 1) / S);
      int       key[4], tgt[4];

#pragma unroll
      for (int f = 0; f < 4; f++)
        {
          const int  q0 = mir_q0 (f >> 1), s0 = mir_seg0 (q0);
          const int  s = s0 + (f & 1), K = s >> 1;
          const bool back = s & 1;
          const int  x = back ? (K + 1) * P2 + 1 - q0 : q0 - K * P2;
          const int  bf = (x % S + S) % S, cx = (x - bf) / S;
          const int  tp = back ? cx - t : t - cx;
          const bool ok
            = tp >= 0 && tp < T && (q0 + tp * S <= mir_end (s0)) == (s == s0);

          key[f] = min (bf, N) * 4 + f;
          tgt[f] = ok ? tp : -1;
        }
      auto order = [&] (int i, int j) {
        const int lo = min (key[i], key[j]), hi = max (key[i], key[j]);

        key[i] = lo;
        key[j] = hi;
      };
      order (0, 1);
      order (2, 3);
      order (0, 2);
      order (1, 3);
      order (1, 2);

      int from = 0;

#pragma unroll 1
      for (int i = 0; i < 5; i++)
        {
          const int kk = i == 0   ? key[0]
                         : i == 1 ? key[1]
                         : i == 2 ? key[2]
                                  : key[3];
          const int to = i < 4 ? kk >> 2 : N;

          walk (from, to);
          from = to;
          if (i < 4)
            {
              const int f = kk & 3;
              const int tp = f == 0   ? tgt[0]
                             : f == 1 ? tgt[1]
                             : f == 2 ? tgt[2]
                                      : tgt[3];

              if (tp >= 0)
                keep_raw_at (f >> 1, tp);
            }
        }
      keep (2, N, (long long) pw + N - 1);
    }
  else if (FLAT || PER)
    {
#if COS_WALK1
      /* The segments [0, bl), [bl, bh), [bh, N), each but the last kept
       * raw, through one call site of walk (its code is large). */
      int from = 0;

#pragma unroll 1
      for (int i = 0; i < 3; i++)
        {
          const int to = i == 0 ? min (bl, N) : i == 1 ? min (bh, N) : N;

          walk (from, to);
          from = to;
          if (i < 2)
            keep_raw (i);
        }
#else
      walk (0, min (bl, N));
      keep_raw (0);
      walk (min (bl, N), min (bh, N));
      keep_raw (1);
      walk (min (bh, N), N);
#endif
      keep (2, N, (long long) pw + N - 1);
    }
  else
    {
      const int nb = min (b, N);

      walk (0, nb);
      keep (1, nb, (long long) pw + nb - 1);
      walk (nb, N);
      keep (0, N, (long long) pw + N - 1);
    }
  /* (SOLO: no shared memory, no barrier; every warp goes alone.) */
  if (! SOLO)
    __syncthreads ();

  /* The chunk totals become their running sums over the chunks
   * (inclusive), so that the sum over any run of chunks is one
   * difference: one thread per (lane, term). */
  constexpr int TS = MODE == COS_PADDED ? 0 : 2; /* the totals' slot */

  for (int q = t * LANES + lane; ! SOLO && q < LANES * NT; q += LANES * NCH)
    {
      double2  acc = make_double2 (0.0, 0.0);
      double2 *v = cos_smem + (TS * NCH * NT + q / LANES) * LANES + q % LANES
                   + (PADR ? ni + LEAD - NCH * SLOT : 0);

      /* 8 loads in flight, then their running sums in order. */
      for (int u0 = 0; u0 < NCH; u0 += 8)
        {
          double2 x[8];

#pragma unroll
          for (int i = 0; i < 8; i++)
            if (u0 + i < NCH)
              x[i] = v[(u0 + i) * NT * LANES];
#pragma unroll
          for (int i = 0; i < 8; i++)
            if (u0 + i < NCH)
              {
                acc.x += x[i].x;
                acc.y += x[i].y;
                v[(u0 + i) * NT * LANES] = acc;
              }
        }
      if (MIR)
        {
          /* The line's constant for term m (acc = I(n), the image's sum;
           * q % LANES is this thread's lane): R = I(n) + z_P conj (I(n-1)),
           * z_P = e^{iwP}. */
          const int     m = q / LANES;
          const double  xn = ld (base + (ptrdiff_t) (n - 1) * step);
          const double2 zn
            = m ? lines_table_one<AXIS> (m, n - 1) : make_double2 (1.0, 0.0);
          const double2 zp
            = m ? lines_table_one<AXIS> (m, P2) : make_double2 (1.0, 0.0);
          const double  cre = acc.x - xn * zn.x, cim = xn * zn.y - acc.y;
          const double2 rr = make_double2 (acc.x + zp.x * cre - zp.y * cim,
                                           acc.y + zp.x * cim + zp.y * cre);

          slot (3, 0, m) = rr;
        }
    }
  if (! SOLO)
    __syncthreads ();

  if (idle && ! pad)
    return;

  /* The window sum of output o = o0 + jw, wsum = e^{i w o} T[o]
   * (SOLO: T[o] itself, zo = 1). */
  const int o = o0 + jw, pl = o - r, ph = o + r + 1;
  double2   wsum[NT];
  double2   z[NT];
  double2   zo[NT]; /* e^{i w o} */

  if (SOLO)
#pragma unroll
    for (int m = 0; m < NT; m++)
      zo[m] = make_double2 (1.0, 0.0);
  else if (HOIST)
#pragma unroll
    for (int m = 0; m < NT; m++)
      zo[m] = zh[m];
  else
    lines_phases<NT, AXIS> (o, zo);

#pragma unroll
  for (int m = 0; m < NT; m++)
    wsum[m] = make_double2 (0.0, 0.0);
  /* wsum += sign * (the totals of chunks [u0, u1)) */
  auto totals = [&] (int u0, int u1, double sign) {
    if (u0 >= u1)
      return;
#pragma unroll
    for (int m = 0; m < NT; m++)
      {
        const double2 v = slot (TS, u1 - 1, m);
        const double2 w
          = u0 > 0 ? slot (TS, u0 - 1, m) : make_double2 (0.0, 0.0);

        wsum[m].x += sign * (v.x - w.x);
        wsum[m].y += sign * (v.y - w.y);
      }
  };

  /* wsum += sign * (the first f samples of chunk u), absolute phase */
  auto part = [&] (int u, int f, double sign) {
    const int nu = min (S, nw - u * S);

    if (f == 0)
      return;
    if (f == nu)
      {
        totals (u, u + 1, sign);
        return;
      }
    const long long q = (long long) pbase + (long long) u * S + f - 1;

    /* FLAT: a window end inside the image, q = o + r (the high end,
     * sign 1) or o - r - 1 (the low end): z = e^{iwo} e^{iw (q - o)}. */
    if (COS_REL && FLAT && q == (sign > 0 ? o + r : o - r - 1))
#pragma unroll
      for (int m = 0; m < NT; m++)
        {
          const double ere = sign > 0 ? k.cos_r[m] : k.cos_r1[m];
          const double eim = sign > 0 ? k.sin_r[m] : -k.sin_r1[m];

          z[m] = make_double2 (zo[m].x * ere - zo[m].y * eim,
                               fma (zo[m].x, eim, zo[m].y * ere));
        }
    else
      lines_phases<NT, AXIS> (q, z);
#pragma unroll
    for (int m = 0; m < NT; m++)
      {
        const double2 v = slot (f == bl ? 0 : 1, u, m);
        const double  hre = fma (-k.cos_w[m], v.y, v.x);
        const double  him = -k.sin_w[m] * v.y;

        wsum[m].x += sign * (hre * z[m].x - him * z[m].y);
        wsum[m].y += sign * (hre * z[m].y + him * z[m].x);
      }
  };
  /* v = z^K v + Y sum_{k < K} z^k (any K), z = e^{iwP}, P = per, Y the
   * period's sum (term m: ym (m)).  Each term's h = e^{iwP/2} and hK =
   * e^{iwKP/2} by its own sincos (at most twice a chunk, in the mirror and
   * wrap modes): z^K = hK^2, and sum_{k < K} z^k = hK conj (h) Im (hK) /
   * Im (h). */
  auto periods = [&] (int K, double2 *v, auto ym) {
#pragma unroll
    for (int m = 0; m < NT; m++)
      {
        double2 h = make_double2 (1.0, 0.0), hk = h;

        if (m > 0)
          {
            sincos (k.omega[m] * (0.5 * per), &h.y, &h.x);
            sincos (k.omega[m] * (0.5 * per * (double) K), &hk.y, &hk.x);
          }

        const double2 w = v[m];
        const double2 yp = ym (m);
        /* z = 1 (w = 0, or w P a multiple of 2 pi): the sum is K */
        const bool   one = h.y == 0.0;
        const double q = one ? 0.0 : hk.y / h.y;
        const double gre = one ? K : q * (hk.x * h.x + hk.y * h.y);
        const double gim = q * (hk.y * h.x - hk.x * h.y);
        const double zre = hk.x * hk.x - hk.y * hk.y;
        const double zim = 2.0 * hk.x * hk.y;

        v[m].x = w.x * zre - w.y * zim + gre * yp.x - gim * yp.y;
        v[m].y = w.x * zim + w.y * zre + gre * yp.y + gim * yp.x;
      }
  };
  /* Clamp's padding: the edge value xe times sum_{pa <= p < pb} e^{iwp}
   * (SOLO: p relative to o, as its window sums are), z the scratch. */
  auto clamp_pad = [&] (int pa, int pb, float xe) {
    double2 za[NT];

    lines_phases<NT, AXIS> (pa, za);
    lines_phases<NT, AXIS> (pb, z);
    wsum[0].x += (double) xe * (pb - pa);
#pragma unroll
    for (int m = 1; m < NT; m++)
      {
        const double dre = z[m].x - za[m].x, dim = z[m].y - za[m].y;

        wsum[m].x += xe * (dre * k.inv_re[m] - dim * k.inv_im[m]);
        wsum[m].y += xe * (dre * k.inv_im[m] + dim * k.inv_re[m]);
      }
  };
  if (SOLO)
    {
      /* The walk summed x_q for q in [pw, pw + N): conj (s1 - e^{-iw}
       * s2) = sum_q x_q e^{-iw (pw + N - 1 - q)}, so T[o] gets it times
       * e^{iw (pw + N - 1 - o)}: e^{iwr} where the window's high end lies
       * in the image, else from its offset (less than r). */
      if (pw + N - 1 == o + r)
#pragma unroll
        for (int m = 0; m < NT; m++)
          z[m] = make_double2 (k.cos_r[m], k.sin_r[m]);
      else
        lines_phases<NT, AXIS> (pw + N - 1 - o, z);
#pragma unroll
      for (int m = 0; m < NT; m++)
        {
          const double hre = fma (-k.cos_w[m], st2 (m), st1 (m));
          const double him = -k.sin_w[m] * st2 (m);

          wsum[m] = make_double2 (hre * z[m].x - him * z[m].y,
                                  hre * z[m].y + him * z[m].x);
        }
      if (g.border == GPUFX_BORDER_CLAMP)
        {
          if (pl < 0)
            clamp_pad (-r, -o, ld (base));
          if (ph > n)
            clamp_pad (n - o, r + 1, ld (base + (ptrdiff_t) (n - 1) * step));
        }
    }
  else if (MIR)
    {
      /* W = G(o + r + 1) - G(o - r), G(q) the sum over the mirrored
       * line's positions [0, q) in absolute phase (q < 0: minus the sum
       * over [q, 0)).  For q in segment s = 2K (+1): G(q) = z^K g + Y
       * sum_{k < K} z^k, g = I(pt) forwards (pt = q - KP), R - z_P conj
       * (I(pt)) backwards (pt = (K+1) P + 1 - q), I(pt) the sum over the
       * image before pt: the running totals before pt's chunk and the
       * state that chunk kept for this output chunk (offset pt mod S). */
      const double x0 = ld (base);
      double2      g[NT], zp[NT]; /* zp: e^{iwP} */

#pragma unroll 1
      for (int e = 0; e < 2; e++)
        {
          const int  q = e ? ph : pl, s0 = mir_seg0 (mir_q0 (e));
          const int  s = q <= mir_end (s0) ? s0 : s0 + 1, K = s >> 1;
          const bool back = s & 1;
          const int  pt = back ? (K + 1) * P2 + 1 - q : q - K * P2;
          const int  cu = pt / S, f = pt - cu * S;

#pragma unroll
          for (int m = 0; m < NT; m++)
            g[m] = cu > 0 ? slot (TS, cu - 1, m) : make_double2 (0.0, 0.0);
          if (f > 0)
            {
              /* e^{iw (pt - 1)}; forwards in the first period from the
               * plan's constants: pt - 1 = o + r (high), o - r - 1 (low). */
              if (COS_REL && K == 0 && ! back)
#pragma unroll
                for (int m = 0; m < NT; m++)
                  {
                    const double ere = e ? k.cos_r[m] : k.cos_r1[m];
                    const double eim = e ? k.sin_r[m] : -k.sin_r1[m];

                    z[m] = make_double2 (zo[m].x * ere - zo[m].y * eim,
                                         fma (zo[m].x, eim, zo[m].y * ere));
                  }
              else
                lines_phases<NT, AXIS> (pt - 1, z);
#pragma unroll
              for (int m = 0; m < NT; m++)
                {
                  const double2 v = slot (e, t, m);
                  const double  hre = fma (-k.cos_w[m], v.y, v.x);
                  const double  him = -k.sin_w[m] * v.y;

                  g[m].x += hre * z[m].x - him * z[m].y;
                  g[m].y += hre * z[m].y + him * z[m].x;
                }
            }
          if (back || K != 0)
            lines_phases<NT, AXIS> (P2, zp);
          if (back)
#pragma unroll
            for (int m = 0; m < NT; m++)
              {
                const double2 rr = slot (3, 0, m), v = g[m];

                g[m].x = rr.x - (zp[m].x * v.x + zp[m].y * v.y);
                g[m].y = rr.y - (zp[m].y * v.x - zp[m].x * v.y);
              }
          /* The period's sum Y = G(P) = R - z_P x_0. */
          if (K != 0)
            periods (K, g, [&] (int m) {
              const double2 rr = slot (3, 0, m);

              return make_double2 (rr.x - zp[m].x * x0, rr.y - zp[m].y * x0);
            });

          const double sign = e ? 1.0 : -1.0;

#pragma unroll
          for (int m = 0; m < NT; m++)
            {
              wsum[m].x += sign * g[m].x;
              wsum[m].y += sign * g[m].y;
            }
        }
    }
  else if (FLAT)
    {
      const int lo = min (max (pl, 0), n), hi = min (max (ph, 0), n);

      if (lo < hi)
        {
          const int cl = (lo - qa) / S, fl = (lo - qa) % S;
          const int ch = (hi - qa) / S, fh = (hi - qa) % S;

          totals (cl, ch, 1.0);
          part (ch, fh, 1.0);
          part (cl, fl, -1.0);
        }
      if (g.border == GPUFX_BORDER_CLAMP)
        {
          if (pl < 0)
            clamp_pad (pl, min (ph, 0), ld (base));
          if (ph > n)
            clamp_pad (max (pl, n), ph, ld (base + (ptrdiff_t) (n - 1) * step));
        }
    }
  else if (PER)
    {
      /* Y(J) for J = tS + 2r + 1 = K P + f, less Y(tS). */
      const int J = j0 + 2 * r + 1, K = J / per, f = J - K * per;

      totals (0, f / S, 1.0);
      part (f / S, f % S, 1.0);
      if (K > 0)
        periods (K, wsum, [&] (int m) { return slot (2, NCH - 1, m); });
      totals (0, t, -1.0);
    }
  else
    {
#pragma unroll
      for (int m = 0; m < NT; m++)
        wsum[m] = slot (1, t + a, m);
      totals (t, t + a, 1.0);
    }

  /* x at o - r and o + r + 1 (the latter only where output o + 1 is
   * wanted: the plane need not hold it). */
  const float xa = at (pl), xb = j0 + 1 < len ? at (ph) : 0.0f;
  /* D[j], D[j+1]: terms m < ND in double, the others in float (Fa, Fb). */
  constexpr int NF = lines_float_terms<NT> (), ND = NT - NF;
  double        Da[ND], Db[ND];
  float         Fa[NF ? NF : 1], Fb[NF ? NF : 1];

  {
    /* The window sums are in absolute phase (image positions). */
#pragma unroll
    for (int m = 0; m < NT; m++)
      {
        /* T[o] = e^{-i w o} wsum */
        const double tre = wsum[m].x * zo[m].x + wsum[m].y * zo[m].y;
        const double tim = wsum[m].y * zo[m].x - wsum[m].x * zo[m].y;
        /* T[o+1] = e^{-iw} (T[o] - e^{-iwr} x_a + e^{iw(r+1)} x_b) */
        const double xre = tre - k.cos_r[m] * xa + k.cos_r1[m] * xb;
        const double xim = tim + k.sin_r[m] * xa + k.sin_r1[m] * xb;

        const double da = k.coeff[m] * tre;
        const double db = k.coeff[m] * (k.cos_w[m] * xre + k.sin_w[m] * xim);

        if (m < ND)
          {
            Da[m] = da;
            Db[m] = db;
          }
        else
          {
            Fa[m - ND] = (float) da;
            Fb[m - ND] = (float) db;
          }
      }
  }

  const int o_end = min (j0 + S, len);
  float    *op;
  ptrdiff_t ostep;

  if (axis == 0)
    {
      op = out.p + (ptrdiff_t) lidx * out.pitch + (ptrdiff_t) j0 * C + c;
      ostep = C;
    }
  else
    {
      op = out.p + (ptrdiff_t) j0 * out.pitch + (ptrdiff_t) lidx * C + c;
      ostep = out.pitch;
    }

  /* Output j writes y = sum_m D_m[j] and makes D[j+2] from x at o0 + j
   * + 1 - r (low) and o0 + j + r + 2 (high), needed up to j = o_end - 3.
   * How each stream reads them (LinesInt): COS_GEN at (FLAT) or the
   * border map, COS_LOAD plain loads (all inside the image), COS_CONST
   * one value (all outside the image under clamp or zero: the edge
   * value or 0).  The outputs [jb, je) of the chunk; the state (D, the
   * last samples, the output pointer) carries over to the next run. */
  double dl = xa, dh = xb;   /* x at o0 + j - r and o0 + j + r + 1 */
  float  dlf = xa, dhf = xb; /* the same, for the float terms */
  /* Clamp and zero where a warp is one chunk (columns): in runs. */
  constexpr bool SEG = COS_SEG && FLAT && LANES == 32;
  /* DEEP: the warp's ring (lines_ring_floats). */
  constexpr int PF = DEEP && COS_DEEP_RING ? COS_DEEP_PF : 0, NS = PF + 2;
  float *const  ring
    = DEEP ? (float *) cos_smem + (ptrdiff_t) t * lines_ring_floats () : 0;

  auto outputs = [&] (auto fl, auto fh, int jb, int je, float cl, float ch) {
    constexpr int FL = decltype (fl)::value, FH = decltype (fh)::value;
    const float  *ql = base + (ptrdiff_t) (pl + 1) * step;
    const float  *qh = base + (ptrdiff_t) (ph + 1) * step;
    /* Mirror and wrap: the streams' next indices, stepped (FLAT: at). */
    int il = 0, ih = 0, sl = 0, sh = 0;

    if (! FLAT && FL == COS_GEN)
      il = map_start (pl + 1 + jb - j0, &sl);
    if (! FLAT && FH == COS_GEN)
      ih = map_start (ph + 1 + jb - j0, &sh);

    /* DEEP: group g (outputs jb + g V ..) reads slot g % NS of the warp's
     * ring, copied there PF groups earlier where the group is whole, so
     * that with few warps per SM PF groups of loads are in flight without
     * holding registers. */
    constexpr bool RING = PF > 0 && (FL == COS_LOAD || FH == COS_LOAD);
    auto           slot = [&] (int g, int u, int e) {
      return ring + ((g % NS * V + u) * 2 + e) * LANES + lane;
    };
    /* Copies group g where all its loads are wanted (see fetch), then
     * waits for group g - PF. */
    auto copy = [&] (int g) {
      const int jf = jb + g * V;

      if (jf + V <= je && jf + V + 1 < o_end)
#pragma unroll
        for (int u = 0; u < V; u++)
          {
            const ptrdiff_t d = (ptrdiff_t) (jf - j0 + u) * step;

            if (FL == COS_LOAD)
              lines_copy (slot (g, u, 0), ql + d);
            if (FH == COS_LOAD)
              lines_copy (slot (g, u, 1), qh + d);
          }
      lines_copy_commit_wait<PF> ();
    };

    if (RING)
      for (int g = 0; g < PF; g++)
        copy (g);

    /* A stream's sample at position p: FLAT by at, else at the stream's
     * index *i, which then steps on. */
    auto next_at = [&] (int p, int *i, int *d) -> float {
      if (FLAT)
        return at (p);

      const float v = ld (base + (ptrdiff_t) *i * step);

      *i = map_next (*i, d);
      return v;
    };

    auto fetch = [&] (int jf, float *xl, float *xh) {
      if (MIR)
        {
          /* Each stream steps its index i in direction d (every index
           * lies in the image: no guards): V plain loads where they stay
           * on one side of a fold, else V steps of the border map. */
          auto grab = [&] (int *i, int *d, float *x, bool lo) {
            auto get = [&] (const float *q) { return lo ? ld1 (q) : ld (q); };

            if (*d > 0 ? *i + V <= n - 1 : *i >= V)
              {
                const float *q = base + (ptrdiff_t) *i * step;
                const int    sd = *d * (int) step;

#pragma unroll
                for (int u = 0; u < V; u++)
                  x[u] = get (q + u * sd);
                *i += V * *d;
                if ((unsigned) (*i - 1) >= (unsigned) (n - 2))
                  *d = -*d;
              }
            else
#pragma unroll
              for (int u = 0; u < V; u++)
                {
                  x[u] = get (base + (ptrdiff_t) *i * step);
                  *i += *d;
                  if ((unsigned) (*i - 1) >= (unsigned) (n - 2))
                    *d = -*d;
                }
          };

          grab (&il, &sl, xl, true);
          grab (&ih, &sh, xh, false);
          return;
        }
      const int g = RING ? (jf - jb) / V : 0;

      if (RING)
        copy (g + PF);
      /* All of the group's loads wanted: no guards, 32-bit offsets from
       * the group's first (u * step is far below 2^31). */
      if ((! SEG || jf + V <= je) && jf + V + 1 < o_end)
        {
          const float *gl = ql + (ptrdiff_t) (jf - j0) * step;
          const float *gh = qh + (ptrdiff_t) (jf - j0) * step;
          const int    istep = (int) step;

#pragma unroll
          for (int u = 0; u < V; u++)
            {
              xl[u] = FL == COS_CONST ? cl
                      : FL == COS_LOAD
                        ? (RING ? *slot (g, u, 0) : ld1 (gl + u * istep))
                        : next_at (pl + 1 + jf + u - j0, &il, &sl);
              xh[u] = FH == COS_CONST ? ch
                      : FH == COS_LOAD
                        ? (RING ? *slot (g, u, 1) : ld (gh + u * istep))
                        : next_at (ph + 1 + jf + u - j0, &ih, &sh);
            }
          return;
        }
#pragma unroll
      for (int u = 0; u < V; u++)
        {
          const int j = jf + u;

          if (FL == COS_CONST && FH == COS_CONST)
            {
              /* (Unused past je: no guard.) */
              xl[u] = cl;
              xh[u] = ch;
            }
          else if ((! SEG || j < je) && j + 2 < o_end)
            {
              xl[u] = FL == COS_CONST  ? cl
                      : FL == COS_LOAD ? ld1 (ql + (ptrdiff_t) (j - j0) * step)
                                       : next_at (pl + 1 + j - j0, &il, &sl);
              xh[u] = FH == COS_CONST  ? ch
                      : FH == COS_LOAD ? ld (qh + (ptrdiff_t) (j - j0) * step)
                                       : next_at (ph + 1 + j - j0, &ih, &sh);
            }
          else
            xl[u] = xh[u] = 0.0f;
        }
    };
    /* One output from Dx = D[j], Dy = D[j+1]; Dx becomes D[j+2]. */
    auto step1 = [&] (double *Dx, const double *Dy, float *Fx, const float *Fy,
                      float xlu, float xhu) {
      double sum[ND];
      float  y, f = NF ? Fx[0] : 0.0f;

#pragma unroll
      for (int m = 0; m < ND; m++)
        sum[m] = Dx[m];
#pragma unroll
      for (int w = 1; w < ND; w *= 2)
#pragma unroll
        for (int m = 0; m + w < ND; m += 2 * w)
          sum[m] += sum[m + w];
#pragma unroll
      for (int m = 1; m < NF; m++)
        f += Fx[m];
      y = NF ? (float) sum[0] + f : (float) sum[0];

      if (HINT)
        __stcs (op, y);
      else
        *op = y;
      op += ostep;

      const double l1 = xlu, h1 = xhu;
      const double sa = h1 + dl, sb = dh + l1;

      /* Term 0 (w = 0): D[j+2] = D[j+1] + coeff (x_h - x_l). */
      if (COS_DC)
        Dx[0] = fma (k.coeff[0], h1 - l1, Dy[0]);
#pragma unroll
      for (int m = COS_DC; m < ND; m++)
        Dx[m] = fma (k.two_cos[m], Dy[m],
                     fma (k.alpha[m], sa, fma (-k.beta[m], sb, -Dx[m])));
      if (NF)
        {
          const float saf = xhu + dlf, sbf = dhf + xlu;

#pragma unroll
          for (int m = 0; m < NF; m++)
            Fx[m] = fmaf (k.two_cos_f[ND + m], Fy[m],
                          fmaf (k.alpha_f[ND + m], saf,
                                fmaf (-k.beta_f[ND + m], sbf, -Fx[m])));
        }
      dl = l1;
      dh = h1;
      dlf = xlu;
      dhf = xhu;
    };
    float xl[V], xh[V];
    int   j = jb;

    fetch (jb, xl, xh);
    /* Whole groups: the roles of Da and Db alternate, no moves. */
    for (; j + V <= je; j += V)
      {
        float nl[V], nh[V];

        /* The next group's loads are in flight during this one. */
        fetch (j + V, nl, nh);
#pragma unroll
        for (int u = 0; u < V; u += 2)
          {
            step1 (Da, Db, Fa, Fb, xl[u], xh[u]);
            step1 (Db, Da, Fb, Fa, xl[u + 1], xh[u + 1]);
          }
#pragma unroll
        for (int u = 0; u < V; u++)
          {
            xl[u] = nl[u];
            xh[u] = nh[u];
          }
      }
#pragma unroll
    for (int u = 0; u < V - 1; u++)
      if (j + u < je)
        {
          if (u % 2 == 0)
            step1 (Da, Db, Fa, Fb, xl[u], xh[u]);
          else
            step1 (Db, Da, Fb, Fa, xl[u], xh[u]);
        }
    /* An odd count leaves D[j] in Db: swap, so that the next run starts
     * from Da. */
    if (SEG && (je - jb) % 2 != 0)
      {
        lines_swap<ND> (Da, Db);
        lines_swap<NF> (Fa, Fb);
      }
  };
  using Gen = LinesInt<COS_GEN>;
  using Load = LinesInt<COS_LOAD>;
  using Const = LinesInt<COS_CONST>;
  /* The values of the streams that read only outside the image (lo_out,
   * hi_out) from output jb on: under clamp the line's first and last
   * samples, read only where outputs from jb need samples (the plane holds
   * the edge then); under zero, or where unused, 0. */
  auto edges = [&] (bool lo_out, bool hi_out, int jb, float &cl, float &ch) {
    const bool need = g.border == GPUFX_BORDER_CLAMP && jb + 2 < o_end;

    cl = lo_out && need ? ld (base) : 0.0f;
    ch = hi_out && need ? ld (base + (ptrdiff_t) (n - 1) * step) : 0.0f;
  };

  if (MIR)
    {
      /* Both streams by the stepped map, one variant. */
      outputs (Gen (), Gen (), j0, o_end, 0.0f, 0.0f);
      return;
    }
  if (SEG)
    {
      /* Columns, clamp and zero (a warp is one chunk): the low stream
       * lies outside the image (below 0) for j < ja, the high one for j
       * >= jh (at n and above), so the chunk's outputs split into at
       * most three runs, each taking plain loads or one value per
       * stream. */
      const int ja = r - 1 - o0, jh = n - r - 2 - o0;
      const int s1 = min (max (min (ja, jh), j0), o_end);
      const int s2 = min (max (max (ja, jh), j0), o_end);

#pragma unroll 1
      for (int i = 0; i < 3; i++)
        {
          const int jb = i == 0 ? j0 : i == 1 ? s1 : s2;
          const int je = i == 0 ? s1 : i == 1 ? s2 : o_end;

          if (jb >= je)
            continue;

          const bool lo_in = jb >= ja, hi_in = jb < jh;
          float      cl, ch;

          edges (! lo_in, ! hi_in, jb, cl, ch);

          if (lo_in && hi_in)
            outputs (Load (), Load (), jb, je, cl, ch);
          else if (lo_in)
            outputs (Load (), Const (), jb, je, cl, ch);
          else if (hi_in)
            outputs (Const (), Load (), jb, je, cl, ch);
          else
            outputs (Const (), Const (), jb, je, cl, ch);
        }
      return;
    }

  if (pad)
    {
      /* Every window sum has read the slots: slot 0 takes the padding
       * below the row (positions -r .. -1), slots 1 and 2 the padding
       * above it (n .. n + r - 1), where the plane holds that end of the
       * image (else no window reaches past the plane); clamp the edge
       * pixel, zero 0. */
      float4 *const rv = (float4 *) row;
      const bool    clamp = g.border == GPUFX_BORDER_CLAMP;
      const float4  z4 = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);

      __syncthreads ();

      const float4 lo4 = clamp && qa == 0 ? rv[0] : z4;
      const float4 hi4 = clamp && qa + ni == n ? rv[ni - 1] : z4;

      for (int i = t * LANES + lane; i < r; i += LANES * NCH)
        {
          if (qa == 0)
            rv[-1 - i] = lo4;
          if (qa + ni == n)
            rv[ni + i] = hi4;
        }
      __syncthreads ();
    }

  /* One variant per warp (the border map is right everywhere): chunks
   * of one warp taking different variants would run them one after the
   * other.  (pad: both streams read the padded row.) */
  const unsigned warp = __activemask ();
  const bool     fast_lo
    = pad || __all_sync (warp, pl + 1 >= 0 && p0 + o_end - 2 < n);
  const bool fast_hi
    = pad || __all_sync (warp, ph + 1 >= 0 && p0 + o_end + 2 * r - 1 < n);

  /* Both streams outside the image for every output that needs them
   * (rows under clamp or zero with r >= the line, e.g. 4K at sigma >=
   * 1000): one value each. */
  const bool const_both
    = FLAT && COS_CC
      && __all_sync (warp, o0 + o_end - 2 - r < 0 && o0 + j0 + r + 2 >= n);

  if (fast_lo && fast_hi)
    outputs (Load (), Load (), j0, o_end, 0.0f, 0.0f);
  else if (const_both)
    {
      float cl, ch;

      edges (true, true, j0, cl, ch);

      outputs (Const (), Const (), j0, o_end, cl, ch);
    }
  else if (fast_lo)
    outputs (Load (), Gen (), j0, o_end, 0.0f, 0.0f);
  else if (fast_hi)
    outputs (Gen (), Load (), j0, o_end, 0.0f, 0.0f);
  else
    outputs (Gen (), Gen (), j0, o_end, 0.0f, 0.0f);
}

/* Per axis, as lines_cos: the kernels' term count for the uploaded plan
 * (6, the last term in float where it is light enough, else 8 all in
 * double; set by the upload, read by the launch), and the frequencies the
 * phase table holds. */
static int    lines_cos_nt[2];
static int    lines_table_terms[2];
static double lines_table_omega[2][COS_TAB_TERMS];

/* Can the NT-term kernels take the plan, their last terms in float? */
template <int NT>
static bool
lines_float_terms_fit (const GpufxGaussianPlan *plan)
{
  const int nf = lines_float_terms<NT> ();
  double    weight = 0;

  /* A testing aid: GPUFX_CUDA_COS_F64 set runs every term in double. */
  if (plan->n_terms > NT || getenv ("GPUFX_CUDA_COS_F64"))
    return false;
  for (int m = NT - nf; m < plan->n_terms; m++)
    weight += fabs (plan->coeff[m]) * (2.0 * plan->radius + 1);
  return weight <= COS_F32_WEIGHT;
}

/* The phase table of the axis, made where it holds other frequencies (a
 * few microseconds on the GPU; the jobs' streams do not wait for the
 * legacy stream, so the host does). */
static cudaError_t
lines_table_upload (int axis, const LinesCosines &k)
{
  const int   a = axis != 0;
  cudaError_t err;

  if (k.n_terms > COS_TAB_TERMS)
    return cudaErrorInvalidValue;
  if (lines_table_terms[a] == k.n_terms
      && ! memcmp (lines_table_omega[a], k.omega, sizeof (double) * k.n_terms))
    return cudaSuccess;
  lines_table_terms[a] = 0;
  lines_table_kernel<<<COS_TAB_TERMS * 2 * COS_TAB_N / 256, 256>>> (
    a, k.n_terms, k);
  if ((err = cudaGetLastError ()) != cudaSuccess
      || (err = cudaStreamSynchronize (0)) != cudaSuccess)
    return err;
  lines_table_terms[a] = k.n_terms;
  memcpy (lines_table_omega[a], k.omega, sizeof (double) * k.n_terms);
  return cudaSuccess;
}

cudaError_t
gpufx_cuda_line_cosines_upload (int axis, const GpufxGaussianPlan *plan)
{
  LinesCosines k;
  cudaError_t  err;

  /* The kernels take free frequencies (term 0 the plain sum, w = 0) with
   * at most 8 terms; any other plan runs on the CPU. */
  if (plan->period != 0 || plan->n_terms < 1 || plan->n_terms > 8
      || plan->omega[0] != 0.0)
    return cudaErrorNotSupported;
  memset (&k, 0, sizeof k);
  k.n_terms = plan->n_terms;
  k.radius = plan->radius;
  for (int m = 0; m < plan->n_terms; m++)
    {
      double w = plan->omega[m];

      k.omega[m] = w;
      k.coeff[m] = plan->coeff[m];
      k.two_cos[m] = 2.0 * cos (w);
      k.cos_w[m] = cos (w);
      k.sin_w[m] = sin (w);
      k.cos_r[m] = cos (w * plan->radius);
      k.sin_r[m] = sin (w * plan->radius);
      k.cos_r1[m] = cos (w * (plan->radius + 1));
      k.sin_r1[m] = sin (w * (plan->radius + 1));
      k.alpha[m] = k.coeff[m] * k.cos_r[m];
      k.beta[m] = k.coeff[m] * k.cos_r1[m];
      k.two_cos_f[m] = (float) k.two_cos[m];
      k.alpha_f[m] = (float) k.alpha[m];
      k.beta_f[m] = (float) k.beta[m];
      if (m > 0)
        {
          /* 1 / (e^{iw} - 1) = conj (d) / |d|^2 */
          double dre = cos (w) - 1.0, dim = sin (w);
          double d2 = dre * dre + dim * dim;

          k.inv_re[m] = dre / d2;
          k.inv_im[m] = -dim / d2;
        }
    }
  lines_cos_nt[axis != 0] = lines_float_terms_fit<6> (plan) ? 6 : 8;
  if ((err = lines_table_upload (axis, k)) != cudaSuccess)
    return err;
  return cudaMemcpyToSymbol (lines_cos, &k, sizeof k, sizeof k * axis,
                             cudaMemcpyHostToDevice);
}

/* Rows of 4 channels, 16-byte aligned, that leave room for 2 blocks per
 * SM are held in shared memory (RS). */
template <int NT, int MODE>
static bool
cosines_launch_rs (const CudaGeom  &g,
                   const CudaPlane &in,
                   const CudaPlane &out,
                   int              radius,
                   cudaStream_t     stream,
                   cudaError_t     *err)
{
  using RB = CosBlock<0, true>;
  typedef void (*Kernel) (CudaGeom, CudaPlane, CudaPlane);
  const bool padr
    = COS_PADR && MODE == COS_FLAT && radius <= lines_pad_lead (NT);
  /* (PADR: slot 0 grown to the lead.) */
  const size_t smem
    = lines_smem_units (MODE, RB::nch) * sizeof (double2) * NT * RB::lanes
      + (padr
           ? (lines_pad_lead (NT) - RB::nch * NT * RB::lanes) * sizeof (double2)
           : 0)
      + (size_t) in.w * 4 * sizeof (float) + 16 /* mbarrier */;
  dim3 grid (out.h), block (RB::lanes, RB::nch);

  /* (Each block also holds 1 KB of the SM's shared memory.) */
  if (! COS_RS || g.channels != 4 || ((uintptr_t) in.p & 15) != 0
      || (in.pitch & 3) != 0
      || 2 * (smem + 1024) > (size_t) gpufx_cuda_limits.smem + 1024)
    return false;
  /* The padded row (PADR) where r fits slot 0: elsewhere (sigma > 256 at
   * 8 terms) nothing is padded, and its layout ran 1-3% slower there
   * (H100, 4K, sigma 500 / 1500, round 23), so the kernel without it. */
  Kernel kernel = lines_cosines_kernel<NT, 0, MODE, true>;

  if constexpr (COS_PADR && MODE == COS_FLAT)
    if (padr)
      kernel = lines_cosines_kernel<NT, 0, MODE, true, true>;
  if ((*err = gpufx_cuda_allow_smem (kernel, smem)) == cudaSuccess)
    {
      kernel<<<grid, block, smem, stream>>> (g, in, out);
      *err = cudaGetLastError ();
    }
  return true;
}

template <int NT, int AXIS, int MODE>
static cudaError_t
cosines_launch (const CudaGeom  &g,
                const CudaPlane &in,
                const CudaPlane &out,
                int              radius,
                cudaStream_t     stream)
{
  cudaError_t err;

  if (AXIS == 0
      && cosines_launch_rs<NT, MODE> (g, in, out, radius, stream, &err))
    return err;

  const int    n_lines = (AXIS == 0 ? out.h : out.w) * g.channels;
  const size_t per_chunk
    = lines_slots (MODE) * sizeof (double2) * NT * CosShape<AXIS>::lanes;
  const int blocks = gpufx_cuda_div_up (n_lines, CosShape<AXIS>::lanes);
  /* The default shapes are 128 threads, 4 blocks per SM: a grid short
   * of one wave takes nch_max chunks; under clamp and zero only where it
   * fills less than 3 blocks per SM (4K columns, 480 blocks: 4 chunks in
   * one wave ran 3-7% faster than 8 chunks in two waves, H100; not so
   * for mirror at large r, whose chunks walk up to twice the line). */
  const int fill = MODE == COS_FLAT || MODE == COS_MIRROR ? 3 : 4;
  int nch = blocks < fill * gpufx_cuda_limits.sm_count ? CosShape<AXIS>::nch_max
                                                       : CosShape<AXIS>::nch;

  /* (MIRROR: three more units for the line's constants.) */
  const size_t extra = lines_smem_units (MODE, 0) * sizeof (double2) * NT
                       * CosShape<AXIS>::lanes;

  while (nch > 1 && per_chunk * nch + extra > (size_t) gpufx_cuda_limits.smem)
    nch /= 2;
  if (per_chunk * nch + extra > (size_t) gpufx_cuda_limits.smem)
    return cudaErrorInvalidConfiguration;

  size_t smem = per_chunk * nch + extra;
  dim3   grid (blocks);
  dim3   block (CosShape<AXIS>::lanes, nch);

  if ((err = gpufx_cuda_allow_smem (lines_cosines_kernel<NT, AXIS, MODE, false>,
                                    smem))
      != cudaSuccess)
    return err;
  lines_cosines_kernel<NT, AXIS, MODE, false>
    <<<grid, block, smem, stream>>> (g, in, out);
  return cudaGetLastError ();
}

/* The image samples that the windows of SOLO's nch chunk starts hold
 * (o0 the first output, len outputs, n the line, r the radius). */
static long long
cosines_solo_walk (int o0, int len, int n, int r, int nch)
{
  const int S = (len + nch - 1) / nch;
  long long w = 0;

  for (int j = 0; j < len; j += S)
    w += min (o0 + j + r + 1, n) - max (o0 + j - r, 0);
  return w;
}

/* Columns under clamp and zero with each chunk (a warp of the block's
 * lanes) summing its first output's window itself (SOLO): no phase 1 over
 * the line, no shared memory, no barrier.  False where FLAT is to run
 * instead.  GPUFX_CUDA_COS_SOLO (a testing aid read per launch) = 0 never
 * takes SOLO, 1 to 8 takes it with that many chunks (1 and 2 as DEEP). */
template <int NT>
static bool
cosines_launch_solo (const CudaGeom  &g,
                     const CudaPlane &in,
                     const CudaPlane &out,
                     int              radius,
                     cudaStream_t     stream,
                     cudaError_t     *err)
{
  constexpr int LANES = CosShape<1>::lanes;
  const char   *e = getenv ("GPUFX_CUDA_COS_SOLO");
  const int     blocks = gpufx_cuda_div_up (out.w * g.channels, LANES);
  int           nch = 3;

  /* 3 chunks where their windows hold no more samples than the line and
   * the grid has 10 warps per SM: 4K sigma <= 107 (H100, 4K RGBA, round
   * 22, columns FLAT -> 3 chunks: sigma 16 / 25 / 50 / 100 0.205 / 0.204
   * / 0.201 / 0.195 -> 0.150 / 0.163 / 0.179 / 0.191 ms, both passes
   * 0.384 / 0.392 / 0.387 / 0.384 -> 0.329 / 0.349 / 0.365 / 0.375 in two
   * calls; sigma 200 0.184 -> 0.231, the windows hold 1.78 lines; 4 chunks
   * within 1% but less steady; 1 or 2 chunks had too few warps, 6 or 8
   * walked too much).  2 chunks (DEEP, through its ring) where the 3
   * windows hold more than 3/4 of the line (4K sigma >= 81): 2r + 1 fewer
   * samples walked per line (H100, 4K RGBA, round 25, two runs, 3 chunks
   * -> DEEP 2: sigma 100 columns 0.192 / 0.194 -> 0.182 / 0.183 ms, both
   * passes 0.369 / 0.374 -> 0.365 / 0.366; sigma 50 columns 0.179 / 0.181
   * -> 0.176 / 0.176 but both passes 0.356 / 0.359 -> 0.360 / 0.360, so 3
   * chunks there; between, not measured.  DEEP in 1 chunk, one warp per
   * scheduler, waits on FP64 latency, 0.4 issues per cycle: sigma 100
   * columns 0.187; sigma 200 0.191-0.195 against FLAT's 0.182-0.185).
   * Where 3 chunks walk more than the line, DEEP 2 still where its walk
   * is at most 65% of the line (4K sigma 108..116), else FLAT (H100, 4K
   * RGBA, round 26, both passes: sigma 110 0.363-0.366 -> 0.352-0.355 in
   * two calls, sigma 115 0.362-0.364 -> 0.358-0.360; from sigma 120 on,
   * DEEP 2 ran as fast as FLAT or slower: 150 / 175 0.373-0.376 /
   * 0.382-0.384 against 0.359-0.360 / 0.363-0.365). */
  if (e && *e >= '0' && *e <= '8')
    nch = *e - '0';
  else
    {
      const long long walk
        = cosines_solo_walk (out.y0, out.h, g.image_h, radius, nch);

      if (blocks * nch < 10 * gpufx_cuda_limits.sm_count)
        nch = 0;
      else if (walk > out.h)
        {
          const long long walk2
            = cosines_solo_walk (out.y0, out.h, g.image_h, radius, 2);

          nch = 100 * walk2 <= 65 * (long long) out.h ? 2 : 0;
        }
      else if (4 * walk > 3 * (long long) out.h)
        nch = 2;
    }
  if (nch == 0)
    return false;
  if (nch <= COS_DEEP_NCH)
    {
      const size_t smem = gpufx_cuda_limits.cc_major >= 8
                            ? nch * lines_ring_floats () * sizeof (float)
                            : 0;

      if ((*err = gpufx_cuda_allow_smem (
             lines_cosines_kernel<NT, 1, COS_DEEP, false>, smem))
          != cudaSuccess)
        return true;
      lines_cosines_kernel<NT, 1, COS_DEEP, false>
        <<<blocks, dim3 (LANES, nch), smem, stream>>> (g, in, out);
    }
  else
    lines_cosines_kernel<NT, 1, COS_SOLO, false>
      <<<blocks, dim3 (LANES, nch), 0, stream>>> (g, in, out);
  *err = cudaGetLastError ();
  return true;
}

template <int NT, int AXIS>
static cudaError_t
cosines_launch (const CudaGeom  &g,
                const CudaPlane &in,
                const CudaPlane &out,
                int              radius,
                cudaStream_t     stream)
{
  const int n = AXIS == 0 ? g.image_w : g.image_h;
  const int np = (AXIS == 0 ? out.w : out.h) + 2 * radius;
  const int per = lines_border_period (n, g.border);

  if (g.border == GPUFX_BORDER_CLAMP || g.border == GPUFX_BORDER_ZERO)
    {
      cudaError_t err;

      if (AXIS == 1 && COS_COL_LANES == 32
          && cosines_launch_solo<NT> (g, in, out, radius, stream, &err))
        return err;
      return cosines_launch<NT, AXIS, COS_FLAT> (g, in, out, radius, stream);
    }
  if (g.border == GPUFX_BORDER_MIRROR && COS_MIR)
    {
      /* A mirrored line of 1 repeats its pixel: clamp.  Else where the
       * plane holds the whole line: phase 1 over the image alone. */
      const bool whole
        = AXIS == 0 ? in.x0 == 0 && in.w == n : in.y0 == 0 && in.h == n;

      if (n == 1)
        {
          CudaGeom g1 = g;

          g1.border = GPUFX_BORDER_CLAMP;
          return cosines_launch<NT, AXIS, COS_FLAT> (g1, in, out, radius,
                                                     stream);
        }
      /* Short r: the padded line is hardly longer than the image, and
       * PADDED's phase 2 (plain loads but near the ends) cheaper (H100,
       * 4K, same call: rows sigma 16 0.219 against 0.233 ms, columns
       * sigma 16..50 0.228-0.230 against 0.239-0.243). */
      const int most = n + n / (AXIS == 0 ? COS_MIR_ROW : COS_MIR_COL);

      if (whole && (AXIS == 0 ? out.w : out.h) <= n && np > most)
        return cosines_launch<NT, AXIS, COS_MIRROR> (g, in, out, radius,
                                                     stream);
    }
  /* One period where it is clearly shorter than the padded line (its
   * window sums cost a little more). */
  if (np > per + per / 4)
    return cosines_launch<NT, AXIS, COS_PERIODIC> (g, in, out, radius, stream);
  return cosines_launch<NT, AXIS, COS_PADDED> (g, in, out, radius, stream);
}

template <int NT>
static cudaError_t
cosines_launch (const CudaGeom  &g,
                int              axis,
                const CudaPlane &in,
                const CudaPlane &out,
                int              radius,
                cudaStream_t     stream)
{
  return axis == 0 ? cosines_launch<NT, 0> (g, in, out, radius, stream)
                   : cosines_launch<NT, 1> (g, in, out, radius, stream);
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
  /* The terms the registers hold (chosen by the upload; the plan's
   * terms past n_terms are zero), at positions within the phase table's
   * reach (lines up to a million samples). */
  const int n = axis == 0 ? g.image_w : g.image_h;

  if (n_terms > lines_cos_nt[axis != 0])
    return cudaErrorInvalidValue;
  if (2LL * n + 4LL * radius + 8 >= (long long) COS_TAB_N * COS_TAB_N)
    return cudaErrorNotSupported;
  return lines_cos_nt[axis != 0] == 6
           ? cosines_launch<6> (g, axis, in, out, radius, stream)
           : cosines_launch<8> (g, axis, in, out, radius, stream);
}

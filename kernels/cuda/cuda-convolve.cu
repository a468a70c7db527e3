/* gimp-gpu-filters: 2-D convolution (correlation) with a full matrix.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A block of 32 x 8 threads makes a 128 x 32 tile of outputs; each thread
 * makes 4 adjacent pixels of 4 consecutive rows (register blocking in
 * both directions; at most 128 registers, so that two blocks, 16 warps,
 * share an SM).  The block copies the tile and its halo into shared
 * memory once (cp.async, border mapped); the matrix sits in constant
 * memory (63 x 63 floats fit) and each chunk of its rows is copied to
 * shared memory.  A tile row feeds the thread's 4 output rows (through
 * matrix rows j = t - o) and, since its 4 outputs are adjacent, a pixel
 * loaded once serves up to 4 matrix columns from registers: 16 pixel
 * loads per tile row for a 13-wide matrix where one pixel per output and
 * column took 52.  Tile rows are stored as 4 planes (tile column q at
 * plane q mod 4, index q / 4), so that the lanes' pixels, 4 apart, are
 * consecutive in shared memory (no bank conflicts, no padding).  Matrices
 * whose halo does not fit the shared-memory budget run in chunks of
 * matrix rows; where even one matrix row's tile does not fit (a 63-wide
 * RGBA matrix needs 96 KB with 8 thread rows, more than Turing's 64 KB or
 * a 48 KB budget), blocks take fewer thread rows, then fewer threads
 * across.
 */
#include "cuda-internal.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#define CONV_PX  4  /* adjacent pixels per thread */
#define CONV_RPT 4  /* rows per thread */
#define CONV_TX  32 /* threads across per block, at most (blockDim.x) */
#define CONV_TY  8  /* thread rows per block, at most (blockDim.y) */

/* Floats per matrix row in shared memory: rows are padded with zeros to
 * whole float4s, so that 4 weights come in one 16-byte load. */
static __host__ __device__ __forceinline__ int
conv_wstride (int mw)
{
  return (mw + 3) / 4 * 4;
}

/* Tile columns a block of bx threads across reads: its outputs plus the
 * matrix's reach, or (width not known at compile time, MW = 0) the padded
 * matrix row's reach, whose extra columns are zero. */
static __host__ __device__ __forceinline__ int
conv_tile_w (int bx, int MW, int mw)
{
  return CONV_PX * bx + (MW ? MW : conv_wstride (mw)) - 1;
}

/* Pixels per tile row in shared memory: 4 planes of whole pixels. */
static __host__ __device__ __forceinline__ int
conv_row_px (int tw)
{
  return (tw + 3) / 4 * 4;
}

__constant__ float conv_matrix[GPUFX_MATRIX_MAX * GPUFX_MATRIX_MAX];

template <int C> struct alignas (C == 4 ? 16 : C == 2 ? 8 : 4) ConvPix
{
  float v[C];
};

static __host__ __device__ __forceinline__ size_t
conv_align16 (size_t bytes)
{
  return (bytes + 15) / 16 * 16;
}

/* One pixel from global to shared memory, asynchronously where the
 * pixel is 4, 8 or 16 bytes (cp.async; conv_copy_wait waits for all).
 * cp.async needs sm_80; older GPUs (sm_75 in the default build) copy
 * through registers. */
template <int C>
static __device__ __forceinline__ void
conv_copy (ConvPix<C> *dst, const float *src)
{
#if __CUDA_ARCH__ >= 800
  if (C == 3)
    *dst = *(const ConvPix<C> *) src;
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;"
                 :
                 : "r"((unsigned) __cvta_generic_to_shared (dst)), "l"(src),
                   "n"(C == 3 ? 4 : (int) sizeof (ConvPix<C>))
                 : "memory");
#else
  *dst = *(const ConvPix<C> *) src;
#endif
}

static __device__ __forceinline__ void
conv_copy_wait (void)
{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

/* Tile row t of a thread's window into its 4 output rows: output row o
 * takes matrix row t - o.  Matrix columns go in groups of 4: the group's
 * pixels (7 for 4 adjacent outputs, 3 of them kept from the group before)
 * come once per tile row, and each output row's 4 weights in one
 * broadcast float4; each weight then feeds 4 pixels of C channels.  With
 * OLO <= OHI the output rows that the tile row reaches are known at
 * compile time (OLO .. OHI: no branches, and the weight loads may be
 * scheduled early); otherwise (OLO > OHI) they are tested at run time
 * (0 <= t - o < kh).  The thread's pixel k (tile column 4 tx + k) is at
 * row[(k & 3) * ps + (k >> 2)]; wt points at matrix row t of the chunk. */
template <int C, int MW, int OLO, int OHI>
static __device__ __forceinline__ void
conv_tile_row (float (&acc)[CONV_RPT][CONV_PX][C],
               const ConvPix<C> *row,
               int               ps,
               const float      *wt,
               int               ws,
               int               ng,
               int               t,
               int               kh)
{
  ConvPix<C> v[7];

#pragma unroll
  for (int k = 0; k < 3; k++)
    v[4 + k] = row[k * ps];
#pragma unroll(MW ? 16 : 1)
  for (int gi = 0; gi < ng; gi++)
    {
      /* Group gi: matrix columns 4 gi .. 4 gi + ni - 1 and pixels
       * 4 gi + k, k < ni + 3.  Under a run-time test each output row's
       * weights load under its branch (the compiler sinks loads placed
       * before it), so warps enough per SM must hide that. */
      const int ni = MW && MW - 4 * gi < 4 ? MW - 4 * gi : 4;

#pragma unroll
      for (int k = 0; k < 3; k++)
        v[k] = v[4 + k];
#pragma unroll
      for (int k = 3; k < 7; k++)
        {
          if (k < ni + 3)
            v[k] = row[(k & 3) * ps + gi + (k >> 2)];
        }
#pragma unroll
      for (int o = 0; o < CONV_RPT; o++)
        if (OLO <= OHI ? o >= OLO && o <= OHI : t - o >= 0 && t - o < kh)
          {
            const float4 q = *(const float4 *) (wt - o * ws + 4 * gi);
            const float  w[4] = { q.x, q.y, q.z, q.w };

#pragma unroll
            for (int ii = 0; ii < 4; ii++)
              if (ii < ni)
#pragma unroll
                for (int p = 0; p < CONV_PX; p++)
#pragma unroll
                  for (int c = 0; c < C; c++)
                    acc[o][p][c] = fmaf (w[ii], v[ii + p].v[c], acc[o][p][c]);
          }
    }
}

/* Tile columns a thread copies at most (blocks are at least 8 threads
 * across): its share of 4 outputs each and of the matrix's reach. */
template <int MW>
static __host__ __device__ constexpr int
conv_fill_n (void)
{
  return CONV_PX + ((MW ? MW : (GPUFX_MATRIX_MAX + 3) / 4 * 4) + 6) / 8;
}

/* xoff values for a tile column that reads zero, and for none. */
#define CONV_X_ZERO (INT_MIN + 1)
#define CONV_X_NONE INT_MIN

/* A thread's pixels of one tile row: tile column tx + k bx at dst[k step]
 * from src[xoff[k]] (row src NULL or xoff[k] == CONV_X_ZERO: zero;
 * CONV_X_NONE: none).  cp.async takes the shared address as 32 bits,
 * computed once per row. */
template <int C, int NQ>
static __device__ __forceinline__ void
conv_fill_row (ConvPix<C>  *dst,
               int          step,
               const float *src,
               const int (&xoff)[NQ])
{
  ConvPix<C> zero;

#pragma unroll
  for (int c = 0; c < C; c++)
    zero.v[c] = 0.0f;
#if __CUDA_ARCH__ >= 800
  if (C != 3 && src)
    {
      const unsigned s = (unsigned) __cvta_generic_to_shared (dst);

#pragma unroll
      for (int k = 0; k < NQ; k++)
        if (xoff[k] > CONV_X_ZERO)
          asm volatile("cp.async.ca.shared.global [%0], [%1], %2;"
                       :
                       : "r"(s + (unsigned) (k * step * sizeof (ConvPix<C>))),
                         "l"(src + xoff[k]),
                         "n"(C == 3 ? 4 : (int) sizeof (ConvPix<C>))
                       : "memory");
        else if (xoff[k] == CONV_X_ZERO)
          dst[k * step] = zero;
      return;
    }
#endif
#pragma unroll
  for (int k = 0; k < NQ; k++)
    if (src && xoff[k] > CONV_X_ZERO)
      conv_copy<C> (dst + k * step, src + xoff[k]);
    else if (xoff[k] != CONV_X_NONE)
      dst[k * step] = zero;
}

/* MW: the matrix width when known at compile time (0: any), so that the
 * loops along a matrix row unroll and its weight and pixel offsets become
 * immediates.  MH: the matrix height when known at compile time and the
 * whole matrix is one chunk (0: any), so that every tile row's output
 * rows are known (conv_tile_row) and only the window's first and last
 * 3 rows differ from the rest. */
template <int C, int MW, int MH>
__global__ void
__launch_bounds__ (CONV_TX *CONV_TY, 2) conv_kernel (CudaGeom  g,
                                                     CudaPlane in,
                                                     CudaPlane out,
                                                     int       mw_rt,
                                                     int       mh_rt,
                                                     int       chunk,
                                                     float     scale,
                                                     float     offset)
{
  extern __shared__ float4 conv_smem4[];
  const int                mw = MW ? MW : mw_rt;
  const int                mh = MH ? MH : mh_rt;
  const int                ws = conv_wstride (mw);
  const int                ng = (mw + 3) / 4; /* column groups */
  const int                bx = blockDim.x;
  const int                tw = conv_tile_w (bx, MW, mw);
  const int                rs = conv_row_px (tw), ps = rs / 4;
  ConvPix<C>              *tile = (ConvPix<C> *) conv_smem4;
  float                   *wsh;
  const int                tx = threadIdx.x, ty = threadIdx.y;
  const int                tid = ty * bx + tx;
  const int                nthreads = bx * blockDim.y;
  const int TW = CONV_PX * bx, TH = CONV_RPT * blockDim.y; /* outputs */
  const int ox0 = blockIdx.x * TW, oy0 = blockIdx.y * TH;
  const int left = mw / 2, top = mh / 2;
  const int tw_used = TW + mw - 1; /* columns past it are zero */
  /* The input the band's valid outputs need; tile positions beyond it
   * feed only outputs that are not written, so they read its edge. */
  const int need_x0 = out.x0 - left,
            need_x1 = out.x0 + out.w - 1 + (mw - 1 - left);
  const int need_y0 = out.y0 - top,
            need_y1 = out.y0 + out.h - 1 + (mh - 1 - top);
  constexpr int NQ = conv_fill_n<MW> ();
  float         acc[CONV_RPT][CONV_PX][C];

  /* The weights start 16-byte aligned (float4 loads). */
  wsh
    = (float *) ((char *) conv_smem4
                 + conv_align16 (sizeof (ConvPix<C>) * rs * (TH + chunk - 1)));

#pragma unroll
  for (int o = 0; o < CONV_RPT; o++)
#pragma unroll
    for (int p = 0; p < CONV_PX; p++)
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[o][p][c] = 0.0f;

  for (int j0 = 0; j0 < mh; j0 += chunk)
    {
      const int kh = MH ? MH : min (chunk, mh - j0);
      const int th = TH + kh - 1;
      /* The thread's tile columns q = tx + k bx (tile plane tx & 3, since
       * bx is a multiple of 4): each one's input offset in floats.  The
       * border is mapped once per column, not per pixel. */
      int xoff[NQ];

#pragma unroll
      for (int k = 0; k < NQ; k++)
        {
          const int q = tx + k * bx;
          int       xi = -1;

          /* (zero, not the image, past the matrix's reach: a zero
           * weight times an infinite pixel would make a NaN) */
          if (q < tw_used)
            xi = gpufx_border_index (
              max (min (out.x0 + ox0 - left + q, need_x1), need_x0), g.image_w,
              g.border);
          xoff[k] = q >= tw   ? CONV_X_NONE
                    : xi >= 0 ? (xi - in.x0) * C
                              : CONV_X_ZERO;
        }

      for (int idx = tid; idx < kh * ws; idx += nthreads)
        {
          int jj = idx / ws, i = idx - jj * ws;

          wsh[idx] = i < mw ? conv_matrix[(j0 + jj) * mw + i] : 0.0f;
        }
      /* Thread row ty fills tile rows ty, ty + blockDim.y, ...; copies
       * go straight to shared memory (cp.async), all in flight at once,
       * where a load and a store per pixel waited out one global-memory
       * latency after another. */
      for (int r = ty; r < th; r += blockDim.y)
        {
          int y = min (out.y0 + oy0 - top + j0 + r, need_y1);
          int yi = gpufx_border_index (max (y, need_y0), g.image_h, g.border);
          const float *src
            = yi >= 0 ? in.p + (ptrdiff_t) (yi - in.y0) * in.pitch : NULL;
          ConvPix<C> *dst = tile + r * rs + (tx & 3) * ps + (tx >> 2);

          conv_fill_row<C, NQ> (dst, bx >> 2, src, xoff);
        }
      conv_copy_wait ();
      __syncthreads ();

      const ConvPix<C> *row0 = tile + ty * CONV_RPT * rs + tx;

      if (MH)
        {
          /* The window's first 3 rows reach output rows 0 .. t, its last
           * 3 rows t - MH + 1 .. 3, the others all 4. */
          static_assert (CONV_RPT == 4, "the rows below assume 4 per thread");
#define CONV_ROW(T, LO, HI)                                                    \
  conv_tile_row<C, MW, LO, HI> (acc, row0 + rs * (T), ps, wsh + ws * (T), ws,  \
                                ng, T, kh)
          CONV_ROW (0, 0, 0);
          CONV_ROW (1, 0, 1);
          CONV_ROW (2, 0, 2);
#pragma unroll 1
          for (int t = 3; t < MH; t++)
            CONV_ROW (t, 0, 3);
          CONV_ROW (MH, 1, 3);
          CONV_ROW (MH + 1, 2, 3);
          CONV_ROW (MH + 2, 3, 3);
#undef CONV_ROW
        }
      else
        for (int t = 0; t < CONV_RPT + kh - 1; t++)
          conv_tile_row<C, MW, 1, 0> (acc, row0 + t * rs, ps, wsh + t * ws, ws,
                                      ng, t, kh);
      __syncthreads ();
    }

#pragma unroll
  for (int o = 0; o < CONV_RPT; o++)
#pragma unroll
    for (int p = 0; p < CONV_PX; p++)
      {
        int x = ox0 + CONV_PX * tx + p, y = oy0 + ty * CONV_RPT + o;

        if (x < out.w && y < out.h)
          {
            ConvPix<C> r;

#pragma unroll
            for (int c = 0; c < C; c++)
              r.v[c] = acc[o][p][c] * scale + (c != g.alpha ? offset : 0.0f);
            *(ConvPix<C> *) (out.p + (ptrdiff_t) y * out.pitch
                             + (ptrdiff_t) x * C)
              = r;
          }
      }
}

/* The tensor-core path (sm_80 and later, RGBA): the correlation as, per
 * input row, a product of a band of weights and the row's pixels, on
 * mma.sync m16n8k16 in FP16 with FP32 sums.  A warp makes 16 output rows
 * x 32 pixels x 4 channels.  Input row t of its window (t = 0 .. mh + 14)
 * feeds output row m through matrix row t - m: A_t[m][k] = w[t - m][j(k)]
 * (16 rows x 16 matrix columns, zero outside the matrix), B[k][n] =
 * in[t][x0 + n + j(k)] (16 matrix columns x 8 output columns of one
 * channel), C = 16 rows x 8 columns.  Matrix columns go in slices of 16
 * (ks); k is permuted (j(2q + h) = 4q + h, j(2q + 8 + h) = 4q + 2 + h), so
 * that a lane's B fragment is 4 adjacent pixels of a channel: one 8-byte
 * load from one of 4 copies of the row shifted by 0..3 (the lane's
 * x0 + n mod 4).  A's fragments come precomputed (host, at upload) as one
 * 16-byte load per lane, hi and lo.
 *
 * Accuracy: weights (scaled by a power of 2, the largest in [2^13, 2^14))
 * and pixels are each split into an FP16 part and an FP16 remainder, and
 * three products are summed (lo x hi, hi x lo, then hi x hi): 22 bits of
 * each operand.  The tensor cores truncate their sums, so each input
 * row's products go into a fresh accumulator, added to the output's sum
 * with a float add.  A non-finite input (or |x| >= 65520) spreads over
 * its accumulator column (0 x Inf in the band's zeros), so a warp that
 * made any non-finite output redoes its tile with the float weights. */
#define CTC_WARPS 4 /* warps per block, side by side */
#define CTC_V     4 /* output tiles of 8 pixels across per warp */
#ifndef CTC_MINB
#define CTC_MINB 2 /* blocks per SM for the register budget */
#endif

/* Halves per copy of a row: what the B loads reach (8 (V + 2 nks) - 4),
 * and a copy pitch = 16 mod 64 halves so that the 4 copies' loads of a
 * half-warp fall in distinct banks. */
static __host__ __device__ __forceinline__ int
ctc_len (int nks)
{
  return 8 * (CTC_V + 2 * nks);
}

static __host__ __device__ __forceinline__ int
ctc_pitch (int nks)
{
  int l = ctc_len (nks);

  return l + (16 - l % 64 + 64) % 64;
}

/* The A table's row (uint4s): 4 nks quads, padded so that two rows'
 * quarter-warp loads fall in distinct banks (pitch = 64 mod 128 bytes). */
static __host__ __device__ __forceinline__ int
ctc_tab_pitch (int nks)
{
  return 4 * nks + (nks % 2 ? 0 : 4);
}

/* Table rows: R = t - gq from -7 to mh + 14. */
static __host__ __device__ __forceinline__ int
ctc_tab_rows (int mh)
{
  return mh + 22;
}

#define CTC_TAB_MAX (2 * (GPUFX_MATRIX_MAX + 22) * 20)
__device__ uint4 conv_tc_tab[CTC_TAB_MAX];

/* The scale's exponent of the uploaded table (weights times 2^k). */
static int  conv_tc_k2;
static bool conv_tc_ok;

static size_t
ctc_smem (int nks, int mh)
{
  return sizeof (uint4) * 2 * ctc_tab_rows (mh) * ctc_tab_pitch (nks)
         + sizeof (__half) * CTC_WARPS * 32 * ctc_pitch (nks);
}

template <int NKS>
__global__ void __launch_bounds__ (32 * CTC_WARPS, CTC_MINB)
  conv_tc_kernel (CudaGeom  g,
                  CudaPlane in,
                  CudaPlane out,
                  int       mw,
                  int       mh,
                  int       seq,
                  float     tscale,
                  float     scale,
                  float     offset)
{
#if __CUDA_ARCH__ >= 800
  extern __shared__ uint4 ctc_smem4[];
  constexpr int           L = 8 * (CTC_V + 2 * NKS);
  constexpr int           CS = L + (16 - L % 64 + 64) % 64;
  constexpr int           TS = 4 * NKS + (NKS % 2 ? 0 : 4);
  constexpr int NP = (L / 2 + 1 + 31) / 32; /* even positions per lane */
  const int     TR = ctc_tab_rows (mh);
  const int     lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int     gq = lane >> 2, tq = lane & 3;
  const uint4  *thi = ctc_smem4, *tlo = ctc_smem4 + TR * TS;
  unsigned     *buf = (unsigned *) (ctc_smem4 + 2 * TR * TS) + warp * 16 * CS;

  for (int i = threadIdx.x; i < 2 * TR * TS; i += blockDim.x)
    ctc_smem4[i] = conv_tc_tab[i];
  __syncthreads ();

  const int left = mw / 2, top = mh / 2;
  const int wx0 = (blockIdx.x * CTC_WARPS + warp) * 8 * CTC_V;

  if (wx0 >= out.w)
    return;

  const int need_x0 = out.x0 - left,
            need_x1 = out.x0 + out.w - 1 + (mw - 1 - left);
  const int need_y0 = out.y0 - top,
            need_y1 = out.y0 + out.h - 1 + (mh - 1 - top);
  const int T = mh + 15;

  /* The lane's row positions p = 2 (lane + 32 i) + k, k < 3 (tile column
   * p = output column wx0 - left + p): float offsets in a row, or -1
   * (zero). */
  int colp[NP][3];
#pragma unroll
  for (int i = 0; i < NP; i++)
#pragma unroll
    for (int k = 0; k < 3; k++)
      {
        const int p = 2 * (lane + 32 * i) + k;
        int       xi = -1;

        if (p < L + 3)
          xi = gpufx_border_index (
            max (min (out.x0 + wx0 - left + p, need_x1), need_x0), g.image_w,
            g.border);
        colp[i][k] = xi >= 0 ? (xi - in.x0) * 4 : -1;
      }

  /* Row buffer: per channel c, 4 copies s of the row (copy s holds pixel
   * e + s at e), in blocks of 4 halves: the FP16 parts, then the
   * remainders (16 bytes).  The word of (c, s, e even, hi) is c 4 CS +
   * foff: the lane's words p (copies 0, 1) and p - 2 (copies 2, 3); one
   * outside its copy (p = L, p = 0) stores again where the other copy
   * holds the same word, so that every store runs.  Lanes 16..31 store
   * the remainder first: their words lie 8 blocks on, in the same banks
   * as lanes 0..15's, but 2 words over (no bank conflicts). */
  const bool lo_first = lane >= 16;
  int        foff[NP][4][2]; /* first, second store */
#pragma unroll
  for (int i = 0; i < NP; i++)
#pragma unroll
    for (int s2 = 0; s2 < 4; s2++)
      {
        const int p = 2 * (lane + 32 * i);
        int       e = p - (s2 & 2), s = s2;

        if (e < 0 || e >= L)
          {
            s = s2 ^ 2;
            e = p - (s & 2);
          }
        foff[i][s2][0]
          = s * CS + (e >> 2) * 4 + ((e >> 1) & 1) + (lo_first ? 2 : 0);
        foff[i][s2][1] = foff[i][s2][0] + (lo_first ? -2 : 2);
      }
  /* B loads: copy gq mod 4, block gq / 4 + tq; fragment u (tile v, slice
   * ks: u = v + 2 ks) 2 u blocks further: {hi b0, hi b1, lo b0, lo b1}. */
  const uint4 *bsrc
    = (const uint4 *) buf + (gq & 3) * (CS / 4) + (gq >> 2) + tq;
  const float zero[4] = { 0.0f, 0.0f, 0.0f, 0.0f };

  for (int gi = 0; gi < seq; gi++)
    {
      const int y0 = (blockIdx.y * seq + gi) * 16;

      if (y0 >= out.h)
        break;

      auto fetch = [&] (int t, float4 (&px)[NP][3]) {
        const int    y = out.y0 + y0 - top + t;
        const int    yi = gpufx_border_index (max (min (y, need_y1), need_y0),
                                              g.image_h, g.border);
        const float *src
          = yi >= 0 ? in.p + (ptrdiff_t) (yi - in.y0) * in.pitch : NULL;

#pragma unroll
        for (int i = 0; i < NP; i++)
#pragma unroll
          for (int k = 0; k < 3; k++)
            px[i][k] = src && colp[i][k] >= 0
                         ? __ldg ((const float4 *) (src + colp[i][k]))
                         : make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
      };

      float  acc[4][CTC_V][4];
      float4 px[NP][3];

#pragma unroll
      for (int c = 0; c < 4; c++)
#pragma unroll
        for (int v = 0; v < CTC_V; v++)
#pragma unroll
          for (int i = 0; i < 4; i++)
            acc[c][v][i] = 0.0f;
      fetch (0, px);

      for (int t = 0; t < T; t++)
        {
          /* Row t into the copies: the lane's pixels p, p + 1, p + 2 (p
           * even) make words {p, p + 1} (copy 0 at p, copy 2 at p - 2) and
           * {p + 1, p + 2} (copy 1 at p, copy 3 at p - 2), hi and lo. */
          __syncwarp ();
#pragma unroll
          for (int i = 0; i < NP; i++)
            {
              const int p = 2 * (lane + 32 * i);

              if (p <= L)
#pragma unroll
                for (int c = 0; c < 4; c++)
                  {
                    float f[3];

#pragma unroll
                    for (int k = 0; k < 3; k++)
                      f[k] = c == 0   ? px[i][k].x
                             : c == 1 ? px[i][k].y
                             : c == 2 ? px[i][k].z
                                      : px[i][k].w;

                    const __half2 h01 = __floats2half2_rn (f[0], f[1]);
                    const __half2 h12 = __floats2half2_rn (f[1], f[2]);
                    const float2  g01 = __half22float2 (h01);
                    const float   g2 = __high2float (h12);
                    const __half2 l01
                      = __floats2half2_rn (f[0] - g01.x, f[1] - g01.y);
                    const __half2 l12
                      = __floats2half2_rn (f[1] - g01.y, f[2] - g2);
                    const unsigned w[2][2] = {
                      { *(const unsigned *) &h01, *(const unsigned *) &l01 },
                      { *(const unsigned *) &h12, *(const unsigned *) &l12 }
                    };

#pragma unroll
                    for (int s2 = 0; s2 < 4; s2++)
                      {
                        const unsigned *ws = w[s2 & 1];

                        buf[c * 4 * CS + foff[i][s2][0]]
                          = lo_first ? ws[1] : ws[0];
                        buf[c * 4 * CS + foff[i][s2][1]]
                          = lo_first ? ws[0] : ws[1];
                      }
                  }
            }
          if (t + 1 < T)
            fetch (t + 1, px);
          __syncwarp ();

          uint4 ahi[NKS], alo[NKS];
#pragma unroll
          for (int ks = 0; ks < NKS; ks++)
            {
              ahi[ks] = thi[(t - gq + 7) * TS + 4 * ks + tq];
              alo[ks] = tlo[(t - gq + 7) * TS + 4 * ks + tq];
            }
#pragma unroll
          for (int c = 0; c < 4; c++)
            {
              /* Tiles 0, 2, 1, 3: tile v + 2 shares 3 of tile v's B. */
#pragma unroll
              for (int vv = 0; vv < CTC_V; vv++)
                {
                  const int v = (vv & 1) * 2 + (vv >> 1);
                  uint2     bhi[NKS], blo[NKS];
                  float     f[4];

#pragma unroll
                  for (int ks = 0; ks < NKS; ks++)
                    {
                      const uint4 q = bsrc[c * CS + 2 * (v + 2 * ks)];

                      bhi[ks] = make_uint2 (q.x, q.y);
                      blo[ks] = make_uint2 (q.z, q.w);
                    }

                  gpufx_cuda_mma_f16 (f, alo[0], bhi[0], zero);
#pragma unroll
                  for (int ks = 1; ks < NKS; ks++)
                    gpufx_cuda_mma_f16 (f, alo[ks], bhi[ks], f);
#pragma unroll
                  for (int ks = 0; ks < NKS; ks++)
                    gpufx_cuda_mma_f16 (f, ahi[ks], blo[ks], f);
#pragma unroll
                  for (int ks = 0; ks < NKS; ks++)
                    gpufx_cuda_mma_f16 (f, ahi[ks], bhi[ks], f);
#pragma unroll
                  for (int i = 0; i < 4; i++)
                    acc[c][v][i] += f[i];
                }
            }
        }

      /* The lane's outputs: rows y0 + gq (+ 8), pixels wx0 + 8 v + 2 tq
       * (+ 1), the 4 channels from the 4 channels' tiles. */
      bool         bad = false;
      const float4 offs = make_float4 (
        g.alpha != 0 ? offset : 0.0f, g.alpha != 1 ? offset : 0.0f,
        g.alpha != 2 ? offset : 0.0f, g.alpha != 3 ? offset : 0.0f);

#pragma unroll
      for (int v = 0; v < CTC_V; v++)
#pragma unroll
        for (int i = 0; i < 4; i++)
          {
            const int y = y0 + gq + 8 * (i >> 1);
            const int x = wx0 + 8 * v + 2 * tq + (i & 1);

#pragma unroll
            for (int c = 0; c < 4; c++)
              bad |= ! isfinite (acc[c][v][i]);
            if (y < out.h && x < out.w)
              *(float4 *) (out.p + (ptrdiff_t) y * out.pitch
                           + (ptrdiff_t) x * 4)
                = make_float4 (acc[0][v][i] * tscale + offs.x,
                               acc[1][v][i] * tscale + offs.y,
                               acc[2][v][i] * tscale + offs.z,
                               acc[3][v][i] * tscale + offs.w);
          }

      if (__any_sync (0xffffffffu, bad))
        {
          /* Redo the warp's tile with the float weights. */
          for (int i = lane; i < 16 * 8 * CTC_V; i += 32)
            {
              const int y = y0 + i / (8 * CTC_V), x = wx0 + i % (8 * CTC_V);
              float     a[4] = { 0.0f, 0.0f, 0.0f, 0.0f };

              if (y >= out.h || x >= out.w)
                continue;
              for (int j = 0; j < mh; j++)
                {
                  const int yi = gpufx_border_index (out.y0 + y - top + j,
                                                     g.image_h, g.border);

                  for (int k = 0; k < mw; k++)
                    {
                      const int xi = gpufx_border_index (out.x0 + x - left + k,
                                                         g.image_w, g.border);
                      const float w = conv_matrix[j * mw + k];

                      if (yi >= 0 && xi >= 0)
                        {
                          const float4 q = __ldg (
                            (const float4 *) (in.p
                                              + (ptrdiff_t) (yi - in.y0)
                                                  * in.pitch
                                              + (ptrdiff_t) (xi - in.x0) * 4));

                          a[0] = fmaf (w, q.x, a[0]);
                          a[1] = fmaf (w, q.y, a[1]);
                          a[2] = fmaf (w, q.z, a[2]);
                          a[3] = fmaf (w, q.w, a[3]);
                        }
                      else
#pragma unroll
                        for (int c = 0; c < 4; c++)
                          a[c] = fmaf (w, 0.0f, a[c]);
                    }
                }
              *(float4 *) (out.p + (ptrdiff_t) y * out.pitch
                           + (ptrdiff_t) x * 4)
                = make_float4 (a[0] * scale + offs.x, a[1] * scale + offs.y,
                               a[2] * scale + offs.z, a[3] * scale + offs.w);
            }
        }
    }
#endif
}

/* The A fragments for a matrix: per table row R = t - gq (-7 .. mh + 14)
 * and quad q = 4 ks + tq, columns c = 4 q: {w[R][c], w[R][c + 1]},
 * {w[R - 8][c..c + 1]}, {w[R][c + 2..c + 3]}, {w[R - 8][c + 2..c + 3]} as
 * FP16 pairs (first in the low half); the hi table, then the lo table. */
static cudaError_t
conv_tc_upload (const float *matrix, int mw, int mh)
{
  static uint4 tab[CTC_TAB_MAX];
  const int    nks = (mw + 15) / 16, ts = ctc_tab_pitch (nks);
  const int    tr = ctc_tab_rows (mh);
  float        wmax = 0.0f;
  int          e = 0;

  for (int i = 0; i < mw * mh; i++)
    wmax = fmaxf (wmax, fabsf (matrix[i]));
  if (! (wmax < INFINITY) || nks > 4)
    {
      conv_tc_ok = false;
      return cudaSuccess;
    }
  if (wmax > 0.0f)
    frexpf (wmax, &e);
  conv_tc_k2 = std::min (std::max (14 - e, -126), 126);

  const float up = ldexpf (1.0f, conv_tc_k2);
  auto        w = [&] (int r, int c) {
    return r >= 0 && r < mh && c < mw ? matrix[r * mw + c] * up : 0.0f;
  };
  auto pack = [] (float a, float b, bool lo) {
    __half_raw ha = __float2half_rn (a), hb = __float2half_rn (b);

    if (lo)
      {
        ha = __float2half_rn (a - __half2float (ha));
        hb = __float2half_rn (b - __half2float (hb));
      }
    return (unsigned) ha.x | (unsigned) hb.x << 16;
  };

  for (int part = 0; part < 2; part++)
    for (int r = 0; r < tr; r++)
      for (int q = 0; q < ts; q++)
        {
          const int R = r - 7, c = 4 * q;
          uint4    &d = tab[(part * tr + r) * ts + q];

          d.x = pack (w (R, c), w (R, c + 1), part);
          d.y = pack (w (R - 8, c), w (R - 8, c + 1), part);
          d.z = pack (w (R, c + 2), w (R, c + 3), part);
          d.w = pack (w (R - 8, c + 2), w (R - 8, c + 3), part);
        }
  conv_tc_ok = true;
  return cudaMemcpyToSymbol (conv_tc_tab, tab, sizeof (uint4) * 2 * tr * ts, 0,
                             cudaMemcpyHostToDevice);
}

cudaError_t
gpufx_cuda_convolve_upload (const float *matrix, int mw, int mh)
{
  cudaError_t err = cudaMemcpyToSymbol (
    conv_matrix, matrix, sizeof (float) * mw * mh, 0, cudaMemcpyHostToDevice);

  conv_tc_ok = false;
  if (err == cudaSuccess && gpufx_cuda_limits.cc_major >= 8)
    err = conv_tc_upload (matrix, mw, mh);
  return err;
}

/* Whether the tensor cores are faster for this matrix.  Their time grows
 * with the input rows a warp reads (mh + 15) times a part per row (the
 * row's copies) and a part per 16-column slice, the float kernel's with
 * mw x mh; the weights are fitted to 4K RGBA on an H100 (round 20:
 * the float kernel from 15 x 15 on, 13 x 13 and 17 x 17 excepted).
 * GPUFX_CUDA_CONV_TC (a testing aid read per launch) = 0 never takes
 * them, 1 always where they apply. */
static bool
conv_tc_wanted (int mw, int mh)
{
  const char *e = getenv ("GPUFX_CUDA_CONV_TC");

  if (e && *e == '0')
    return false;
  if (e && *e == '1')
    return true;
  /* (the float kernel's widths compiled in run ~10% faster) */
  const int fma
    = mw == 3 || mw == 5 || mw == 7 || mw == 9 || mw == 13 ? 20 : 22;

  return (mh + 15) * (57 + 72 * ((mw + 15) / 16)) < fma * mw * mh;
}

/* RGBA on sm_80 and later, where the rule picks it and the planes allow
 * 16-byte pixels: true when launched (err set). */
static bool
conv_tc_launch (const CudaGeom  &g,
                const CudaPlane &in,
                const CudaPlane &out,
                int              mw,
                int              mh,
                float            scale,
                float            offset,
                cudaStream_t     stream,
                cudaError_t     *err)
{
  const int    nks = (mw + 15) / 16;
  const size_t smem = ctc_smem (nks, mh);

  if (g.channels != 4 || ! conv_tc_ok || gpufx_cuda_limits.cc_major < 8
      || smem > (size_t) gpufx_cuda_limits.smem || ! conv_tc_wanted (mw, mh)
      || in.pitch % 4 != 0 || out.pitch % 4 != 0 || ((uintptr_t) in.p & 15) != 0
      || ((uintptr_t) out.p & 15) != 0)
    return false;

  const int gx = gpufx_cuda_div_up (out.w, 8 * CTC_V * CTC_WARPS);
  const int groups = gpufx_cuda_div_up (out.h, 16);
  const int wave = std::max (gpufx_cuda_limits.sm_count, 1) * CTC_MINB;
  int       seq = 1;

  /* Row groups per block: fewer copies of the table, while there are
   * still 4 waves of blocks. */
  while (seq < 8
         && (long) gx * gpufx_cuda_div_up (groups, 2 * seq) >= 4L * wave)
    seq *= 2;

  dim3        grid (gx, gpufx_cuda_div_up (groups, seq));
  const float oscale = scale * ldexpf (1.0f, -conv_tc_k2);

  switch (nks)
    {
#define CTC_CASE(N)                                                            \
  case N:                                                                      \
    if ((*err = gpufx_cuda_allow_smem (conv_tc_kernel<N>, smem))               \
        == cudaSuccess)                                                        \
      {                                                                        \
        conv_tc_kernel<N><<<grid, 32 * CTC_WARPS, smem, stream>>> (            \
          g, in, out, mw, mh, seq, oscale, scale, offset);                     \
        *err = cudaGetLastError ();                                            \
      }                                                                        \
    break;
      CTC_CASE (1)
      CTC_CASE (2)
      CTC_CASE (3)
      CTC_CASE (4)
#undef CTC_CASE
    default: return false;
    }
  return true;
}

/* Shared memory for a block of ty thread rows and a chunk of matrix
 * rows: the tile (8 ty + chunk - 1 rows) and the chunk's weights. */
static size_t
conv_smem (size_t row_bytes, size_t wbytes, int ty, int chunk)
{
  return conv_align16 (row_bytes * (CONV_RPT * ty + chunk - 1))
         + wbytes * chunk;
}

template <int C, int MW>
static cudaError_t
conv_launch (const CudaGeom  &g,
             const CudaPlane &in,
             const CudaPlane &out,
             int              mw,
             int              mh,
             float            scale,
             float            offset,
             cudaStream_t     stream)
{
  /* Block shapes (threads across, thread rows), largest first. */
  static const int shapes[][2]
    = { { CONV_TX, CONV_TY }, { CONV_TX, 4 }, { CONV_TX, 2 },
        { CONV_TX, 1 },       { 16, 1 },      { 8, 1 } };
  const int   n_shapes = (int) (sizeof shapes / sizeof shapes[0]);
  size_t      budget = gpufx_cuda_limits.smem;
  size_t      wbytes = sizeof (float) * conv_wstride (mw);
  size_t      row_bytes = 0;
  int         s, bx = 0, ty = 0, chunk;
  size_t      smem;
  cudaError_t err;

  /* Leave room for two blocks per SM where the device allows it. */
  if (budget > 100 * 1024)
    budget = 100 * 1024;
  /* The largest block whose tile fits with at least one matrix row, then
   * the most matrix rows per chunk. */
  for (s = 0; s < n_shapes; s++)
    {
      bx = shapes[s][0];
      ty = shapes[s][1];
      row_bytes = sizeof (ConvPix<C>) * conv_row_px (conv_tile_w (bx, MW, mw));
      if (conv_smem (row_bytes, wbytes, ty, 1) <= budget)
        break;
    }
  if (s == n_shapes)
    return cudaErrorInvalidConfiguration;
  chunk = (int) ((budget - conv_smem (row_bytes, wbytes, ty, 0))
                 / (row_bytes + wbytes));
  /* (the weights' 16-byte alignment may take a few bytes more) */
  while (chunk > 1 && conv_smem (row_bytes, wbytes, ty, chunk) > budget)
    chunk--;
  if (chunk < 1)
    chunk = 1;
  if (chunk > mh)
    chunk = mh;
  smem = conv_smem (row_bytes, wbytes, ty, chunk);

  dim3 grid (gpufx_cuda_div_up (out.w, CONV_PX * bx),
             gpufx_cuda_div_up (out.h, CONV_RPT * ty));
  dim3 block (bx, ty);

  /* Square matrices of the compiled widths in one chunk: the height
   * known at compile time too. */
  auto kernel = MW && mh == MW && chunk == mh ? conv_kernel<C, MW, MW>
                                              : conv_kernel<C, MW, 0>;

  if ((err = gpufx_cuda_allow_smem (kernel, smem)) != cudaSuccess)
    return err;
  kernel<<<grid, block, smem, stream>>> (g, in, out, mw, mh, chunk, scale,
                                         offset);
  return cudaGetLastError ();
}

template <int C>
static cudaError_t
conv_launch_w (const CudaGeom  &g,
               const CudaPlane &in,
               const CudaPlane &out,
               int              mw,
               int              mh,
               float            scale,
               float            offset,
               cudaStream_t     stream)
{
  switch (mw)
    {
    case 3:
      return conv_launch<C, 3> (g, in, out, mw, mh, scale, offset, stream);
    case 5:
      return conv_launch<C, 5> (g, in, out, mw, mh, scale, offset, stream);
    case 7:
      return conv_launch<C, 7> (g, in, out, mw, mh, scale, offset, stream);
    case 9:
      return conv_launch<C, 9> (g, in, out, mw, mh, scale, offset, stream);
    case 13:
      return conv_launch<C, 13> (g, in, out, mw, mh, scale, offset, stream);
    default:
      return conv_launch<C, 0> (g, in, out, mw, mh, scale, offset, stream);
    }
}

cudaError_t
gpufx_cuda_convolve (const CudaGeom  &g,
                     const CudaPlane &in,
                     const CudaPlane &out,
                     int              mw,
                     int              mh,
                     float            scale,
                     float            offset,
                     cudaStream_t     stream)
{
  cudaError_t err;

  if (conv_tc_launch (g, in, out, mw, mh, scale, offset, stream, &err))
    return err;
  switch (g.channels)
    {
    case 1: return conv_launch_w<1> (g, in, out, mw, mh, scale, offset, stream);
    case 2: return conv_launch_w<2> (g, in, out, mw, mh, scale, offset, stream);
    case 3: return conv_launch_w<3> (g, in, out, mw, mh, scale, offset, stream);
    default:
      return conv_launch_w<4> (g, in, out, mw, mh, scale, offset, stream);
    }
}

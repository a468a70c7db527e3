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

/* Column pass on the tensor cores (sm_80 and later, long filters): each
 * warp walks a strip of 8 floats of a row down the image as matrix
 * products, mma.sync m16n8k16 in FP16 with FP32 sums.  A = the band of
 * taps for 16 output rows x 16 input rows (A[m][k] = w[16d + k - m], d =
 * the input step less the output block), B = 16 input rows x the strip's
 * 8 floats, C = 16 output rows x 8 floats.  Taps (scaled by a power of 2
 * into FP16's range) and inputs are each split into an FP16 part and an
 * FP16 remainder, and three products are summed (hi x hi + hi x lo + lo x
 * hi): 22 bits of each operand, float32-like results (for |x| < 1/8 the
 * remainder's FP16 spacing adds at most 3e-8 absolute).
 *
 * A lane's A fragments for every d are made once and stay in registers
 * (E tiles x 4 registers, parts and remainders).  Each step of 16 input
 * rows (B, split once) feeds every output block whose band covers it: the
 * E active blocks live in a ring of accumulators, and the step loop is
 * unrolled by E so that every slot is a constant.  Inputs come through a
 * per-warp shared ring filled by cp.async (TC_RS steps deep), border
 * mapped row by row, so the rows at the image's top and bottom run in the
 * same launch.
 *
 * Non-finite input (or |x| >= 65520, FP16's overflow): it spreads over its
 * whole accumulator column (0 x NaN in the band's zeros), so a warp that
 * made any non-finite output redoes its whole tile with the float taps in
 * the float kernel's order (same values and NaN pattern). */
#define TC_WARPS 4 /* warps per block: adjacent strips */
#ifndef TC_RS
#define TC_RS 8 /* shared ring depth, in steps of 16 rows (a power of 2) */
#endif
#ifndef TC_MINB
#define TC_MINB 3 /* blocks per SM for the register budget */
#endif
#define TC_PITCH 12 /* ring row pitch in floats: B reads conflict-free */

/* Output blocks of 16 rows per warp (tuners set it), and the smallest
 * filter that takes this path. */
static int taps_tc_blocks = 48;
static int taps_tc_min = 50;

/* Steps of 16 input rows that some tap of an output block reaches. */
static __host__ __device__ __forceinline__ int
tc_steps (int n_taps)
{
  return (n_taps + 14) / 16 + 1;
}

#if __CUDA_ARCH__ >= 800
/* Two floats as FP16 (first in the low half) and their remainders. */
static __device__ __forceinline__ void
tc_split (float x0, float x1, unsigned &hi, unsigned &lo)
{
  float f0, f1;

  asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(hi) : "f"(x1), "f"(x0));
  asm("{\n.reg .f16 l, h;\nmov.b32 {l, h}, %2;\ncvt.f32.f16 %0, l;\n"
      "cvt.f32.f16 %1, h;\n}\n"
      : "=f"(f0), "=f"(f1)
      : "r"(hi));
  asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(lo) : "f"(x1 - f1), "f"(x0 - f0));
}

static __device__ __forceinline__ void
tc_mma (float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#endif

template <int E>
__global__ void __launch_bounds__ (32 * TC_WARPS, TC_MINB)
  taps_cols_tc_kernel (CudaGeom  g,
                       CudaPlane in,
                       CudaPlane out,
                       int       n_taps,
                       int       first,
                       float     scale,
                       float     offset,
                       int       blocks_per_warp)
{
#if __CUDA_ARCH__ >= 800
  __shared__ float s_taps[16 + 16 * E];
  __shared__ __align__ (16) float s_ring[TC_WARPS][TC_RS][16 * TC_PITCH];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int gq = lane >> 2, tq = lane & 3;

  for (int i = threadIdx.x; i < 16 + 16 * E; i += blockDim.x)
    {
      int k = i - 16;

      s_taps[i] = k >= 0 && k < n_taps ? lines_taps[1][k] : 0.0f;
    }
  __syncthreads ();

  const int C = g.channels;
  const int row_len = out.w * C;
  const int e0 = (blockIdx.x * TC_WARPS + warp) * 8;
  const int y0 = blockIdx.y * blocks_per_warp * 16;

  if (e0 >= row_len || y0 >= out.h)
    return;

  const int nblk = min (blocks_per_warp, (out.h - y0 + 15) / 16);
  const int n_steps = nblk + E - 1;

  /* Taps times 2^k, the largest in [2^13, 2^14). */
  float wmax = 0.0f;
  for (int i = lane; i < 16 + 16 * E; i += 32)
    wmax = fmaxf (wmax, fabsf (s_taps[i]));
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
    wmax = fmaxf (wmax, __shfl_xor_sync (0xffffffffu, wmax, o));
  int wexp = 0;
  if (wmax > 0.0f)
    frexpf (wmax, &wexp);
  const int   k2 = min (max (14 - wexp, -126), 126);
  const float up = __int_as_float ((127 + k2) << 23);
  const float oscale = scale * __int_as_float ((127 - k2) << 23);

  /* A fragments of tile d: P(2d), P(2d - 1), P(2d + 1), P(2d), P(q) =
   * taps c + 8q and c + 8q + 1, c = 2 (lane % 4) - lane / 4. */
  unsigned ahi[E][4], alo[E][4];
#pragma unroll
  for (int d = 0; d < E; d++)
#pragma unroll
    for (int i = 0; i < 4; i++)
      {
        const int q = 2 * d + (i == 1 ? -1 : i == 2 ? 1 : 0);
        const int t = 16 + 2 * tq - gq + 8 * q;

        tc_split (s_taps[t] * up, s_taps[t + 1] * up, ahi[d][i], alo[d][i]);
      }

  /* Copies: lane copies 16 bytes, row lane / 2 of a step. */
  const float   *col = in.p + (ptrdiff_t) (out.x0 - in.x0) * C + e0;
  const int      need0 = out.y0 + first;
  const int      need1 = out.y0 + out.h - 1 + first + n_taps - 1;
  const int      pos0 = out.y0 + y0 + first;
  const int      ce = (lane & 1) * 4;
  const bool     ce_ok = e0 + ce < row_len;
  const float   *ring = s_ring[warp][0];
  const unsigned ring_sa = (unsigned) __cvta_generic_to_shared (ring)
                           + ((lane >> 1) * TC_PITCH + ce) * 4;

  /* Rows inside the image and the band's input: a plain pointer. */
  const int    lo = max (need0, 0), hi = min (need1, g.image_h - 1);
  const int    pos_l = pos0 + (lane >> 1);
  const float *fast = col + ce + (ptrdiff_t) (pos_l - in.y0) * in.pitch;

  auto copy = [&] (int s) {
    const int    pos = pos_l + 16 * s;
    const float *src = fast + (ptrdiff_t) (16 * s) * in.pitch;
    int          size = 16;

    if (pos < lo || pos > hi)
      {
        int yi = gpufx_border_index (min (max (pos, need0), need1), g.image_h,
                                     g.border);

        src = col + ce + (ptrdiff_t) (yi - in.y0) * in.pitch;
        if (yi < 0)
          size = 0;
      }
    if (! ce_ok || size == 0)
      {
        src = col;
        size = 0;
      }
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   ring_sa + (s & (TC_RS - 1)) * 16 * TC_PITCH * 4),
                 "l"(src), "r"(size));
  };

#pragma unroll
  for (int p = 0; p < TC_RS - 1; p++)
    {
      if (p < n_steps)
        copy (p);
      asm volatile("cp.async.commit_group;\n" ::);
    }

  /* B of step s: rows 2t, 2t + 1, 2t + 8, 2t + 9, float g, split; each
   * step loads the next one's before its mma's. */
  unsigned   bh0, bl0, bh1, bl1;
  const auto load_b
    = [&] (int s, unsigned &h0, unsigned &l0, unsigned &h1, unsigned &l1) {
        const float *sb
          = ring + (s & (TC_RS - 1)) * 16 * TC_PITCH + 2 * tq * TC_PITCH + gq;

        tc_split (sb[0], sb[TC_PITCH], h0, l0);
        tc_split (sb[8 * TC_PITCH], sb[9 * TC_PITCH], h1, l1);
      };
  asm volatile("cp.async.wait_group %0;\n" ::"n"(TC_RS - 2) : "memory");
  __syncwarp ();
  load_b (0, bh0, bl0, bh1, bl1);

  float acc[E][4];
  bool  bad = false;
  float offs[2];
#pragma unroll
  for (int i = 0; i < E; i++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      acc[i][k] = 0.0f;
#pragma unroll
  for (int v = 0; v < 2; v++)
    offs[v] = (e0 + 2 * tq + v) % C != g.alpha ? offset : 0.0f;

  /* Output row gq of block 0; block j is 16 j rows further. */
  float     *dst = out.p + (ptrdiff_t) (y0 + gq) * out.pitch + e0 + 2 * tq;
  const bool ex_ok = e0 + 2 * tq < row_len;

  /* Step s: block j = s - d takes tile d; block s - E, complete since
   * step s - 1, is stored first (one step late, so that its last mma's
   * have finished).  One more step (s = n_steps) stores the last. */
  for (int s0 = 0; s0 <= n_steps; s0 += E)
#pragma unroll
    for (int ss = 0; ss < E; ss++)
      {
        const int s = s0 + ss;
        const int j = s - E;
        unsigned  nh0 = 0, nl0 = 0, nh1 = 0, nl1 = 0;

        if (s > n_steps)
          break;
        if (s < n_steps)
          {
            /* Step s + 1 has arrived; step s - 1's slot is free. */
            asm volatile("cp.async.wait_group %0;\n" ::"n"(TC_RS - 3)
                         : "memory");
            __syncwarp ();
            if (s + TC_RS - 1 < n_steps)
              copy (s + TC_RS - 1);
            asm volatile("cp.async.commit_group;\n" ::);
            if (s + 1 < n_steps)
              load_b (s + 1, nh0, nl0, nh1, nl1);
          }
        if (j >= 0)
          {
            const float (&c)[4] = acc[ss];
            float *d = dst + (ptrdiff_t) (16 * j) * out.pitch;

#pragma unroll
            for (int i = 0; i < 4; i++)
              bad |= ! isfinite (c[i]);
#pragma unroll
            for (int hh = 0; hh < 2; hh++)
              if (y0 + 16 * j + gq + 8 * hh < out.h && ex_ok)
                *(float2 *) (d + (ptrdiff_t) (8 * hh) * out.pitch)
                  = make_float2 (c[2 * hh] * oscale + offs[0],
                                 c[2 * hh + 1] * oscale + offs[1]);
          }
        /* Then block j = s starts in slot s mod E, and the step's mma's
         * follow, the three products in three rounds so that consecutive
         * mma's are independent.  Blocks before the warp's first (s - d <
         * 0) or past its last (s - d >= nblk) only work on slots that are
         * zeroed before use or never stored, so they run unchecked. */
        if (s == n_steps)
          break;
#pragma unroll
        for (int i = 0; i < 4; i++)
          acc[ss][i] = 0.0f;
#pragma unroll
        for (int r = 0; r < 3; r++)
#pragma unroll
          for (int d = 0; d < E; d++)
            tc_mma (acc[(ss - d + E) % E], r == 0 ? alo[d] : ahi[d],
                    r == 1 ? bl0 : bh0, r == 1 ? bl1 : bh1);
        bh0 = nh0;
        bl0 = nl0;
        bh1 = nh1;
        bl1 = nl1;
      }

  if (__any_sync (0xffffffffu, bad))
    {
      /* Redo the tile with float taps, as taps_cols_kernel does. */
      __syncwarp ();
      for (int i = lane; i < nblk * 16 * 8; i += 32)
        {
          const int y = y0 + i / 8, ex = e0 + i % 8;

          if (y >= out.h || ex >= row_len)
            continue;

          CtFetchBorder<1> fetch
            = { col + i % 8, in.pitch, out.y0 + y + first, need0,
                need1,       in.y0,    g.image_h,          g.border };
          float a[1][1];

          taps_slide<1, 1, LinesPix<1>> (a, n_taps, lines_taps[1], fetch);
          out.p[(ptrdiff_t) y * out.pitch + ex]
            = a[0][0] * scale + (ex % C != g.alpha ? offset : 0.0f);
        }
    }
#endif
}

/* Whether the device runs taps_cols_tc_kernel (sm_80 and later). */
static bool
taps_have_tc (void)
{
  static int major = -1;

  if (major < 0)
    {
      int dev = 0;

      if (cudaGetDevice (&dev) != cudaSuccess
          || cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
                                     dev)
               != cudaSuccess)
        {
          cudaGetLastError ();
          major = 0;
        }
    }
  return major >= 8;
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
  const int steps = tc_steps (n_taps);

  /* Long filters on the tensor cores where rows allow 16-byte copies. */
  if (vec && n_taps >= taps_tc_min && steps >= 5 && steps <= 9
      && taps_have_tc ())
    {
      /* Blocks of 16 rows, shared evenly among the warps of a strip; small
       * images take more, shorter segments, up to one wave of warps. */
      const int strips = gpufx_cuda_div_up ((long) out.w * g.channels, 8);
      const int blocks = gpufx_cuda_div_up (out.h, 16);
      const int wave = max (gpufx_cuda_limits.sm_count, 1) * 4 * TC_MINB;
      const int segs
        = max ((int) gpufx_cuda_div_up (blocks, taps_tc_blocks),
               min (blocks, (int) gpufx_cuda_div_up (wave, strips)));
      const int bpw = gpufx_cuda_div_up (blocks, segs);
      dim3      grid (gpufx_cuda_div_up (strips, TC_WARPS),
                      gpufx_cuda_div_up (blocks, bpw));

      switch (steps)
        {
#define TC_CASE(E)                                                             \
  case E:                                                                      \
    taps_cols_tc_kernel<E><<<grid, 32 * TC_WARPS, 0, stream>>> (               \
      g, in, out, n_taps, first, scale, offset, bpw);                          \
    break;
          TC_CASE (5)
          TC_CASE (6)
          TC_CASE (7)
          TC_CASE (8)
          TC_CASE (9)
#undef TC_CASE
        }
      return cudaGetLastError ();
    }

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

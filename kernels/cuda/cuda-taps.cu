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

/* Both passes on the tensor cores (sm_80 and later, long filters): each
 * warp walks 8 lines along the axis as matrix products, mma.sync
 * m16n8k16 in FP16 with FP32 sums.  A = the band of taps for 16 outputs x
 * 16 inputs (A[m][k] = w[16d + k - m], d = the input step less the output
 * block), B = 16 inputs x the warp's 8 lines, C = 16 outputs x 8 lines.
 * The column pass's lines are 8 adjacent floats of a row; the row pass's
 * (RGBA only) are 2 image rows x 4 channels, so a step of 16 pixels of
 * both rows is one 16-byte copy per lane.  Taps (scaled by a power of 2
 * into FP16's range) and inputs are each split into an FP16 part and an
 * FP16 remainder, and three products are summed (hi x hi + hi x lo + lo x
 * hi): 22 bits of each operand, float32-like results (for |x| < 1/8 the
 * remainder's FP16 spacing adds at most 3e-8 absolute).
 *
 * The tensor cores truncate their sums to the largest term's exponent (no
 * round to nearest), so a long chain of mma's on one accumulator drifts
 * (~1e-5 of the running sum after 27 of them, all three products of 9
 * steps).  Two ways keep that off the result (tc_split_sums picks, as
 * measured on an H200):
 * - split chains: hi x hi alone chains on the block's sum (9 truncations
 *   at E = 9), and the two small products, 2^-11 of it, on a second
 *   accumulator added at the end: no float add per step;
 * - fresh: each step's three products go into a fresh accumulator, added
 *   to the block's sum with a float add (4 per tile and step).
 * Both stay within 2.2e-6 of the sum of the terms' magnitudes against a
 * double reference, on [-250, 1000] (fresh 3-5x closer) and on noise with
 * 1e5 spikes (both alike).
 *
 * A lane's A fragments for every d are made once: the parts stay in
 * registers (E tiles x 4), the remainders too below E = TC_ALO_SMEM, else
 * in shared memory, read per step.  Each step of 16 inputs
 * (B, split once) feeds every output block whose band covers it: the E
 * active blocks live in a ring of accumulators, and the step loop is
 * unrolled by E so that every slot is a constant.  Inputs come through a
 * per-warp shared ring filled by cp.async (TC_RS steps deep), border
 * mapped per row (columns) or pixel (rows), so the image's edges run in
 * the same launch.
 *
 * Non-finite input (or |x| >= 65520, FP16's overflow): it spreads over its
 * whole accumulator column (0 x NaN in the band's zeros), so a warp that
 * made any non-finite output redoes its whole tile with the float taps in
 * the float kernels' order (same values and NaN pattern). */
#define TC_WARPS 4 /* warps per block: adjacent strips */
#ifndef TC_RS
#define TC_RS 8 /* shared ring depth, in steps of 16 inputs (a power of 2) */
#endif
#ifndef TC_MINB
#define TC_MINB 3 /* blocks per SM for the register budget */
#endif
#ifndef TC_ALO_SMEM
#define TC_ALO_SMEM 6 /* from this E on, the taps' remainders in shared */
#endif
/* Ring layout of a step, conflict-free for the B reads: columns 16 input
 * rows at a pitch of TC_PITCH floats (8 used), rows 2 image rows of 16
 * pixels at a pitch of TC_RPITCH floats. */
#define TC_PITCH  12
#define TC_RPITCH 68
#define TC_STEPF  (16 * TC_PITCH)

/* Per axis (0 rows, 1 columns): output blocks of 16 per warp (tuners set
 * it), and the smallest filter that takes this path. */
static int taps_tc_blocks[2] = { 48, 48 };
static int taps_tc_min[2] = { 50, 50 };

/* Split chains (above), except at E = 7, where fresh accumulators
 * measured 1.5% faster (H200: split -4% at E = 6, -8% at E = 8 and 9). */
static __host__ __device__ constexpr bool
tc_split_sums (int e)
{
  return e != 7;
}

/* Steps of 16 inputs that some tap of an output block reaches. */
static __host__ __device__ __forceinline__ int
tc_steps (int n_taps)
{
  return (n_taps + 14) / 16 + 1;
}

/* The kernel's static shared memory (taps, ring, remainders). */
static size_t
tc_smem (int e)
{
  return sizeof (float) * (16 + 16 * e)
         + sizeof (float) * TC_WARPS * TC_RS * TC_STEPF
         + sizeof (uint4) * 32 * e;
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

/* d = a x b + c, a as the taps keep it. */
static __device__ __forceinline__ void
tc_mma (float (&d)[4],
        const unsigned (&a)[4],
        unsigned b0,
        unsigned b1,
        const float (&c)[4])
{
  gpufx_cuda_mma_f16 (d, make_uint4 (a[0], a[1], a[2], a[3]),
                      make_uint2 (b0, b1), c);
}
#endif

template <int E, bool ROWS>
__global__ void __launch_bounds__ (32 * TC_WARPS, TC_MINB)
  taps_tc_kernel (CudaGeom  g,
                  int       slot,
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
  __shared__ __align__ (16) float s_ring[TC_WARPS][TC_RS][TC_STEPF];
  __shared__ uint4                s_alo[E][32];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int gq = lane >> 2, tq = lane & 3;

  for (int i = threadIdx.x; i < 16 + 16 * E; i += blockDim.x)
    {
      int k = i - 16;

      s_taps[i] = k >= 0 && k < n_taps ? lines_taps[slot][k] : 0.0f;
    }
  __syncthreads ();

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
  /* From E = TC_ALO_SMEM on, the remainders stay in shared memory (the
   * same for every warp) and are read per step: at E = 9 the registers
   * otherwise spill, and at E = 6..8 this measured as fast or faster. */
  const bool alo_smem = E >= TC_ALO_SMEM;
  if (alo_smem)
    {
      if (warp == 0)
#pragma unroll
        for (int d = 0; d < E; d++)
          s_alo[d][lane]
            = make_uint4 (alo[d][0], alo[d][1], alo[d][2], alo[d][3]);
      __syncthreads ();
    }

  /* Along the axis: len outputs, output 0 at image position out_0.  The
   * warp's lines start at e0: a float of the row (columns) or a row. */
  const int C = g.channels;
  const int row_len = out.w * C;
  const int len = ROWS ? out.w : out.h;
  const int out_0 = ROWS ? out.x0 : out.y0;
  const int in_0 = ROWS ? in.x0 : in.y0;
  const int e0 = (blockIdx.x * TC_WARPS + warp) * (ROWS ? 2 : 8);
  const int y0 = blockIdx.y * blocks_per_warp * 16;

  if (e0 >= (ROWS ? out.h : row_len) || y0 >= len)
    return;

  const int nblk = min (blocks_per_warp, (len - y0 + 15) / 16);
  const int n_steps = nblk + E - 1;

  /* Line n's input position p (image coordinates) is at line (n) + (p -
   * in_0) * dpos. */
  const ptrdiff_t dpos = ROWS ? C : in.pitch;
  const auto      line = [&] (int n) {
    return ROWS ? in.p + (ptrdiff_t) (out.y0 + e0 + n / C - in.y0) * in.pitch
                    + n % C
                     : in.p + (ptrdiff_t) (out.x0 - in.x0) * C + e0 + n;
  };

  /* Copies: each lane 16 bytes of a step: columns row lane / 2, floats
   * (lane % 2) x 4; rows row lane / 16, pixel lane % 16. */
  const int      need0 = out_0 + first;
  const int      need1 = out_0 + len - 1 + first + n_taps - 1;
  const int      pos0 = out_0 + y0 + first;
  const int      cl = ROWS ? (lane >> 4) * 4 : (lane & 1) * 4;
  const int      cp = ROWS ? lane & 15 : lane >> 1;
  const bool     cl_ok = ROWS ? e0 + cl / 4 < out.h : e0 + cl < row_len;
  const float   *cline = line (cl);
  const float   *ring = s_ring[warp][0];
  const unsigned ring_sa
    = (unsigned) __cvta_generic_to_shared (ring)
      + (ROWS ? (cl / 4) * TC_RPITCH + cp * 4 : cp * TC_PITCH + cl) * 4;

  /* Inputs inside the image and the band's input: no border map. */
  const int lo = max (need0, 0),
            hi = min (need1, (ROWS ? g.image_w : g.image_h) - 1);
  const int pos_l = pos0 + cp;

  auto copy = [&] (int s) {
    const int    pos = pos_l + 16 * s;
    int          pi = pos, size = 16;
    const float *src;

    if (pos < lo || pos > hi)
      pi = gpufx_border_index (min (max (pos, need0), need1),
                               ROWS ? g.image_w : g.image_h, g.border);
    src = cline + (ptrdiff_t) (pi - in_0) * dpos;
    if (! cl_ok || pi < 0)
      {
        src = in.p;
        size = 0;
      }
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   ring_sa + (s & (TC_RS - 1)) * TC_STEPF * 4),
                 "l"(src), "r"(size));
  };

#pragma unroll
  for (int p = 0; p < TC_RS - 1; p++)
    {
      if (p < n_steps)
        copy (p);
      asm volatile("cp.async.commit_group;\n" ::);
    }

  /* B of step s: inputs 2t, 2t + 1, 2t + 8, 2t + 9 of line g, split; each
   * step loads the next one's before its mma's. */
  const int dk = ROWS ? 4 : TC_PITCH;
  const int boff
    = ROWS ? (gq >> 2) * TC_RPITCH + (gq & 3) + 8 * tq : 2 * tq * TC_PITCH + gq;
  unsigned   bh0, bl0, bh1, bl1;
  const auto load_b
    = [&] (int s, unsigned &h0, unsigned &l0, unsigned &h1, unsigned &l1) {
        const float *sb = ring + (s & (TC_RS - 1)) * TC_STEPF + boff;

        tc_split (sb[0], sb[dk], h0, l0);
        tc_split (sb[8 * dk], sb[9 * dk], h1, l1);
      };
  asm volatile("cp.async.wait_group %0;\n" ::"n"(TC_RS - 2) : "memory");
  __syncwarp ();
  load_b (0, bh0, bl0, bh1, bl1);

  constexpr bool SPLIT = tc_split_sums (E);
  float          acc[E][4], cor[SPLIT ? E : 1][4];
  bool           bad = false;
  float          offs[2];
  const float    zero[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
#pragma unroll
  for (int i = 0; i < E; i++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      acc[i][k] = cor[SPLIT ? i : 0][k] = 0.0f;
#pragma unroll
  for (int v = 0; v < 2; v++)
    offs[v] = ((ROWS ? 0 : e0) + 2 * tq + v) % C != g.alpha ? offset : 0.0f;

  /* The lane's outputs: position gq (+ 8) of block 0 along the axis, lines
   * 2t and 2t + 1; block j is 16 j positions further. */
  const ptrdiff_t dout = ROWS ? C : out.pitch;
  float          *dst = out.p + (ptrdiff_t) (y0 + gq) * dout
               + (ROWS ? (ptrdiff_t) (e0 + tq / 2) * out.pitch + 2 * (tq & 1)
                       : e0 + 2 * tq);
  const bool ex_ok = ROWS ? e0 + tq / 2 < out.h : e0 + 2 * tq < row_len;

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
            float  c[4];
            float *d = dst + (ptrdiff_t) (16 * j) * dout;

#pragma unroll
            for (int i = 0; i < 4; i++)
              c[i] = SPLIT ? acc[ss][i] + cor[SPLIT ? ss : 0][i] : acc[ss][i];

#pragma unroll
            for (int i = 0; i < 4; i++)
              bad |= ! isfinite (c[i]);
#pragma unroll
            for (int hh = 0; hh < 2; hh++)
              if (y0 + 16 * j + gq + 8 * hh < len && ex_ok)
                *(float2 *) (d + (ptrdiff_t) (8 * hh) * dout)
                  = make_float2 (c[2 * hh] * oscale + offs[0],
                                 c[2 * hh + 1] * oscale + offs[1]);
          }
        /* Then block j = s starts in slot s mod E, and the step's mma's
         * follow: lo x hi, hi x lo, hi x hi.  Blocks before the warp's
         * first (s - d < 0) or past its last (s - d >= nblk) only work on
         * slots that are zeroed before use or never stored, so they run
         * unchecked. */
        if (s == n_steps)
          break;
#pragma unroll
        for (int i = 0; i < 4; i++)
          acc[ss][i] = cor[SPLIT ? ss : 0][i] = 0.0f;
#pragma unroll
        for (int d = 0; d < E; d++)
          {
            float (&a)[4] = acc[(ss - d + E) % E];
            unsigned al[4];

            if (alo_smem)
              {
                const uint4 q = s_alo[d][lane];

                al[0] = q.x;
                al[1] = q.y;
                al[2] = q.z;
                al[3] = q.w;
              }
            else
#pragma unroll
              for (int i = 0; i < 4; i++)
                al[i] = alo[d][i];
            if (SPLIT)
              {
                float (&k)[4] = cor[SPLIT ? (ss - d + E) % E : 0];

                tc_mma (k, al, bh0, bh1, k);
                tc_mma (k, ahi[d], bl0, bl1, k);
                tc_mma (a, ahi[d], bh0, bh1, a);
              }
            else
              {
                float t[4];

                tc_mma (t, al, bh0, bh1, zero);
                tc_mma (t, ahi[d], bl0, bl1, t);
                tc_mma (t, ahi[d], bh0, bh1, t);
#pragma unroll
                for (int i = 0; i < 4; i++)
                  a[i] += t[i];
              }
          }
        bh0 = nh0;
        bl0 = nl0;
        bh1 = nh1;
        bl1 = nl1;
      }

  if (__any_sync (0xffffffffu, bad))
    {
      /* Redo the tile with float taps, as the float kernels do. */
      __syncwarp ();
      for (int i = lane; i < nblk * 16 * 8; i += 32)
        {
          const int y = y0 + i / 8, n = i % 8;
          const int r = ROWS ? e0 + n / C : 0;

          if (y >= len || (ROWS ? r >= out.h : e0 + n >= row_len))
            continue;

          CtFetchBorder<1> fetch = { line (n),
                                     dpos,
                                     out_0 + y + first,
                                     need0,
                                     need1,
                                     in_0,
                                     ROWS ? g.image_w : g.image_h,
                                     g.border };
          float            a[1][1];
          const int        f = ROWS ? n % C : e0 + n;

          taps_slide<1, 1, LinesPix<1>> (a, n_taps, lines_taps[slot], fetch);
          out.p[(ptrdiff_t) (ROWS ? r : y) * out.pitch
                + (ROWS ? (ptrdiff_t) y * C + f : f)]
            = a[0][0] * scale + (f % C != g.alpha ? offset : 0.0f);
        }
    }
#endif
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

/* Whether both planes allow 16-byte copies of 4 floats along a row. */
static bool
taps_planes_vec (const CudaGeom &g, const CudaPlane &in, const CudaPlane &out)
{
  return (out.w * g.channels) % 4 == 0 && in.pitch % 4 == 0
         && out.pitch % 4 == 0 && ((out.x0 - in.x0) * g.channels) % 4 == 0
         && ((uintptr_t) in.p & 15) == 0 && ((uintptr_t) out.p & 15) == 0;
}

/* Long filters on the tensor cores, where the planes allow 16-byte copies
 * (and, for rows, pixels are RGBA): true when launched (err set). */
static bool
taps_tc_launch (const CudaGeom  &g,
                int              axis,
                const CudaPlane &in,
                const CudaPlane &out,
                int              n_taps,
                int              first,
                float            scale,
                float            offset,
                cudaStream_t     stream,
                cudaError_t     *err)
{
  const int steps = tc_steps (n_taps);
  const int row_len = out.w * g.channels;

  if (n_taps < taps_tc_min[axis] || steps < 5 || steps > 9
      || (axis == 0 && g.channels != 4) || ! taps_planes_vec (g, in, out)
      || (size_t) gpufx_cuda_limits.smem < tc_smem (steps)
      || gpufx_cuda_limits.cc_major < 8)
    return false;

  /* Blocks of 16 outputs, shared evenly among the warps of a strip (8
   * lines); small images take more, shorter segments, up to one wave of
   * warps. */
  const int strips
    = axis == 0 ? gpufx_cuda_div_up (out.h, 2) : gpufx_cuda_div_up (row_len, 8);
  const int blocks = gpufx_cuda_div_up (axis == 0 ? out.w : out.h, 16);
  const int wave = max (gpufx_cuda_limits.sm_count, 1) * 4 * TC_MINB;
  const int segs = max ((int) gpufx_cuda_div_up (blocks, taps_tc_blocks[axis]),
                        min (blocks, (int) gpufx_cuda_div_up (wave, strips)));
  const int bpw = gpufx_cuda_div_up (blocks, segs);
  dim3      grid (gpufx_cuda_div_up (strips, TC_WARPS),
                  gpufx_cuda_div_up (blocks, bpw));

  switch (steps * 2 + (axis == 0))
    {
#define TC_CASE(E, R)                                                          \
  case E * 2 + R:                                                              \
    taps_tc_kernel<E, R><<<grid, 32 * TC_WARPS, 0, stream>>> (                 \
      g, axis, in, out, n_taps, first, scale, offset, bpw);                    \
    break;
      TC_CASE (5, 0)
      TC_CASE (6, 0)
      TC_CASE (7, 0)
      TC_CASE (8, 0)
      TC_CASE (9, 0)
      TC_CASE (5, 1)
      TC_CASE (6, 1)
      TC_CASE (7, 1)
      TC_CASE (8, 1)
      TC_CASE (9, 1)
#undef TC_CASE
    }
  *err = cudaGetLastError ();
  return true;
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
  cudaError_t err;

  if (n_taps < 1 || n_taps > LINES_MAX_TAPS)
    return cudaErrorInvalidValue;
  if (taps_tc_launch (g, axis, in, out, n_taps, first, scale, offset, stream,
                      &err))
    return err;
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
  const bool vec = taps_planes_vec (g, in, out);
  dim3       grid (gpufx_cuda_div_up (row_len, CT_TX * (vec ? 4 : 1)),
                   gpufx_cuda_div_up (out.h, CT_TY * CT_P));
  dim3       block (CT_TX, CT_TY);

  if (vec)
    taps_cols_kernel<4><<<grid, block, 0, stream>>> (g, 1, in, out, n_taps,
                                                     first, scale, offset);
  else
    taps_cols_kernel<1><<<grid, block, 0, stream>>> (g, 1, in, out, n_taps,
                                                     first, scale, offset);
  return cudaGetLastError ();
}

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

/* MW: the matrix width when known at compile time (0: any), so that the
 * loops along a matrix row unroll and its weight and pixel offsets become
 * immediates.  Matrix columns go in groups of 4: the group's pixels (7 for
 * 4 adjacent outputs, 3 of them kept from the group before) come once
 * per tile row, and each output row's 4 weights in one broadcast float4;
 * each weight then feeds 4 pixels of C channels. */
template <int C, int MW>
__global__ void
__launch_bounds__ (CONV_TX *CONV_TY, 2) conv_kernel (CudaGeom  g,
                                                     CudaPlane in,
                                                     CudaPlane out,
                                                     int       mw_rt,
                                                     int       mh,
                                                     int       chunk,
                                                     float     scale,
                                                     float     offset)
{
  extern __shared__ float4 conv_smem4[];
  const int                mw = MW ? MW : mw_rt;
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
  float acc[CONV_RPT][CONV_PX][C];

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
      const int kh = min (chunk, mh - j0);
      const int th = TH + kh - 1;

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
          ConvPix<C> *dst = tile + r * rs;

          for (int q = tx; q < tw; q += bx)
            {
              int xi = -1;

              /* (zero, not the image, past the matrix's reach: a zero
               * weight times an infinite pixel would make a NaN) */
              if (q < tw_used)
                xi = gpufx_border_index (
                  max (min (out.x0 + ox0 - left + q, need_x1), need_x0),
                  g.image_w, g.border);
              if (src && xi >= 0)
                conv_copy<C> (dst + (q & 3) * ps + (q >> 2),
                              src + (ptrdiff_t) (xi - in.x0) * C);
              else
                {
                  ConvPix<C> v;

#pragma unroll
                  for (int c = 0; c < C; c++)
                    v.v[c] = 0.0f;
                  dst[(q & 3) * ps + (q >> 2)] = v;
                }
            }
        }
      conv_copy_wait ();
      __syncthreads ();

      /* Tile row t feeds output row o through matrix row j = t - o. */
      for (int t = 0; t < CONV_RPT + kh - 1; t++)
        {
          /* The thread's pixel k (tile column 4 tx + k) is at
           * row[(k & 3) * ps + (k >> 2)]. */
          const ConvPix<C> *row = tile + (ty * CONV_RPT + t) * rs + tx;
          ConvPix<C>        v[7];

#pragma unroll
          for (int k = 0; k < 3; k++)
            v[4 + k] = row[k * ps];
#pragma unroll(MW ? 16 : 1)
          for (int gi = 0; gi < ng; gi++)
            {
              /* Group gi: matrix columns 4 gi .. 4 gi + ni - 1 and
               * pixels 4 gi + k, k < ni + 3.  Each output row's weights
               * load under its branch (the compiler sinks loads placed
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
                if (t - o >= 0 && t - o < kh)
                  {
                    const float4 q
                      = *(const float4 *) (wsh + (t - o) * ws + 4 * gi);
                    const float w[4] = { q.x, q.y, q.z, q.w };

#pragma unroll
                    for (int ii = 0; ii < 4; ii++)
                      if (ii < ni)
#pragma unroll
                        for (int p = 0; p < CONV_PX; p++)
#pragma unroll
                          for (int c = 0; c < C; c++)
                            acc[o][p][c]
                              = fmaf (w[ii], v[ii + p].v[c], acc[o][p][c]);
                  }
            }
        }
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

cudaError_t
gpufx_cuda_convolve_upload (const float *matrix, int mw, int mh)
{
  return cudaMemcpyToSymbol (conv_matrix, matrix, sizeof (float) * mw * mh, 0,
                             cudaMemcpyHostToDevice);
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

  if ((err = gpufx_cuda_allow_smem (conv_kernel<C, MW>, smem)) != cudaSuccess)
    return err;
  conv_kernel<C, MW>
    <<<grid, block, smem, stream>>> (g, in, out, mw, mh, chunk, scale, offset);
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
  switch (g.channels)
    {
    case 1: return conv_launch_w<1> (g, in, out, mw, mh, scale, offset, stream);
    case 2: return conv_launch_w<2> (g, in, out, mw, mh, scale, offset, stream);
    case 3: return conv_launch_w<3> (g, in, out, mw, mh, scale, offset, stream);
    default:
      return conv_launch_w<4> (g, in, out, mw, mh, scale, offset, stream);
    }
}

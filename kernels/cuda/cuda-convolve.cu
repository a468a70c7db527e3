/* gimp-gpu-filters: 2-D convolution (correlation) with a full matrix.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A block of 32 x 4 threads makes a 32 x 32 tile of outputs; each thread
 * makes 8 consecutive rows of one column (register blocking).  The block
 * loads the tile and its halo into shared memory once, border mapped; the
 * matrix sits in constant memory (63 x 63 floats fit).  Each value read
 * from shared memory serves the thread's 8 outputs, so shared-memory
 * traffic is one load per tile row and matrix column rather than one per
 * weight.  Matrices whose halo does not fit the shared-memory budget run
 * in chunks of matrix rows; where even one matrix row's tile does not fit
 * (a 63-wide RGBA matrix needs 64.5 KB with 4 thread rows, more than
 * Turing's 64 KB or a 48 KB budget), blocks take 2 or 1 thread rows
 * (16 or 8 output rows) instead of 4.
 */
#include "cuda-internal.h"

#define CONV_PX  2              /* pixels per thread, 32 apart  */
#define CONV_TW  (32 * CONV_PX) /* outputs per block, across */
#define CONV_RPT 8              /* rows per thread             */
#define CONV_TY  4 /* thread rows per block, at most (blockDim.y) */

/* Floats per matrix row in shared memory: with the width known, rows are
 * padded to whole float4s so that 4 weights come in one 16-byte load. */
static __host__ __device__ __forceinline__ int
conv_wstride (int MW, int mw)
{
  return MW ? (MW + 3) / 4 * 4 : mw;
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

/* MW: the matrix width when known at compile time (0: any), so that the
 * loop along a matrix row unrolls and its weight and pixel offsets become
 * immediates.  Each shared-memory pixel read feeds CONV_RPT outputs
 * (through the matrix rows j = t - o), and each weight read feeds
 * CONV_PX pixels of C channels. */
template <int C, int MW>
__global__ void __launch_bounds__ (32 * CONV_TY) conv_kernel (CudaGeom  g,
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
  const int                ws = conv_wstride (MW, mw);
  ConvPix<C>              *tile = (ConvPix<C> *) conv_smem4;
  float                   *wsh;
  const int                tx = threadIdx.x, ty = threadIdx.y;
  const int                tid = ty * 32 + tx;
  const int                nthreads = 32 * blockDim.y;
  const int CONV_TH = CONV_RPT * blockDim.y; /* output rows per block */
  const int ox0 = blockIdx.x * CONV_TW, oy0 = blockIdx.y * CONV_TH;
  const int left = mw / 2, top = mh / 2;
  const int tw = CONV_TW + mw - 1;
  /* The input the band's valid outputs need; tile positions beyond it
   * feed only outputs that are not written, so they read its edge. */
  const int need_x0 = out.x0 - left,
            need_x1 = out.x0 + out.w - 1 + (mw - 1 - left);
  const int need_y0 = out.y0 - top,
            need_y1 = out.y0 + out.h - 1 + (mh - 1 - top);
  float acc[CONV_RPT][CONV_PX][C];

  /* The weights start 16-byte aligned (float4 loads). */
  wsh = (float *) ((char *) conv_smem4
                   + conv_align16 (sizeof (ConvPix<C>) * tw
                                   * (CONV_TH + chunk - 1)));

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
      const int th = CONV_TH + kh - 1;

      for (int idx = tid; idx < kh * mw; idx += nthreads)
        {
          int jj = idx / mw;

          wsh[jj * ws + idx - jj * mw] = conv_matrix[j0 * mw + idx];
        }
      for (int idx = tid; idx < tw * th; idx += nthreads)
        {
          int r = idx / tw, q = idx - r * tw;
          int x = min (out.x0 + ox0 - left + q, need_x1);
          int y = min (out.y0 + oy0 - top + j0 + r, need_y1);
          int xi = gpufx_border_index (max (x, need_x0), g.image_w, g.border);
          int yi = gpufx_border_index (max (y, need_y0), g.image_h, g.border);
          ConvPix<C> v;

          if (xi >= 0 && yi >= 0)
            /* A plain load: the read-only path (__ldg) measured 8% slower
             * here. */
            v = *(const ConvPix<C> *) (in.p
                                       + (ptrdiff_t) (yi - in.y0) * in.pitch
                                       + (ptrdiff_t) (xi - in.x0) * C);
          else
#pragma unroll
            for (int c = 0; c < C; c++)
              v.v[c] = 0.0f;
          tile[idx] = v;
        }
      __syncthreads ();

      /* Tile row t feeds output row o through matrix row j = t - o. */
      if (MW)
        /* Matrix columns in groups of 4: the group's pixels are loaded
         * once, and each output row's 4 weights come in one float4
         * (broadcast), so there are 2 shared loads per 32 FMAs (RGBA)
         * where one weight per load gave 5 per 32. */
        for (int t = 0; t < CONV_RPT + kh - 1; t++)
          {
            const ConvPix<C> *row = tile + (ty * CONV_RPT + t) * tw + tx;

#pragma unroll
            for (int i0 = 0; i0 < (MW ? MW : 1); i0 += 4)
              {
                const int  ni = MW - i0 < 4 ? MW - i0 : 4;
                ConvPix<C> v[4][CONV_PX];

#pragma unroll
                for (int ii = 0; ii < ni; ii++)
#pragma unroll
                  for (int p = 0; p < CONV_PX; p++)
                    v[ii][p] = row[i0 + ii + 32 * p];
#pragma unroll
                for (int o = 0; o < CONV_RPT; o++)
                  {
                    int j = t - o;

                    if (j >= 0 && j < kh)
                      {
                        const float *wr = wsh + j * ws + i0;
                        float        w[4];

                        if (ni == 4)
                          {
                            float4 q = *(const float4 *) wr;

                            w[0] = q.x;
                            w[1] = q.y;
                            w[2] = q.z;
                            w[3] = q.w;
                          }
                        else
#pragma unroll
                          for (int ii = 0; ii < ni; ii++)
                            w[ii] = wr[ii];
#pragma unroll
                        for (int ii = 0; ii < ni; ii++)
#pragma unroll
                          for (int p = 0; p < CONV_PX; p++)
#pragma unroll
                            for (int c = 0; c < C; c++)
                              acc[o][p][c]
                                = fmaf (w[ii], v[ii][p].v[c], acc[o][p][c]);
                      }
                  }
              }
          }
      else
        for (int t = 0; t < CONV_RPT + kh - 1; t++)
          {
            const ConvPix<C> *row = tile + (ty * CONV_RPT + t) * tw + tx;
            const float      *wrow = wsh + t * mw;

#pragma unroll 4
            for (int i = 0; i < mw; i++)
              {
                ConvPix<C> v[CONV_PX];

#pragma unroll
                for (int p = 0; p < CONV_PX; p++)
                  v[p] = row[i + 32 * p];
#pragma unroll
                for (int o = 0; o < CONV_RPT; o++)
                  {
                    int j = t - o;

                    if (j >= 0 && j < kh)
                      {
                        float w = wrow[i - o * mw];

#pragma unroll
                        for (int p = 0; p < CONV_PX; p++)
#pragma unroll
                          for (int c = 0; c < C; c++)
                            acc[o][p][c] = fmaf (w, v[p].v[c], acc[o][p][c]);
                      }
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
        int x = ox0 + tx + 32 * p, y = oy0 + ty * CONV_RPT + o;

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
  const int   tw = CONV_TW + mw - 1;
  size_t      budget = gpufx_cuda_limits.smem;
  size_t      row_bytes = sizeof (ConvPix<C>) * tw;
  size_t      wbytes = sizeof (float) * conv_wstride (MW, mw);
  int         ty, chunk;
  size_t      smem;
  cudaError_t err;

  /* Leave room for two blocks per SM where the device allows it. */
  if (budget > 100 * 1024)
    budget = 100 * 1024;
  /* The most thread rows (4, else 2, else 1) whose tile fits with at
   * least one matrix row, then the most matrix rows per chunk. */
  for (ty = CONV_TY; ty > 1; ty /= 2)
    if (conv_smem (row_bytes, wbytes, ty, 1) <= budget)
      break;
  if (conv_smem (row_bytes, wbytes, ty, 1) > budget)
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

  dim3 grid (gpufx_cuda_div_up (out.w, CONV_TW),
             gpufx_cuda_div_up (out.h, CONV_RPT * ty));
  dim3 block (32, ty);

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

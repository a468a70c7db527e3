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
 * in chunks of matrix rows.
 */
#include "cuda-internal.h"

#define CONV_TW   32      /* outputs per block, across   */
#define CONV_RPT  8       /* rows per thread             */
#define CONV_TY   4       /* thread rows per block       */
#define CONV_TH   (CONV_RPT * CONV_TY)

__constant__ float conv_matrix[GPUFX_MATRIX_MAX * GPUFX_MATRIX_MAX];

template <int C>
__global__ void __launch_bounds__ (CONV_TW * CONV_TY)
conv_kernel (CudaGeom g, CudaPlane in, CudaPlane out, int mw, int mh,
             int chunk, float scale, float offset)
{
  extern __shared__ float4 conv_smem4[];
  float    *tile = (float *) conv_smem4;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * CONV_TW + tx;
  const int ox0 = blockIdx.x * CONV_TW, oy0 = blockIdx.y * CONV_TH;
  const int left = mw / 2, top = mh / 2;
  const int tw = CONV_TW + mw - 1;
  /* The input the band's valid outputs need; tile positions beyond it
   * feed only outputs that are not written, so they read its edge. */
  const int need_x0 = out.x0 - left, need_x1 = out.x0 + out.w - 1 + (mw - 1 - left);
  const int need_y0 = out.y0 - top, need_y1 = out.y0 + out.h - 1 + (mh - 1 - top);
  float     acc[CONV_RPT][C];

#pragma unroll
  for (int o = 0; o < CONV_RPT; o++)
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[o][c] = 0.0f;

  for (int j0 = 0; j0 < mh; j0 += chunk)
    {
      const int kh = min (chunk, mh - j0);
      const int th = CONV_TH + kh - 1;

      for (int idx = tid; idx < tw * th; idx += CONV_TW * CONV_TY)
        {
          int   r = idx / tw, q = idx - r * tw;
          int   x = min (out.x0 + ox0 - left + q, need_x1);
          int   y = min (out.y0 + oy0 - top + j0 + r, need_y1);
          int   xi = gpufx_border_index (max (x, need_x0), g.image_w, g.border);
          int   yi = gpufx_border_index (max (y, need_y0), g.image_h, g.border);
          float v[C];

          if (xi >= 0 && yi >= 0)
            {
              const float *p = in.p + (ptrdiff_t) (yi - in.y0) * in.pitch
                               + (ptrdiff_t) (xi - in.x0) * C;
#pragma unroll
              for (int c = 0; c < C; c++)
                v[c] = __ldg (p + c);
            }
          else
#pragma unroll
            for (int c = 0; c < C; c++)
              v[c] = 0.0f;
          if (C == 4)
            conv_smem4[idx] = make_float4 (v[0], v[1 % C], v[2 % C], v[3 % C]);
          else
#pragma unroll
            for (int c = 0; c < C; c++)
              tile[idx * C + c] = v[c];
        }
      __syncthreads ();

      /* Tile row t feeds output row o through matrix row j = t - o. */
      for (int t = 0; t < CONV_RPT + kh - 1; t++)
        {
          const float *row = tile + ((ty * CONV_RPT + t) * tw + tx) * C;
          const float *mrow = conv_matrix + (j0 + t) * mw;

          for (int i = 0; i < mw; i++)
            {
              float v[C];

              if (C == 4)
                {
                  float4 f = conv_smem4[(ty * CONV_RPT + t) * tw + tx + i];
                  v[0] = f.x; v[1 % C] = f.y; v[2 % C] = f.z; v[3 % C] = f.w;
                }
              else
#pragma unroll
                for (int c = 0; c < C; c++)
                  v[c] = row[i * C + c];
#pragma unroll
              for (int o = 0; o < CONV_RPT; o++)
                {
                  int j = t - o;

                  if (j >= 0 && j < kh)
                    {
                      float w = mrow[i - o * mw];
#pragma unroll
                      for (int c = 0; c < C; c++)
                        acc[o][c] = fmaf (w, v[c], acc[o][c]);
                    }
                }
            }
        }
      __syncthreads ();
    }

#pragma unroll
  for (int o = 0; o < CONV_RPT; o++)
    {
      int x = ox0 + tx, y = oy0 + ty * CONV_RPT + o;

      if (x < out.w && y < out.h)
        {
          float *d = out.p + (ptrdiff_t) y * out.pitch + (ptrdiff_t) x * C;
#pragma unroll
          for (int c = 0; c < C; c++)
            d[c] = acc[o][c] * scale + (c != g.alpha ? offset : 0.0f);
        }
    }
}

cudaError_t
gpufx_cuda_convolve_upload (const float *matrix, int mw, int mh)
{
  return cudaMemcpyToSymbol (conv_matrix, matrix, sizeof (float) * mw * mh,
                             0, cudaMemcpyHostToDevice);
}

template <int C>
static cudaError_t
conv_launch (const CudaGeom &g, const CudaPlane &in, const CudaPlane &out,
             int mw, int mh, float scale, float offset, cudaStream_t stream)
{
  const int   tw = CONV_TW + mw - 1;
  size_t      budget = gpufx_cuda_limits.smem_optin;
  size_t      row_bytes = sizeof (float) * C * tw;
  int         chunk;
  size_t      smem;
  dim3        grid (gpufx_cuda_div_up (out.w, CONV_TW),
                    gpufx_cuda_div_up (out.h, CONV_TH));
  dim3        block (CONV_TW, CONV_TY);
  cudaError_t err;

  /* Leave room for two blocks per SM where the device allows it. */
  if (budget > 100 * 1024)
    budget = 100 * 1024;
  if (budget < 48 * 1024)
    budget = 48 * 1024;
  chunk = (int) (budget / row_bytes) - CONV_TH + 1;
  if (chunk < 1)
    chunk = 1;
  if (chunk > mh)
    chunk = mh;
  smem = row_bytes * (CONV_TH + chunk - 1);
  err = cudaFuncSetAttribute (conv_kernel<C>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              (int) smem);
  if (err != cudaSuccess)
    return err;
  conv_kernel<C><<<grid, block, smem, stream>>> (g, in, out, mw, mh, chunk,
                                                 scale, offset);
  return cudaGetLastError ();
}

cudaError_t
gpufx_cuda_convolve (const CudaGeom &g, const CudaPlane &in,
                     const CudaPlane &out, int mw, int mh, float scale,
                     float offset, cudaStream_t stream)
{
  switch (g.channels)
    {
    case 1: return conv_launch<1> (g, in, out, mw, mh, scale, offset, stream);
    case 2: return conv_launch<2> (g, in, out, mw, mh, scale, offset, stream);
    case 3: return conv_launch<3> (g, in, out, mw, mh, scale, offset, stream);
    default: return conv_launch<4> (g, in, out, mw, mh, scale, offset, stream);
    }
}

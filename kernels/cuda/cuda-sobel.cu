/* gimp-gpu-filters: Sobel, Gx and Gy in one pass, neighbours by warp shuffles.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"

#include <type_traits>

/* A warp makes 32 adjacent columns of SOBEL_R rows.  Each lane loads only
 * its own column's pixel per row and takes its neighbours' by shuffles,
 * each row's once, into a 3 x 3 window sliding down; lanes 0 and 31 also
 * load the pixel just beyond the warp.  All SOBEL_R + 2 rows' loads are
 * issued before any arithmetic.  Lanes past the right edge load the last
 * output's right neighbour (a pixel the input holds), so that the shuffles
 * stay whole-warp and in bounds.  Against three loads a row (the design to
 * round 27) this is one load instruction a row instead of three: 4K RGBA
 * on an H200 0.080 -> 0.073 ms of GPU time (78 -> 86% of the roofline);
 * 32 x 2 threads of 4 rows measured best of 1, 2, 4 warps and 2..8 rows,
 * and capping registers below its 72 cost 9-15% (tests/bench/NOTES-gpu.md,
 * round 28). */
#define SOBEL_TY 2
#define SOBEL_R  4

template <int C> struct alignas (C == 4 ? 16 : C == 2 ? 8 : 4) SobelPix
{
  float v[C];
};

template <int C>
static __device__ __forceinline__ void
sobel_load (const float *line, int yi, int xi, int x0, SobelPix<C> &p)
{
  if (yi >= 0 && xi >= 0)
    gpufx_cuda_ldg_pixel<C> (line + (ptrdiff_t) (xi - x0) * C, p.v);
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      p.v[c] = 0.0f;
}

template <int C, bool BOTH>
__global__ void __launch_bounds__ (32 * SOBEL_TY) sobel_kernel (CudaGeom  g,
                                                                CudaPlane in,
                                                                CudaPlane out,
                                                                bool horizontal,
                                                                bool vertical,
                                                                bool keep_sign)
{
  const int   lane = threadIdx.x;
  const int   x = blockIdx.x * 32 + lane;
  const int   y0 = (blockIdx.y * SOBEL_TY + threadIdx.y) * SOBEL_R;
  const int   last_row = out.y0 + out.h; /* the last input row needed */
  SobelPix<C> mid[SOBEL_R + 2], beyond[SOBEL_R + 2];

  if (y0 >= out.h) /* the whole warp: y0 does not depend on the lane */
    return;

  const int xc
    = gpufx_border_index (out.x0 + min (x, out.w), g.image_w, g.border);
  const int xe = gpufx_border_index (lane == 0 ? out.x0 + x - 1
                                               : out.x0 + min (x + 1, out.w),
                                     g.image_w, g.border);

#pragma unroll
  for (int k = 0; k < SOBEL_R + 2; k++)
    {
      int          yi = gpufx_border_index (min (out.y0 + y0 + k - 1, last_row),
                                            g.image_h, g.border);
      const float *line = in.p + (ptrdiff_t) (yi - in.y0) * in.pitch;

      sobel_load<C> (line, yi, xc, in.x0, mid[k]);
      if (lane == 0 || lane == 31)
        sobel_load<C> (line, yi, xe, in.x0, beyond[k]);
    }

  SobelPix<C> *d = (SobelPix<C> *) (out.p + (ptrdiff_t) y0 * out.pitch) + x;
  SobelPix<C>  w[3][3]; /* rows k % 3: [left, centre, right] */

  /* Each row's neighbours by shuffles once, into a window sliding down. */
  auto spread = [&] (int k, SobelPix<C> *p) {
    p[1] = mid[k];
#pragma unroll
    for (int c = 0; c < C; c++)
      {
        float l = __shfl_up_sync (~0u, mid[k].v[c], 1);
        float r = __shfl_down_sync (~0u, mid[k].v[c], 1);

        p[0].v[c] = lane == 0 ? beyond[k].v[c] : l;
        p[2].v[c] = lane == 31 ? beyond[k].v[c] : r;
      }
  };

  spread (0, w[0]);
  spread (1, w[1]);
#pragma unroll
  for (int k = 0; k < SOBEL_R; k++)
    {
      SobelPix<C> o;

      if (y0 + k >= out.h)
        break;
      spread (k + 2, w[(k + 2) % 3]);

      const SobelPix<C> *t = w[k % 3], *m = w[(k + 1) % 3], *b = w[(k + 2) % 3];

#pragma unroll
      for (int c = 0; c < C; c++)
        {
          float gx, gy, v;

          if (c == g.alpha)
            {
              o.v[c] = m[1].v[c];
              continue;
            }
          gx = (t[2].v[c] + 2.0f * m[2].v[c] + b[2].v[c])
               - (t[0].v[c] + 2.0f * m[0].v[c] + b[0].v[c]);
          gy = (t[0].v[c] + 2.0f * t[1].v[c] + t[2].v[c])
               - (b[0].v[c] + 2.0f * b[1].v[c] + b[2].v[c]);
          if (BOTH)
            v = sqrtf (gx * gx + gy * gy)
                * 0.17677669529663688f; /* 1/sqrt 32 */
          else if (horizontal || vertical)
            {
              float gr = horizontal ? gx : gy;

              v = keep_sign ? 0.5f + gr * 0.125f : fabsf (gr) * 0.25f;
            }
          else
            v = 0.0f;
          o.v[c] = v;
        }
      if (x < out.w)
        *d = o;
      d = (SobelPix<C> *) ((float *) d + out.pitch);
    }
}

cudaError_t
gpufx_cuda_sobel (const CudaGeom  &g,
                  const CudaPlane &in,
                  const CudaPlane &out,
                  bool             horizontal,
                  bool             vertical,
                  bool             keep_sign,
                  cudaStream_t     stream)
{
  dim3 grid (gpufx_cuda_div_up (out.w, 32),
             gpufx_cuda_div_up (out.h, SOBEL_TY * SOBEL_R));
  dim3 block (32, SOBEL_TY);

  /* Both directions, the common case, without the mode branches. */
  auto launch = [&] (auto channels) {
    constexpr int C = decltype (channels)::value;

    if (horizontal && vertical)
      sobel_kernel<C, true>
        <<<grid, block, 0, stream>>> (g, in, out, true, true, keep_sign);
    else
      sobel_kernel<C, false><<<grid, block, 0, stream>>> (
        g, in, out, horizontal, vertical, keep_sign);
  };

  switch (g.channels)
    {
    case 1: launch (std::integral_constant<int, 1> ()); break;
    case 2: launch (std::integral_constant<int, 2> ()); break;
    case 3: launch (std::integral_constant<int, 3> ()); break;
    default: launch (std::integral_constant<int, 4> ()); break;
    }
  return cudaGetLastError ();
}

/* For the probe: whether this binary holds code for the device. */
cudaError_t
gpufx_cuda_check_image (void)
{
  cudaFuncAttributes attr;

  return cudaFuncGetAttributes (&attr, sobel_kernel<1, true>);
}

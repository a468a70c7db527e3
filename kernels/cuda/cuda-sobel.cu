/* gimp-gpu-filters: Sobel, Gx and Gy in one pass, neighbours by warp shuffles.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"

#include <stdint.h>
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
#ifndef SOBEL_GRAY4
#define SOBEL_GRAY4 1
#endif

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

/* The input row of window row k (0: the row above output row y0), border
 * mapped; yi < 0 under the zero border outside the image. */
static __device__ __forceinline__ const float *
sobel_line (const CudaGeom  &g,
            const CudaPlane &in,
            const CudaPlane &out,
            int              y0,
            int              k,
            int             &yi)
{
  yi = gpufx_border_index (min (out.y0 + y0 + k - 1, out.y0 + out.h), g.image_h,
                           g.border);
  return in.p + (ptrdiff_t) (yi - in.y0) * in.pitch;
}

/* The column lanes 0 and 31 load beyond the warp's columns, [x, x + n)
 * being the lane's own: the one left of them, or right. */
static __device__ __forceinline__ int
sobel_beyond (const CudaGeom &g, const CudaPlane &out, int lane, int x, int n)
{
  return gpufx_border_index (lane == 0 ? out.x0 + x - 1
                                       : out.x0 + min (x + n, out.w),
                             g.image_w, g.border);
}

/* One output from a 3 x 3 window (t, m, b: the rows above, at and below
 * the pixel, left to right) in the filter's mode: the gradient's magnitude
 * (BOTH), one direction's, signed around 0.5 or not, or 0 for none. */
template <bool BOTH>
static __device__ __forceinline__ float
sobel_value (const float (&t)[3],
             const float (&m)[3],
             const float (&b)[3],
             bool horizontal,
             bool vertical,
             bool keep_sign)
{
  auto gx
    = [&] { return (t[2] + 2.0f * m[2] + b[2]) - (t[0] + 2.0f * m[0] + b[0]); };
  auto gy
    = [&] { return (t[0] + 2.0f * t[1] + t[2]) - (b[0] + 2.0f * b[1] + b[2]); };
  float v;

  if (BOTH)
    {
      float x = gx (), y = gy ();

      v = sqrtf (x * x + y * y) * 0.17677669529663688f; /* 1/sqrt 32 */
    }
  else if (horizontal || vertical)
    {
      float gr = horizontal ? gx () : gy ();

      v = keep_sign ? 0.5f + gr * 0.125f : fabsf (gr) * 0.25f;
    }
  else
    v = 0.0f;
  return v;
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
  SobelPix<C> mid[SOBEL_R + 2], beyond[SOBEL_R + 2];

  if (y0 >= out.h) /* the whole warp: y0 does not depend on the lane */
    return;

  const int xc
    = gpufx_border_index (out.x0 + min (x, out.w), g.image_w, g.border);
  const int xe = sobel_beyond (g, out, lane, x, 1);

#pragma unroll
  for (int k = 0; k < SOBEL_R + 2; k++)
    {
      int          yi;
      const float *line = sobel_line (g, in, out, y0, k, yi);

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
          const float tc[3] = { t[0].v[c], t[1].v[c], t[2].v[c] };
          const float mc[3] = { m[0].v[c], m[1].v[c], m[2].v[c] };
          const float bc[3] = { b[0].v[c], b[1].v[c], b[2].v[c] };

          if (c == g.alpha)
            o.v[c] = mc[1];
          else
            o.v[c]
              = sobel_value<BOTH> (tc, mc, bc, horizontal, vertical, keep_sign);
        }
      if (x < out.w)
        *d = o;
      d = (SobelPix<C> *) ((float *) d + out.pitch);
    }
}

/* Gray images, four columns a lane (a warp makes 128): one 16-byte load a
 * row where the plane allows it (else four), and only the lane's first and
 * last pixel take a neighbour by shuffle.  At one column a lane a gray
 * output cost the RGBA kernel's loads and shuffles for a quarter of the
 * bytes (4K gray ran at 43% of its roofline, round 28).  vec_in: 16-byte
 * loads of the lane's four columns are aligned; vec_out: the stores. */
template <bool BOTH>
__global__ void __launch_bounds__ (32 * SOBEL_TY)
  sobel_gray_kernel (CudaGeom  g,
                     CudaPlane in,
                     CudaPlane out,
                     bool      horizontal,
                     bool      vertical,
                     bool      keep_sign,
                     bool      vec_in,
                     bool      vec_out)
{
  const int lane = threadIdx.x;
  const int x = (blockIdx.x * 32 + lane) * 4;
  const int y0 = (blockIdx.y * SOBEL_TY + threadIdx.y) * SOBEL_R;
  float     mid[SOBEL_R + 2][4], beyond[SOBEL_R + 2];
  int       xc[4];

  if (y0 >= out.h)
    return;

#pragma unroll
  for (int i = 0; i < 4; i++)
    xc[i]
      = gpufx_border_index (out.x0 + min (x + i, out.w), g.image_w, g.border);

  const bool v4 = vec_in && x + 3 <= out.w && out.x0 + x + 3 < g.image_w;
  const int  xe = sobel_beyond (g, out, lane, x, 4);

#pragma unroll
  for (int k = 0; k < SOBEL_R + 2; k++)
    {
      int          yi;
      const float *line = sobel_line (g, in, out, y0, k, yi) - in.x0;

      if (yi >= 0 && v4)
        {
          float4 f = __ldg ((const float4 *) (line + xc[0]));

          mid[k][0] = f.x;
          mid[k][1] = f.y;
          mid[k][2] = f.z;
          mid[k][3] = f.w;
        }
      else
#pragma unroll
        for (int i = 0; i < 4; i++)
          mid[k][i] = yi >= 0 && xc[i] >= 0 ? __ldg (line + xc[i]) : 0.0f;
      if (lane == 0 || lane == 31)
        beyond[k] = yi >= 0 && xe >= 0 ? __ldg (line + xe) : 0.0f;
    }

  float *d = out.p + (ptrdiff_t) y0 * out.pitch + x;
  float  w[3][6]; /* rows k % 3: left, the lane's four, right */

  auto spread = [&] (int k, float *p) {
    float l = __shfl_up_sync (~0u, mid[k][3], 1);
    float r = __shfl_down_sync (~0u, mid[k][0], 1);

    p[0] = lane == 0 ? beyond[k] : l;
#pragma unroll
    for (int i = 0; i < 4; i++)
      p[i + 1] = mid[k][i];
    p[5] = lane == 31 ? beyond[k] : r;
  };

  spread (0, w[0]);
  spread (1, w[1]);
#pragma unroll
  for (int k = 0; k < SOBEL_R; k++)
    {
      float o[4];

      if (y0 + k >= out.h)
        break;
      spread (k + 2, w[(k + 2) % 3]);

      const float *t = w[k % 3], *m = w[(k + 1) % 3], *b = w[(k + 2) % 3];

#pragma unroll
      for (int i = 0; i < 4; i++)
        {
          const float tc[3] = { t[i], t[i + 1], t[i + 2] };
          const float mc[3] = { m[i], m[i + 1], m[i + 2] };
          const float bc[3] = { b[i], b[i + 1], b[i + 2] };

          if (g.alpha == 0)
            o[i] = mc[1];
          else
            o[i]
              = sobel_value<BOTH> (tc, mc, bc, horizontal, vertical, keep_sign);
        }
      if (vec_out && x + 3 < out.w)
        *(float4 *) d = make_float4 (o[0], o[1], o[2], o[3]);
      else
#pragma unroll
        for (int i = 0; i < 4; i++)
          if (x + i < out.w)
            d[i] = o[i];
      d += out.pitch;
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

  if (g.channels == 1 && SOBEL_GRAY4)
    {
      const bool vec_in = ((uintptr_t) in.p & 15) == 0 && in.pitch % 4 == 0
                          && (out.x0 - in.x0) % 4 == 0;
      const bool vec_out = ((uintptr_t) out.p & 15) == 0 && out.pitch % 4 == 0;

      grid.x = gpufx_cuda_div_up (out.w, 128);
      if (horizontal && vertical)
        sobel_gray_kernel<true><<<grid, block, 0, stream>>> (
          g, in, out, true, true, keep_sign, vec_in, vec_out);
      else
        sobel_gray_kernel<false><<<grid, block, 0, stream>>> (
          g, in, out, horizontal, vertical, keep_sign, vec_in, vec_out);
      return cudaGetLastError ();
    }
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

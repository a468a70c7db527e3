/* gimp-gpu-filters: what the CUDA backend's files share.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The host side (cuda-backend.cu) cuts a job into bands of output rows and
 * hands each band's device buffers to the filter launchers below.  Every
 * launcher reads pixels in whole-image coordinates through gpufx_border_index,
 * so both backends share one definition of the borders.
 */
#ifndef GPUFX_CUDA_INTERNAL_H
#define GPUFX_CUDA_INTERNAL_H

#include "gpufx-private.h"
#include "border.h"
#include "gaussian-plan.h"

#include <cuda_runtime.h>

/* A block of interleaved float pixels on the device covering the image
 * rectangle (x0, y0, w, h); pitch in floats. */
struct CudaPlane
{
  float    *p;
  ptrdiff_t pitch;
  int       x0, y0, w, h;
};

/* What every launcher needs about the image. */
struct CudaGeom
{
  int image_w, image_h;
  int channels, alpha;
  int border;
};

/* Per-band scratch handed to launchers: device memory they may use. */
struct CudaScratch
{
  void  *p;
  size_t bytes;
};

/* Device limits read once by the probe.  smem is what a launcher may
 * give one block (dynamic shared memory, set per job): the device's
 * cudaDevAttrMaxSharedMemoryPerBlockOptin, or less where the testing aid
 * GPUFX_CUDA_SMEM_LIMIT (bytes, at least GPUFX_CUDA_SMEM_MIN) asks for
 * less, so that the gpu tests exercise on any GPU the split
 * configurations that small GPUs (Turing: 64 KB) need.  Every launcher
 * picks a configuration that fits smem, and sets
 * cudaFuncAttributeMaxDynamicSharedMemorySize where it is above 48 KB. */
#define GPUFX_CUDA_SMEM_MIN (24 * 1024)

struct CudaLimits
{
  int smem_optin; /* the device's opt-in maximum per block */
  int smem;       /* the budget launchers use (<= smem_optin) */
  int sm_count;
  int cc_major; /* compute capability: 8 and up have cp.async, mma.sync */
};

extern CudaLimits gpufx_cuda_limits;

/* One-dimensional passes along rows (axis 0) or columns (axis 1).  Each
 * reads `in' (image coordinates, border mapped) and writes `out' over
 * out's rectangle.  taps[0..n_taps) apply at offsets first..first+n-1;
 * then out = acc * scale + (channel != alpha ? offset : 0). */
#define GPUFX_CUDA_LINE_MAX_TAPS 128

/* Gaussians up to this radius run as direct taps (a tiled row pass and a
 * register-sliding column pass, near memory speed for small r and FMA
 * bound up to here); beyond it, the sum of cosines, whose cost does not
 * grow with sigma but is double-precision bound. */
#define GPUFX_CUDA_GAUSS_DIRECT_RADIUS 63
cudaError_t
gpufx_cuda_line_taps_upload (int axis, const float *taps, int n_taps);
cudaError_t gpufx_cuda_line_taps (const CudaGeom  &g,
                                  int              axis,
                                  const CudaPlane &in,
                                  const CudaPlane &out,
                                  int              n_taps,
                                  int              first,
                                  float            scale,
                                  float            offset,
                                  cudaStream_t     stream);

/* Sum-of-cosines Gaussian along one axis (see gaussian-plan.h). */
cudaError_t gpufx_cuda_line_cosines_upload (int                      axis,
                                            const GpufxGaussianPlan *plan);
cudaError_t gpufx_cuda_line_cosines (const CudaGeom  &g,
                                     int              axis,
                                     const CudaPlane &in,
                                     const CudaPlane &out,
                                     int              radius,
                                     int              n_terms,
                                     cudaStream_t     stream);

/* Uploads (synchronous, once per job, before any band runs) put
 * weights in constant memory for the launches that follow. */

/* 2-D convolution with a full matrix. */
cudaError_t gpufx_cuda_convolve_upload (const float *matrix, int mw, int mh);
cudaError_t gpufx_cuda_convolve (const CudaGeom  &g,
                                 const CudaPlane &in,
                                 const CudaPlane &out,
                                 int              mw,
                                 int              mh,
                                 float            scale,
                                 float            offset,
                                 cudaStream_t     stream);

cudaError_t gpufx_cuda_sobel (const CudaGeom  &g,
                              const CudaPlane &in,
                              const CudaPlane &out,
                              bool             horizontal,
                              bool             vertical,
                              bool             keep_sign,
                              cudaStream_t     stream);

/* Kuwahara: scratch bytes needed for an output of w x h, and the run. */
size_t
gpufx_cuda_kuwahara_scratch (int w, int h, int radius, int in_h, int channels);
cudaError_t gpufx_cuda_kuwahara (const CudaGeom  &g,
                                 const CudaPlane &in,
                                 const CudaPlane &out,
                                 int              radius,
                                 CudaScratch      scratch,
                                 cudaStream_t     stream);

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/* d = a x b + c on the tensor cores (m16n8k16: a and b two FP16 values per
 * register, c and d FP32), for the taps' and the convolution's split
 * products. */
__device__ __forceinline__ void
gpufx_cuda_mma_f16 (float (&d)[4],
                    const uint4 &a,
                    const uint2 &b,
                    const float (&c)[4])
{
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y), "f"(c[0]),
        "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
#endif

/* One pixel of C floats through the read-only path, one vector load where
 * C is 4 or 2 (p must then be aligned to the pixel). */
template <int C>
__device__ __forceinline__ void
gpufx_cuda_ldg_pixel (const float *p, float *v)
{
  if (C == 4)
    {
      float4 f = __ldg ((const float4 *) p);

      v[0] = f.x;
      v[1 % C] = f.y;
      v[2 % C] = f.z;
      v[3 % C] = f.w;
    }
  else if (C == 2)
    {
      float2 f = __ldg ((const float2 *) p);

      v[0] = f.x;
      v[1 % C] = f.y;
    }
  else
    for (int c = 0; c < C; c++)
      v[c] = __ldg (p + c);
}

/* cudaErrorNoKernelImageForDevice when the fat binary lacks this GPU. */
cudaError_t gpufx_cuda_check_image (void);

static inline unsigned
gpufx_cuda_div_up (long a, long b)
{
  return (unsigned) ((a + b - 1) / b);
}

/* Dynamic shared memory above the default 48 KB must be allowed per
 * kernel before the launch. */
template <typename Kernel>
static inline cudaError_t
gpufx_cuda_allow_smem (Kernel kernel, size_t smem)
{
  if (smem <= 48 * 1024)
    return cudaSuccess;
  return cudaFuncSetAttribute (
    kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem);
}

#endif /* GPUFX_CUDA_INTERNAL_H */

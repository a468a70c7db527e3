/* gimp-gpu-filters: NPP peer timings for the GPU benchmark (RGBA float32,
 * device-resident, CUDA events, median), same sizes as bench-gpu.  Built
 * only where the toolkit has npp.h.  NPP's border support: these
 * functions take NPP_BORDER_REPLICATE only (= our clamp), so clamp is what
 * is timed.  NPP has no float Sobel for 4 channels that we rely on: Sobel
 * runs as SobelHoriz + SobelVert 32f_C1R over the RGBA rows seen as one
 * channel 4W wide (same bytes, same arithmetic per value; not per-channel
 * semantics).  nppiFilterGaussBorder has fixed masks (3x3 .. 15x15,
 * NPP's own sigma), so the Gaussians run through
 * nppiFilterGaussAdvancedBorder with our exact taps (2r+1, r = 4 sigma).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <npp.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "bench-check.h"

static NppStreamContext ctx;
static int              npp_failed;

static void
nck (NppStatus s, const char *what)
{
  if (s != NPP_SUCCESS && ! npp_failed)
    {
      printf ("NPP %s returned status %d\n", what, (int) s);
      npp_failed = 1;
    }
}

template <class F>
static double
time_ms (F f, int reps)
{
  std::vector<float> t;
  cudaEvent_t        a, b;

  CK (cudaEventCreate (&a));
  CK (cudaEventCreate (&b));
  npp_failed = 0;
  {
    /* One warm-up; a call slower than 50 ms is timed once (NPP's direct
     * Gaussians with hundreds of taps take seconds at 4K). */
    float ms;

    CK (cudaEventRecord (a, 0));
    f (0);
    CK (cudaEventRecord (b, 0));
    CK (cudaEventSynchronize (b));
    CK (cudaEventElapsedTime (&ms, a, b));
    if (ms > 50)
      reps = 1;
  }
  for (int i = 0; i < reps; i++)
    {
      float ms;

      CK (cudaEventRecord (a, 0));
      f (i);
      CK (cudaEventRecord (b, 0));
      CK (cudaEventSynchronize (b));
      CK (cudaEventElapsedTime (&ms, a, b));
      t.push_back (ms);
    }
  CK (cudaGetLastError ());
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  std::sort (t.begin (), t.end ());
  return npp_failed ? -1.0 : t[t.size () / 2];
}

static void
row (int w, int h, const char *name, double ms)
{
  if (ms < 0)
    printf ("| %dx%d | %-24s | npp | failed |\n", w, h, name);
  else
    printf ("| %dx%d | %-24s | npp | %9.3f |\n", w, h, name, ms);
  fflush (stdout);
}

int
main (void)
{
  cudaDeviceProp           prop;
  int                      dev = 0;
  const NppLibraryVersion *v = nppGetLibVersion ();

  CK (cudaGetDevice (&dev));
  CK (cudaGetDeviceProperties (&prop, dev));
  ctx.hStream = 0;
  ctx.nCudaDeviceId = dev;
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  ctx.nStreamFlags = 0;
  printf ("NPP %d.%d.%d on %s\n", v->major, v->minor, v->build, prop.name);

  const int sizes[2][2] = { { 1920, 1080 }, { 3840, 2160 } };
  for (int s = 0; s < 2; s++)
    {
      const int    W = sizes[s][0], H = sizes[s][1];
      const size_t bytes = (size_t) W * H * 4 * sizeof (float);
      const int    step = W * 4 * sizeof (float);
      float       *in[4], *out, *tmp, *dk;
      NppiSize     size = { W, H };
      NppiPoint    zero = { 0, 0 };

      for (int i = 0; i < 4; i++)
        {
          std::vector<float> hbuf ((size_t) W * H * 4);
          for (size_t k = 0; k < hbuf.size (); k++)
            hbuf[k] = (float) ((k * 2654435761u) % 1000) / 1000.f;
          CK (cudaMalloc (&in[i], bytes));
          CK (cudaMemcpy (in[i], hbuf.data (), bytes, cudaMemcpyHostToDevice));
        }
      CK (cudaMalloc (&out, bytes));
      CK (cudaMalloc (&tmp, bytes));
      CK (cudaMalloc (&dk, sizeof (float) * 4096));

      /* Sobel: horizontal and vertical, 1 channel over 4W x H. */
      {
        NppiSize s1 = { W * 4, H };
        row (W, H, "sobel (h + v, C1 4W)",
             time_ms (
               [&] (int i) {
                 nck (nppiFilterSobelHorizBorder_32f_C1R_Ctx (
                        in[i % 4], step, s1, zero, out, step, s1,
                        NPP_BORDER_REPLICATE, ctx),
                      "SobelHoriz");
                 nck (nppiFilterSobelVertBorder_32f_C1R_Ctx (
                        in[i % 4], step, s1, zero, tmp, step, s1,
                        NPP_BORDER_REPLICATE, ctx),
                      "SobelVert");
               },
               20));
      }

      /* General 2-D filters: 3x3 and 13x13 (the bench's matrix). */
      for (int m = 3; m <= 13; m += 10)
        {
          std::vector<float> k (m * m);
          char               name[64];
          for (int i = 0; i < m * m; i++)
            k[i] = (float) ((i * 37) % 11) / 100.f + (i == m * m / 2);
          CK (cudaMemcpy (dk, k.data (), sizeof (float) * m * m,
                          cudaMemcpyHostToDevice));
          NppiSize  ks = { m, m };
          NppiPoint anchor = { m / 2, m / 2 };
          snprintf (name, sizeof name, "convolve %dx%d", m, m);
          row (W, H, name,
               time_ms (
                 [&] (int i) {
                   nck (nppiFilterBorder_32f_C4R_Ctx (
                          in[i % 4], step, size, zero, out, step, size, dk, ks,
                          anchor, NPP_BORDER_REPLICATE, ctx),
                        "FilterBorder");
                 },
                 m == 3 ? 20 : 10));
        }

      /* Fixed-mask Gaussian, 15x15 (NPP's largest). */
      row (W, H, "gauss fixed 15x15",
           time_ms (
             [&] (int i) {
               nck (nppiFilterGaussBorder_32f_C4R_Ctx (
                      in[i % 4], step, size, zero, out, step, size,
                      NPP_MASK_SIZE_15_X_15, NPP_BORDER_REPLICATE, ctx),
                    "GaussBorder");
             },
             20));

      /* Our exact taps. */
      const double sig[] = { 2, 10, 50, 200 };
      for (double sg : sig)
        {
          /* 1601 taps at 4K: about 17 s a call; 1080p shows the trend. */
          if (sg > 100 && W > 2000)
            {
              printf (
                "| %dx%d | gaussian s=%g | npp | not run (>10 s a call) |\n", W,
                H, sg);
              continue;
            }
          int                r = (int) floor (4 * sg + 0.5), n = 2 * r + 1;
          std::vector<float> k (n);
          double             sum = 0;
          char               name[64];

          for (int i = -r; i <= r; i++)
            sum += k[i + r] = (float) exp (-0.5 * i * i / (sg * sg));
          for (int i = 0; i < n; i++)
            k[i] = (float) (k[i] / sum);
          CK (cudaMemcpy (dk, k.data (), sizeof (float) * n,
                          cudaMemcpyHostToDevice));
          snprintf (name, sizeof name, "gaussian s=%g (%d taps)", sg, n);
          row (W, H, name,
               time_ms (
                 [&] (int i) {
                   nck (nppiFilterGaussAdvancedBorder_32f_C4R_Ctx (
                          in[i % 4], step, size, zero, out, step, size, n, dk,
                          NPP_BORDER_REPLICATE, ctx),
                        "GaussAdvancedBorder");
                 },
                 sg >= 50 ? 3 : 10));
        }

      for (int i = 0; i < 4; i++)
        cudaFree (in[i]);
      cudaFree (out);
      cudaFree (tmp);
      cudaFree (dk);
    }
  return 0;
}

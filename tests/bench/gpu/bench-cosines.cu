/* gimp-gpu-filters: the large-sigma Gaussian's column modes timed at 4K
 * RGBA float, device-resident: the column pass alone and both passes, per
 * GPUFX_CUDA_COS_SOLO setting (0: FLAT; 1-8: SOLO with that many chunks,
 * 1 and 2 as DEEP; auto: the launcher's rule), median of 15 after 3
 * warm-ups, inputs rotated over 4 buffers (530 MB > L2), two passes over
 * the variants in opposite orders.  Accuracy: each variant's column
 * output against FLAT's (max abs diff) and against an exact float64
 * column Gaussian (the plan's taps) at 4096 sampled outputs, the edge rows
 * among them; the row pass likewise against a float64 row Gaussian.
 *   bench-cosines [variants...]   (default: 0 1 2 4 8 auto)
 * Round 22 (tests/bench/NOTES-gpu.md) ran "0 3 auto", round 23 "0 auto"
 * and "auto".
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"
#include "gaussian-plan.h"
#include "gpufx.h"
#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include <vector>

#include "bench-check.h"
#include "bench-exact.h"

static const int W = 3840, H = 2160, C = 4, NB = 4;

static void
setv (const std::string &v)
{
  if (v == "auto")
    unsetenv ("GPUFX_CUDA_COS_SOLO");
  else
    setenv ("GPUFX_CUDA_COS_SOLO", v.c_str (), 1);
}

int
main (int argc, char **argv)
{
  std::vector<std::string> vars;
  for (int i = 1; i < argc; i++)
    vars.push_back (argv[i]);
  if (vars.empty ())
    vars = { "0", "1", "2", "4", "8", "auto" };
  const double sig[] = { 16, 25, 50, 100, 110, 150, 200, 500, 1500 };
  size_t       n = (size_t) W * H * C;
  float       *in[NB], *tmp, *out, *ref;
  char         why[512];
  if (! gpufx_backend_available (GPUFX_BACKEND_CUDA, why, sizeof why))
    {
      printf ("SKIP: %s\n", why);
      return 77;
    }
  for (int i = 0; i < NB; i++)
    CK (cudaMalloc (&in[i], n * 4));
  CK (cudaMalloc (&tmp, n * 4));
  CK (cudaMalloc (&out, n * 4));
  CK (cudaMalloc (&ref, n * 4));
  std::vector<float> h (n);
  unsigned long long s = 88172645463325252ULL;
  for (int b = 0; b < NB; b++)
    {
      bench_noise (h.data (), n, &s);
      CK (cudaMemcpy (in[b], h.data (), n * 4, cudaMemcpyHostToDevice));
    }
  cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  printf ("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  for (int border = 0; border < 2; border++)
    {
      const int bd = border == 0 ? GPUFX_BORDER_CLAMP : GPUFX_BORDER_MIRROR;
      CudaGeom  g = { W, H, C, 3, (GpufxBorder) bd };
      for (double sg : sig)
        {
          if (bd == GPUFX_BORDER_MIRROR && sg != 50 && sg != 500)
            continue;
          GpufxGaussianPlan p;
          gpufx_gaussian_plan_init (&p, sg, GPUFX_CUDA_GAUSS_DIRECT_RADIUS);
          for (int a = 0; a < 2; a++)
            CK (gpufx_cuda_line_cosines_upload (a, &p));
          auto plane = [&] (float *q) {
            CudaPlane pl = { q, (ptrdiff_t) W * C, 0, 0, W, H };
            return pl;
          };
          std::vector<std::string>        vv = bd == GPUFX_BORDER_MIRROR
                                                 ? std::vector<std::string>{ "auto" }
                                                 : vars;
          size_t                          nv = vv.size ();
          std::vector<std::vector<float>> tc (nv), tf (nv);
          cudaEvent_t                     e0, e1;
          CK (cudaEventCreate (&e0));
          CK (cudaEventCreate (&e1));
          for (int pass = 0; pass < 2; pass++)
            for (size_t k0 = 0; k0 < nv; k0++)
              {
                size_t k = pass ? nv - 1 - k0 : k0;
                setv (vv[k]);
                for (int what = 0; what < 2; what++)
                  {
                    std::vector<float> t;
                    for (int it = 0; it < 18; it++)
                      {
                        float *src = in[it % NB];
                        CK (cudaEventRecord (e0));
                        if (what == 0)
                          gpufx_cuda_line_cosines (g, 1, plane (src),
                                                   plane (out), p.radius,
                                                   p.n_terms, 0);
                        else
                          {
                            gpufx_cuda_line_cosines (g, 0, plane (src),
                                                     plane (tmp), p.radius,
                                                     p.n_terms, 0);
                            gpufx_cuda_line_cosines (g, 1, plane (tmp),
                                                     plane (out), p.radius,
                                                     p.n_terms, 0);
                          }
                        CK (cudaEventRecord (e1));
                        CK (cudaEventSynchronize (e1));
                        float ms;
                        CK (cudaEventElapsedTime (&ms, e0, e1));
                        if (it >= 3)
                          t.push_back (ms);
                      }
                    CK (cudaGetLastError ());
                    std::sort (t.begin (), t.end ());
                    (what ? tf : tc)[k].push_back (t[t.size () / 2]);
                  }
              }
          /* accuracy: columns of in[0] */
          setv ("0");
          gpufx_cuda_line_cosines (g, 1, plane (in[0]), plane (ref), p.radius,
                                   p.n_terms, 0);
          std::vector<float> hr (n), ho (n), hi (n);
          CK (cudaMemcpy (hr.data (), ref, n * 4, cudaMemcpyDeviceToHost));
          CK (cudaMemcpy (hi.data (), in[0], n * 4, cudaMemcpyDeviceToHost));
          for (size_t k = 0; k < nv; k++)
            {
              setv (vv[k]);
              CK (cudaMemset (out, 0xff, n * 4));
              gpufx_cuda_line_cosines (g, 1, plane (in[0]), plane (out),
                                       p.radius, p.n_terms, 0);
              CK (cudaMemcpy (ho.data (), out, n * 4, cudaMemcpyDeviceToHost));
              double dflat = 0, dex = 0, dexf = 0;
              for (size_t i = 0; i < n; i++)
                {
                  double d = fabs ((double) ho[i] - hr[i]);
                  if (! (d <= dflat))
                    dflat = isnan (d) ? INFINITY : d;
                }
              bench_exact_samples (hi, W, H, C, p, 1, (GpufxBorder) bd, 12345,
                                   [&] (size_t ix, double exact) {
                                     dex
                                       = std::max (dex, fabs (ho[ix] - exact));
                                     dexf
                                       = std::max (dexf, fabs (hr[ix] - exact));
                                   });
              printf ("%-6s sigma %5g %-5s col %.4f %.4f  full %.4f %.4f  | vs "
                      "flat %.2e  vs exact %.2e (flat %.2e)\n",
                      bd == GPUFX_BORDER_MIRROR ? "mirror" : "clamp", sg,
                      vv[k].c_str (), tc[k][0], tc[k][1], tf[k][0], tf[k][1],
                      dflat, dex, dexf);
            }
          /* The row pass of in[0] against an exact float64 row Gaussian
           * at 4096 sampled outputs, the edge columns among them. */
          gpufx_cuda_line_cosines (g, 0, plane (in[0]), plane (out), p.radius,
                                   p.n_terms, 0);
          CK (cudaMemcpy (ho.data (), out, n * 4, cudaMemcpyDeviceToHost));
          double drow = 0;
          bench_exact_samples (hi, W, H, C, p, 0, (GpufxBorder) bd, 54321,
                               [&] (size_t ix, double exact) {
                                 drow = std::max (drow, fabs (ho[ix] - exact));
                               });
          printf ("%-6s sigma %5g rows vs exact %.2e\n",
                  bd == GPUFX_BORDER_MIRROR ? "mirror" : "clamp", sg, drow);
          unsetenv ("GPUFX_CUDA_COS_SOLO");
          gpufx_gaussian_plan_clear (&p);
        }
    }
  return 0;
}

/* gimp-gpu-filters: quick CPU timings for tuning (not a test).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   engine-timing [width height [threads]]
 * times each filter on a random RGBA float image (best of 3), as
 * tests/bench would compare with OpenCV, after the Gaussian plan's fit
 * (first fit of a sigma, and again from the plan cache).
 */
#include "engine-test.h"
#include "gaussian-plan.h"

#include <time.h>

static double
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* A sigma's first fit (the cache emptied, best of 5), then one from the
 * cache. */
static void
time_plan (double sigma)
{
  double            first = INFINITY, again;
  GpufxGaussianPlan p;

  for (int i = 0; i < 5; i++)
    {
      double t0;

      gpufx_gaussian_plan_forget ();
      t0 = now_ms ();
      gpufx_gaussian_plan_init (&p, sigma, GPUFX_GAUSS_DIRECT_RADIUS);
      first = fmin (first, now_ms () - t0);
      gpufx_gaussian_plan_clear (&p);
    }
  again = now_ms ();
  gpufx_gaussian_plan_init (&p, sigma, GPUFX_GAUSS_DIRECT_RADIUS);
  again = now_ms () - again;
  printf ("gaussian plan sigma %-6g %d terms: first fit %.3f ms, cached %.4f "
          "ms\n",
          sigma, p.n_terms, first, again);
  gpufx_gaussian_plan_clear (&p);
}

static void
time_filter (const char         *name,
             const GpufxFilter  *f,
             GpufxImage         *s,
             GpufxImage         *d,
             const GpufxOptions *o)
{
  double best = INFINITY;

  for (int i = 0; i < 3; i++)
    {
      double      t0 = now_ms ();
      GpufxReport r;

      if (gpufx_run (f, s, d, o, &r) != GPUFX_OK)
        {
          printf ("%-24s failed: %s\n", name, r.message);
          return;
        }
      if (now_ms () - t0 < best)
        best = now_ms () - t0;
    }
  printf ("%-24s %8.1f ms\n", name, best);
}

int
main (int argc, char **argv)
{
  int                 w = argc > 2 ? atoi (argv[1]) : 1920;
  int                 h = argc > 2 ? atoi (argv[2]) : 1080;
  float              *src = test_image (w, h, 4, -1);
  float              *dst = malloc (sizeof (float) * (size_t) w * h * 4);
  GpufxImage          s = test_view (src, w, h, 4, -1, false);
  GpufxImage          d = test_view (dst, w, h, 4, -1, false);
  GpufxOptions        o;
  GpufxFilter         f;
  static const double sigmas[] = { 2, 4, 5, 10, 50, 200 };
  static const double plan_sigmas[] = { 16, 50, 200, 500, 1500 };
  static const int    radii[] = { 2, 10, 30 };

  gpufx_options_init (&o);
  o.backend = GPUFX_BACKEND_CPU;
  o.threads = argc > 3 ? atoi (argv[3]) : 0;
  printf ("%d x %d RGBA float32, %d threads (0 = all)\n", w, h, o.threads);
  for (size_t i = 0; i < sizeof plan_sigmas / sizeof plan_sigmas[0]; i++)
    time_plan (plan_sigmas[i]);

  for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++)
    {
      char name[64];

      gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
      f.gaussian.std_dev_x = f.gaussian.std_dev_y = sigmas[i];
      snprintf (name, sizeof name, "gaussian sigma %g", sigmas[i]);
      time_filter (name, &f, &s, &d, &o);
    }
  gpufx_filter_init (&f, GPUFX_FILTER_SOBEL);
  time_filter ("sobel", &f, &s, &d, &o);
  gpufx_filter_init (&f, GPUFX_FILTER_CONVOLVE);
  f.convolve.width = f.convolve.height = 13;
  for (int i = 0; i < 169; i++)
    f.convolve.matrix[i] = (float) (test_random () - 0.5);
  f.convolve.divisor = 1;
  time_filter ("convolve 13x13", &f, &s, &d, &o);
  f.convolve.width = f.convolve.height = 3;
  time_filter ("convolve 3x3", &f, &s, &d, &o);
  for (size_t i = 0; i < sizeof radii / sizeof radii[0]; i++)
    {
      char name[64];

      gpufx_filter_init (&f, GPUFX_FILTER_KUWAHARA);
      f.kuwahara.radius = radii[i];
      snprintf (name, sizeof name, "kuwahara r %d", radii[i]);
      time_filter (name, &f, &s, &d, &o);
    }
  free (src);
  free (dst);
  return 0;
}

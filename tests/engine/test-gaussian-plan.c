/* gimp-gpu-filters: the Gaussian plan's fit, its cache of recent plans
 * (also from several threads at once), and the sliding cosine sums against
 * direct taps on long lines (phase drift).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine-test.h"
#include "gaussian-plan.h"

#include <pthread.h>
#include <string.h>

static bool
plan_same (const GpufxGaussianPlan *a, const GpufxGaussianPlan *b)
{
  return a->sigma == b->sigma && a->radius == b->radius
         && a->n_terms == b->n_terms && a->period == b->period
         && a->fit_l1_error == b->fit_l1_error
         && memcmp (a->omega, b->omega, sizeof a->omega) == 0
         && memcmp (a->coeff, b->coeff, sizeof a->coeff) == 0
         && memcmp (a->taps, b->taps,
                    sizeof (double) * (2 * (size_t) a->radius + 1))
              == 0;
}

/* More sigmas than the cache holds, so that threads also evict each
 * other's plans while they copy them. */
static const double plan_thread_sigmas[] = { 17, 40, 90, 250, 700, 1500 };
#define PLAN_N_SIGMAS (sizeof plan_thread_sigmas / sizeof plan_thread_sigmas[0])
static GpufxGaussianPlan plan_fresh[PLAN_N_SIGMAS];

static void *
plan_thread (void *data)
{
  long bad = 0;

  for (int round = 0; round < 20; round++)
    for (size_t i = 0; i < PLAN_N_SIGMAS; i++)
      {
        size_t            j = (i + (size_t) data + round) % PLAN_N_SIGMAS;
        GpufxGaussianPlan p;

        if (! gpufx_gaussian_plan_init (&p, plan_thread_sigmas[j],
                                        GPUFX_GAUSS_DIRECT_RADIUS)
            || ! plan_same (&p, &plan_fresh[j]))
          bad++;
        gpufx_gaussian_plan_clear (&p);
      }
  return (void *) bad;
}

/* A plan from the cache is the plan a fresh fit gives, bit for bit, for
 * any mix of sigmas, direct radii and threads. */
static void
plan_check_cache (void)
{
  GpufxGaussianPlan fit_all, taps_only;
  pthread_t         threads[4];
  long              bad = 0;

  for (size_t i = 0; i < PLAN_N_SIGMAS; i++)
    {
      gpufx_gaussian_plan_forget ();
      CHECK (gpufx_gaussian_plan_init (&plan_fresh[i], plan_thread_sigmas[i],
                                       GPUFX_GAUSS_DIRECT_RADIUS),
             "plan %g", plan_thread_sigmas[i]);
    }
  gpufx_gaussian_plan_forget ();
  for (size_t i = 0; i < 4; i++)
    CHECK (pthread_create (&threads[i], NULL, plan_thread, (void *) i) == 0,
           "thread");
  for (size_t i = 0; i < 4; i++)
    {
      void *ret;

      pthread_join (threads[i], &ret);
      bad += (long) ret;
    }
  CHECK (bad == 0, "%ld cached plans differ from fresh ones", bad);

  /* The same sigma with another direct radius is another plan. */
  CHECK (gpufx_gaussian_plan_init (&fit_all, 10, 20), "plan 10/20");
  CHECK (gpufx_gaussian_plan_init (&taps_only, 10, 63), "plan 10/63");
  CHECK (fit_all.n_terms > 0 && taps_only.n_terms == 0,
         "sigma 10: %d terms with direct radius 20, %d with 63",
         fit_all.n_terms, taps_only.n_terms);
  gpufx_gaussian_plan_clear (&fit_all);
  gpufx_gaussian_plan_clear (&taps_only);
  for (size_t i = 0; i < PLAN_N_SIGMAS; i++)
    gpufx_gaussian_plan_clear (&plan_fresh[i]);
  gpufx_gaussian_plan_forget ();
}

/* sum over |k| <= r of |the plan's kernel - ref|: its cosines where it has
 * terms, else its taps. */
static double
plan_l1 (const GpufxGaussianPlan *p, const double *ref)
{
  const int r = p->radius;
  double    l1 = 0;

  for (int k = 0; k <= 2 * r; k++)
    {
      double fit = p->taps[k];

      if (p->n_terms)
        {
          fit = 0;
          for (int m = 0; m < p->n_terms; m++)
            fit += p->coeff[m] * cos (p->omega[m] * (k - r));
        }
      l1 += fabs (fit - ref[k]);
    }
  return l1;
}

/* The CUDA backend takes only free-frequency plans (the CPU reruns any
 * other): every radius the fit serves, densely where the Gaussian is
 * short, must get one, its L1 error (against the plan's taps) under the
 * target. */
static void
test_free_everywhere (void)
{
  double worst = 0, at = 0;

  for (double sigma = 5.1; sigma <= GPUFX_STD_DEV_MAX;
       sigma += sigma < 40 ? 0.05 : sigma * 0.01)
    {
      GpufxGaussianPlan p;
      const int         r = (int) floor (4 * sigma + 0.5);
      double            l1;

      gpufx_gaussian_plan_forget ();
      CHECK (gpufx_gaussian_plan_init (&p, sigma, GPUFX_GAUSS_DIRECT_RADIUS),
             "plan %g", sigma);
      CHECK (r <= GPUFX_GAUSS_DIRECT_RADIUS
               || (p.period == 0 && p.n_terms == 6 && p.omega[0] == 0),
             "sigma %g: %d terms, period %d (want 6 free)", sigma, p.n_terms,
             p.period);
      l1 = plan_l1 (&p, p.taps);
      /* r <= 63 (sigma < 16) fits worse, as the truncation moves against
       * r (r / sigma from 3.9 to 4.1); the backends take taps there. */
      CHECK (l1 < (r > 63 ? 3e-7 : 2e-6), "sigma %g: free fit L1 error %.3g",
             sigma, l1);
      if (r > 63 && l1 > worst)
        {
          worst = l1;
          at = sigma;
        }
      gpufx_gaussian_plan_clear (&p);
    }
  printf ("free frequencies: worst fit L1 %.3g from r 64 (sigma %g)\n", worst,
          at);
}

int
main (void)
{
  static const double sigmas[] = { 0, 0.3, 2, 4, 4.2, 8, 33, 100, 500, 1500 };
  GpufxOptions        opt;

  gpufx_options_init (&opt);
  opt.backend = GPUFX_BACKEND_CPU;

  for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++)
    {
      GpufxGaussianPlan p;
      int               r;
      double           *ref = ref_gauss_taps (sigmas[i], &r);
      double            sum = 0, l1;

      CHECK (
        gpufx_gaussian_plan_init (&p, sigmas[i], GPUFX_GAUSS_DIRECT_RADIUS),
        "plan %g", sigmas[i]);
      CHECK (p.radius == r, "sigma %g: radius %d, want %d", sigmas[i], p.radius,
             r);
      for (int k = 0; p.radius == r && k <= 2 * r; k++)
        {
          sum += p.taps[k];
          CHECK (fabs (p.taps[k] - ref[k]) < 1e-15, "tap %d", k);
        }
      l1 = p.radius == r ? plan_l1 (&p, ref) : INFINITY;
      CHECK (fabs (sum - 1) < 1e-12, "sigma %g: taps sum %.17g", sigmas[i],
             sum);
      CHECK (l1 < 1e-5, "sigma %g: fit L1 error %.3g", sigmas[i], l1);
      CHECK ((p.n_terms > 0) == (r > GPUFX_GAUSS_DIRECT_RADIUS),
             "sigma %g: %d terms", sigmas[i], p.n_terms);
      printf ("sigma %-6g r %-5d terms %-2d period %-5d fit L1 %.3g\n",
              sigmas[i], r, p.n_terms, p.period, l1);
      free (ref);
      gpufx_gaussian_plan_clear (&p);
    }

  /* Lines of 4000+ samples: the engine (sliding sums, double) against
   * direct taps, per sigma, every border mode. */
  for (size_t i = 6; i < sizeof sigmas / sizeof sigmas[0]; i++)
    for (int b = 0; b < 4; b++)
      {
        const int   n = 4099;
        float      *src = test_image (n, 1, 1, -1);
        float      *dst = malloc (sizeof (float) * n);
        GpufxImage  vs = test_view (src, n, 1, 1, -1, false);
        GpufxImage  vd = test_view (dst, n, 1, 1, -1, false);
        GpufxFilter f;
        double     *ref, worst = 0;

        gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
        f.gaussian.std_dev_x = sigmas[i];
        f.gaussian.std_dev_y = 0;
        f.border = (GpufxBorder) b;
        CHECK (gpufx_run (&f, &vs, &vd, &opt, NULL) == GPUFX_OK, "run");
        ref = ref_run (&f, src, n, 1, 1, -1, false, NULL);
        for (int x = 0; x < n; x++)
          if (fabs (dst[x] - ref[x]) > worst)
            worst = fabs (dst[x] - ref[x]);
        /* The fit's bound plus float output rounding. */
        CHECK (worst < 2e-6, "sigma %g %s: error %.3g", sigmas[i],
               gpufx_border_name (f.border), worst);
        if (b == 0)
          printf ("line of %d, sigma %g: max error %.3g\n", n, sigmas[i],
                  worst);
        free (ref);
        free (src);
        free (dst);
      }
  plan_check_cache ();
  test_free_everywhere ();
  return test_summary ("test-gaussian-plan");
}

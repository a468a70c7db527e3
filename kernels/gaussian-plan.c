/* gimp-gpu-filters: the Gaussian's taps and its sum-of-cosines fit.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Plain C, no backend-specific code: both backends build their kernels from
 * this plan.
 */
#include "gaussian-plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The L1 error the fit must reach; 1e-5 is allowed, keep a margin for the
 * double-precision sliding sums. */
#define PLAN_L1_TARGET 2e-6

/* Least squares  min |A c - b|  for A of rows x cols (column-major, rows >=
 * cols) by Householder QR; A and b are overwritten.  Returns false when A
 * is rank deficient. */
static bool
plan_least_squares (double *a, int rows, int cols, double *b, double *c)
{
  for (int j = 0; j < cols; j++)
    {
      double *aj = a + (size_t) j * rows;
      double  norm = 0, alpha, vnorm2;

      for (int i = j; i < rows; i++)
        norm += aj[i] * aj[i];
      norm = sqrt (norm);
      if (norm == 0)
        return false;
      alpha = aj[j] > 0 ? -norm : norm;
      aj[j] -= alpha; /* v = x - alpha e1, stored in aj */
      vnorm2 = 0;
      for (int i = j; i < rows; i++)
        vnorm2 += aj[i] * aj[i];
      for (int k = j + 1; k <= cols; k++)
        {
          double *ak = k < cols ? a + (size_t) k * rows : b;
          double  dot = 0;

          for (int i = j; i < rows; i++)
            dot += aj[i] * ak[i];
          dot = 2 * dot / vnorm2;
          for (int i = j; i < rows; i++)
            ak[i] -= dot * aj[i];
        }
      aj[j] = alpha; /* R's diagonal */
    }
  for (int j = cols - 1; j >= 0; j--)
    {
      double s = b[j];

      for (int k = j + 1; k < cols; k++)
        s -= a[(size_t) k * rows + j] * c[k];
      c[j] = s / a[(size_t) j * rows + j];
    }
  return true;
}

/* Fits n cosines of period 2 L to taps[r..2r]; returns the L1 error over
 * |k| <= r, or INFINITY on failure. */
static double
plan_fit (const double *taps,
          int           r,
          int           n,
          int           period,
          double       *a,
          double       *b,
          double       *omega,
          double       *coeff)
{
  const int rows = r + 1;
  double    err = 0;

  for (int m = 0; m < n; m++)
    {
      omega[m] = M_PI * m / period;
      for (int k = 0; k <= r; k++)
        a[(size_t) m * rows + k] = cos (omega[m] * k);
    }
  for (int k = 0; k <= r; k++)
    b[k] = taps[r + k];
  if (! plan_least_squares (a, rows, n, b, coeff))
    return INFINITY;
  for (int k = 0; k <= r; k++)
    {
      double f = 0;

      for (int m = 0; m < n; m++)
        f += coeff[m] * cos (omega[m] * k);
      err += (k ? 2 : 1) * fabs (f - taps[r + k]);
    }
  return err;
}

bool
gpufx_gaussian_plan_init (GpufxGaussianPlan *plan,
                          double             sigma,
                          int                max_direct_radius)
{
  static const double stretch[] = { 1.0, 1.05, 1.1, 1.2, 1.3, 1.5 };
  /* As gpufx_gaussian_radius, without needing the core. */
  const int r = sigma > 0 ? (int) floor (4.0 * sigma + 0.5) : 0;
  double    sum = 0;
  double   *a = NULL, *b = NULL;
  bool      ok = true;

  memset (plan, 0, sizeof *plan);
  plan->sigma = sigma;
  plan->radius = r;
  plan->taps = malloc (sizeof (double) * (2 * (size_t) r + 1));
  if (! plan->taps)
    return false;
  for (int k = -r; k <= r; k++)
    sum += plan->taps[k + r] = r ? exp (-0.5 * k * k / (sigma * sigma)) : 1.0;
  for (int k = 0; k <= 2 * r; k++)
    plan->taps[k] /= sum;

  if (r <= max_direct_radius)
    return true;

  a = malloc (sizeof (double) * (size_t) (r + 1) * GPUFX_GAUSS_MAX_TERMS);
  b = malloc (sizeof (double) * (size_t) (r + 1));
  if (! a || ! b)
    {
      ok = false;
      goto out;
    }

  /* The fewest terms that reach the target, trying a few periods each;
   * failing that, the best fit found. */
  plan->fit_l1_error = INFINITY;
  for (int n = 3; n <= GPUFX_GAUSS_MAX_TERMS; n++)
    {
      for (size_t s = 0; s < sizeof stretch / sizeof stretch[0]; s++)
        {
          int    period = (int) ceil (stretch[s] * r) + 1;
          double omega[GPUFX_GAUSS_MAX_TERMS], coeff[GPUFX_GAUSS_MAX_TERMS];
          double err;

          if (2 * period < n) /* aliasing: the basis is degenerate */
            continue;
          err = plan_fit (plan->taps, r, n, period, a, b, omega, coeff);
          if (err < plan->fit_l1_error)
            {
              plan->fit_l1_error = err;
              plan->n_terms = n;
              plan->period = period;
              memcpy (plan->omega, omega, sizeof omega);
              memcpy (plan->coeff, coeff, sizeof coeff);
            }
        }
      if (plan->fit_l1_error < PLAN_L1_TARGET)
        break;
    }
  /* A fit that misses the bound would break the contract: use the taps. */
  if (! (plan->fit_l1_error < 1e-5))
    {
      plan->n_terms = 0;
      plan->fit_l1_error = 0;
    }

out:
  free (a);
  free (b);
  if (! ok)
    gpufx_gaussian_plan_clear (plan);
  return ok;
}

void
gpufx_gaussian_plan_clear (GpufxGaussianPlan *plan)
{
  free (plan->taps);
  memset (plan, 0, sizeof *plan);
}

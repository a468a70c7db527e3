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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The L1 error the fit must reach; 1e-5 is allowed, keep a margin for the
 * double-precision sliding sums. */
#define PLAN_L1_TARGET 2e-6

/* Free frequencies omega[m] = pi plan_free_u[m] / r, the same at every r:
 * the fewest terms for the target.  Six reach an L1 error of 1.3e-7 or less
 * at every sigma from 16 to 1500 (1.5e-6 at most from sigma 5, where r /
 * sigma strays further from 4), where harmonics need eight for 1.4e-7 to
 * 4.7e-7 and six reach only 2.8e-5 (tests/bench/cosine-fit-study.py
 * --universal fits them, least squares over sigma 15.9 .. 1500; rounded to
 * 4 decimals they would miss by 10x).  Fewer terms are what both backends
 * pay for. */
static const double plan_free_u[] = { 0.0,
                                      1.002602237998624,
                                      2.0225286415604855,
                                      3.0819738898278612,
                                      4.2180191653789105,
                                      5.520243174392864 };
#define PLAN_FREE_TERMS (sizeof plan_free_u / sizeof plan_free_u[0])

/* The periods tried, as multiples of r. */
static const double plan_stretch[] = { 1.0, 1.05, 1.1, 1.2, 1.3, 1.5 };
#define PLAN_STRETCHES (sizeof plan_stretch / sizeof plan_stretch[0])

/* Recent fitted plans: a preview filters again with the same sigma, GEGL
 * calls the engine once per region, and both axes often share a sigma,
 * while a fit costs the CPU up to milliseconds (sigma 1500). */
#define PLAN_CACHE 4
static pthread_mutex_t   plan_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static GpufxGaussianPlan plan_cache[PLAN_CACHE];
static int               plan_cache_direct[PLAN_CACHE];
static int               plan_cache_next;

/* One period's basis cos (pi m k / period), k = 0..r, and its Householder
 * QR, grown a column (term) at a time: each column receives the earlier
 * columns' reflections in order, so the fit of n terms costs what one more
 * column costs, not a new factorisation, and gives the same numbers as
 * factorising the n columns at once.  The cosines come from a table of
 * one period (cos (pi j / period), j < 2 period): the fit of a large sigma
 * took tens of milliseconds of cos () calls before. */
typedef struct
{
  int     rows;   /* r + 1 */
  int     period; /* 0: free frequencies (freq) */
  double  freq[GPUFX_GAUSS_MAX_TERMS];
  double *cols;   /* free: the columns as they were, for the error */
  int     n;      /* columns so far */
  bool    broken; /* a column fell in the span of the earlier ones */
  double *table;  /* 2 period cosines */
  double *a;      /* column-major: R on and above the diagonal, v below */
  double *b;      /* the taps k = 0..r, then Q^T of them */
  double  v_head[GPUFX_GAUSS_MAX_TERMS]; /* each reflector's first entry */
  double  v_norm2[GPUFX_GAUSS_MAX_TERMS];
} PlanBasis;

/* Reflection j (v = (v_head, a_j[j+1..])) applied to the vector x. */
static void
plan_reflect (const PlanBasis *basis, int j, double *x)
{
  const double *aj = basis->a + (size_t) j * basis->rows;
  double        dot = basis->v_head[j] * x[j];

  for (int i = j + 1; i < basis->rows; i++)
    dot += aj[i] * x[i];
  dot = 2 * dot / basis->v_norm2[j];
  x[j] -= dot * basis->v_head[j];
  for (int i = j + 1; i < basis->rows; i++)
    x[i] -= dot * aj[i];
}

static bool
plan_basis_init (PlanBasis *basis, const double *taps, int r, int period)
{
  const size_t cells = (size_t) (r + 1) * GPUFX_GAUSS_MAX_TERMS;

  memset (basis, 0, sizeof *basis);
  basis->rows = r + 1;
  basis->period = period;
  /* Harmonics read a table of one period; free frequencies keep their
   * columns. */
  if (period)
    basis->table = malloc (sizeof (double) * 2 * (size_t) period);
  else
    basis->cols = malloc (sizeof (double) * cells);
  basis->a = malloc (sizeof (double) * cells);
  basis->b = malloc (sizeof (double) * (size_t) basis->rows);
  if (! (period ? (void *) basis->table : (void *) basis->cols) || ! basis->a
      || ! basis->b)
    return false;
  memcpy (basis->b, taps + r, sizeof (double) * (size_t) basis->rows);
  if (! period)
    {
      for (size_t m = 0; m < PLAN_FREE_TERMS; m++)
        basis->freq[m] = M_PI * plan_free_u[m] / r;
      return true;
    }
  /* A quarter from cos (), the rest by symmetry (exactly symmetric). */
  for (int j = 0; 2 * j <= period; j++)
    {
      double c = cos (M_PI * j / period);

      basis->table[j] = c;
      basis->table[period - j] = -c;
      basis->table[(period + j) % (2 * period)] = -c;
      if (j)
        basis->table[2 * period - j] = c;
    }
  return true;
}

static void
plan_basis_clear (PlanBasis *basis)
{
  free (basis->table);
  free (basis->a);
  free (basis->b);
  free (basis->cols);
  memset (basis, 0, sizeof *basis);
}

/* Adds the column of term basis->n and factorises it. */
static void
plan_basis_grow (PlanBasis *basis)
{
  const int j = basis->n++;
  double   *aj = basis->a + (size_t) j * basis->rows;
  double    norm = 0, alpha, vnorm2 = 0;

  if (basis->broken)
    return;
  if (! basis->period)
    for (int k = 0; k < basis->rows; k++)
      aj[k] = basis->cols[(size_t) j * basis->rows + k]
        = cos (basis->freq[j] * k);
  else
    for (int k = 0, t = 0; k < basis->rows; k++)
      {
        aj[k] = basis->table[t]; /* t = j k mod 2 period */
        if ((t += j) >= 2 * basis->period)
          t -= 2 * basis->period;
      }
  for (int i = 0; i < j; i++)
    plan_reflect (basis, i, aj);
  for (int i = j; i < basis->rows; i++)
    norm += aj[i] * aj[i];
  norm = sqrt (norm);
  if (norm == 0)
    {
      basis->broken = true;
      return;
    }
  alpha = aj[j] > 0 ? -norm : norm;
  aj[j] -= alpha;
  for (int i = j; i < basis->rows; i++)
    vnorm2 += aj[i] * aj[i];
  basis->v_head[j] = aj[j];
  basis->v_norm2[j] = vnorm2;
  aj[j] = alpha; /* R's diagonal */
  plan_reflect (basis, j, basis->b);
}

/* The least-squares fit of the basis's n terms to taps[r..2r]; returns the
 * L1 error over |k| <= r, or INFINITY for a degenerate basis. */
static double
plan_fit (const PlanBasis *basis,
          const double    *taps,
          double          *omega,
          double          *coeff)
{
  const int rows = basis->rows, n = basis->n;
  int       t[GPUFX_GAUSS_MAX_TERMS] = { 0 };
  double    err = 0;

  if (basis->broken || (basis->period && 2 * basis->period < n)) /* aliasing */
    return INFINITY;
  for (int j = n - 1; j >= 0; j--)
    {
      double s = basis->b[j];

      for (int k = j + 1; k < n; k++)
        s -= basis->a[(size_t) k * rows + j] * coeff[k];
      coeff[j] = s / basis->a[(size_t) j * rows + j];
    }
  for (int m = 0; m < GPUFX_GAUSS_MAX_TERMS; m++)
    {
      omega[m] = m >= n          ? 0
                 : basis->period ? M_PI * m / basis->period
                                 : basis->freq[m];
      if (m >= n)
        coeff[m] = 0;
    }
  for (int k = 0; k < rows; k++)
    {
      double f = 0;

      for (int m = 0; m < n; m++)
        if (! basis->period)
          f += coeff[m] * basis->cols[(size_t) m * rows + k];
        else
          {
            f += coeff[m] * basis->table[t[m]]; /* t[m] = m k mod 2 period */
            if ((t[m] += m) >= 2 * basis->period)
              t[m] -= 2 * basis->period;
          }
      err += (k ? 2 : 1) * fabs (f - taps[rows - 1 + k]);
    }
  return err;
}

/* The fit by free frequencies where it reaches the target (false: not, or
 * out of memory, *ok false).  GPUFX_GAUSS_HARMONIC set (a testing aid, read
 * per fit) leaves the harmonics to fit every plan. */
static bool
plan_fit_free (GpufxGaussianPlan *plan, bool *ok)
{
  PlanBasis basis;
  double    omega[GPUFX_GAUSS_MAX_TERMS], coeff[GPUFX_GAUSS_MAX_TERMS];
  double    err;

  if (getenv ("GPUFX_GAUSS_HARMONIC"))
    return false;
  if (! plan_basis_init (&basis, plan->taps, plan->radius, 0))
    {
      plan_basis_clear (&basis);
      *ok = false;
      return false;
    }
  for (size_t m = 0; m < PLAN_FREE_TERMS; m++)
    plan_basis_grow (&basis);
  err = plan_fit (&basis, plan->taps, omega, coeff);
  plan_basis_clear (&basis);
  if (! (err < PLAN_L1_TARGET))
    return false;
  plan->fit_l1_error = err;
  plan->n_terms = PLAN_FREE_TERMS;
  plan->period = 0;
  memcpy (plan->omega, omega, sizeof omega);
  memcpy (plan->coeff, coeff, sizeof coeff);
  return true;
}

static bool
plan_compute (GpufxGaussianPlan *plan, double sigma, int max_direct_radius)
{
  /* As gpufx_gaussian_radius, without needing the core. */
  const int r = sigma > 0 ? (int) floor (4.0 * sigma + 0.5) : 0;
  double    sum = 0;
  PlanBasis bases[PLAN_STRETCHES] = { 0 };
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
  if (plan_fit_free (plan, &ok) || ! ok)
    goto out;

  for (size_t i = 0; i < PLAN_STRETCHES; i++)
    if (! plan_basis_init (&bases[i], plan->taps, r,
                           (int) ceil (plan_stretch[i] * r) + 1))
      {
        ok = false;
        goto out;
      }

  /* The fewest terms that reach the target, trying a few periods each;
   * failing that, the best fit found. */
  plan->fit_l1_error = INFINITY;
  for (int n = 1; n <= GPUFX_GAUSS_MAX_TERMS; n++)
    {
      for (size_t i = 0; i < PLAN_STRETCHES; i++)
        {
          double omega[GPUFX_GAUSS_MAX_TERMS], coeff[GPUFX_GAUSS_MAX_TERMS];
          double err;

          plan_basis_grow (&bases[i]);
          if (n < 3)
            continue;
          err = plan_fit (&bases[i], plan->taps, omega, coeff);
          if (err < plan->fit_l1_error)
            {
              plan->fit_l1_error = err;
              plan->n_terms = n;
              plan->period = bases[i].period;
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
  for (size_t i = 0; i < PLAN_STRETCHES; i++)
    plan_basis_clear (&bases[i]);
  if (! ok)
    gpufx_gaussian_plan_clear (plan);
  return ok;
}

static bool
plan_copy (GpufxGaussianPlan *dst, const GpufxGaussianPlan *src)
{
  size_t bytes = sizeof (double) * (2 * (size_t) src->radius + 1);

  *dst = *src;
  dst->taps = malloc (bytes);
  if (! dst->taps)
    {
      memset (dst, 0, sizeof *dst);
      return false;
    }
  memcpy (dst->taps, src->taps, bytes);
  return true;
}

bool
gpufx_gaussian_plan_init (GpufxGaussianPlan *plan,
                          double             sigma,
                          int                max_direct_radius)
{
  bool found = false, ok = false;

  pthread_mutex_lock (&plan_cache_lock);
  for (int i = 0; i < PLAN_CACHE && ! found; i++)
    if (plan_cache[i].taps && plan_cache[i].sigma == sigma
        && plan_cache_direct[i] == max_direct_radius)
      {
        found = true;
        ok = plan_copy (plan, &plan_cache[i]);
      }
  pthread_mutex_unlock (&plan_cache_lock);
  if (found)
    return ok;

  if (! plan_compute (plan, sigma, max_direct_radius))
    return false;
  if (plan->radius <= max_direct_radius)
    return true; /* nothing fitted: cheap to make again */

  pthread_mutex_lock (&plan_cache_lock);
  gpufx_gaussian_plan_clear (&plan_cache[plan_cache_next]);
  if (plan_copy (&plan_cache[plan_cache_next], plan))
    {
      plan_cache_direct[plan_cache_next] = max_direct_radius;
      plan_cache_next = (plan_cache_next + 1) % PLAN_CACHE;
    }
  pthread_mutex_unlock (&plan_cache_lock);
  return true;
}

void
gpufx_gaussian_plan_forget (void)
{
  pthread_mutex_lock (&plan_cache_lock);
  for (int i = 0; i < PLAN_CACHE; i++)
    gpufx_gaussian_plan_clear (&plan_cache[i]);
  pthread_mutex_unlock (&plan_cache_lock);
}

void
gpufx_gaussian_plan_clear (GpufxGaussianPlan *plan)
{
  free (plan->taps);
  memset (plan, 0, sizeof *plan);
}

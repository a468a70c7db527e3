/* gimp-gpu-filters: how a 1-D Gaussian is computed, shared by the CPU and
 * CUDA backends so that both use the same method and the same numbers.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The kernel is the sampled Gaussian w(k) = exp(-k^2 / (2 sigma^2)) for
 * |k| <= r, r = floor(4 sigma + 0.5), normalised to sum 1 (scipy's
 * gaussian_filter1d with truncate = 4).
 *
 * Small radii (r <= max_direct_radius): n_terms == 0, apply taps directly.
 *
 * Larger radii: n_terms > 0 and, for |k| <= r (zero beyond),
 *     w(k) ~= sum_{m < n_terms} coeff[m] * cos (omega[m] * k)
 * with free frequencies omega[m] = pi u_m / r, u_m fixed for every r
 * (period 0; gaussian-plan.c), or where those miss the target, harmonics
 * omega[m] = pi * m / period, period an integer slightly above r; coeff
 * fitted by least squares in double over k = 0..r.  The fit's L1
 * error  sum_{|k| <= r} |w_fit(k) - w(k)|  is fit_l1_error (< 1e-5), which
 * bounds the output error on [0, 1] images.  A backend then computes, in
 * DOUBLE precision, per term the windowed complex sum over the line padded
 * with the border rule (gpufx_border_index):
 *     T_m[i] = sum_{k=-r..r} e^{i omega_m k} x[i + k]
 *     y[i]   = sum_m coeff[m] * Re T_m[i]
 * which slides in O(1) per sample:
 *     T_m[i+1] = e^{-i omega_m} (T_m[i] - e^{-i omega_m r} x[i - r]
 *                                        + e^{i omega_m (r+1)} x[i + r + 1])
 * (the CPU backend uses this form; rounding drift in double stays far below
 * 1e-9 over lines of 10^5 samples, measured by tests/engine).  The CUDA
 * backend takes free frequencies only (the CPU reruns other plans; none
 * from sigma 5 to 1500, tests/engine/test-gaussian-plan.c) and runs the
 * last of the 6 terms, whose weight sum_k |coeff[m]| stays below 1e-3,
 * partly in float (cuda-cosines.cu, COS_F32).
 * The taps are always filled too (reference, tests, short lines).
 */
#ifndef GPUFX_GAUSSIAN_PLAN_H
#define GPUFX_GAUSSIAN_PLAN_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define GPUFX_GAUSS_MAX_TERMS 16

/* A threshold for direct taps (the plan's tests use it); each backend
 * picks its own by measurement (the CPU: GAUSS_DIRECT_MAX in
 * cpu/cpu-gaussian.c, CUDA: GPUFX_CUDA_GAUSS_DIRECT_RADIUS). */
#define GPUFX_GAUSS_DIRECT_RADIUS 20

  typedef struct
  {
    double  sigma;
    int     radius;  /* floor (4 sigma + 0.5); 0 for sigma == 0       */
    double *taps;    /* 2 radius + 1 weights, taps[k + radius], sum 1 */
    int     n_terms; /* 0: use taps directly                          */
    int     period;  /* L: omega[m] = pi * m / L; 0: free frequencies */
    double  omega[GPUFX_GAUSS_MAX_TERMS];
    double  coeff[GPUFX_GAUSS_MAX_TERMS];
    double  fit_l1_error; /* sum over |k| <= r of |fit - taps|; 0 direct   */
  } GpufxGaussianPlan;

  /* Returns false only when out of memory (plan is then cleared).  Fitted
   * plans of recent calls are kept and copied (thread-safe).
   * sigma must be in [0, GPUFX_STD_DEV_MAX]; sigma == 0 gives radius 0 and
   * the single tap 1. */
  bool gpufx_gaussian_plan_init (GpufxGaussianPlan *plan,
                                 double             sigma,
                                 int                max_direct_radius);
  void gpufx_gaussian_plan_clear (GpufxGaussianPlan *plan);
  /* Frees the plans kept for the next init (gpufx_release calls it). */
  void gpufx_gaussian_plan_forget (void);

#ifdef __cplusplus
}
#endif

#endif /* GPUFX_GAUSSIAN_PLAN_H */

/* gimp-gpu-filters: the CPU backend's filters.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef GPUFX_CPU_FILTERS_H
#define GPUFX_CPU_FILTERS_H

#include "gpufx-private.h"
#include "border.h"

#include <math.h>

GpufxStatus cpu_gaussian (const GpufxJob *job, GpufxReport *report);
GpufxStatus cpu_convolve (const GpufxJob *job, GpufxReport *report);
GpufxStatus cpu_sobel (const GpufxJob *job, GpufxReport *report);
GpufxStatus cpu_kuwahara (const GpufxJob *job, GpufxReport *report);

/* Rank-1 test for a matrix (exposed for the tests): on true, m[j][i] =
 * col[j] * row[i] within rounding. */
bool
cpu_matrix_separable (const float *m, int w, int h, double *col, double *row);

#endif /* GPUFX_CPU_FILTERS_H */

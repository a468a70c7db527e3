/* gimp-gpu-filters: bad input gets an error, a message and no writes; NaN
 * and Inf never crash; cancelling stops the job.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine-test.h"

#define W      7
#define H      5
#define CH     4
#define POISON 12345.0f

static GpufxOptions options;

static void
expect_rejected (const char        *what,
                 const GpufxFilter *f,
                 GpufxImage        *src,
                 GpufxImage        *dst)
{
  GpufxReport report;
  GpufxStatus st;
  bool        untouched = true;
  float      *d = dst->data;

  for (int i = 0; i < W * H * CH; i++)
    d[i] = POISON;
  report.message[0] = '\0';
  st = gpufx_run (f, src, dst, &options, &report);
  for (int i = 0; i < W * H * CH; i++)
    untouched &= d[i] == POISON;
  CHECK (st == GPUFX_ERROR_INVALID_ARGUMENT, "%s: status %d", what, st);
  CHECK (report.message[0] != '\0', "%s: no message", what);
  CHECK (untouched, "%s: the output was written", what);
}

static int cancel_calls;

static bool
cancel_at_once (double fraction, void *data)
{
  (void) fraction;
  (void) data;
  cancel_calls++;
  return false;
}

int
main (void)
{
  float      *src = test_image (W, H, CH, 3);
  float      *dst = malloc (sizeof (float) * W * H * CH);
  float      *big = malloc (sizeof (float) * W * H * CH * 2);
  GpufxImage  vs = test_view (src, W, H, CH, 3, false);
  GpufxImage  vd = test_view (dst, W, H, CH, 3, false);
  GpufxImage  bad;
  GpufxFilter f;
  GpufxReport report;

  gpufx_options_init (&options);
  options.backend = GPUFX_BACKEND_CPU;

  gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
  f.gaussian.std_dev_x = NAN;
  expect_rejected ("NaN sigma", &f, &vs, &vd);
  f.gaussian.std_dev_x = 1500.5;
  expect_rejected ("sigma > 1500", &f, &vs, &vd);
  f.gaussian.std_dev_x = -1;
  expect_rejected ("negative sigma", &f, &vs, &vd);

  gpufx_filter_init (&f, GPUFX_FILTER_KUWAHARA);
  f.kuwahara.radius = 0;
  expect_rejected ("radius 0", &f, &vs, &vd);
  f.kuwahara.radius = GPUFX_KUWAHARA_MAX_RADIUS + 1;
  expect_rejected ("radius too large", &f, &vs, &vd);

  gpufx_filter_init (&f, GPUFX_FILTER_CONVOLVE);
  f.convolve.width = 0;
  expect_rejected ("matrix 0 wide", &f, &vs, &vd);
  f.convolve.width = 64;
  expect_rejected ("matrix 64 wide", &f, &vs, &vd);
  f.convolve.width = 3;
  f.convolve.height = 64;
  expect_rejected ("matrix 64 high", &f, &vs, &vd);
  f.convolve.height = 3;
  f.convolve.divisor = 0;
  f.convolve.normalize = false;
  expect_rejected ("zero divisor", &f, &vs, &vd);
  f.convolve.divisor = 1;
  f.convolve.matrix[2] = INFINITY;
  expect_rejected ("infinite weight", &f, &vs, &vd);
  f.convolve.matrix[2] = 0;
  /* Weights over the divisor past 32-bit float would write inf and NaN. */
  f.convolve.divisor = 1e-300;
  expect_rejected ("divisor too small for float", &f, &vs, &vd);
  f.convolve.divisor = 1;
  f.convolve.matrix[0] = f.convolve.matrix[1] = 3e38f;
  expect_rejected ("weights past float", &f, &vs, &vd);
  f.convolve.normalize = true;
  f.convolve.matrix[1] = -3e38f;
  expect_rejected ("weights past float, normalized to zero sum", &f, &vs, &vd);
  f.convolve.normalize = false;
  f.convolve.matrix[0] = f.convolve.matrix[1] = 0;

  gpufx_filter_init (&f, GPUFX_FILTER_SOBEL);
  bad = vs;
  bad.width = 0;
  bad.height = 0;
  expect_rejected ("0x0 image", &f, &bad, &vd);
  bad = vs;
  bad.channels = 5;
  expect_rejected ("5 channels", &f, &bad, &vd);
  bad = vs;
  bad.alpha = 4;
  expect_rejected ("alpha out of range", &f, &bad, &vd);
  bad = vs;
  bad.stride = W * CH - 1;
  expect_rejected ("short stride", &f, &bad, &vd);
  bad = vd;
  bad.channels = 3;
  bad.alpha = -1;
  expect_rejected ("channel mismatch", &f, &vs, &bad);
  /* Overlap: the input is the output shifted by one pixel. */
  {
    GpufxImage a = test_view (big, W, H, CH, 3, false);
    GpufxImage b = test_view (big + CH, W, H, CH, 3, false);
    float      before = big[CH * 3];

    gpufx_run (&f, &a, &b, &options, &report);
    CHECK (gpufx_run (&f, &a, &b, &options, &report)
             == GPUFX_ERROR_INVALID_ARGUMENT,
           "overlapping views accepted");
    CHECK (big[CH * 3] == before, "overlap: written");
  }
  /* A region whose input misses needed context. */
  {
    GpufxRect  dr = { 2, 1, 3, 3 }, sr = { 2, 1, 3, 3 };
    GpufxImage s = test_view (src + (1 * W + 2) * CH, 3, 3, CH, 3, false);
    GpufxImage d = test_view (dst, 3, 3, CH, 3, false);

    s.stride = W * CH;
    CHECK (gpufx_run_region (&f, &s, sr, &d, dr, W, H, &options, &report)
               == GPUFX_ERROR_INVALID_ARGUMENT
             && report.message[0],
           "a region without its context was accepted");
  }

  /* NaN and Inf in the pixels: every filter runs, no crash. */
  src[0] = NAN;
  src[5] = INFINITY;
  src[9] = -INFINITY;
  for (int k = 0; k < GPUFX_N_FILTERS; k++)
    for (int b = 0; b < 4; b++)
      {
        gpufx_filter_init (&f, (GpufxFilterKind) k);
        f.border = (GpufxBorder) b;
        f.gaussian.std_dev_x = 40;
        f.gaussian.std_dev_y = 2;
        CHECK (gpufx_run (&f, &vs, &vd, &options, &report) == GPUFX_OK,
               "NaN input, filter %d: %s", k, report.message);
      }

  /* Cancelling from the progress callback. */
  options.progress = cancel_at_once;
  gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
  CHECK (gpufx_run (&f, &vs, &vd, &options, &report) == GPUFX_ERROR_CANCELLED,
         "cancel ignored");
  CHECK (cancel_calls > 0, "progress never called");

  free (src);
  free (dst);
  free (big);
  return test_summary ("test-validation");
}

/* gimp-gpu-filters: the CPU worker pool under many tiny jobs.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Thousands of jobs of a few rows each, on 1 to 64 threads, from several
 * caller threads at once (one gets the pool, the others threads of their
 * own): a lost wake-up or a helper that never joins shows up as a hang
 * (meson's timeout), a join race as a wrong or partly written output.
 */
#include "engine-test.h"

#include <pthread.h>

#define W       16
#define H       8
#define CALLERS 3
#define JOBS    1500

typedef struct
{
  int          id;
  const float *src;
  const float *expect; /* one-thread results, per filter */
  int          mismatches;
  int          errors;
} Caller;

static const int thread_counts[] = { 0, 2, 3, 16, 64 };

static void
stress_filter (GpufxFilter *f, int which)
{
  if (which == 0)
    {
      /* Rows with cosine sums (x), then direct taps (y): two parallel
       * passes of one item per row. */
      gpufx_filter_init (f, GPUFX_FILTER_GAUSSIAN_BLUR);
      f->gaussian.std_dev_x = 30;
      f->gaussian.std_dev_y = 1;
    }
  else
    {
      gpufx_filter_init (f, GPUFX_FILTER_KUWAHARA);
      f->kuwahara.radius = 2;
    }
}

static void *
caller_main (void *data)
{
  Caller      *c = data;
  float       *dst = malloc (sizeof (float) * W * H * 4);
  GpufxImage   s = test_view ((float *) c->src, W, H, 4, -1, false);
  GpufxImage   d = test_view (dst, W, H, 4, -1, false);
  GpufxOptions o;

  gpufx_options_init (&o);
  o.backend = GPUFX_BACKEND_CPU;
  for (int i = 0; i < JOBS; i++)
    {
      GpufxFilter f;
      GpufxReport r;
      int         which = (i + c->id) % 2;

      stress_filter (&f, which);
      o.threads = thread_counts[(i + c->id) % 5];
      for (int k = 0; k < W * H * 4; k++)
        dst[k] = NAN;
      if (gpufx_run (&f, &s, &d, &o, &r) != GPUFX_OK)
        {
          c->errors++;
          continue;
        }
      if (memcmp (dst, c->expect + (size_t) which * W * H * 4,
                  sizeof (float) * W * H * 4)
          != 0)
        c->mismatches++;
    }
  free (dst);
  return NULL;
}

int
main (void)
{
  float       *src = test_image (W, H, 4, -1);
  float       *expect = malloc (sizeof (float) * W * H * 4 * 2);
  GpufxOptions o;
  pthread_t    t[CALLERS];
  Caller       c[CALLERS];

  gpufx_options_init (&o);
  o.backend = GPUFX_BACKEND_CPU;
  o.threads = 1;
  for (int which = 0; which < 2; which++)
    {
      GpufxFilter f;
      GpufxReport r;
      GpufxImage  s = test_view (src, W, H, 4, -1, false);
      GpufxImage  d
        = test_view (expect + (size_t) which * W * H * 4, W, H, 4, -1, false);

      stress_filter (&f, which);
      CHECK (gpufx_run (&f, &s, &d, &o, &r) == GPUFX_OK, "one-thread run: %s",
             r.message);
    }
  for (int i = 0; i < CALLERS; i++)
    {
      c[i] = (Caller){ i, src, expect, 0, 0 };
      CHECK (pthread_create (&t[i], NULL, caller_main, &c[i]) == 0,
             "pthread_create");
    }
  for (int i = 0; i < CALLERS; i++)
    {
      pthread_join (t[i], NULL);
      CHECK (c[i].errors == 0, "caller %d: %d jobs failed", i, c[i].errors);
      CHECK (c[i].mismatches == 0,
             "caller %d: %d of %d jobs differ from "
             "the one-thread result",
             i, c[i].mismatches, JOBS);
    }
  free (src);
  free (expect);
  return test_summary ("test-pool-stress");
}

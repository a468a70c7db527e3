/* gimp-gpu-filters: the CPU worker pool under many tiny jobs.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Thousands of jobs of a few rows each, on every thread count from 1 to
 * 64 (and 0, all cores), from several caller threads at once (one gets the
 * pool, the others threads of their own), some of them cancelled part way
 * by their progress callback: a lost wake-up or a helper that never joins
 * shows up as a hang (meson's timeout), a join race as a wrong or partly
 * written output.  Then a child made by fork () after the pool has its
 * workers runs a job: it has none of the parent's threads, and must not
 * wait for them.  Under ThreadSanitizer build with -DGPUFX_NO_CLONES
 * (TSan crashes at start-up on target_clones' ifunc resolvers); the fork
 * part is skipped there (TSan stops a child that starts threads after a
 * multi-threaded fork).
 */
#include "engine-test.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define W       16
#define H       8
#define CALLERS 4
#define JOBS    1040 /* 16 rounds of thread counts 0 .. 64 */

#if defined(__SANITIZE_THREAD__)
#define STRESS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STRESS_TSAN 1
#endif
#endif

typedef struct
{
  int          id;
  const float *src;
  const float *expect; /* one-thread results, per filter */
  int          mismatches;
  int          errors;
  int          cancelled;
  int          calls_left; /* progress calls before the cancel */
} Caller;

static bool
stress_progress (double fraction, void *data)
{
  Caller *c = data;

  (void) fraction;
  return c->calls_left-- > 0;
}

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

      GpufxStatus status;

      stress_filter (&f, which);
      o.threads = (i + 16 * c->id) % 65;
      /* Every seventh job is cancelled after 0 to 3 progress calls. */
      o.progress = i % 7 == 3 ? stress_progress : NULL;
      o.progress_data = c;
      c->calls_left = (i / 7) % 4;
      for (int k = 0; k < W * H * 4; k++)
        dst[k] = NAN;
      status = gpufx_run (&f, &s, &d, &o, &r);
      if (status == GPUFX_ERROR_CANCELLED && o.progress)
        {
          c->cancelled++;
          continue;
        }
      if (status != GPUFX_OK)
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

#ifndef STRESS_TSAN
/* In a child of fork (): one job on 8 threads, checked; exits 0 when
 * right.  An alarm turns a hang into a failure. */
static void
stress_child (const float *src, const float *expect)
{
  float       *dst = malloc (sizeof (float) * W * H * 4);
  GpufxImage   s = test_view ((float *) src, W, H, 4, -1, false);
  GpufxImage   d = test_view (dst, W, H, 4, -1, false);
  GpufxOptions o;
  GpufxFilter  f;
  GpufxReport  r;

  alarm (60);
  gpufx_options_init (&o);
  o.backend = GPUFX_BACKEND_CPU;
  o.threads = 8;
  stress_filter (&f, 1);
  for (int i = 0; i < 20; i++)
    if (gpufx_run (&f, &s, &d, &o, &r) != GPUFX_OK
        || memcmp (dst, expect + W * H * 4, sizeof (float) * W * H * 4) != 0)
      _exit (1);
  _exit (0);
}
#endif

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
      c[i] = (Caller){ .id = i, .src = src, .expect = expect };
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
      CHECK (c[i].cancelled > 0 && c[i].cancelled <= JOBS / 7 + 1,
             "caller %d: %d jobs cancelled", i, c[i].cancelled);
    }
#ifndef STRESS_TSAN
  {
    pid_t pid = fork ();
    int   wstatus = 0;

    CHECK (pid >= 0, "fork");
    if (pid == 0)
      stress_child (src, expect);
    if (pid > 0)
      {
        CHECK (waitpid (pid, &wstatus, 0) == pid, "waitpid");
        CHECK (WIFEXITED (wstatus) && WEXITSTATUS (wstatus) == 0,
               "a job in a child of fork (): %s %d",
               WIFSIGNALED (wstatus) ? "killed by signal (a hang: alarm)"
                                     : "exit status",
               WIFSIGNALED (wstatus) ? WTERMSIG (wstatus)
                                     : WEXITSTATUS (wstatus));
      }
  }
#endif
  free (src);
  free (expect);
  return test_summary ("test-pool-stress");
}

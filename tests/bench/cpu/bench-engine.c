/* gimp-gpu-filters: times one filter of the engine on a random image.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Prints one JSON line per run: the median, minimum and maximum of the
 * timed repeats, in milliseconds, measured around gpufx_run () alone (the
 * image is filled before, nothing is written after).  The engine's own
 * report.milliseconds is given too.  Errors are printed as a JSON line with
 * "error" and the exit status is 2, so that a driver script can carry on
 * with the next filter while the engine is still being written.
 *
 * Usage:
 *   bench-engine FILTER [options]
 *     FILTER          gaussian-blur | convolve | sobel | kuwahara
 *     --size WxH      image size (default 1920x1080)
 *     --channels N    1..4 (default 4, RGBA)
 *     --alpha MODE    native (default): alpha in the last channel, stored
 *                     in the form the filter works on, so the engine does
 *                     no alpha conversion (premultiplied for gaussian-blur,
 *                     convolve and kuwahara, straight for sobel);
 *                     straight: always straight (the engine converts);
 *                     none: no alpha channel, every channel is colour
 *     --border B      clamp | mirror | wrap | zero (default clamp)
 *     --backend B     cpu | cuda | auto (default cpu)
 *     --threads N     0 = all cores (default 0)
 *     --repeats N     timed runs (default 5)
 *     --warmup N      untimed runs first (default 1)
 *     --std-dev S     gaussian-blur: sigma on both axes (default 2)
 *     --radius R      kuwahara (default 2)
 *     --matrix TEXT   convolve: "a,b,c;d,e,f;..." (row-major, as written)
 *     --matrix-size N convolve: an N x N random matrix (default 13)
 *     --seed N        random seed (default 1)
 */
#include "gpufx.h"
#include "gpufx-params.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct
{
  const char  *filter;
  int          width;
  int          height;
  int          channels;
  const char  *alpha;
  const char  *border;
  const char  *backend;
  int          threads;
  int          repeats;
  int          warmup;
  double       std_dev;
  int          radius;
  const char  *matrix;
  int          matrix_size;
  unsigned int seed;
} BenchArgs;

static uint64_t bench_rng_state;

static double
bench_random (void)
{
  /* xorshift64*: reproducible across libcs, unlike rand (). */
  bench_rng_state ^= bench_rng_state >> 12;
  bench_rng_state ^= bench_rng_state << 25;
  bench_rng_state ^= bench_rng_state >> 27;
  return (double) ((bench_rng_state * 2685821657736338717ULL) >> 11)
         / 9007199254740992.0;
}

static double
bench_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int
bench_compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
bench_print_json_string (const char *s)
{
  putchar ('"');
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        printf ("\\%c", *s);
      else if ((unsigned char) *s < 0x20)
        printf ("\\u%04x", *s);
      else
        putchar (*s);
    }
  putchar ('"');
}

static void
bench_print_head (const BenchArgs *a)
{
  printf ("{\"filter\": ");
  bench_print_json_string (a->filter);
  printf (", \"width\": %d, \"height\": %d, \"channels\": %d, \"alpha\": ",
          a->width, a->height, a->channels);
  bench_print_json_string (a->alpha);
  printf (", \"border\": ");
  bench_print_json_string (a->border);
  printf (", \"backend\": ");
  bench_print_json_string (a->backend);
  printf (", \"threads\": %d", a->threads);
  if (! strcmp (a->filter, "gaussian-blur"))
    printf (", \"std_dev\": %g", a->std_dev);
  else if (! strcmp (a->filter, "kuwahara"))
    printf (", \"radius\": %d", a->radius);
}

static int
bench_fail (const BenchArgs *a, const char *message)
{
  bench_print_head (a);
  printf (", \"error\": ");
  bench_print_json_string (message);
  printf ("}\n");
  fflush (stdout);
  return 2;
}

static int
bench_parse_int (const char *text, int *value)
{
  char *end;
  long  v;

  errno = 0;
  v = strtol (text, &end, 10);
  if (errno || end == text || *end || v < -1000000000L || v > 1000000000L)
    return 0;
  *value = (int) v;
  return 1;
}

static int
bench_parse_args (int argc, char **argv, BenchArgs *a)
{
  a->filter = NULL;
  a->width = 1920;
  a->height = 1080;
  a->channels = 4;
  a->alpha = "native";
  a->border = "clamp";
  a->backend = "cpu";
  a->threads = 0;
  a->repeats = 5;
  a->warmup = 1;
  a->std_dev = 2.0;
  a->radius = 2;
  a->matrix = NULL;
  a->matrix_size = 13;
  a->seed = 1;

  for (int i = 1; i < argc; i++)
    {
      const char *opt = argv[i];
      const char *val = i + 1 < argc ? argv[i + 1] : NULL;
      int         ok = 1;

      if (opt[0] != '-')
        {
          if (a->filter)
            return 0;
          a->filter = opt;
          continue;
        }
      if (! val)
        return 0;
      i++;
      if (! strcmp (opt, "--size"))
        ok = sscanf (val, "%dx%d", &a->width, &a->height) == 2;
      else if (! strcmp (opt, "--channels"))
        ok = bench_parse_int (val, &a->channels);
      else if (! strcmp (opt, "--alpha"))
        a->alpha = val;
      else if (! strcmp (opt, "--border"))
        a->border = val;
      else if (! strcmp (opt, "--backend"))
        a->backend = val;
      else if (! strcmp (opt, "--threads"))
        ok = bench_parse_int (val, &a->threads);
      else if (! strcmp (opt, "--repeats"))
        ok = bench_parse_int (val, &a->repeats) && a->repeats >= 1;
      else if (! strcmp (opt, "--warmup"))
        ok = bench_parse_int (val, &a->warmup) && a->warmup >= 0;
      else if (! strcmp (opt, "--std-dev"))
        ok = sscanf (val, "%lf", &a->std_dev) == 1;
      else if (! strcmp (opt, "--radius"))
        ok = bench_parse_int (val, &a->radius);
      else if (! strcmp (opt, "--matrix"))
        a->matrix = val;
      else if (! strcmp (opt, "--matrix-size"))
        ok = bench_parse_int (val, &a->matrix_size);
      else if (! strcmp (opt, "--seed"))
        {
          int s;
          ok = bench_parse_int (val, &s);
          a->seed = (unsigned int) s;
        }
      else
        return 0;
      if (! ok)
        return 0;
    }
  return a->filter != NULL;
}

int
main (int argc, char **argv)
{
  BenchArgs    a;
  GpufxFilter  filter;
  GpufxOptions options;
  GpufxReport  report;
  GpufxImage   src, dst;
  GpufxStatus  status;
  char         message[GPUFX_MESSAGE_MAX + 64];
  double      *times, *engine_times;
  size_t       n;
  int          kind, border, backend;
  int          premultiplied;

  if (! bench_parse_args (argc, argv, &a))
    {
      fprintf (stderr,
               "usage: %s gaussian-blur|convolve|sobel|kuwahara "
               "[--size WxH] [--channels N] [--alpha native|straight|none] "
               "[--border B] [--backend B] [--threads N] [--repeats N] "
               "[--warmup N] [--std-dev S] [--radius R] [--matrix TEXT] "
               "[--matrix-size N] [--seed N]\n",
               argv[0]);
      return 1;
    }
  bench_rng_state = 0x9E3779B97F4A7C15ULL ^ ((uint64_t) a.seed << 1) ^ 1;

  const GpufxFilterInfo *info = gpufx_filter_info_by_name (a.filter);

  if (! info || (kind = (int) info->kind) < 0)
    return bench_fail (&a, "unknown filter");
  if ((border = gpufx_choice_index (&gpufx_common_params[0], a.border)) < 0)
    return bench_fail (&a, "unknown border");
  if ((backend = gpufx_choice_index (&gpufx_common_params[1], a.backend)) < 0)
    return bench_fail (&a, "unknown backend");
  if (a.width < 1 || a.height < 1 || a.channels < 1 || a.channels > 4)
    return bench_fail (&a, "bad size or channels");
  if (strcmp (a.alpha, "native") && strcmp (a.alpha, "straight")
      && strcmp (a.alpha, "none"))
    return bench_fail (&a, "unknown alpha mode");

  gpufx_filter_init (&filter, (GpufxFilterKind) kind);
  filter.border = (GpufxBorder) border;
  switch (kind)
    {
    case GPUFX_FILTER_GAUSSIAN_BLUR:
      filter.gaussian.std_dev_x = filter.gaussian.std_dev_y = a.std_dev;
      break;
    case GPUFX_FILTER_KUWAHARA: filter.kuwahara.radius = a.radius; break;
    case GPUFX_FILTER_SOBEL:
      filter.sobel.horizontal = filter.sobel.vertical = true;
      filter.sobel.keep_sign = false;
      break;
    case GPUFX_FILTER_CONVOLVE:
      if (a.matrix)
        {
          if (! gpufx_matrix_parse (&filter.convolve, a.matrix, message,
                                    sizeof message))
            return bench_fail (&a, message);
        }
      else
        {
          if (a.matrix_size < 1 || a.matrix_size > GPUFX_MATRIX_MAX)
            return bench_fail (&a, "bad matrix size");
          filter.convolve.width = filter.convolve.height = a.matrix_size;
          for (int i = 0; i < a.matrix_size * a.matrix_size; i++)
            filter.convolve.matrix[i] = (float) (bench_random () * 2 - 1);
        }
      filter.convolve.divisor = 1.0;
      filter.convolve.offset = 0.0;
      filter.convolve.normalize = false;
      break;
    }

  gpufx_options_init (&options);
  options.backend = (GpufxBackend) backend;
  options.threads = a.threads;

  /* The form the engine works on: no conversion inside the timed call. */
  premultiplied = ! strcmp (a.alpha, "native") && kind != GPUFX_FILTER_SOBEL;

  n = (size_t) a.width * a.height * a.channels;
  memset (&src, 0, sizeof src);
  src.width = a.width;
  src.height = a.height;
  src.channels = a.channels;
  src.stride = (ptrdiff_t) a.width * a.channels;
  src.alpha = strcmp (a.alpha, "none") && a.channels > 1 ? a.channels - 1 : -1;
  src.premultiplied = premultiplied;
  dst = src;
  src.data = malloc (n * sizeof (float));
  dst.data = malloc (n * sizeof (float));
  times = malloc (sizeof (double) * a.repeats);
  engine_times = malloc (sizeof (double) * a.repeats);
  if (! src.data || ! dst.data || ! times || ! engine_times)
    return bench_fail (&a, "out of memory for the images");

  for (size_t p = 0; p < n; p += a.channels)
    {
      float alpha = src.alpha >= 0 ? (float) bench_random () : 1.0f;

      for (int c = 0; c < a.channels; c++)
        {
          float v = (float) bench_random ();

          if (c == src.alpha)
            v = alpha;
          else if (src.alpha >= 0 && premultiplied)
            v *= alpha;
          src.data[p + c] = v;
        }
    }
  memset (dst.data, 0, n * sizeof (float));

  for (int i = 0; i < a.warmup + a.repeats; i++)
    {
      double t0 = bench_now_ms (), t;

      status = gpufx_run (&filter, &src, &dst, &options, &report);
      t = bench_now_ms () - t0;
      if (status != GPUFX_OK)
        {
          snprintf (message, sizeof message, "%s: %s",
                    gpufx_status_message (status), report.message);
          return bench_fail (&a, message);
        }
      if (i >= a.warmup)
        {
          times[i - a.warmup] = t;
          engine_times[i - a.warmup] = report.milliseconds;
        }
    }
  qsort (times, a.repeats, sizeof (double), bench_compare_doubles);
  qsort (engine_times, a.repeats, sizeof (double), bench_compare_doubles);

  bench_print_head (&a);
  printf (
    ", \"repeats\": %d, \"median_ms\": %.4f, \"min_ms\": %.4f, "
    "\"max_ms\": %.4f, \"engine_median_ms\": %.4f, "
    "\"backend_used\": ",
    a.repeats,
    a.repeats % 2 ? times[a.repeats / 2]
                  : 0.5 * (times[a.repeats / 2 - 1] + times[a.repeats / 2]),
    times[0], times[a.repeats - 1],
    a.repeats % 2
      ? engine_times[a.repeats / 2]
      : 0.5 * (engine_times[a.repeats / 2 - 1] + engine_times[a.repeats / 2]));
  bench_print_json_string (gpufx_backend_name (report.backend_used));
  printf (", \"checksum\": %.6g}\n",
          (double) dst.data[(n / 2) - ((n / 2) % a.channels)]);
  fflush (stdout);

  free (times);
  free (engine_times);
  free (src.data);
  free (dst.data);
  return 0;
}

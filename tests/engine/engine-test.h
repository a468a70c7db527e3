/* gimp-gpu-filters: helpers for the engine tests, and a naive float64
 * reference for every filter.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reference is written to be obviously right, not fast: direct sums in
 * double, and its own border rule (from scipy.ndimage's definitions), not
 * border.h.
 */
#ifndef ENGINE_TEST_H
#define ENGINE_TEST_H

#include "gpufx.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not every test uses every helper. */
#pragma GCC diagnostic ignored "-Wunused-function"

static int test_failures;
static int test_checks;

#define CHECK(cond, ...)                                                       \
  do                                                                           \
    {                                                                          \
      test_checks++;                                                           \
      if (! (cond))                                                            \
        {                                                                      \
          test_failures++;                                                     \
          fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                \
          fprintf (stderr, __VA_ARGS__);                                       \
          fprintf (stderr, "\n");                                              \
        }                                                                      \
    }                                                                          \
  while (0)

static int
test_summary (const char *name)
{
  printf ("%s: %d checks, %d failures\n", name, test_checks, test_failures);
  return test_failures ? 1 : 0;
}

/* xorshift: reproducible on every platform. */
static uint64_t test_rng_state = 0x9e3779b97f4a7c15ull;

static double
test_random (void)
{
  uint64_t x = test_rng_state;

  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  test_rng_state = x;
  return (x >> 11) * (1.0 / 9007199254740992.0);
}

/* A w x h image of ch channels; alpha (if any) in [0.05, 1]. */
static float *
test_image (int w, int h, int ch, int alpha)
{
  float *p = malloc (sizeof (float) * (size_t) w * h * ch);

  for (size_t i = 0; i < (size_t) w * h * ch; i++)
    p[i] = (float) test_random ();
  if (alpha >= 0)
    for (size_t i = 0; i < (size_t) w * h; i++)
      p[i * ch + alpha] = (float) (0.05 + 0.95 * test_random ());
  return p;
}

static GpufxImage
test_view (float *data, int w, int h, int ch, int alpha, bool premultiplied)
{
  GpufxImage v;

  v.data = data;
  v.width = w;
  v.height = h;
  v.channels = ch;
  v.stride = (ptrdiff_t) w * ch;
  v.alpha = alpha;
  v.premultiplied = premultiplied;
  return v;
}

/* scipy.ndimage's modes, from their definitions. */
static int
ref_border (int i, int n, GpufxBorder b)
{
  if (i >= 0 && i < n)
    return i;
  switch (b)
    {
    case GPUFX_BORDER_CLAMP: /* 'nearest' */ return i < 0 ? 0 : n - 1;
    case GPUFX_BORDER_MIRROR: /* 'mirror': reflect about edge centre */
      if (n == 1)
        return 0;
      while (i < 0 || i >= n)
        {
          if (i < 0)
            i = -i;
          if (i >= n)
            i = 2 * (n - 1) - i;
        }
      return i;
    case GPUFX_BORDER_WRAP: /* 'grid-wrap' */ return ((i % n) + n) % n;
    default: /* 'constant', cval 0 */ return -1;
    }
}

/* The image in double, premultiplied if the filter wants it. */
static double *
ref_load (const float *src,
          int          w,
          int          h,
          int          ch,
          int          alpha,
          bool         premultiplied,
          bool         want_premultiplied)
{
  double *p = malloc (sizeof (double) * (size_t) w * h * ch);

  for (size_t i = 0; i < (size_t) w * h; i++)
    for (int c = 0; c < ch; c++)
      {
        double v = src[i * ch + c];

        if (alpha >= 0 && c != alpha && want_premultiplied != premultiplied)
          {
            double a = src[i * ch + alpha];

            v = want_premultiplied ? v * a : (fabs (a) > 1e-30 ? v / a : 0);
          }
        p[i * ch + c] = v;
      }
  return p;
}

/* Back to what the caller's image holds. */
static void
ref_store (double *p,
           int     w,
           int     h,
           int     ch,
           int     alpha,
           bool    premultiplied,
           bool    is_premultiplied)
{
  if (alpha < 0 || premultiplied == is_premultiplied)
    return;
  for (size_t i = 0; i < (size_t) w * h; i++)
    {
      double a = p[i * ch + alpha];

      for (int c = 0; c < ch; c++)
        if (c != alpha)
          p[i * ch + c] = premultiplied
                            ? p[i * ch + c] * a
                            : (fabs (a) > 1e-30 ? p[i * ch + c] / a : 0);
    }
}

static double
ref_pixel (const double *p,
           int           w,
           int           h,
           int           ch,
           int           x,
           int           y,
           int           c,
           GpufxBorder   b)
{
  int xx = ref_border (x, w, b), yy = ref_border (y, h, b);

  if (xx < 0 || yy < 0)
    return 0;
  return p[((size_t) yy * w + xx) * ch + c];
}

static void
ref_convolve (const GpufxFilter *f,
              const double      *in,
              double            *out,
              int                w,
              int                h,
              int                ch,
              int                alpha)
{
  const GpufxConvolveParams *m = &f->convolve;
  double                     div = m->divisor, off = m->offset, sum = 0;

  if (m->normalize)
    {
      for (int i = 0; i < m->width * m->height; i++)
        sum += m->matrix[i];
      div = sum > 0 ? sum : sum < 0 ? -sum : 1;
      off = sum > 0 ? 0 : sum < 0 ? 1 : 0.5;
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < ch; c++)
        {
          double acc = 0;

          for (int j = 0; j < m->height; j++)
            for (int i = 0; i < m->width; i++)
              acc += m->matrix[j * m->width + i]
                     * ref_pixel (in, w, h, ch, x + i - m->width / 2,
                                  y + j - m->height / 2, c, f->border);
          out[((size_t) y * w + x) * ch + c]
            = acc / div + (c == alpha ? 0 : off);
        }
}

static double *
ref_gauss_taps (double sigma, int *radius)
{
  int     r = sigma > 0 ? (int) floor (4 * sigma + 0.5) : 0;
  double *t = malloc (sizeof (double) * (2 * r + 1));
  double  s = 0;

  for (int k = -r; k <= r; k++)
    s += t[k + r] = exp (-(double) k * k / (2 * sigma * sigma + 1e-300));
  if (r == 0)
    s = t[0] = 1;
  for (int k = 0; k <= 2 * r; k++)
    t[k] /= s;
  *radius = r;
  return t;
}

/* Separable, as the definition is: rows then columns, in double. */
static void
ref_gaussian (const GpufxFilter *f,
              const double      *in,
              double            *out,
              int                w,
              int                h,
              int                ch)
{
  int     rx, ry;
  double *tx = ref_gauss_taps (f->gaussian.std_dev_x, &rx);
  double *ty = ref_gauss_taps (f->gaussian.std_dev_y, &ry);
  double *tmp = malloc (sizeof (double) * (size_t) w * h * ch);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < ch; c++)
        {
          double acc = 0;

          for (int k = -rx; k <= rx; k++)
            acc
              += tx[k + rx] * ref_pixel (in, w, h, ch, x + k, y, c, f->border);
          tmp[((size_t) y * w + x) * ch + c] = acc;
        }
  /* Rows outside the image follow the border rule too. */
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < ch; c++)
        {
          double acc = 0;

          for (int k = -ry; k <= ry; k++)
            acc
              += ty[k + ry] * ref_pixel (tmp, w, h, ch, x, y + k, c, f->border);
          out[((size_t) y * w + x) * ch + c] = acc;
        }
  free (tx);
  free (ty);
  free (tmp);
}

static void
ref_sobel (const GpufxFilter *f,
           const double      *in,
           double            *out,
           int                w,
           int                h,
           int                ch,
           int                alpha)
{
  static const int gx[3][3] = { { -1, 0, 1 }, { -2, 0, 2 }, { -1, 0, 1 } };
  static const int gy[3][3] = { { 1, 2, 1 }, { 0, 0, 0 }, { -1, -2, -1 } };
  const GpufxSobelParams *s = &f->sobel;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < ch; c++)
        {
          double sx = 0, sy = 0, v;

          for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++)
              {
                double p = ref_pixel (in, w, h, ch, x + i - 1, y + j - 1, c,
                                      f->border);
                sx += gx[j][i] * p;
                sy += gy[j][i] * p;
              }
          if (c == alpha)
            v = in[((size_t) y * w + x) * ch + c];
          else if (s->horizontal && s->vertical)
            v = sqrt (sx * sx + sy * sy) / sqrt (32.0);
          else if (s->horizontal || s->vertical)
            {
              double g = s->horizontal ? sx : sy;

              v = s->keep_sign ? 0.5 + g / 8 : fabs (g) / 4;
            }
          else
            v = 0;
          out[((size_t) y * w + x) * ch + c] = v;
        }
}

/* Two-pass variance per quadrant; margin[] gets, per pixel, the gap
 * between the best and the second-best variance (near-ties are not
 * compared). */
static void
ref_kuwahara (const GpufxFilter *f,
              const double      *in,
              double            *out,
              double            *margin,
              int                w,
              int                h,
              int                ch,
              int                alpha)
{
  const int r = f->kuwahara.radius;
  const int ox[4] = { -r, 0, -r, 0 }, oy[4] = { -r, -r, 0, 0 };
  int       colour[3], n_colour = 0;

  for (int c = 0; c < ch && n_colour < 3; c++)
    if (c != alpha)
      colour[n_colour++] = c;
  if (! n_colour)
    colour[n_colour++] = 0;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        double var[4], mean[4][GPUFX_MAX_CHANNELS];
        int    best = 0;
        double second = INFINITY;

        for (int q = 0; q < 4; q++)
          {
            double mv = 0, ss = 0, n = (double) (r + 1) * (r + 1);

            for (int c = 0; c < ch; c++)
              mean[q][c] = 0;
            for (int j = 0; j <= r; j++)
              for (int i = 0; i <= r; i++)
                {
                  double v = -INFINITY;

                  for (int c = 0; c < ch; c++)
                    mean[q][c] += ref_pixel (in, w, h, ch, x + ox[q] + i,
                                             y + oy[q] + j, c, f->border);
                  for (int k = 0; k < n_colour; k++)
                    v = fmax (v,
                              ref_pixel (in, w, h, ch, x + ox[q] + i,
                                         y + oy[q] + j, colour[k], f->border));
                  mv += v;
                }
            mv /= n;
            for (int j = 0; j <= r; j++)
              for (int i = 0; i <= r; i++)
                {
                  double v = -INFINITY;

                  for (int k = 0; k < n_colour; k++)
                    v = fmax (v,
                              ref_pixel (in, w, h, ch, x + ox[q] + i,
                                         y + oy[q] + j, colour[k], f->border));
                  ss += (v - mv) * (v - mv);
                }
            var[q] = ss / n;
            for (int c = 0; c < ch; c++)
              mean[q][c] /= n;
          }
        for (int q = 1; q < 4; q++)
          if (var[q] < var[best])
            best = q;
        for (int q = 0; q < 4; q++)
          if (q != best && var[q] < second)
            second = var[q];
        margin[(size_t) y * w + x] = second - var[best];
        for (int c = 0; c < ch; c++)
          out[((size_t) y * w + x) * ch + c] = mean[best][c];
      }
}

/* The whole reference pipeline for an image as the caller holds it. */
static double *
ref_run (const GpufxFilter *f,
         const float       *src,
         int                w,
         int                h,
         int                ch,
         int                alpha,
         bool               premultiplied,
         double            *margin)
{
  bool    premul = f->kind != GPUFX_FILTER_SOBEL;
  double *in = ref_load (src, w, h, ch, alpha, premultiplied, premul);
  double *out = calloc ((size_t) w * h * ch, sizeof (double));

  switch (f->kind)
    {
    case GPUFX_FILTER_CONVOLVE:
      ref_convolve (f, in, out, w, h, ch, alpha);
      break;
    case GPUFX_FILTER_GAUSSIAN_BLUR: ref_gaussian (f, in, out, w, h, ch); break;
    case GPUFX_FILTER_SOBEL: ref_sobel (f, in, out, w, h, ch, alpha); break;
    case GPUFX_FILTER_KUWAHARA:
      ref_kuwahara (f, in, out, margin, w, h, ch, alpha);
      break;
    }
  ref_store (out, w, h, ch, alpha, premultiplied, premul);
  free (in);
  return out;
}

#endif /* ENGINE_TEST_H */

/* gimp-gpu-filters: every filter against the naive float64 reference, on
 * odd sizes, every border mode, 1 to 4 channels, straight and
 * premultiplied alpha, and regions against the whole image.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine-test.h"

typedef struct
{
  int w, h;
} Size;
typedef struct
{
  int ch, alpha;
} Layout;

static const Size sizes[]
  = { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 37, 23 }, { 16, 40 } };
static const Layout layouts[]
  = { { 1, -1 }, { 2, 1 }, { 2, 0 }, { 3, -1 }, { 4, 3 }, { 4, -1 } };

static GpufxOptions cpu_options;

/* Largest |engine - reference| relative to scale, and the fraction of
 * pixels that match where the reference has a clear winner (Kuwahara). */
static void
compare_case (const char        *what,
              const GpufxFilter *f,
              int                w,
              int                h,
              const Layout      *l,
              bool               premultiplied,
              double             tol)
{
  float      *src = test_image (w, h, l->ch, l->alpha);
  float      *dst = malloc (sizeof (float) * (size_t) w * h * l->ch);
  double     *margin = malloc (sizeof (double) * (size_t) w * h);
  GpufxImage  vs = test_view (src, w, h, l->ch, l->alpha, premultiplied);
  GpufxImage  vd = test_view (dst, w, h, l->ch, l->alpha, premultiplied);
  GpufxReport report;
  GpufxStatus st;
  double     *ref;
  double      worst = 0;
  long        compared = 0, matched = 0;

  if (f->kind == GPUFX_FILTER_KUWAHARA && w * h > 1 && test_random () < 0.5)
    /* Few levels: many exact ties, which must go to the first quadrant. */
    for (size_t i = 0; i < (size_t) w * h * l->ch; i++)
      if ((int) (i % l->ch) != l->alpha)
        src[i] = floorf (src[i] * 4) / 4;

  st = gpufx_run (f, &vs, &vd, &cpu_options, &report);
  CHECK (st == GPUFX_OK, "%s: status %d (%s)", what, st, report.message);
  if (st != GPUFX_OK)
    goto out;
  ref = ref_run (f, src, w, h, l->ch, l->alpha, premultiplied, margin);
  for (int i = 0; i < w * h; i++)
    {
      bool clear = f->kind != GPUFX_FILTER_KUWAHARA || margin[i] > 1e-9;
      bool ok = true;

      for (int c = 0; c < l->ch; c++)
        {
          double e
            = fabs (dst[(size_t) i * l->ch + c] - ref[(size_t) i * l->ch + c]);

          if (! (e <= tol))
            ok = false;
          if (clear && (e > worst || isnan (e)))
            worst = isnan (e) ? INFINITY : e;
        }
      if (clear)
        {
          compared++;
          matched += ok;
        }
    }
  if (f->kind == GPUFX_FILTER_KUWAHARA)
    CHECK (matched >= 0.998 * compared, "%s: %ld of %ld pixels match", what,
           matched, compared);
  else
    CHECK (worst <= tol, "%s: error %.3g > %.3g", what, worst, tol);
  free (ref);

  /* A region with its context equals the same pixels of the whole. */
  if (w * h > 1)
    {
      GpufxRect dr, sr;
      float    *part;
      double    rworst = 0;

      dr.x = (int) (test_random () * w);
      dr.y = (int) (test_random () * h);
      dr.width = 1 + (int) (test_random () * (w - dr.x));
      dr.height = 1 + (int) (test_random () * (h - dr.y));
      if (dr.width > w - dr.x)
        dr.width = w - dr.x;
      if (dr.height > h - dr.y)
        dr.height = h - dr.y;
      sr = gpufx_input_rect (f, w, h, dr);
      part = malloc (sizeof (float) * (size_t) dr.width * dr.height * l->ch);
      vs = test_view (src + ((size_t) sr.y * w + sr.x) * l->ch, sr.width,
                      sr.height, l->ch, l->alpha, premultiplied);
      vs.stride = (ptrdiff_t) w * l->ch;
      vd
        = test_view (part, dr.width, dr.height, l->ch, l->alpha, premultiplied);
      st = gpufx_run_region (f, &vs, sr, &vd, dr, w, h, &cpu_options, &report);
      CHECK (st == GPUFX_OK, "%s region: status %d (%s)", what, st,
             report.message);
      if (st == GPUFX_OK)
        for (int y = 0; y < dr.height; y++)
          for (int x = 0; x < dr.width * l->ch; x++)
            {
              double e
                = fabs (part[(size_t) y * dr.width * l->ch + x]
                        - dst[((size_t) (dr.y + y) * w + dr.x) * l->ch + x]);
              if (! (e <= rworst))
                rworst = isnan (e) ? INFINITY : e;
            }
      /* Within the filter's own tolerance: a region starts its vector
       * blocks and sliding sums elsewhere than the whole image does, so
       * rounding may differ; a wrong context errs by far more. */
      CHECK (rworst <= tol, "%s region %dx%d+%d+%d: differs by %.3g", what,
             dr.width, dr.height, dr.x, dr.y, rworst);
      free (part);
    }
out:
  free (src);
  free (dst);
  free (margin);
}

static void
for_all (const char        *name,
         const GpufxFilter *base,
         double             tol,
         bool               signed_weights)
{
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
      for (int b = 0; b < 4; b++)
        for (int premul = 0; premul < (layouts[l].alpha >= 0 ? 2 : 1); premul++)
          {
            GpufxFilter f = *base;
            char        what[200];

            /* Straight colour divides by the output alpha; weights of
             * both signs can make that alpha 0. */
            if (signed_weights && layouts[l].alpha >= 0 && ! premul)
              continue;
            f.border = (GpufxBorder) b;
            snprintf (what, sizeof what, "%s %dx%d ch%d alpha%d %s %s", name,
                      sizes[s].w, sizes[s].h, layouts[l].ch, layouts[l].alpha,
                      gpufx_border_name (f.border),
                      premul ? "premultiplied" : "straight");
            compare_case (what, &f, sizes[s].w, sizes[s].h, &layouts[l], premul,
                          tol);
          }
}

static void
set_matrix (GpufxFilter *f, int w, int h, bool positive)
{
  gpufx_filter_init (f, GPUFX_FILTER_CONVOLVE);
  f->convolve.width = w;
  f->convolve.height = h;
  for (int i = 0; i < w * h; i++)
    f->convolve.matrix[i]
      = (float) (positive ? 0.1 + test_random () : test_random () * 2 - 1);
}

int
main (void)
{
  GpufxFilter f;
  double      sum;

  gpufx_options_init (&cpu_options);
  cpu_options.backend = GPUFX_BACKEND_CPU;

  /* convolve: asymmetric, even, one-row, larger than the image, rank 1 */
  set_matrix (&f, 3, 3, false);
  f.convolve.divisor = 1.7;
  f.convolve.offset = 0.1;
  for_all ("convolve 3x3 div 1.7 off 0.1", &f, 2e-6, true);
  set_matrix (&f, 4, 2, true);
  f.convolve.normalize = true;
  for_all ("convolve 4x2 normalized", &f, 2e-6, false);
  set_matrix (&f, 1, 7, false);
  f.convolve.divisor = 1;
  for_all ("convolve 1x7", &f, 2e-6, true);
  set_matrix (&f, 2, 6, false);
  f.convolve.divisor = -3;
  for_all ("convolve 2x6 div -3", &f, 2e-6, true);
  set_matrix (&f, 13, 11, true);
  f.convolve.normalize = true;
  for_all ("convolve 13x11 normalized", &f, 2e-6, false);
  set_matrix (&f, 6, 5, false);
  sum = 0;
  for (int i = 1; i < 30; i++) /* small whole numbers: an exact sum */
    sum += f.convolve.matrix[i] = (float) floor (f.convolve.matrix[i] * 4);
  f.convolve.matrix[0] = (float) -sum; /* sum 0: offset 0.5 */
  f.convolve.normalize = true;
  for_all ("convolve 6x5 zero-sum normalized", &f, 1e-5, true);
  /* rank 1: runs as two passes */
  gpufx_filter_init (&f, GPUFX_FILTER_CONVOLVE);
  f.convolve.width = 7;
  f.convolve.height = 5;
  {
    double u[5], v[7];

    for (int j = 0; j < 5; j++)
      u[j] = test_random () + 0.1;
    for (int i = 0; i < 7; i++)
      v[i] = test_random () - 0.3;
    for (int j = 0; j < 5; j++)
      for (int i = 0; i < 7; i++)
        f.convolve.matrix[j * 7 + i] = (float) (u[j] * v[i]);
  }
  f.convolve.divisor = 2.5;
  for_all ("convolve 7x5 rank-1", &f, 2e-6, true);

  /* gaussian: one axis, tiny, direct taps, cosine sums, beyond the image */
  {
    static const double sig[][2]
      = { { 0, 0 },   { 1.5, 0 }, { 0, 2.2 },  { 0.3, 0.3 }, { 3, 2.5 },
          { 6, 4.5 }, { 7.3, 0 }, { 40, 100 }, { 150, 12 } };

    for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++)
      {
        char name[64];

        gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
        f.gaussian.std_dev_x = sig[i][0];
        f.gaussian.std_dev_y = sig[i][1];
        snprintf (name, sizeof name, "gaussian %gx%g", sig[i][0], sig[i][1]);
        for_all (name, &f, 2e-5, false);
      }
  }

  /* gaussian, wide images: the CPU's tiles (several across, bands of
   * rows down, the edges' border pixels) and regions across them */
  {
    static const double sig[][2]
      = { { 2, 2 }, { 5, 3 }, { 9.5, 0 }, { 0.8, 19 }, { 19, 6 } };

    for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++)
      {
        char          what[96];
        const Layout *l = &layouts[(i * 2 + 5) % 6];

        gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
        f.gaussian.std_dev_x = sig[i][0];
        f.gaussian.std_dev_y = sig[i][1];
        f.border = (GpufxBorder) (i % 4);
        snprintf (what, sizeof what, "gaussian %gx%g %s ch%d 1500x70",
                  sig[i][0], sig[i][1], gpufx_border_name (f.border), l->ch);
        compare_case (what, &f, 1500, 70, l, i & 1, 2e-5);
      }
  }

  /* sobel: every direction combination */
  for (int m = 0; m < 8; m++)
    {
      char name[64];

      gpufx_filter_init (&f, GPUFX_FILTER_SOBEL);
      f.sobel.horizontal = m & 1;
      f.sobel.vertical = (m >> 1) & 1;
      f.sobel.keep_sign = (m >> 2) & 1;
      snprintf (name, sizeof name, "sobel h%d v%d sign%d", f.sobel.horizontal,
                f.sobel.vertical, f.sobel.keep_sign);
      for_all (name, &f, 2e-6, false);
    }

  /* kuwahara: every layout at small radii, then radii up to 30 */
  for (int r = 1; r <= 3; r += 2)
    {
      char name[64];

      gpufx_filter_init (&f, GPUFX_FILTER_KUWAHARA);
      f.kuwahara.radius = r;
      snprintf (name, sizeof name, "kuwahara r%d", r);
      for_all (name, &f, 2e-6, false);
    }
  for (int r = 1; r <= 30; r++)
    {
      char          what[64];
      const Layout *l = &layouts[r % 6];

      gpufx_filter_init (&f, GPUFX_FILTER_KUWAHARA);
      f.kuwahara.radius = r;
      f.border = (GpufxBorder) (r % 4);
      snprintf (what, sizeof what, "kuwahara r%d %s ch%d", r,
                gpufx_border_name (f.border), l->ch);
      compare_case (what, &f, 37, 23, l, r & 1, 2e-6);
    }

  return test_summary ("test-filters");
}

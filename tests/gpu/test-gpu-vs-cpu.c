/* gimp-gpu-filters: the CUDA backend against the CPU backend.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs every filter with every border on random [0, 1] images through
 * gpufx_run (backend cpu, then cuda) and compares: 1e-5 absolute, Kuwahara
 * allowed to differ at near-ties on 0.2% of pixels.  Odd sizes, masks
 * larger than the image, alpha, regions, forced small bands, cancellation.
 * The hdr group compares on values from -250 to 1000 (float images past
 * white and below black) within 1e-5 of that scale: the tensor-core taps
 * split each value in two halves and must keep float's precision there.
 * Exits 77 (skip) without a CUDA device.  --quick: a smaller set, for
 * compute-sanitizer.  VERBOSE=1 prints every comparison with its time.
 * The shared-memory caps case sets GPUFX_CUDA_SMEM_LIMIT (a testing aid
 * the CUDA backend reads per job) so that the split configurations small
 * GPUs need run here too; the whole-image case sets GPUFX_CUDA_BAND_ROWS
 * and GPUFX_CUDA_MEM_LIMIT (two more) for many bands and for no room, the
 * Kuwahara blocks case GPUFX_CUDA_KUWA_BLOCK for the block sizes and tilings
 * that only large images take, and for the two-phase kernels that only GPUs
 * before sm_90 take, the convtc group GPUFX_CUDA_CONV_TC for the
 * convolution's tensor-core path at small matrices too, and the gaussian
 * group GPUFX_CUDA_COS_SOLO for the cosine columns' lone chunks and
 * GPUFX_CUDA_COS_F64 for the cosines with every term in double.
 */
#include "gaussian-plan.h"
#include "gpufx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int                n_fail, n_run;
static bool               quick;
static bool               pinned_io; /* input and CUDA output page-locked */
static unsigned long long rng = 88172645463325252ULL;
static double             value_scale = 1;  /* hdr: images span ~this */
static double             tolerance = 1e-5; /* absolute, times value_scale */
static double             resonance;        /* > 0: images are waves of it */

static double
now_ms (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static double
rnd (void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (rng >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct
{
  int w, h, ch, alpha;
} Shape;

static float *
image_new (Shape s)
{
  float *p = malloc (sizeof (float) * s.w * s.h * s.ch);

  for (long i = 0; i < (long) s.w * s.h * s.ch; i++)
    if (resonance > 0)
      {
        /* A wave along x and one along y, shifted per channel. */
        long c = i % s.ch, x = i / s.ch % s.w, y = i / s.ch / s.w;

        p[i] = (float) (0.5 + 0.25 * cos (resonance * x + c)
                        + 0.25 * cos (resonance * y - c));
      }
    else
      p[i] = (float) (value_scale == 1 ? rnd ()
                                       : (rnd () * 1.25 - 0.25) * value_scale);
  return p;
}

/* n floats, zeroed; page-locked from the engine's pool when pinned_io
 * (which locks only blocks of 2 MiB or more: ask for that much). */
static float *
buffer_new (size_t n)
{
  size_t bytes = sizeof (float) * (n ? n : 1);
  float *p;

  if (! pinned_io)
    return calloc (n ? n : 1, sizeof (float));
  p = gpufx_host_alloc (bytes > (2 << 20) ? bytes : 2 << 20,
                        GPUFX_BACKEND_CUDA);
  if (! p)
    {
      printf ("FAIL: no page-locked memory for %zu bytes\n", bytes);
      exit (1);
    }
  memset (p, 0, bytes);
  return p;
}

static void
buffer_free (float *p)
{
  if (pinned_io)
    gpufx_host_free (p);
  else
    free (p);
}

static GpufxImage
view (float *p, Shape s)
{
  GpufxImage v = { p, s.w, s.h, s.ch, (ptrdiff_t) s.w * s.ch, s.alpha, false };

  return v;
}

/* Runs both backends over dst_rect of the image; returns mismatches. */
static void
check_region (const char        *what,
              const GpufxFilter *f,
              Shape              s,
              GpufxRect          dr,
              size_t             band_bytes)
{
  GpufxRect    sr = gpufx_input_rect (f, s.w, s.h, dr);
  Shape        ss = { sr.width, sr.height, s.ch, s.alpha };
  Shape        ds = { dr.width, dr.height, s.ch, s.alpha };
  float       *img = image_new (s);
  float       *src = buffer_new ((size_t) ss.w * ss.h * s.ch);
  float       *a = calloc ((size_t) ds.w * ds.h * s.ch, sizeof (float));
  float       *b = buffer_new ((size_t) ds.w * ds.h * s.ch);
  GpufxImage   vs, va, vb;
  GpufxOptions o;
  GpufxReport  ra, rb;
  GpufxStatus  st_a, st_b;
  double       worst = 0, tol = tolerance * value_scale;
  bool         premult = s.alpha >= 0 && f->kind != GPUFX_FILTER_SOBEL;
  long         bad = 0, n = (long) ds.w * ds.h;
  double       t0 = now_ms ();

  for (int y = 0; y < ss.h; y++)
    memcpy (src + (size_t) y * ss.w * s.ch,
            img + ((size_t) (sr.y + y) * s.w + sr.x) * s.ch,
            sizeof (float) * ss.w * s.ch);
  vs = view (src, ss);
  va = view (a, ds);
  vb = view (b, ds);
  gpufx_options_init (&o);
  o.cuda_band_bytes = band_bytes;
  o.threads = 1; /* the reference; CUDA is what is tested */
  o.backend = GPUFX_BACKEND_CPU;
  st_a = gpufx_run_region (f, &vs, sr, &va, dr, s.w, s.h, &o, &ra);
  o.backend = GPUFX_BACKEND_CUDA;
  st_b = gpufx_run_region (f, &vs, sr, &vb, dr, s.w, s.h, &o, &rb);
  n_run++;
  if (st_a != GPUFX_OK || st_b != GPUFX_OK
      || rb.backend_used != GPUFX_BACKEND_CUDA)
    {
      printf ("FAIL %s: cpu %s (%s), cuda %s (%s)\n", what,
              gpufx_status_message (st_a), ra.message,
              gpufx_status_message (st_b), rb.message);
      n_fail++;
      goto out;
    }
  for (long i = 0; i < n; i++)
    {
      double e = 0;

      for (int c = 0; c < s.ch; c++)
        {
          double va = a[i * s.ch + c], vb = b[i * s.ch + c], d;

          /* Straight colour is premultiplied colour / alpha: where the
           * filtered alpha is near 0 that division magnifies float
           * rounding without bound, so compare what the filter made. */
          if (premult && c != s.alpha)
            {
              va *= a[i * s.ch + s.alpha];
              vb *= b[i * s.ch + s.alpha];
            }
          d = fabs (va - vb);

          if (! (d <= e))
            e = isnan (d) ? INFINITY : d;
        }
      if (e > tol)
        bad++;
      if (e > worst)
        worst = e;
    }
  if (f->kind == GPUFX_FILTER_KUWAHARA ? bad > n * 0.002 + 1 : bad > 0)
    {
      printf ("FAIL %s: %ld of %ld pixels differ, worst %.3g\n", what, bad, n,
              worst);
      n_fail++;
    }
  else if (getenv ("VERBOSE"))
    printf ("ok   %s: worst %.3g, %ld near-ties, %.0f ms\n", what, worst, bad,
            now_ms () - t0);
out:
  free (img);
  buffer_free (src);
  free (a);
  buffer_free (b);
}

static void
check (const char *what, const GpufxFilter *f, Shape s)
{
  GpufxRect whole = { 0, 0, s.w, s.h };
  char      name[200];

  snprintf (name, sizeof name, "%s %dx%dx%d a%d %s", what, s.w, s.h, s.ch,
            s.alpha, gpufx_border_name (f->border));
  check_region (name, f, s, whole, 0);
}

static const Shape shapes_full[] = {
  { 1, 1, 1, -1 },   { 1, 23, 3, -1 }, { 29, 1, 4, 3 },   { 31, 17, 1, -1 },
  { 37, 41, 3, -1 }, { 64, 47, 4, 3 }, { 53, 59, 4, -1 }, { 43, 29, 2, 1 },
};
static const Shape shapes_quick[] = {
  { 1, 1, 1, -1 },
  { 29, 1, 4, 3 },
  { 37, 41, 3, -1 },
  { 64, 47, 4, 3 },
};

static void
each_shape (const char *what, GpufxFilter *f)
{
  const Shape *shapes = quick ? shapes_quick : shapes_full;
  int          n = quick ? 4 : 8;

  for (int b = 0; b <= GPUFX_BORDER_ZERO; b++)
    for (int i = 0; i < n; i++)
      {
        f->border = (GpufxBorder) b;
        check (what, f, shapes[i]);
      }
}

static void
random_matrix (GpufxFilter *f, int w, int h, bool rank1)
{
  double sum = 0, u[GPUFX_MATRIX_MAX], v[GPUFX_MATRIX_MAX];

  gpufx_filter_init (f, GPUFX_FILTER_CONVOLVE);
  f->convolve.width = w;
  f->convolve.height = h;
  for (int j = 0; j < h; j++)
    u[j] = 0.2 + rnd ();
  for (int i = 0; i < w; i++)
    v[i] = 0.2 + rnd ();
  for (int k = 0; k < w * h; k++)
    {
      f->convolve.matrix[k]
        = rank1 ? (float) (u[k / w] * v[k % w]) : (float) (rnd () - 0.2);
      sum += f->convolve.matrix[k];
    }
  f->convolve.divisor = sum;
  f->convolve.offset = 0.25;
}

static void
test_convolve (void)
{
  static const int sizes[][2]
    = { { 1, 1 },   { 3, 3 },  { 2, 2 },   { 4, 7 },  { 13, 13 },
        { 1, 9 },   { 11, 1 }, { 63, 63 }, { 63, 5 }, { 25, 25 },
        { 17, 31 }, { 5, 5 },  { 9, 9 },   { 7, 7 } };
  GpufxFilter f;
  char        what[64];

  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int rank1 = 0; rank1 < 2; rank1++)
      {
        if (quick && s % 3 != 1)
          continue;
        random_matrix (&f, sizes[s][0], sizes[s][1], rank1);
        snprintf (what, sizeof what, "convolve %dx%d%s", sizes[s][0],
                  sizes[s][1], rank1 ? " rank-1" : "");
        each_shape (what, &f);
      }
  /* Normalize with a zero and a negative sum (GEGL's offsets). */
  /* Exact integer weights, so the sum is exactly 0 or negative. */
  {
    static const float zero_sum[9] = { 1, 2, 0, 0, 0, -1, -1, 0, -1 };

    random_matrix (&f, 3, 3, false);
    f.convolve.normalize = true;
    memcpy (f.convolve.matrix, zero_sum, sizeof zero_sum);
    each_shape ("convolve normalize zero-sum", &f);
    f.convolve.matrix[4] = -2.0f;
    each_shape ("convolve normalize negative", &f);
  }
}

/* The convolution's tensor-core path (RGBA, sm_80+) at every matrix
 * size class, forced through GPUFX_CUDA_CONV_TC=1 (a testing aid the
 * CUDA backend reads per launch): its rule takes it only for large
 * matrices.  Not the normalize cases: a zero-sum matrix makes alpha 0 in
 * one summation order and +-1e-8 in another, which unpremultiplying
 * turns into any colour. */
static void
test_convolve_tc (void)
{
  static const int sizes[][2]
    = { { 1, 1 },  { 3, 3 },   { 4, 7 },  { 11, 1 }, { 13, 13 }, { 16, 16 },
        { 17, 9 }, { 33, 20 }, { 63, 5 }, { 5, 63 }, { 63, 63 } };
  GpufxFilter f;
  char        what[64];

  setenv ("GPUFX_CUDA_CONV_TC", "1", 1);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    {
      if (quick && s % 3 != 1)
        continue;
      random_matrix (&f, sizes[s][0], sizes[s][1], false);
      snprintf (what, sizeof what, "convolve tc %dx%d", sizes[s][0],
                sizes[s][1]);
      each_shape (what, &f);
    }
  unsetenv ("GPUFX_CUDA_CONV_TC");
}

static void
test_gaussian (void)
{
  /* { x, y, in the quick set }: the column sigmas cover the direct taps
   * in float (< 6.25) and on the tensor cores (6.25 .. 15.75), and the
   * sums of cosines (in the quick set too, so that the sanitizers' quick
   * runs reach the cosine column kernels); the row sigmas the tensor
   * cores' both ways of summing (split chains at 6.3, 10 and 14, fresh
   * accumulators at 12). */
  static const double sig[][3]
    = { { 0, 1.5, 1 },  { 2, 2, 0 },      { 6.3, 0.7, 1 }, { 10, 50, 0 },
        { 33, 0, 1 },   { 200, 1500, 1 }, { 1, 12, 1 },    { 5, 15.75, 0 },
        { 12, 2.5, 0 }, { 14, 3, 0 } };
  GpufxFilter f;
  char        what[64];

  gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
  for (size_t s = 0; s < sizeof sig / sizeof sig[0]; s++)
    {
      if (quick && ! sig[s][2])
        continue;
      f.gaussian.std_dev_x = sig[s][0];
      f.gaussian.std_dev_y = sig[s][1];
      snprintf (what, sizeof what, "gaussian %g,%g", sig[s][0], sig[s][1]);
      each_shape (what, &f);
    }
}

/* The cosine columns under clamp and zero with each chunk summing its
 * own first window (SOLO), forced through GPUFX_CUDA_COS_SOLO (a testing
 * aid the CUDA backend reads per launch) to 1, 2, 3 and 8 chunks: windows
 * past both ends, chunks past the line, a region and 7-row bands (the
 * plane holds only what the band needs).  The quick set takes 2 chunks
 * (DEEP, the ring in shared memory) and 3 (SOLO), so that the sanitizers
 * reach both kernels. */
static void
test_gaussian_solo (void)
{
  static const char *const nch[] = { "1", "2", "3", "8" };
  static const double      sig[][2]
    = { { 2, 16 }, { 33, 40 }, { 0, 200 }, { 20, 1500 } };
  static const GpufxBorder borders[]
    = { GPUFX_BORDER_CLAMP, GPUFX_BORDER_ZERO };
  static const Shape big = { 301, 203, 4, 3 };
  GpufxFilter        f;
  GpufxRect          whole = { 0, 0, big.w, big.h };
  GpufxRect          dr = { 37, 21, 90, 101 };
  char               what[96], name[160];

  gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
  for (size_t i = 0; i < sizeof nch / sizeof nch[0]; i++)
    {
      if (quick && i != 1 && i != 2)
        continue;
      setenv ("GPUFX_CUDA_COS_SOLO", nch[i], 1);
      for (size_t k = 0; k < sizeof sig / sizeof sig[0]; k++)
        {
          if (quick && k % 2)
            continue;
          f.gaussian.std_dev_x = sig[k][0];
          f.gaussian.std_dev_y = sig[k][1];
          snprintf (what, sizeof what, "gaussian solo %s %g,%g", nch[i],
                    sig[k][0], sig[k][1]);
          each_shape (what, &f);
          for (int b = 0; b < 2; b++)
            {
              f.border = borders[b];
              snprintf (name, sizeof name, "%s 301x203x4 %s", what,
                        gpufx_border_name (f.border));
              check_region (name, &f, big, whole, 0);
              snprintf (name, sizeof name, "%s region 90x101 %s", what,
                        gpufx_border_name (f.border));
              check_region (name, &f, big, dr, 0);
              setenv ("GPUFX_CUDA_BAND_ROWS", "7", 1);
              snprintf (name, sizeof name, "%s 7-row bands %s", what,
                        gpufx_border_name (f.border));
              check_region (name, &f, big, whole, 0);
              unsetenv ("GPUFX_CUDA_BAND_ROWS");
            }
        }
    }
  unsetenv ("GPUFX_CUDA_COS_SOLO");
}

/* RGBA rows at large sigma under clamp and zero hold their padding in
 * shared memory for the output recurrences (PADR, cuda-cosines.cu): rows
 * wide enough that a chunk's outputs run past r, so that samples of the
 * padding leave its windows, as a whole image and as regions that hold
 * only the left or only the right end of the image. */
static void
test_gaussian_row_padding (void)
{
  static const double      sig[] = { 16, 33 };
  static const GpufxBorder borders[]
    = { GPUFX_BORDER_CLAMP, GPUFX_BORDER_ZERO };
  static const Shape     wide = { 3000, 3, 4, 3 };
  static const GpufxRect parts[]
    = { { 0, 0, 3000, 3 }, { 0, 0, 1500, 3 }, { 1400, 1, 1600, 2 } };
  GpufxFilter f;
  char        name[160];

  gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
  f.gaussian.std_dev_y = 0;
  for (size_t k = 0; k < sizeof sig / sizeof sig[0]; k++)
    for (int b = 0; b < 2; b++)
      for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        {
          if (quick && k > 0 && i > 0)
            continue;
          f.gaussian.std_dev_x = sig[k];
          f.border = borders[b];
          snprintf (name, sizeof name,
                    "gaussian row padding %g 3000x3x4 at %d,%d %dx%d %s",
                    sig[k], parts[i].x, parts[i].y, parts[i].width,
                    parts[i].height, gpufx_border_name (f.border));
          check_region (name, &f, wide, parts[i], 0);
        }
}

/* The CUDA cosines run their last term (a small weight) in float where
 * the plan allows (cuda-cosines.cu, COS_F32).  On random images that
 * term hardly shows, so these images are waves at a term's frequency
 * (the plan's last three: 3, 4 and 5 of its 6), compared at 1e-6: the
 * last alone adds ~2.5e-5 there, so losing it or running it wrong fails
 * (and the phase table's entries of each term are used).  Then again with
 * every term in double (GPUFX_CUDA_COS_F64, a testing aid), the kernels
 * that plans with heavier last terms take. */
static void
test_gaussian_resonant (void)
{
  static const struct
  {
    Shape  s;
    double sigma;
  } cases[] = {
    { { 640, 480, 4, -1 }, 30 },
    { { 640, 480, 4, -1 }, 50 },
    { { 2000, 40, 3, -1 }, 200 },
  };
  static const char *const f64[] = { NULL, "1" };
  GpufxFilter              f;
  char                     what[96];

  gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
  tolerance = 1e-6;
  for (size_t e = 0; e < 2; e++)
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
      for (int i = 3; i > 0; i--)
        {
          GpufxGaussianPlan p;
          int               m;

          if (quick && (k != 1 || i != 1))
            continue;
          if (! gpufx_gaussian_plan_init (&p, cases[k].sigma, 0)
              || p.n_terms < 3)
            {
              printf ("FAIL: no fitted plan for sigma %g\n", cases[k].sigma);
              n_fail++;
              gpufx_gaussian_plan_clear (&p);
              continue;
            }
          m = p.n_terms - i;
          resonance = p.omega[m];
          gpufx_gaussian_plan_clear (&p);
          if (f64[e])
            setenv ("GPUFX_CUDA_COS_F64", f64[e], 1);
          f.gaussian.std_dev_x = f.gaussian.std_dev_y = cases[k].sigma;
          for (int b = 0; b <= GPUFX_BORDER_ZERO; b++)
            {
              f.border = (GpufxBorder) b;
              snprintf (what, sizeof what, "gaussian resonant %g term %d%s",
                        cases[k].sigma, m, f64[e] ? " f64" : "");
              check (what, &f, cases[k].s);
            }
          unsetenv ("GPUFX_CUDA_COS_F64");
        }
  resonance = 0;
  tolerance = 1e-5;
}

/* Mirror's cosines over the image only (the fold points kept per chunk):
 * one fold (r at most n - 2, also exactly n - 2), many folds, a region
 * whose input is not the whole line, and a line where the launcher
 * switches from the padded line (sigma 16) to the image walk (sigma 50). */
static void
test_gaussian_mirror (void)
{
  static const struct
  {
    Shape  s;
    double sigma;
    bool   in_quick;
  } cases[] = {
    { { 66, 67, 4, 3 }, 16, true },    { { 65, 64, 3, -1 }, 16, false },
    { { 67, 130, 1, -1 }, 16, false }, { { 71, 70, 4, -1 }, 17.3, false },
    { { 2200, 8, 4, 3 }, 16, false },  { { 2200, 8, 4, 3 }, 50, true },
  };
  const GpufxRect inside = { 37, 21, 90, 101 };
  const Shape     big = { 200, 150, 4, 3 };
  GpufxFilter     f;
  char            what[96];

  gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
  f.border = GPUFX_BORDER_MIRROR;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      if (quick && ! cases[k].in_quick)
        continue;
      f.gaussian.std_dev_x = f.gaussian.std_dev_y = cases[k].sigma;
      snprintf (what, sizeof what, "gaussian mirror %g", cases[k].sigma);
      check (what, &f, cases[k].s);
    }
  f.gaussian.std_dev_x = f.gaussian.std_dev_y = 40;
  check_region ("gaussian mirror 40 region 90x101 at (37, 21) of 200x150x4", &f,
                big, inside, 0);
}

static void
test_sobel (void)
{
  GpufxFilter f;
  char        what[64];

  gpufx_filter_init (&f, GPUFX_FILTER_SOBEL);
  for (int m = 0; m < 8; m++)
    {
      if (quick && m != 3 && m != 5)
        continue;
      f.sobel.horizontal = m & 1;
      f.sobel.vertical = (m >> 1) & 1;
      f.sobel.keep_sign = (m >> 2) & 1;
      snprintf (what, sizeof what, "sobel h%d v%d s%d", m & 1, (m >> 1) & 1,
                (m >> 2) & 1);
      each_shape (what, &f);
      /* Gray images take four columns a lane: several warps, 16-byte loads
       * (whole image) and the four-load path (a region whose input starts a
       * column before it, and odd row pitches). */
      for (int b = 0; b <= GPUFX_BORDER_ZERO; b++)
        {
          static const Shape gray[]
            = { { 300, 37, 1, -1 }, { 301, 19, 1, -1 } };
          GpufxRect dr = { 5, 3, 290, 30 };
          char      name[200];

          f.border = (GpufxBorder) b;
          for (int i = 0; i < 2; i++)
            check (what, &f, gray[i]);
          snprintf (name, sizeof name, "%s gray region %s", what,
                    gpufx_border_name (f.border));
          check_region (name, &f, gray[0], dr, 0);
        }
    }
}

static void
test_kuwahara (void)
{
  static const int radii[] = { 1, 2, 5, 30 };
  GpufxFilter      f;
  char             what[64];

  gpufx_filter_init (&f, GPUFX_FILTER_KUWAHARA);
  for (size_t r = 0; r < sizeof radii / sizeof radii[0]; r++)
    {
      if (quick && r % 2)
        continue;
      f.kuwahara.radius = radii[r];
      snprintf (what, sizeof what, "kuwahara r%d", radii[r]);
      each_shape (what, &f);
    }
}

/* The block sizes and tilings that kuwa_plan takes only for large images
 * (8 and 16-warp blocks, tiles aligned to 128-byte lines for RGBA rows
 * that start on one), the two-phase kernels ("t"), which plans take only
 * before sm_90, and the ring kernels ("r", sm_90+, and "w", the ring with
 * specialized warps; where the ring does not fit, the plan chooses), forced
 * on a 1024-wide image
 * (GPUFX_CUDA_KUWA_BLOCK, a testing aid): the whole image (tiles shifted
 * by 8 - r % 8 pixels) and a region from column 5 (shifted otherwise).
 * Quick: the first four and the rings (r = 1 and 30; with specialized
 * warps, whose barriers the sanitizers check, every r). */
static void
test_kuwahara_blocks (void)
{
  static const char *blocks[]
    = { "16a", "16u", "8a",   "8at", "8u",  "4a",  "4u",  "2a",  "2u", "16at",
        "4ut", "2ut", "16ar", "2ur", "4ar", "8ur", "8aw", "4aw", "2uw" };
  static const int radii[] = { 1, 10, 17, 30 };
  const Shape      s = { 1024, quick ? 40 : 70, 4, 3 };
  const GpufxRect  dr = { 5, 3, 1019, s.h - 9 };
  GpufxFilter      f;
  char             what[96];

  gpufx_filter_init (&f, GPUFX_FILTER_KUWAHARA);
  for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++)
    for (size_t r = 0; r < sizeof radii / sizeof radii[0]; r++)
      for (int b = 0; b <= GPUFX_BORDER_ZERO; b++)
        {
          if (quick && ((k > 3 && k < 12) || (r % 3 && k < 16) || b % 3))
            continue;
          setenv ("GPUFX_CUDA_KUWA_BLOCK", blocks[k], 1);
          f.border = (GpufxBorder) b;
          f.kuwahara.radius = radii[r];
          snprintf (what, sizeof what, "kuwahara r%d blocks %s", radii[r],
                    blocks[k]);
          check (what, &f, s);
          snprintf (what, sizeof what,
                    "kuwahara r%d blocks %s region from x 5 %s", radii[r],
                    blocks[k], gpufx_border_name (f.border));
          check_region (what, &f, s, dr, 0);
        }
  unsetenv ("GPUFX_CUDA_KUWA_BLOCK");
}

/* What the band tests share: a 150 x 260 RGBA image (quick, for the
 * sanitizers: shorter, so that the small bands, each of which filters the
 * Gaussian's whole input height again, stay cheap under racecheck), a
 * region of it, and six filters: a 5 x 7 matrix, a Gaussian whose columns
 * are a sum of cosines, Sobel, Kuwahara, a rank-1 9 x 5 matrix and a
 * Gaussian of taps. */
static void
band_cases (GpufxFilter f[6], Shape *s, GpufxRect *dr, GpufxRect *whole)
{
  *s = (Shape){ 150, 260, 4, 3 };
  *dr = (GpufxRect){ 17, 33, 101, 190 };
  *whole = (GpufxRect){ 0, 0, 150, 260 };
  if (quick)
    {
      s->h = whole->height = 90;
      dr->y = 13;
      dr->height = 60;
    }
  random_matrix (&f[0], 5, 7, false);
  gpufx_filter_init (&f[1], GPUFX_FILTER_GAUSSIAN_BLUR);
  f[1].gaussian.std_dev_x = 3;
  f[1].gaussian.std_dev_y = 40;
  gpufx_filter_init (&f[2], GPUFX_FILTER_SOBEL);
  gpufx_filter_init (&f[3], GPUFX_FILTER_KUWAHARA);
  f[3].kuwahara.radius = 6;
  random_matrix (&f[4], 9, 5, true);
  gpufx_filter_init (&f[5], GPUFX_FILTER_GAUSSIAN_BLUR);
  f[5].gaussian.std_dev_x = 2;
  f[5].gaussian.std_dev_y = 10;
}

/* Regions and bands: a sub-rectangle, and small forced bands (with
 * halos: the layout for images that do not fit the device). */
static void
test_regions_and_bands (void)
{
  GpufxFilter f[6];
  Shape       s;
  GpufxRect   dr, whole;
  char        what[96];

  band_cases (f, &s, &dr, &whole);
  for (int k = 0; k < 4; k++)
    for (int b = 0; b <= GPUFX_BORDER_ZERO; b++)
      {
        f[k].border = (GpufxBorder) b;
        snprintf (what, sizeof what, "%s region %s",
                  gpufx_filter_name (f[k].kind), gpufx_border_name (b));
        check_region (what, &f[k], s, dr, 0);
        snprintf (what, sizeof what, "%s small bands %s",
                  gpufx_filter_name (f[k].kind), gpufx_border_name (b));
        check_region (what, &f[k], s, whole, 96 * 1024);
        snprintf (what, sizeof what, "%s region small bands %s",
                  gpufx_filter_name (f[k].kind), gpufx_border_name (b));
        check_region (what, &f[k], s, dr, 200 * 1024);
      }
}

/* The whole image on the device (the default where it fits) in bands of
 * 7 rows, so that uploads, row passes as rows arrive, column passes and
 * downloads interleave, from plain and from page-locked memory; and with
 * no room for the whole image, the fallback to bands with halos. */
static void
test_whole (void)
{
  GpufxFilter f[6];
  Shape       s;
  GpufxRect   dr, whole;
  char        what[96];

  band_cases (f, &s, &dr, &whole);
  for (int k = 0; k < 6; k++)
    for (int b = 0; b <= GPUFX_BORDER_ZERO; b++)
      {
        const char *name = gpufx_filter_name (f[k].kind);

        f[k].border = (GpufxBorder) b;
        setenv ("GPUFX_CUDA_BAND_ROWS", "7", 1);
        snprintf (what, sizeof what, "%s %d whole, 7-row bands %s", name, k,
                  gpufx_border_name (b));
        check_region (what, &f[k], s, whole, 0);
        pinned_io = true;
        snprintf (what, sizeof what, "%s %d whole, 7-row bands, pinned %s",
                  name, k, gpufx_border_name (b));
        check_region (what, &f[k], s, whole, 0);
        snprintf (what, sizeof what, "%s %d region, 7-row bands, pinned %s",
                  name, k, gpufx_border_name (b));
        check_region (what, &f[k], s, dr, 0);
        pinned_io = false;
        unsetenv ("GPUFX_CUDA_BAND_ROWS");
        if (k != 0 && k != 2)
          continue;
        /* No room for the whole image (256 KiB "free"): bands with halos,
         * sized from free memory. */
        setenv ("GPUFX_CUDA_MEM_LIMIT", "262144", 1);
        snprintf (what, sizeof what, "%s no room %s", name,
                  gpufx_border_name (b));
        check_region (what, &f[k], s, whole, 0);
        unsetenv ("GPUFX_CUDA_MEM_LIMIT");
      }
}

/* Images larger than one tile or one block of lines: the row tiles, the
 * column blocks and the chunked sums of cosines must join up. */
static void
test_large (void)
{
  static const Shape  shapes[] = { { 1100, 300, 4, 3 }, { 997, 601, 3, -1 } };
  static const double sig[][2] = { { 2, 6 }, { 10, 50 }, { 200, 1.5 } };
  GpufxFilter         f;
  char                what[96];

  for (int i = 0; i < 2; i++)
    for (int b = 0; b <= GPUFX_BORDER_ZERO; b++)
      {
        gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
        f.border = (GpufxBorder) b;
        for (size_t k = 0; k < sizeof sig / sizeof sig[0]; k++)
          {
            if (i == 1 && k != 1)
              continue;
            f.gaussian.std_dev_x = sig[k][0];
            f.gaussian.std_dev_y = sig[k][1];
            snprintf (what, sizeof what, "large gaussian %g,%g", sig[k][0],
                      sig[k][1]);
            check (what, &f, shapes[i]);
          }
        gpufx_filter_init (&f, GPUFX_FILTER_SOBEL);
        f.border = (GpufxBorder) b;
        check ("large sobel", &f, shapes[i]);
        random_matrix (&f, 9, 5, true);
        f.border = (GpufxBorder) b;
        check ("large convolve 9x5 rank-1", &f, shapes[i]);
        random_matrix (&f, 13, 13, false);
        f.border = (GpufxBorder) b;
        check ("large convolve 13x13", &f, shapes[i]);
        gpufx_filter_init (&f, GPUFX_FILTER_KUWAHARA);
        f.border = (GpufxBorder) b;
        f.kuwahara.radius = 10;
        check ("large kuwahara r10", &f, shapes[i]);
      }
}

/* Values far outside [0, 1], no alpha (straight colour only): the
 * Gaussian on the tensor-core taps (both axes at sigma 12: fresh
 * accumulators; rows at 15 and columns at 10: split chains), float taps
 * with cosines, cosines alone, a 13 x 13 matrix (float kernel), a 25 x 25
 * one (tensor cores on RGBA) and Sobel. */
static void
test_hdr (void)
{
  static const double sig[][2]
    = { { 12, 12 }, { 15, 10 }, { 3, 50 }, { 200, 1500 } };
  static const Shape shapes[] = { { 301, 203, 4, -1 }, { 53, 59, 3, -1 } };
  GpufxFilter        f;
  char               what[96];

  value_scale = 1000;
  for (int i = 0; i < 2; i++)
    for (int b = 0; b <= GPUFX_BORDER_ZERO; b++)
      {
        if (quick
            && (i == 1
                || (b != GPUFX_BORDER_CLAMP && b != GPUFX_BORDER_MIRROR)))
          continue;
        gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
        f.border = (GpufxBorder) b;
        for (size_t k = 0; k < sizeof sig / sizeof sig[0]; k++)
          {
            f.gaussian.std_dev_x = sig[k][0];
            f.gaussian.std_dev_y = sig[k][1];
            snprintf (what, sizeof what, "hdr gaussian %g,%g", sig[k][0],
                      sig[k][1]);
            check (what, &f, shapes[i]);
          }
        random_matrix (&f, 13, 13, false);
        f.border = (GpufxBorder) b;
        check ("hdr convolve 13x13", &f, shapes[i]);
        random_matrix (&f, 25, 25, false); /* the tensor cores (RGBA) */
        f.border = (GpufxBorder) b;
        check ("hdr convolve 25x25", &f, shapes[i]);
        gpufx_filter_init (&f, GPUFX_FILTER_SOBEL);
        f.border = (GpufxBorder) b;
        check ("hdr sobel", &f, shapes[i]);
      }
  value_scale = 1;
}

/* Under a forced shared-memory cap (GPUFX_CUDA_SMEM_LIMIT): a 63 x 63
 * RGBA matrix (4 thread rows need 64.5 KB: 2 under 48 KB, 1 under 24 KB),
 * the Gaussian's widest direct rows (sigma 15.7, 127 RGBA taps: under
 * 48 KB the tensor-core kernel, 30 KB; under 24 KB the float rows, 46 KB
 * for 4 rows, so 2) and the sum of cosines (8 terms need 64 KB with 8
 * chunks per line: 4 under 48 KB, 2 under 24 KB). */
static void
test_smem_caps (void)
{
  static const int    caps[] = { 48 * 1024, 24 * 1024 };
  static const double sig[][2] = { { 50, 40 }, { 15.7, 200 } };
  Shape               shapes[2] = { { 97, 71, 4, 3 }, { 150, 45, 4, -1 } };
  GpufxFilter         f;
  char                what[96], cap[32];

  if (quick)
    {
      shapes[0].w = 40;
      shapes[0].h = 20;
      shapes[1].w = 70;
      shapes[1].h = 17;
    }
  for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
    {
      snprintf (cap, sizeof cap, "%d", caps[c]);
      setenv ("GPUFX_CUDA_SMEM_LIMIT", cap, 1);
      for (int i = 0; i < 2; i++)
        for (int b = 0; b <= GPUFX_BORDER_ZERO; b++)
          {
            if (quick && b != GPUFX_BORDER_MIRROR && b != GPUFX_BORDER_ZERO)
              continue;
            random_matrix (&f, 63, 63, false);
            f.border = (GpufxBorder) b;
            snprintf (what, sizeof what, "smem cap %d: convolve 63x63",
                      caps[c]);
            check (what, &f, shapes[i]);
            gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
            f.border = (GpufxBorder) b;
            for (size_t k = 0; k < sizeof sig / sizeof sig[0]; k++)
              {
                f.gaussian.std_dev_x = sig[k][0];
                f.gaussian.std_dev_y = sig[k][1];
                snprintf (what, sizeof what, "smem cap %d: gaussian %g,%g",
                          caps[c], sig[k][0], sig[k][1]);
                check (what, &f, shapes[i]);
              }
          }
    }
  unsetenv ("GPUFX_CUDA_SMEM_LIMIT");
}

static bool
cancel_at_half (double fraction, void *data)
{
  (*(int *) data)++;
  return fraction < 0.5;
}

static void
test_cancel (void)
{
  GpufxFilter  f;
  Shape        s = { 64, 300, 4, -1 };
  float       *a = image_new (s), *b = image_new (s);
  GpufxImage   va = view (a, s), vb = view (b, s);
  GpufxOptions o;
  GpufxReport  r;
  GpufxStatus  st;
  int          calls = 0;

  gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
  gpufx_options_init (&o);
  o.backend = GPUFX_BACKEND_CUDA;
  /* Bands with halos (forced small), then the whole image in 8-row bands. */
  for (int whole = 0; whole < 2; whole++)
    {
      o.cuda_band_bytes = whole ? 0 : 64 * 1024;
      if (whole)
        setenv ("GPUFX_CUDA_BAND_ROWS", "8", 1);
      calls = 0;
      o.progress = cancel_at_half;
      o.progress_data = &calls;
      st = gpufx_run (&f, &va, &vb, &o, &r);
      n_run++;
      if (st != GPUFX_ERROR_CANCELLED || calls < 2)
        {
          printf ("FAIL cancel (whole %d): %s after %d progress calls\n", whole,
                  gpufx_status_message (st), calls);
          n_fail++;
        }
      /* The context must still work after a cancel. */
      o.progress = NULL;
      st = gpufx_run (&f, &va, &vb, &o, &r);
      n_run++;
      if (st != GPUFX_OK)
        {
          printf ("FAIL run after cancel (whole %d): %s (%s)\n", whole,
                  gpufx_status_message (st), r.message);
          n_fail++;
        }
      unsetenv ("GPUFX_CUDA_BAND_ROWS");
    }
  free (a);
  free (b);
}

/* --only GROUP runs one group of comparisons (convolve, convtc, gaussian,
 * sobel, kuwahara, regions, whole, smem, hdr, large, cancel): a sanitizer that
 * is too slow for the whole set can still cover the group a change touched. */
static const char *only;

static bool
wanted (const char *group)
{
  return ! only || strcmp (only, group) == 0;
}

int
main (int argc, char **argv)
{
  char why[GPUFX_MESSAGE_MAX];

  setvbuf (stdout, NULL, _IOLBF, 0); /* a crash still shows the last test */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--quick") == 0)
      quick = true;
    else if (strcmp (argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
  if (! gpufx_backend_available (GPUFX_BACKEND_CUDA, why, sizeof why))
    {
      printf ("SKIP: no usable CUDA device: %s\n", why);
      return 77;
    }
  if (wanted ("convolve"))
    test_convolve ();
  if (wanted ("convtc"))
    test_convolve_tc ();
  if (wanted ("gaussian"))
    {
      test_gaussian ();
      test_gaussian_mirror ();
      test_gaussian_solo ();
      test_gaussian_row_padding ();
      test_gaussian_resonant ();
    }
  if (wanted ("sobel"))
    test_sobel ();
  if (wanted ("kuwahara"))
    {
      test_kuwahara ();
      test_kuwahara_blocks ();
    }
  if (wanted ("regions"))
    test_regions_and_bands ();
  if (wanted ("whole"))
    test_whole ();
  if (wanted ("smem"))
    test_smem_caps ();
  if (wanted ("hdr"))
    test_hdr ();
  if (! quick && wanted ("large"))
    test_large ();
  if (wanted ("cancel"))
    {
      test_cancel ();
      gpufx_release ();
      /* Again after a release: the context must come back. */
      test_cancel ();
    }
  gpufx_release ();
  printf ("%d of %d comparisons failed\n", n_fail, n_run);
  return n_fail ? 1 : 0;
}

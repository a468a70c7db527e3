/* gimp-gpu-filters: the engine against values computed with scipy.ndimage
 * (data/scipy-cases.txt, made by make_scipy_data.py).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine-test.h"

static bool
read_floats (FILE *fp, float *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (fscanf (fp, "%f", &v[i]) != 1)
      return false;
  return true;
}

static GpufxBorder
border_named (const char *name)
{
  for (int b = 0; b < 4; b++)
    if (! strcmp (name, gpufx_border_name ((GpufxBorder) b)))
      return (GpufxBorder) b;
  return (GpufxBorder) -1;
}

int
main (int argc, char **argv)
{
  FILE        *fp;
  char         kind[32], mode[32];
  int          w, h, n_cases = 0;
  GpufxOptions opt;

  if (argc < 2 || ! (fp = fopen (argv[1], "r")))
    {
      fprintf (stderr, "usage: test-scipy data/scipy-cases.txt\n");
      return 1;
    }
  gpufx_options_init (&opt);
  opt.backend = GPUFX_BACKEND_CPU;

  while (fscanf (fp, "%31s %31s %d %d", kind, mode, &w, &h) == 4)
    {
      GpufxFilter f;
      float      *in = malloc (sizeof (float) * w * h);
      float      *want = malloc (sizeof (float) * w * h);
      float      *got = malloc (sizeof (float) * w * h);
      GpufxImage  vs = test_view (in, w, h, 1, -1, false);
      GpufxImage  vd = test_view (got, w, h, 1, -1, false);
      GpufxReport report;
      double      worst = 0, tol = 2e-6;
      bool        ok = true;

      if (! strcmp (kind, "convolve"))
        {
          gpufx_filter_init (&f, GPUFX_FILTER_CONVOLVE);
          ok = fscanf (fp, "%d %d %lf", &f.convolve.width, &f.convolve.height,
                       &f.convolve.divisor)
                 == 3
               && read_floats (fp, f.convolve.matrix,
                               (size_t) f.convolve.width * f.convolve.height);
          f.convolve.offset = 0;
          f.convolve.normalize = false;
        }
      else if (! strcmp (kind, "gaussian"))
        {
          gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
          ok = fscanf (fp, "%lf %lf", &f.gaussian.std_dev_x,
                       &f.gaussian.std_dev_y)
               == 2;
          tol = 1e-5;
        }
      else if (! strcmp (kind, "sobel"))
        {
          int hor, ver, keep;

          gpufx_filter_init (&f, GPUFX_FILTER_SOBEL);
          ok = fscanf (fp, "%d %d %d", &hor, &ver, &keep) == 3;
          f.sobel.horizontal = hor;
          f.sobel.vertical = ver;
          f.sobel.keep_sign = keep;
        }
      else if (! strcmp (kind, "kuwahara"))
        {
          gpufx_filter_init (&f, GPUFX_FILTER_KUWAHARA);
          ok = fscanf (fp, "%d", &f.kuwahara.radius) == 1;
        }
      else
        ok = false;
      f.border = border_named (mode);
      ok = ok && read_floats (fp, in, (size_t) w * h)
           && read_floats (fp, want, (size_t) w * h);
      CHECK (ok, "case %d (%s %s): unreadable", n_cases, kind, mode);
      if (! ok)
        break;
      CHECK (gpufx_run (&f, &vs, &vd, &opt, &report) == GPUFX_OK, "%s %s: %s",
             kind, mode, report.message);
      for (int i = 0; i < w * h; i++)
        if (! (fabs (got[i] - want[i]) <= worst))
          worst = fabs (got[i] - want[i]);
      CHECK (worst <= tol, "scipy %s %s %dx%d: error %.3g", kind, mode, w, h,
             worst);
      n_cases++;
      free (in);
      free (want);
      free (got);
    }
  fclose (fp);
  CHECK (n_cases == 4 * (3 + 4 + 4 + 3), "read %d cases", n_cases);
  return test_summary ("test-scipy");
}

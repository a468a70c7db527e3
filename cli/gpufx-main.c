/* gimp-gpu-filters: gpufx, the filter engine from the command line.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exit status: 0 success, 1 a failure while working (a file, the engine),
 * 2 a bad command line.  Every error is one line on stderr starting with
 * "gpufx: ", and no output file is left behind.
 */
#include "config.h"
#include "cli-args.h"
#include "image-io.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAIN_EXIT_FAILURE 1
#define MAIN_EXIT_USAGE   2

static void
main_error (const char *message)
{
  fputs ("gpufx: ", stderr);
  for (const char *s = message; *s; s++)
    fputc (*s == '\n' || *s == '\r' ? ' ' : *s, stderr);
  fputc ('\n', stderr);
}

static void
main_print_help (FILE *out)
{
  fprintf (out,
           "Usage: gpufx FILTER [OPTION...] IN OUT\n"
           "       gpufx FILTER --help\n"
           "       gpufx --list-backends | --version | --help\n\n"
           "Runs one of gimp-gpu-filters' filters on an image file, on the "
           "GPU (CUDA)\nwhen there is one, else on the CPU.\n\n"
           "Filters:\n");
  for (int k = 0; k < GPUFX_N_FILTERS; k++)
    {
      const GpufxFilterInfo *info = gpufx_filter_info ((GpufxFilterKind) k);

      fprintf (out, "  %-15s %s\n", info->name, info->blurb);
    }
  fprintf (out,
           "\nFiles (the output's format comes from its extension):\n"
           "  .pfm  32-bit float, gray (Pf) or RGB (PF); no alpha.  Read in "
           "either byte\n"
           "        order (the scale's sign), written little-endian.\n"
           "  .pam  8 or 16 bits, GRAYSCALE, GRAYSCALE_ALPHA, RGB or "
           "RGB_ALPHA.\n"
           "  .ppm  8 or 16 bits RGB (P6).   .pgm  8 or 16 bits gray (P5).\n"
#if HAVE_GEGL_IO
           "  other extensions (.png, .jpg, .tif, .exr, ...) through GEGL.  "
           "Values are\n"
           "        taken as stored, in the file's own transfer curve: an "
           "8-bit sRGB PNG\n"
           "        gives R'G'B' values n/255, so a PNG round trip is "
           "lossless; a float EXR\n"
           "        gives its linear values.  PFM input is labelled linear "
           "and PAM/PPM/PGM\n"
           "        input sRGB-encoded when written through GEGL.\n"
#else
           "  (built without GEGL: no PNG, JPEG, TIFF or EXR.)\n"
#endif
           "Integer samples become [0, 1] (n / maxval); on output they are "
           "rounded and\n"
           "clamped.  Integer output has 8 bits for 8-bit input, else 16 "
           "(--depth changes\n"
           "it).  Alpha is straight in files; colour is weighted by alpha "
           "while filtering.\n"
           "The output is written to a temporary file and renamed: it "
           "appears complete or\n"
           "not at all.\n\n"
           "Exit status: 0 success, 1 failure, 2 bad command line.\n");
}

static int
main_list_backends (void)
{
  static const GpufxBackend backends[]
    = { GPUFX_BACKEND_CPU, GPUFX_BACKEND_CUDA };
  char why[GPUFX_MESSAGE_MAX];
  bool cuda = false;

  for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
    {
      bool ok = gpufx_backend_available (backends[i], why, sizeof why);

      if (backends[i] == GPUFX_BACKEND_CUDA)
        cuda = ok;
      if (ok)
        printf ("%s: available\n", gpufx_backend_name (backends[i]));
      else
        printf ("%s: not available: %s\n", gpufx_backend_name (backends[i]),
                why[0] ? why : "unknown reason");
    }
  printf ("auto: uses %s\n", cuda ? "cuda" : "cpu");
  gpufx_release ();
  return 0;
}

static void
main_on_signal (int sig)
{
  cli_image_io_abort ();
  signal (sig, SIG_DFL);
  raise (sig);
}

static int
main_compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static int
main_run (const CliArgs *args)
{
  CliImage    in, out;
  GpufxImage  src, dst;
  GpufxReport report;
  GpufxStatus status = GPUFX_OK;
  char        err[CLI_ERR_MAX];
  char        note[GPUFX_MESSAGE_MAX] = "";
  double     *times;
  double      ms;
  int         rc = MAIN_EXIT_FAILURE;

  /* The cheap checks first: no filtering before a doomed save. */
  if (! cli_image_check_output (args->output, 0, args->depth, err, sizeof err))
    {
      main_error (err);
      return MAIN_EXIT_FAILURE;
    }
  if (args->options.backend == GPUFX_BACKEND_CUDA
      && ! gpufx_backend_available (GPUFX_BACKEND_CUDA, err, sizeof err))
    {
      char line[CLI_ERR_MAX + 64];

      snprintf (line, sizeof line, "the CUDA backend is not available: %s",
                err);
      main_error (line);
      return MAIN_EXIT_FAILURE;
    }
  if (! cli_image_load (args->input, &in, err, sizeof err))
    {
      main_error (err);
      return MAIN_EXIT_FAILURE;
    }
  if (! cli_image_check_output (args->output, in.channels, args->depth, err,
                                sizeof err))
    {
      main_error (err);
      cli_image_clear (&in);
      return MAIN_EXIT_FAILURE;
    }

  out = in;
  out.data = malloc (sizeof (float) * in.width * in.height * in.channels);
  times = malloc (sizeof (double) * args->repeat);
  if (! out.data || ! times)
    {
      main_error ("out of memory for the output image");
      goto done;
    }

  src.data = in.data;
  src.width = in.width;
  src.height = in.height;
  src.channels = in.channels;
  src.stride = (ptrdiff_t) in.width * in.channels;
  src.alpha = cli_image_has_alpha (&in) ? in.channels - 1 : -1;
  src.premultiplied = false;
  dst = src;
  dst.data = out.data;

  for (int r = 0; r < args->repeat; r++)
    {
      status = gpufx_run (&args->filter, &src, &dst, &args->options, &report);
      if (status != GPUFX_OK)
        break;
      times[r] = report.milliseconds;
      if (report.message[0])
        snprintf (note, sizeof note, "%s", report.message);
    }
  if (status != GPUFX_OK)
    {
      char line[GPUFX_MESSAGE_MAX + 64];

      snprintf (line, sizeof line, "%s: %s", args->info->name,
                report.message[0] ? report.message
                                  : gpufx_status_message (status));
      main_error (line);
      goto done;
    }
  if (note[0])
    {
      char line[GPUFX_MESSAGE_MAX + 16];

      snprintf (line, sizeof line, "note: %s", note);
      main_error (line);
    }

  if (! cli_image_save (args->output, &out, args->depth, err, sizeof err))
    {
      main_error (err);
      goto done;
    }

  qsort (times, (size_t) args->repeat, sizeof *times, main_compare_doubles);
  ms = args->repeat % 2
         ? times[args->repeat / 2]
         : 0.5 * (times[args->repeat / 2 - 1] + times[args->repeat / 2]);
  if (args->report)
    printf ("{\"filter\": \"%s\", \"backend\": \"%s\", \"width\": %d, "
            "\"height\": %d, \"channels\": %d, \"milliseconds\": %.4f, "
            "\"repeat\": %d}\n",
            args->info->name, gpufx_backend_name (report.backend_used),
            in.width, in.height, in.channels, ms, args->repeat);
  rc = 0;

done:
  free (times);
  cli_image_clear (&out);
  cli_image_clear (&in);
  return rc;
}

int
main (int argc, char **argv)
{
  CliArgs args;
  char    err[CLI_ERR_MAX];
  int     rc;

  if (argc < 2)
    {
      main_error ("no filter given (see gpufx --help)");
      return MAIN_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      main_print_help (stdout);
      return 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("gpufx %s (CUDA backend %s; GEGL file formats %s)\n",
              PACKAGE_VERSION, HAVE_CUDA ? "built" : "not built",
              HAVE_GEGL_IO ? "yes" : "no");
      return 0;
    }
  if (strcmp (argv[1], "--list-backends") == 0)
    return main_list_backends ();
  if (argv[1][0] == '-')
    {
      snprintf (err, sizeof err,
                "unknown option '%.40s'; the filter comes first (see gpufx "
                "--help)",
                argv[1]);
      main_error (err);
      return MAIN_EXIT_USAGE;
    }

  if (! cli_args_parse (&args, argc - 1, argv + 1, err, sizeof err))
    {
      main_error (err);
      return MAIN_EXIT_USAGE;
    }
  if (args.help)
    {
      cli_args_print_filter_help (stdout, args.info);
      return 0;
    }

  signal (SIGINT, main_on_signal);
  signal (SIGTERM, main_on_signal);
  signal (SIGHUP, main_on_signal);

  rc = main_run (&args);
  gpufx_release ();
  cli_image_io_shutdown ();
  return rc;
}

/* gimp-gpu-filters: libFuzzer harness of gpufx's command line: the number,
 * switch and choice parsers of every option, and the matrix option.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input is the argument vector, NUL-separated, the filter's name first
 * (as gpufx passes it to cli_args_parse).  An accepted command line must
 * leave every parameter finite and inside its table's range, and the
 * filter valid; a refused one says why in one line.
 */
#include "cli-args.h"

#include "fuzz-require.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ARGS_MAX 64

static void
fuzz_args_check_params (const CliArgs *args, const GpufxParam *list)
{
  for (const GpufxParam *p = list; p->name; p++)
    {
      double v;

      if (p->type == GPUFX_PARAM_MATRIX)
        continue;
      v = gpufx_param_get (&args->filter, &args->options, p);
      fuzz_require (isfinite (v), "a parameter not finite");
      fuzz_require (v >= p->min && v <= p->max,
                    "a parameter outside its range");
      if (p->type != GPUFX_PARAM_DOUBLE)
        fuzz_require (v == floor (v), "a whole parameter with a fraction");
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char   *text = malloc (size + 1);
  char   *argv[FUZZ_ARGS_MAX + 1];
  char    err[512] = "";
  int     argc = 0;
  size_t  start = 0;
  CliArgs args;

  fuzz_require (text != NULL, "out of memory");
  memcpy (text, data, size);
  text[size] = '\0';
  for (size_t i = 0; i <= size && argc < FUZZ_ARGS_MAX; i++)
    if (i == size || text[i] == '\0')
      {
        argv[argc++] = text + start;
        start = i + 1;
      }
  argv[argc] = NULL;

  if (! cli_args_parse (&args, argc, argv, err, sizeof err))
    {
      fuzz_require_message (err);
    }
  else
    {
      char why[GPUFX_MESSAGE_MAX];

      fuzz_require (args.info != NULL, "no filter");
      fuzz_args_check_params (&args, args.info->params);
      fuzz_args_check_params (&args, gpufx_common_params);
      if (! args.help)
        {
          fuzz_require (gpufx_filter_validate (&args.filter, why, sizeof why)
                          == GPUFX_OK,
                        "an accepted filter does not validate");
          fuzz_require (args.input && args.output, "files missing");
          fuzz_require (args.repeat >= 1 && args.repeat <= 100000,
                        "--repeat out of range");
          fuzz_require (args.depth == 0 || args.depth == 8 || args.depth == 16,
                        "--depth not 8 or 16");
          fuzz_require (args.options.threads >= 0
                          && args.options.threads <= 4096,
                        "--threads out of range");
        }
    }
  free (text);
  return 0;
}

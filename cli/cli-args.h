/* gimp-gpu-filters: gpufx's command line, made from the parameter tables.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include "gpufx-params.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct
{
  const GpufxFilterInfo *info;
  GpufxFilter            filter;
  GpufxOptions           options;
  const char            *input;
  const char            *output;
  int                    repeat; /* runs; the median time is reported */
  int                    depth;  /* 8, 16, or 0: from the input */
  bool                   report; /* one JSON line on stdout */
  bool                   help;
} CliArgs;

/* argv[0] is the filter's name.  On false err holds one line. */
bool cli_args_parse (CliArgs *args,
                     int      argc,
                     char   **argv,
                     char    *err,
                     size_t   err_size);

void cli_args_print_filter_help (FILE *out, const GpufxFilterInfo *info);

#endif /* CLI_ARGS_H */

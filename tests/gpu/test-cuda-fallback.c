/* gimp-gpu-filters: without a usable CUDA device, auto falls back to the
 * CPU silently and cuda fails with a clear message.  Runs everywhere (no
 * skip): GPUFX_CUDA_DISABLE makes a machine with a GPU behave as one
 * without.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gpufx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main (void)
{
  float        a[16 * 8 * 3], b[16 * 8 * 3];
  GpufxImage   va = { a, 16, 8, 3, 48, -1, false };
  GpufxImage   vb = { b, 16, 8, 3, 48, -1, false };
  GpufxFilter  f;
  GpufxOptions o;
  GpufxReport  r;
  GpufxStatus  st;
  char         why[GPUFX_MESSAGE_MAX];
  int          fails = 0;

  setenv ("GPUFX_CUDA_DISABLE", "1", 1);
  for (int i = 0; i < 16 * 8 * 3; i++)
    a[i] = (float) (i % 7) / 7.0f;
  gpufx_filter_init (&f, GPUFX_FILTER_GAUSSIAN_BLUR);
  gpufx_options_init (&o);
  o.threads = 1;

  if (gpufx_backend_available (GPUFX_BACKEND_CUDA, why, sizeof why)
      || why[0] == '\0')
    {
      printf ("FAIL: CUDA reported available, or no reason given\n");
      fails++;
    }
  else
    printf ("cuda not available: %s\n", why);

  o.backend = GPUFX_BACKEND_AUTO;
  st = gpufx_run (&f, &va, &vb, &o, &r);
  if (st != GPUFX_OK || r.backend_used != GPUFX_BACKEND_CPU)
    {
      printf ("FAIL: auto gave %s on %s (%s)\n", gpufx_status_message (st),
              gpufx_backend_name (r.backend_used), r.message);
      fails++;
    }

  o.backend = GPUFX_BACKEND_CUDA;
  st = gpufx_run (&f, &va, &vb, &o, &r);
  if (st != GPUFX_ERROR_BACKEND_UNAVAILABLE || ! strstr (r.message, "CUDA"))
    {
      printf ("FAIL: cuda gave %s (%s)\n", gpufx_status_message (st),
              r.message);
      fails++;
    }
  else
    printf ("cuda run refused: %s\n", r.message);
  gpufx_release ();
  return fails ? 1 : 0;
}

/* gimp-gpu-filters: libFuzzer harness of the matrix text parser
 * (gpufx_matrix_parse) and its writer.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input is the text.  A matrix that parses must have sane dimensions
 * and finite weights, must fit GPUFX_MATRIX_TEXT_MAX when written back, and
 * must read back to the same bits; a refusal must leave the parameters
 * untouched and say why in one line.
 */
#include "gpufx-params.h"

#include "fuzz-require.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static char         text[GPUFX_MATRIX_TEXT_MAX];
  char               *input = malloc (size + 1);
  char                message[GPUFX_MESSAGE_MAX] = "";
  GpufxConvolveParams params, before, again;

  fuzz_require (input != NULL, "out of memory");
  memcpy (input, data, size);
  input[size] = '\0';
  memset (&params, 0x5a, sizeof params);
  before = params;

  if (! gpufx_matrix_parse (&params, input, message, sizeof message))
    {
      fuzz_require (memcmp (&params, &before, sizeof params) == 0,
                    "a refused matrix changed the parameters");
      fuzz_require_message (message);
      free (input);
      return 0;
    }
  free (input);

  fuzz_require (params.width >= 1 && params.width <= GPUFX_MATRIX_MAX
                  && params.height >= 1 && params.height <= GPUFX_MATRIX_MAX,
                "matrix size out of 1..63");
  for (int i = 0; i < params.width * params.height; i++)
    fuzz_require (isfinite (params.matrix[i]), "a weight not finite");

  fuzz_require (gpufx_matrix_format (&params, text, sizeof text),
                "the matrix does not fit GPUFX_MATRIX_TEXT_MAX");
  memset (&again, 0, sizeof again);
  fuzz_require (gpufx_matrix_parse (&again, text, message, sizeof message),
                "the written matrix does not parse");
  fuzz_require (again.width == params.width && again.height == params.height,
                "the written matrix has another size");
  for (int i = 0; i < params.width * params.height; i++)
    fuzz_require (memcmp (&again.matrix[i], &params.matrix[i], sizeof (float))
                    == 0,
                  "a weight changed on the way through text");
  return 0;
}

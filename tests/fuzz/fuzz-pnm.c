/* gimp-gpu-filters: libFuzzer harness of gpufx's PFM, PAM, PPM and PGM
 * reader.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built once per format with FUZZ_MAGIC ("PF", "P7", "P6", "P5"): the
 * input's first two bytes are replaced by that magic number (for PFM an
 * 'f' second byte keeps "Pf"), so each harness spends its time in its own
 * format.  The reader runs twice, with the stream's length known (a
 * regular file) and unknown (a pipe); both must agree.  Besides the
 * sanitizers it checks what a caller relies on: a sane image on success,
 * one line of error on failure, and never more pixels than the input's
 * bytes could hold.
 */
#include "config.h"
#include "image-io-private.h"

#include "fuzz-require.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_MAGIC
#error "FUZZ_MAGIC must name the format's magic number"
#endif

static bool
fuzz_pnm_read (const uint8_t       *body,
               size_t               n,
               const unsigned char *magic,
               bool                 length_known,
               CliImage            *image,
               char                *err)
{
  /* fmemopen wants at least one byte; an empty body is a one-byte buffer
   * of which zero bytes are readable. */
  static const char nothing[1] = { 0 };
  FILE *file = fmemopen (n ? (void *) body : (void *) nothing, n ? n : 1, "rb");
  bool  ok;

  fuzz_require (file != NULL, "fmemopen failed");
  if (n == 0)
    fseek (file, 1, SEEK_SET);
  err[0] = '\0';
  ok = cli_pnm_read (file, "fuzz", magic, length_known ? (int64_t) n : -1,
                     image, err, CLI_ERR_MAX);
  fclose (file);
  return ok;
}

static void
fuzz_pnm_check (bool ok, const CliImage *image, const char *err, size_t n)
{
  size_t count, sample_bytes;
  double sum = 0;

  if (! ok)
    {
      fuzz_require_message (err);
      fuzz_require (image->data == NULL, "a failure left pixels");
      return;
    }
  fuzz_require (image->width >= 1 && image->height >= 1, "empty image");
  fuzz_require (image->channels >= 1 && image->channels <= 4,
                "channel count out of 1..4");
  fuzz_require (image->bits == 8 || image->bits == 16 || image->bits == 32,
                "bits not 8, 16 or 32");
  count = (size_t) image->width * image->height * image->channels;
  sample_bytes = (size_t) image->bits / 8;
  fuzz_require (count * sample_bytes <= n,
                "more pixels than the input's bytes hold");
  /* Touch every sample, so that the sanitizer sees the allocation is as
   * large as the image says. */
  for (size_t i = 0; i < count; i++)
    if (image->bits == 32)
      sum += image->data[i] == image->data[i];
    else
      {
        fuzz_require (image->data[i] >= 0.0f && image->data[i] <= 1.0f,
                      "an integer sample outside [0, 1]");
        sum += image->data[i];
      }
  fuzz_require (sum >= 0, "negative sum");
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  unsigned char  magic[2] = { FUZZ_MAGIC[0], FUZZ_MAGIC[1] };
  const uint8_t *body = size >= 2 ? data + 2 : data;
  size_t         n = size >= 2 ? size - 2 : 0;
  char           err_known[CLI_ERR_MAX], err_stream[CLI_ERR_MAX];
  CliImage       known, stream;
  bool           ok_known, ok_stream;

  if (magic[1] == 'F' && size >= 2 && data[1] == 'f')
    magic[1] = 'f';
  /* The sniffer must never read past what it is given. */
  (void) cli_pnm_sniff (data, size < 3 ? size : 3);

  ok_known = fuzz_pnm_read (body, n, magic, true, &known, err_known);
  fuzz_pnm_check (ok_known, &known, err_known, n);
  ok_stream = fuzz_pnm_read (body, n, magic, false, &stream, err_stream);
  fuzz_pnm_check (ok_stream, &stream, err_stream, n);

  fuzz_require (ok_known == ok_stream, "a known length and a stream disagree");
  if (ok_known)
    {
      size_t count = (size_t) known.width * known.height * known.channels;

      fuzz_require (known.width == stream.width && known.height == stream.height
                      && known.channels == stream.channels
                      && known.bits == stream.bits,
                    "a known length and a stream give other shapes");
      fuzz_require (memcmp (known.data, stream.data, count * sizeof (float))
                      == 0,
                    "a known length and a stream give other pixels");
    }
  cli_image_clear (&known);
  cli_image_clear (&stream);
  return 0;
}

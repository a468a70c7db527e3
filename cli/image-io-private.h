/* gimp-gpu-filters: what gpufx's file readers and writers share.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CLI_IMAGE_IO_PRIVATE_H
#define CLI_IMAGE_IO_PRIVATE_H

#include "image-io.h"

#include <stdio.h>

typedef enum
{
  CLI_FORMAT_UNKNOWN = 0,
  CLI_FORMAT_PFM,
  CLI_FORMAT_PAM,
  CLI_FORMAT_PPM,
  CLI_FORMAT_PGM,
  CLI_FORMAT_GEGL
} CliFormat;

/* printf into err, one line (newlines become spaces). */
void cli_set_error (char *err, size_t err_size, const char *format, ...)
#ifdef __GNUC__
  __attribute__ ((format (printf, 3, 4)))
#endif
  ;

/* By extension, case-insensitive; GEGL for any other extension when built
 * with GEGL, else UNKNOWN. */
CliFormat cli_format_from_path (const char *path);

/* Whether the first bytes look like PFM, PAM, PPM or PGM (or another PNM
 * variant, which the reader then names in its error). */
bool cli_pnm_sniff (const unsigned char *head, size_t n);

/* Reads a PFM, PAM, PPM or PGM from file, which is just past the two bytes
 * of its magic number.  size is the stream's length as ftello counts it, or
 * -1 when unknown (a pipe); name is for messages. */
bool cli_pnm_read (FILE                *file,
                   const char          *name,
                   const unsigned char *magic,
                   int64_t              size,
                   CliImage            *image,
                   char                *err,
                   size_t               err_size);
/* Writes image to an open file in format (PFM, PAM, PPM or PGM). */
bool cli_pnm_write (FILE           *file,
                    CliFormat       format,
                    const CliImage *image,
                    int             depth,
                    char           *err,
                    size_t          err_size);

#if HAVE_GEGL_IO
bool
cli_gegl_load (const char *path, CliImage *image, char *err, size_t err_size);
/* path's extension picks the saver; path is the temporary file. */
bool cli_gegl_save (const char     *path,
                    const char     *extension,
                    const CliImage *image,
                    int             depth,
                    char           *err,
                    size_t          err_size);
bool cli_gegl_has_saver (const char *extension);
void cli_gegl_shutdown (void);
#endif

#endif /* CLI_IMAGE_IO_PRIVATE_H */

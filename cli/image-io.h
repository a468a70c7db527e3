/* gimp-gpu-filters: gpufx's image files.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An image in memory is float32, 1 to 4 interleaved channels, top row first,
 * straight (not premultiplied) alpha in the last channel when there is one.
 * Integer files are scaled to [0, 1] by /maxval; values are taken as stored
 * (no colour-space conversion).
 *
 * Every function reports failure with a one-line message in err and leaves
 * nothing behind: a failed save removes its temporary file and never
 * touches the destination.
 */
#ifndef CLI_IMAGE_IO_H
#define CLI_IMAGE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_MAX_PIXELS ((int64_t) 1 << 31)
#define CLI_ERR_MAX    512

typedef struct
{
  float      *data;
  int         width;
  int         height;
  int         channels; /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
  int         bits;     /* what the file held: 8, 16 or 32 (float) */
  bool        linear;   /* light-linear values (PFM, linear EXR, ...) */
  const void *space;    /* GEGL's Babl space of the source, or NULL */
} CliImage;

static inline bool
cli_image_has_alpha (const CliImage *image)
{
  return image->channels == 2 || image->channels == 4;
}

/* Reads PFM, PAM, PPM (P6) or PGM (P5), or with GEGL anything GEGL reads. */
bool
cli_image_load (const char *path, CliImage *image, char *err, size_t err_size);

/* Writes by path's extension: .pfm, .pam, .ppm, .pgm (.pnm: PGM or PPM as
 * the channels say), or with GEGL any extension GEGL saves.  depth is 8 or
 * 16 for integer formats, 0 to choose from image->bits.  Atomic: the file
 * appears complete or not at all. */
bool cli_image_save (const char     *path,
                     const CliImage *image,
                     int             depth,
                     char           *err,
                     size_t          err_size);

/* Whether save would accept path (its folder, its extension, and with
 * channels > 0 the channel count), before any work is done. */
bool cli_image_check_output (const char *path,
                             int         channels,
                             int         depth,
                             char       *err,
                             size_t      err_size);

void cli_image_clear (CliImage *image);

/* From a signal handler: removes the temporary file of a save under way.
 * Async-signal-safe. */
void cli_image_io_abort (void);

/* Frees GEGL if it was started. */
void cli_image_io_shutdown (void);

#endif /* CLI_IMAGE_IO_H */

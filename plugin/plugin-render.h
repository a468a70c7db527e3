/* gimp-gpu-filters: drawables through the engine, with real context.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * No GTK here: the plug-in's run and the dialog's preview share this.
 */
#ifndef PLUGIN_RENDER_H
#define PLUGIN_RENDER_H

#include <libgimp/gimp.h>

#include "gpufx.h"

G_BEGIN_DECLS

/* The float format a filter works in for a drawable, matching GIMP's own
 * operations: linear premultiplied for the blurs, straight for Sobel, in the
 * drawable's colour space. */
typedef struct
{
  const Babl *format;
  gint        channels;
  gint        alpha; /* index or -1 */
  gboolean    premultiplied;
} GpuRenderFormat;

void gpu_render_format (GimpDrawable    *drawable,
                        GpufxFilterKind  kind,
                        GpuRenderFormat *format);

/* Filters dst (drawable coordinates) of src into out (dst->width x
 * dst->height pixels of format), reading the surrounding pixels the filter
 * needs.  On failure out is untouched and error holds the engine's
 * message. */
gboolean gpu_render_rect (GeglBuffer            *src,
                          const GpuRenderFormat *format,
                          const GpufxFilter     *filter,
                          const GpufxOptions    *options,
                          const GeglRectangle   *dst,
                          gfloat                *out,
                          GpufxReport           *report,
                          GError               **error);

typedef struct
{
  const gchar *backend;   /* "cpu", "cuda", or "none" when nothing ran */
  gdouble      engine_ms; /* the engine alone, all bands */
  gdouble      total_ms;  /* with reading, writing and merging */
  gint         bands;
} GpuRenderStats;

/* The whole run on one drawable: the selection's bounding box, in bands of
 * at most band_bytes of floats (0: a default; the environment variable
 * GPU_FILTERS_BAND_BYTES overrides it), with progress.  The image changes
 * only when every band succeeded. */
gboolean gpu_render_drawable (GimpDrawable       *drawable,
                              const GpufxFilter  *filter,
                              const GpufxOptions *options,
                              gsize               band_bytes,
                              GpuRenderStats     *stats,
                              GError            **error);

G_END_DECLS

#endif /* PLUGIN_RENDER_H */

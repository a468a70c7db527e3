/* gimp-gpu-filters: drawables through the engine, with real context.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>

#include <glib/gi18n-lib.h>

#include "plugin-error.h"
#include "plugin-render.h"

#define RENDER_DEFAULT_BAND_BYTES ((gsize) 256 << 20)

void
gpu_render_format (GimpDrawable    *drawable,
                   GpufxFilterKind  kind,
                   GpuRenderFormat *format)
{
  const Babl *space = gimp_drawable_get_format (drawable);
  gboolean    gray = gimp_drawable_is_gray (drawable);
  gboolean    alpha = gimp_drawable_has_alpha (drawable);
  /* gegl:gaussian-blur works in "RaGaBaA float" ("RGB float" without
   * alpha), gegl:edge-sobel in straight "RGBA float".  The engine takes
   * either; premultiplied input it uses as it is. */
  gboolean    premultiply = kind != GPUFX_FILTER_SOBEL && alpha;
  const char *name;

  if (gray)
    name = ! alpha ? "Y float" : premultiply ? "YaA float" : "YA float";
  else
    name = ! alpha ? "RGB float" : premultiply ? "RaGaBaA float" : "RGBA float";

  format->format = babl_format_with_space (name, space);
  format->channels = (gray ? 1 : 3) + (alpha ? 1 : 0);
  format->alpha = alpha ? format->channels - 1 : -1;
  format->premultiplied = premultiply;
}

static GpufxImage
render_view (gfloat                *data,
             gint                   width,
             gint                   height,
             const GpuRenderFormat *format)
{
  GpufxImage view;

  view.data = data;
  view.width = width;
  view.height = height;
  view.channels = format->channels;
  view.stride = (ptrdiff_t) width * format->channels;
  view.alpha = format->alpha;
  view.premultiplied = format->premultiplied;
  return view;
}

gboolean
gpu_render_rect (GeglBuffer            *src,
                 const GpuRenderFormat *format,
                 const GpufxFilter     *filter,
                 const GpufxOptions    *options,
                 const GeglRectangle   *dst,
                 gfloat                *out,
                 GpufxReport           *report,
                 GError               **error)
{
  const GeglRectangle *extent = gegl_buffer_get_extent (src);
  GpufxRect            dst_rect = { dst->x, dst->y, dst->width, dst->height };
  GpufxRect            src_rect;
  GpufxImage           in_view, out_view;
  GpufxStatus          status;
  gfloat              *in;

  src_rect = gpufx_input_rect (filter, extent->width, extent->height, dst_rect);
  in = g_try_malloc (sizeof (gfloat) * format->channels * (gsize) src_rect.width
                     * src_rect.height);
  if (! in)
    {
      g_set_error (error, GPU_FILTERS_ERROR, 0,
                   _ ("Not enough memory for %d x %d pixels of input"),
                   src_rect.width, src_rect.height);
      return FALSE;
    }
  gegl_buffer_get (
    src,
    GEGL_RECTANGLE (src_rect.x, src_rect.y, src_rect.width, src_rect.height),
    1.0, format->format, in, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);

  in_view = render_view (in, src_rect.width, src_rect.height, format);
  out_view = render_view (out, dst->width, dst->height, format);
  status = gpufx_run_region (filter, &in_view, src_rect, &out_view, dst_rect,
                             extent->width, extent->height, options, report);
  g_free (in);

  if (status != GPUFX_OK)
    {
      g_set_error (error, GPU_FILTERS_ERROR, status, "%s: %s",
                   gpufx_status_message (status),
                   report->message[0] ? report->message : _ ("no details"));
      return FALSE;
    }
  return TRUE;
}

/* The progress of one band, scaled into the whole run's. */
typedef struct
{
  gdouble done;  /* fraction finished before this band */
  gdouble share; /* this band's part of the whole */
  gdouble shown; /* last value sent to GIMP */
} RenderProgress;

static bool
render_progress (double fraction, void *data)
{
  RenderProgress *p = data;
  gdouble         f = p->done + p->share * fraction;

  /* Each update is a round trip to GIMP: send whole percents only. */
  if (f - p->shown >= 0.01 || f >= 1.0)
    {
      gimp_progress_update (f);
      p->shown = f;
    }
  return true;
}

static gsize
render_band_bytes (gsize band_bytes)
{
  const gchar *env = g_getenv ("GPU_FILTERS_BAND_BYTES");

  if (env && *env)
    {
      guint64 v = g_ascii_strtoull (env, NULL, 10);

      if (v > 0)
        return (gsize) v;
    }
  return band_bytes ? band_bytes : RENDER_DEFAULT_BAND_BYTES;
}

/* Rows per band so that a band's input (with its context) and output fit in
 * the budget; at least one row. */
static gint
render_band_rows (const GpufxFilter     *filter,
                  const GeglRectangle   *extent,
                  const GeglRectangle   *box,
                  const GpuRenderFormat *format,
                  gsize                  budget)
{
  gint rows = box->height;

  while (rows > 1)
    {
      GpufxRect d = { box->x, box->y, box->width, rows };
      GpufxRect s = gpufx_input_rect (filter, extent->width, extent->height, d);
      gsize     bytes = sizeof (gfloat) * format->channels
                    * ((gsize) s.width * s.height + (gsize) d.width * d.height);

      if (bytes <= budget)
        break;
      rows = rows / 2;
    }
  return rows;
}

gboolean
gpu_render_drawable (GimpDrawable       *drawable,
                     const GpufxFilter  *filter,
                     const GpufxOptions *options,
                     gsize               band_bytes,
                     GpuRenderStats     *stats,
                     GError            **error)
{
  GpuRenderFormat      format;
  GeglBuffer          *src;
  GeglBuffer          *shadow;
  const GeglRectangle *extent;
  GeglRectangle        box;
  GpufxOptions         opts = *options;
  RenderProgress       progress = { 0, 0, 0 };
  GpufxReport          report = { 0 };
  gfloat              *out;
  gint                 rows;
  gboolean             ok = TRUE;
  gint64               t0 = g_get_monotonic_time ();

  stats->backend = "none";
  stats->engine_ms = stats->total_ms = 0;
  stats->bands = 0;
  if (! gimp_drawable_mask_intersect (drawable, &box.x, &box.y, &box.width,
                                      &box.height)
      || box.width <= 0 || box.height <= 0)
    return TRUE; /* the selection misses this drawable: nothing to do */

  gpu_render_format (drawable, filter->kind, &format);
  src = gimp_drawable_get_buffer (drawable);
  extent = gegl_buffer_get_extent (src);
  rows = render_band_rows (filter, extent, &box, &format,
                           render_band_bytes (band_bytes));
  out = g_try_malloc (sizeof (gfloat) * format.channels * (gsize) box.width
                      * rows);
  if (! out)
    {
      g_object_unref (src);
      g_set_error (error, GPU_FILTERS_ERROR, GPUFX_ERROR_OUT_OF_MEMORY,
                   _ ("Not enough memory for %d x %d pixels of output"),
                   box.width, rows);
      return FALSE;
    }
  shadow = gimp_drawable_get_shadow_buffer (drawable);

  opts.progress = render_progress;
  opts.progress_data = &progress;
  gimp_progress_init_printf (_ ("%s on %s"), gpufx_filter_name (filter->kind),
                             gpufx_backend_name (options->backend));

  for (gint y = box.y; ok && y < box.y + box.height; y += rows)
    {
      GeglRectangle band
        = { box.x, y, box.width, MIN (rows, box.y + box.height - y) };

      progress.done = (gdouble) (y - box.y) / box.height;
      progress.share = (gdouble) band.height / box.height;
      ok = gpu_render_rect (src, &format, filter, &opts, &band, out, &report,
                            error);
      stats->engine_ms += report.milliseconds;
      stats->bands++;
      if (ok)
        gegl_buffer_set (shadow, &band, 0, format.format, out,
                         GEGL_AUTO_ROWSTRIDE);
    }

  g_free (out);
  g_object_unref (src);
  gegl_buffer_flush (shadow);
  g_object_unref (shadow);

  /* Only a complete result reaches the image: merging applies the
   * selection mask and makes one undo step. */
  if (ok)
    {
      gimp_drawable_merge_shadow (drawable, TRUE);
      gimp_drawable_update (drawable, box.x, box.y, box.width, box.height);
      stats->backend = gpufx_backend_name (report.backend_used);
    }
  gimp_progress_end ();
  stats->total_ms = (g_get_monotonic_time () - t0) / 1000.0;
  return ok;
}

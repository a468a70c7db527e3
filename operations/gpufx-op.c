/* gimp-gpu-filters: the engine's filters as GEGL operations.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each operation asks GEGL for exactly the input the engine's region call
 * needs (gpufx_input_rect), so the border rule applies at the real image
 * edge however GIMP splits the work into chunks.  Filters whose reach is
 * long (a large sigma) or global (wrap) are computed over the whole image
 * once and cached, as GEGL's own IIR blur does, instead of once per chunk
 * with a huge halo each time.
 *
 * The engine runs its own thread pool (or the GPU), so GEGL's threads are
 * not multiplied on top: the operation is not threaded, and the pool gets
 * as many threads as GEGL's configuration allows.
 *
 * A failure never reaches the user's pixels as garbage: the operation then
 * passes its input through unchanged and says why once.
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "gpufx-op-props.h"
#include "gpufx-op.h"
#include "gpufx-report.h"

/* Past this many pixels of reach, one whole-image pass beats halos. */
#define OP_WHOLE_IMAGE_REACH 128

/* When memory runs short a region is filtered in halves, down to pieces
 * this many pixels high (or wide): slower, but done. */
#define OP_SMALLEST_PIECE 16

static GMutex op_warning_lock;

/* The input's extent: the image whose edges the border rule is about. */
static gboolean
op_image (GeglOperation *operation, GeglRectangle *image)
{
  const GeglRectangle *in
    = gegl_operation_source_get_bounding_box (operation, "input");

  /* An endless input (a pattern source) has no edge for the border rule
   * to apply at; such graphs are not GIMP's, and pass through. */
  if (! in || gegl_rectangle_is_empty (in)
      || gegl_rectangle_is_infinite_plane (in))
    return FALSE;
  *image = *in;
  return TRUE;
}

/* The input that output rect dst needs, both in GEGL's coordinates. */
static GeglRectangle
op_input_for (GpufxOp             *self,
              const GeglRectangle *image,
              const GeglRectangle *dst)
{
  GeglRectangle d;
  GpufxRect     r, s;

  if (! gegl_rectangle_intersect (&d, dst, image))
    return *GEGL_RECTANGLE (0, 0, 0, 0);
  r = (GpufxRect){ d.x - image->x, d.y - image->y, d.width, d.height };
  s = gpufx_input_rect (&self->filter, image->width, image->height, r);
  return *GEGL_RECTANGLE (s.x + image->x, s.y + image->y, s.width, s.height);
}

static gboolean
op_needs_whole_image (GpufxOp *self, const GeglRectangle *image)
{
  GeglRectangle centre
    = { image->x + image->width / 2, image->y + image->height / 2, 1, 1 };
  GeglRectangle need;

  if (self->filter.border == GPUFX_BORDER_WRAP)
    return TRUE;
  need = op_input_for (self, image, &centre);
  return centre.x - need.x > OP_WHOLE_IMAGE_REACH
         || centre.y - need.y > OP_WHOLE_IMAGE_REACH;
}

/* The pads carry what the drawable is (straight colour, its own space),
 * so GEGL converts nothing around the operation; the filter's own form
 * (premultiplied for all but Sobel, as gegl:gaussian-blur and
 * gegl:edge-sobel work) is made by babl while copying into and out of the
 * engine's buffers, on GEGL's threads. */
static void
op_prepare (GeglOperation *operation)
{
  GpufxOp    *self = GPUFX_OP (operation);
  const Babl *space = gegl_operation_get_source_space (operation, "input");
  const Babl *source = gegl_operation_get_source_format (operation, "input");
  gboolean    alpha = ! source || babl_format_has_alpha (source);
  /* An indexed drawable's one component is the palette index: its colours
   * are RGB, not gray. */
  gboolean gray
    = source && ! babl_format_is_palette (source)
      && babl_format_get_n_components (source) - (alpha ? 1 : 0) == 1;
  gboolean    premultiply = alpha && self->filter.kind != GPUFX_FILTER_SOBEL;
  const char *pad, *work;

  if (gray)
    {
      pad = alpha ? "YA float" : "Y float";
      work = premultiply ? "YaA float" : pad;
    }
  else
    {
      pad = alpha ? "RGBA float" : "RGB float";
      work = premultiply ? "RaGaBaA float" : pad;
    }

  self->format = babl_format_with_space (work, space);
  self->channels = (gray ? 1 : 3) + (alpha ? 1 : 0);
  self->alpha = alpha ? self->channels - 1 : -1;
  self->premultiplied = premultiply;
  gegl_operation_set_format (operation, "input",
                             babl_format_with_space (pad, space));
  gegl_operation_set_format (operation, "output",
                             babl_format_with_space (pad, space));
}

static GeglRectangle
op_get_required_for_output (GeglOperation       *operation,
                            const gchar         *input_pad,
                            const GeglRectangle *roi)
{
  GeglRectangle image;

  if (! op_image (operation, &image))
    return *roi;
  return op_input_for (GPUFX_OP (operation), &image, roi);
}

static GeglRectangle
op_get_invalidated_by_change (GeglOperation       *operation,
                              const gchar         *input_pad,
                              const GeglRectangle *input_roi)
{
  GeglRectangle image, grown, out;

  if (! op_image (operation, &image))
    return *input_roi;
  /* What a changed pixel reaches is the mirror of what an output pixel
   * reads; they differ by at most one pixel (even-sized matrices). */
  grown = op_input_for (GPUFX_OP (operation), &image, input_roi);
  grown.x--;
  grown.y--;
  grown.width += 2;
  grown.height += 2;
  gegl_rectangle_intersect (&out, &grown, &image);
  return out;
}

static GeglRectangle
op_get_cached_region (GeglOperation *operation, const GeglRectangle *roi)
{
  GeglRectangle image;

  if (op_image (operation, &image)
      && op_needs_whole_image (GPUFX_OP (operation), &image))
    return image;
  return *roi;
}

static void
op_warn_once (GpufxOp *self, const gchar *what, const gchar *why)
{
  gchar text[GPUFX_MESSAGE_MAX];

  g_snprintf (text, sizeof text, "%s: %s", what, why);
  g_mutex_lock (&op_warning_lock);
  if (strcmp (text, self->last_warning) != 0)
    {
      g_strlcpy (self->last_warning, text, sizeof self->last_warning);
      g_warning ("%s", text);
    }
  g_mutex_unlock (&op_warning_lock);
}

static gint
op_threads (void)
{
  gint threads = 0;

  g_object_get (gegl_config (), "threads", &threads, NULL);
  return MAX (threads, 1);
}

static GpufxImage
op_view (GpufxOp *self, gfloat *data, const GeglRectangle *rect)
{
  GpufxImage view;

  view.data = data;
  view.width = rect->width;
  view.height = rect->height;
  view.channels = self->channels;
  view.stride = (ptrdiff_t) rect->width * self->channels;
  view.alpha = self->alpha;
  view.premultiplied = self->premultiplied;
  return view;
}

/* Moving pixels between GEGL's tiles and the engine's linear buffers is
 * much of the work for a fast filter, so GEGL's threads share it, by rows
 * (the engine's pool is idle meanwhile: nothing is oversubscribed). */
typedef struct
{
  GeglBuffer          *buffer;
  const GeglRectangle *rect;
  const Babl          *format;
  gfloat              *data;
  gsize                row_floats;
  gboolean             to_buffer;
} OpCopy;

static void
op_copy_rows (gsize first, gsize rows, gpointer user_data)
{
  const OpCopy *copy = user_data;
  GeglRectangle part = { copy->rect->x, copy->rect->y + (gint) first,
                         copy->rect->width, (gint) rows };
  gfloat       *data = copy->data + first * copy->row_floats;

  if (copy->to_buffer)
    gegl_buffer_set (copy->buffer, &part, 0, copy->format, data,
                     GEGL_AUTO_ROWSTRIDE);
  else
    gegl_buffer_get (copy->buffer, &part, 1.0, copy->format, data,
                     GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
}

static void
op_copy (GpufxOp             *self,
         GeglBuffer          *buffer,
         const GeglRectangle *rect,
         gfloat              *data,
         gboolean             to_buffer)
{
  OpCopy copy = {
    buffer,   rect, self->format, data, (gsize) rect->width * self->channels,
    to_buffer
  };

  /* A thread is worth about 64K pixels of copying. */
  gegl_parallel_distribute_range (rect->height, 65536.0 / rect->width,
                                  op_copy_rows, &copy);
}

/* A region done in pieces reports progress over the whole of it. */
typedef struct
{
  GeglOperation *operation;
  gdouble        done;  /* of the region, before this piece */
  gdouble        share; /* this piece's part of the region */
} OpProgress;

static bool
op_progress (double fraction, void *data)
{
  const OpProgress *progress = data;

  gegl_operation_progress (progress->operation,
                           progress->done + progress->share * fraction, "");
  return true;
}

/* One region's work: where from, where to, and what to say. */
typedef struct
{
  GpufxOp             *self;
  GeglBuffer          *input;
  GeglBuffer          *output;
  const GeglRectangle *image;
  GpufxReport         *report;
  gchar               *why;
  gsize                why_size;
} OpJob;

/* Runs the engine on dst and writes the result to output; anything but
 * GPUFX_OK, with why filled in, leaves output as it was. */
static GpufxStatus
op_run (const OpJob *job, const GeglRectangle *dst, OpProgress *progress)
{
  GpufxOp             *self = job->self;
  const GeglRectangle *image = job->image;
  GpufxReport         *report = job->report;
  gchar               *why = job->why;
  gsize                why_size = job->why_size;
  gint64               t0 = g_get_monotonic_time ();
  GeglRectangle        src = op_input_for (self, image, dst);
  GpufxRect            src_rect
    = { src.x - image->x, src.y - image->y, src.width, src.height };
  GpufxRect dst_rect
    = { dst->x - image->x, dst->y - image->y, dst->width, dst->height };
  GpufxOptions options = self->options;
  GpufxImage   in_view, out_view;
  GpufxStatus  status;
  gsize        pixel = sizeof (gfloat) * self->channels;
  gfloat      *in, *out;
  gint64       t_in, t_out;

  in = gpufx_host_alloc (pixel * src.width * src.height, options.backend);
  out = gpufx_host_alloc (pixel * dst->width * dst->height, options.backend);
  if (! in || ! out)
    {
      gpufx_host_free (in);
      gpufx_host_free (out);
      g_snprintf (why, why_size, _ ("not enough memory for %d x %d pixels"),
                  src.width, src.height);
      return GPUFX_ERROR_OUT_OF_MEMORY;
    }
  op_copy (self, job->input, &src, in, FALSE);
  report->milliseconds = 0;
  t_in = g_get_monotonic_time ();

  options.threads = op_threads ();
  if (progress)
    {
      options.progress = op_progress;
      options.progress_data = progress;
    }
  in_view = op_view (self, in, &src);
  out_view = op_view (self, out, dst);
  status
    = gpufx_run_region (&self->filter, &in_view, src_rect, &out_view, dst_rect,
                        image->width, image->height, &options, report);
  gpufx_host_free (in);
  t_out = g_get_monotonic_time ();
  if (status == GPUFX_OK)
    op_copy (self, job->output, dst, out, TRUE);
  else
    g_snprintf (why, why_size, "%s: %s", gpufx_status_message (status),
                report->message[0] ? report->message : _ ("no details"));
  gpufx_host_free (out);
  if (g_getenv ("GPU_FILTERS_VERBOSE"))
    g_printerr ("gpufx: copies in %.1f ms, out %.1f ms\n", (t_in - t0) / 1000.0,
                (g_get_monotonic_time () - t_out) / 1000.0);
  return status;
}

/* Filters dst whole or, when its buffers cannot be had, in two halves
 * (each again in halves, and so on), so that short memory costs time
 * rather than the result.  On failure some pieces may be written: the
 * caller puts the input back over all of dst. */
static GpufxStatus
op_run_pieces (const OpJob *job, const GeglRectangle *dst, OpProgress *progress)
{
  GpufxStatus   status;
  GeglRectangle half[2];
  gboolean      rows = dst->height >= dst->width;
  gint          side = rows ? dst->height : dst->width;
  OpProgress    part;

  status = op_run (job, dst, progress);
  if (status != GPUFX_ERROR_OUT_OF_MEMORY || side < 2 * OP_SMALLEST_PIECE)
    return status;

  half[0] = half[1] = *dst;
  if (rows)
    {
      half[0].height = dst->height / 2;
      half[1].y += half[0].height;
      half[1].height -= half[0].height;
    }
  else
    {
      half[0].width = dst->width / 2;
      half[1].x += half[0].width;
      half[1].width -= half[0].width;
    }
  for (gint i = 0; i < 2; i++)
    {
      if (progress)
        {
          part = *progress;
          part.share = progress->share / 2;
          part.done = progress->done + i * part.share;
        }
      status = op_run_pieces (job, &half[i], progress ? &part : NULL);
      if (status != GPUFX_OK)
        return status;
    }
  return GPUFX_OK;
}

static gboolean
op_process (GeglOperation       *operation,
            GeglBuffer          *input,
            GeglBuffer          *output,
            const GeglRectangle *roi,
            gint                 level)
{
  GpufxOp      *self = GPUFX_OP (operation);
  GeglRectangle image, dst;
  GpufxReport   report = { 0 };
  OpProgress    progress = { operation, 0.0, 1.0 };
  gchar         why[GPUFX_MESSAGE_MAX] = "";
  gint64        t0 = g_get_monotonic_time ();
  const gchar  *op_name = gegl_operation_get_name (operation);
  GpufxStatus   status = GPUFX_ERROR_INVALID_ARGUMENT;

  if (! op_image (operation, &image))
    {
      gegl_buffer_copy (input, roi, GEGL_ABYSS_NONE, output, roi);
      return TRUE;
    }
  if (! gegl_rectangle_intersect (&dst, roi, &image))
    return TRUE;

  if (self->filter.kind == GPUFX_FILTER_CONVOLVE && self->matrix_error[0])
    g_strlcpy (why, self->matrix_error, sizeof why);
  else if (gpufx_filter_validate (&self->filter, why, sizeof why) == GPUFX_OK)
    {
      OpJob job = { self, input, output, &image, &report, why, sizeof why };

      status = op_run_pieces (
        &job, &dst,
        dst.width * (gint64) dst.height >= 4 << 20 ? &progress : NULL);
    }

  if (status != GPUFX_OK)
    {
      /* Unchanged pixels rather than none: GIMP merges what we leave. */
      gegl_buffer_copy (input, &dst, GEGL_ABYSS_NONE, output, &dst);
      op_warn_once (self, op_name, why);
      gpufx_report_append (self->report, GPUFX_REPORT_UNCHANGED, "-", why);
      return TRUE;
    }
  if (report.message[0]) /* a note, such as a fallback to the CPU */
    op_warn_once (self, op_name, report.message);
  gpufx_report_append (self->report, GPUFX_REPORT_FILTERED,
                       gpufx_backend_name (report.backend_used),
                       report.message);

  if (g_getenv ("GPU_FILTERS_VERBOSE"))
    g_printerr ("gpufx: %s %d x %d on %s: engine %.1f ms, in the "
                "operation %.1f ms\n",
                op_name, dst.width, dst.height,
                gpufx_backend_name (report.backend_used), report.milliseconds,
                (g_get_monotonic_time () - t0) / 1000.0);
  return TRUE;
}

static void
op_finalize (GObject *object)
{
  GpufxOp *self = GPUFX_OP (object);

  g_free (self->matrix);
  g_free (self->report);
  G_OBJECT_CLASS (g_type_class_peek (GEGL_TYPE_OPERATION_FILTER))
    ->finalize (object);
}

static void
op_class_init (gpointer klass, gpointer class_data)
{
  const GpufxFilterInfo    *info = class_data;
  GObjectClass             *object_class = G_OBJECT_CLASS (klass);
  GeglOperationClass       *operation_class = GEGL_OPERATION_CLASS (klass);
  GeglOperationFilterClass *filter_class = GEGL_OPERATION_FILTER_CLASS (klass);
  gchar                     plain[128];
  gchar                    *title;
  gchar                    *menu_label;

  gpufx_label_plain (_ (info->menu_label), TRUE, plain, sizeof plain);
  title = g_strdup_printf (_ ("%s (GPU)"), plain);
  menu_label = g_strdup_printf ("%s\u2026", plain);

  ((GpufxOpClass *) klass)->info = info;
  object_class->set_property = gpufx_op_props_set;
  object_class->get_property = gpufx_op_props_get;
  object_class->finalize = op_finalize;

  operation_class->prepare = op_prepare;
  operation_class->get_required_for_output = op_get_required_for_output;
  operation_class->get_invalidated_by_change = op_get_invalidated_by_change;
  operation_class->get_cached_region = op_get_cached_region;
  operation_class->threaded = FALSE;
  operation_class->want_in_place = FALSE;
  filter_class->process = op_process;

  gpufx_op_props_install (object_class, info);

  gegl_operation_class_set_keys (operation_class, "name", info->operation,
                                 "title", title, "categories", "gpu",
                                 "description", _ (info->help), NULL);
  /* A filter with a dialog of its own (the matrix grid) gets its menu entry
   * from the plug-in; GIMP's generated dialog would show one text line. */
  if (! gpufx_filter_info_needs_own_dialog (info))
    gegl_operation_class_set_keys (operation_class, "gimp:menu-path",
                                   "<Image>/Filters/GPU", "gimp:menu-label",
                                   menu_label, NULL);
  g_free (menu_label);
  g_free (title);
}

static void
op_init (GTypeInstance *instance, gpointer klass)
{
  gpufx_op_props_init (GPUFX_OP (instance), ((GpufxOpClass *) klass)->info);
}

GType
gpufx_op_register (GTypeModule *module, const GpufxFilterInfo *info)
{
  GTypeInfo type_info = {
    sizeof (GpufxOpClass), NULL, NULL,    op_class_init, NULL, info,
    sizeof (GpufxOp),      0,    op_init, NULL,
  };
  gchar *type_name = g_strdup_printf ("GpufxOp-%s", info->name);
  GType  type;

  type = gegl_module_register_type (module, GEGL_TYPE_OPERATION_FILTER,
                                    type_name, &type_info, 0);
  g_free (type_name);
  return type;
}

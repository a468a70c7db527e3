/* gimp-gpu-filters: the filters' dialog with a live preview.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <libgimp/gimpui.h>
#include <glib/gi18n-lib.h>

#include "gpufx-dialog.h"
#include "plugin-args.h"
#include "plugin-render.h"

typedef struct
{
  GimpProcedureConfig   *config;
  GimpDrawable          *drawable;
  const GpufxFilterInfo *info;
  GtkWidget             *preview;
  GtkWidget             *status; /* backend and time, or why it failed */
} DialogState;

/* The preview area's pixels as GIMP's preview widget wants them: 8-bit
 * gamma-corrected, with the drawable's channels. */
static const Babl *
dialog_preview_format (GimpDrawable *drawable)
{
  gboolean alpha = gimp_drawable_has_alpha (drawable);

  if (gimp_drawable_is_gray (drawable))
    return babl_format (alpha ? "Y'A u8" : "Y' u8");
  return babl_format (alpha ? "R'G'B'A u8" : "R'G'B' u8");
}

static void
dialog_preview_update (GimpPreview *preview, DialogState *state)
{
  GpufxFilter     filter;
  GpufxOptions    options;
  GpufxReport     report = { 0 };
  GpuRenderFormat format;
  GeglRectangle   rect;
  GeglBuffer     *src;
  GError         *error = NULL;
  gfloat         *out;
  guchar         *pixels;
  const Babl     *shown = dialog_preview_format (state->drawable);
  gint            bpp = babl_format_get_bytes_per_pixel (shown);

  gimp_preview_get_position (preview, &rect.x, &rect.y);
  gimp_preview_get_size (preview, &rect.width, &rect.height);
  if (rect.width <= 0 || rect.height <= 0)
    return;

  if (! gpu_args_read (state->config, state->info, &filter, &options, &error))
    {
      gtk_label_set_text (GTK_LABEL (state->status), error->message);
      g_clear_error (&error);
      return;
    }

  gpu_render_format (state->drawable, filter.kind, &format);
  src = gimp_drawable_get_buffer (state->drawable);
  out = g_new (gfloat, (gsize) rect.width * rect.height * format.channels);

  if (gpu_render_rect (src, &format, &filter, &options, &rect, out, &report,
                       &error))
    {
      gchar *text;

      pixels = g_new (guchar, (gsize) rect.width * rect.height * bpp);
      babl_process (babl_fish (format.format, shown), out, pixels,
                    (long) rect.width * rect.height);
      /* The drawable preview blends with the selection mask itself. */
      gimp_preview_draw_buffer (preview, pixels, rect.width * bpp);
      g_free (pixels);
      text = g_strdup_printf (_ ("Preview: %s, %.1f ms"),
                              gpufx_backend_name (report.backend_used),
                              report.milliseconds);
      gtk_label_set_text (GTK_LABEL (state->status), text);
      g_free (text);
    }
  else
    {
      gtk_label_set_text (GTK_LABEL (state->status), error->message);
      g_clear_error (&error);
    }

  g_free (out);
  g_object_unref (src);
}

static void
dialog_config_changed (GObject *config, GParamSpec *pspec, DialogState *state)
{
  gimp_preview_invalidate (GIMP_PREVIEW (state->preview));
}

gboolean
gpufx_dialog_run (GimpProcedure         *procedure,
                  GimpProcedureConfig   *config,
                  GimpDrawable          *drawable,
                  const GpufxFilterInfo *info)
{
  DialogState state = { config, drawable, info, NULL, NULL };
  GtkWidget  *dialog;
  GtkWidget  *content;
  GtkWidget  *box;
  gchar      *title;
  gboolean    run;

  gimp_ui_init ("gpu-filters");

  title = g_strdup (_ (info->menu_label));
  /* "_Gaussian Blur..." -> "Gaussian Blur" for the title bar. */
  for (gchar *s = title, *d = title;; s++)
    {
      if (*s != '_')
        *d++ = *s;
      if (! *s)
        break;
    }
  if (g_str_has_suffix (title, "..."))
    title[strlen (title) - 3] = '\0';

  dialog = gimp_procedure_dialog_new (procedure, config, title);
  g_free (title);

  content = gtk_dialog_get_content_area (GTK_DIALOG (dialog));
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_container_set_border_width (GTK_CONTAINER (box), 12);
  gtk_box_pack_start (GTK_BOX (content), box, TRUE, TRUE, 0);
  gtk_box_reorder_child (GTK_BOX (content), box, 0);

  state.preview = gimp_drawable_preview_new_from_drawable (drawable);
  gtk_box_pack_start (GTK_BOX (box), state.preview, TRUE, TRUE, 0);
  state.status = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (state.status), 0.0);
  gtk_label_set_line_wrap (GTK_LABEL (state.status), TRUE);
  gtk_box_pack_start (GTK_BOX (box), state.status, FALSE, FALSE, 0);
  gtk_widget_show_all (box);

  g_signal_connect (state.preview, "invalidated",
                    G_CALLBACK (dialog_preview_update), &state);
  g_signal_connect (config, "notify", G_CALLBACK (dialog_config_changed),
                    &state);

  /* Every argument, in the table's order: the widgets come from the
   * config's properties, so no filter is written out here. */
  gimp_procedure_dialog_fill (GIMP_PROCEDURE_DIALOG (dialog), NULL);

  run = gimp_procedure_dialog_run (GIMP_PROCEDURE_DIALOG (dialog));

  g_signal_handlers_disconnect_by_data (config, &state);
  gtk_widget_destroy (dialog);
  return run;
}

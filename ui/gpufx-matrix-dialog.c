/* gimp-gpu-filters: the convolution matrix's dialog: a grid of weights and a
 * live preview on the canvas.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The grid (gpufx-matrix-grid.c) edits the matrix; this file keeps the
 * procedure's config in step with it, shows GIMP's generated widgets for
 * the other arguments, and previews the result on the canvas.
 */
#include "config.h"

#include <string.h>

#include <libgimp/gimpui.h>
#include <glib/gi18n-lib.h>

#include "gpufx-matrix-dialog.h"
#include "gpufx-matrix-grid.h"
#include "gpufx-matrix-presets.h"
#include "plugin-apply.h"

/* Waits this long after a change before asking GIMP for a new preview, so
 * that typing or holding a spin button's arrow renders once. */
#define MATRIX_PREVIEW_DELAY_MS 120

typedef struct
{
  GimpProcedureConfig   *config;
  GimpDrawable          *drawable;
  const GpufxFilterInfo *info;

  GtkWidget     *dialog;
  GpuMatrixGrid *grid;
  GtkWidget     *message_box;
  GtkWidget     *message;
  GtkWidget     *preview_toggle;

  gboolean storing; /* the matrix being written into the config */
  gboolean valid;   /* the config can be applied as it is */
  gchar   *problem; /* why not, or why there is no preview */

  GimpDrawableFilter *filter; /* the preview on the canvas, or NULL */
  gboolean            preview_broken;
  guint               preview_id;
} MatrixDialog;

static void matrix_dialog_schedule_preview (MatrixDialog *md);

static void
matrix_dialog_show_problem (MatrixDialog *md)
{
  if (md->problem)
    {
      gtk_label_set_text (GTK_LABEL (md->message), md->problem);
      gtk_widget_show (md->message_box);
    }
  else
    {
      gtk_widget_hide (md->message_box);
    }
}

/* Checks what OK would apply with the engine's own rules, says what is
 * wrong, and allows OK only when nothing is. */
static void
matrix_dialog_validate (MatrixDialog *md)
{
  GpufxFilter filter;
  gchar       message[GPUFX_MESSAGE_MAX] = "";
  gboolean    normalize;

  gpufx_filter_init (&filter, GPUFX_FILTER_CONVOLVE);
  g_object_get (md->config, "divisor", &filter.convolve.divisor, "offset",
                &filter.convolve.offset, "normalize", &normalize, NULL);
  filter.convolve.normalize = normalize;

  g_clear_pointer (&md->problem, g_free);
  md->valid
    = gpu_matrix_grid_get_params (md->grid, &filter.convolve, message,
                                  sizeof message)
      && gpufx_filter_validate (&filter, message, sizeof message) == GPUFX_OK;
  if (! md->valid)
    md->problem
      = g_strdup_printf (_ ("This matrix cannot be applied: %s."), message);
  else if (md->preview_broken)
    md->problem = g_strdup_printf (_ ("No preview: GIMP has no operation "
                                      "%s (is the gpufx-ops GEGL module "
                                      "installed?)"),
                                   md->info->operation);

  matrix_dialog_show_problem (md);
  gtk_dialog_set_response_sensitive (GTK_DIALOG (md->dialog), GTK_RESPONSE_OK,
                                     md->valid);
}

/* Writes the shown matrix into the config, when every cell is a number. */
static void
matrix_dialog_store (MatrixDialog *md)
{
  gchar *text = gpu_matrix_grid_get_text (md->grid);

  if (text)
    {
      md->storing = TRUE;
      g_object_set (md->config, "matrix", text, NULL);
      md->storing = FALSE;
    }
  else
    {
      /* The config keeps the last good matrix; OK waits for a fix. */
      matrix_dialog_validate (md);
    }
  g_free (text);
}

static void
matrix_dialog_grid_changed (GpuMatrixGrid *grid, gpointer data)
{
  matrix_dialog_store (data);
}

/* The config's matrix onto a cleared canvas. */
static void
matrix_dialog_load (MatrixDialog *md)
{
  gchar  message[GPUFX_MESSAGE_MAX] = "";
  gchar *text = NULL;

  g_object_get (md->config, "matrix", &text, NULL);
  if (! gpu_matrix_grid_load_text (md->grid, text, message, sizeof message))
    {
      GpufxConvolveParams *identity = g_new0 (GpufxConvolveParams, 1);

      g_message (_ ("The matrix \"%.40s\" could not be read (%s); the "
                    "dialog starts from the identity."),
                 text ? text : "", message);
      identity->width = identity->height = 3;
      gpu_matrix_preset_fill (GPU_MATRIX_PRESET_IDENTITY, identity);
      gpu_matrix_grid_load (md->grid, identity);
      g_free (identity);
      matrix_dialog_store (md); /* so that OK applies what is shown */
    }
  g_free (text);
}

/* The preset fitted to the shown size, with the divisor, offset and
 * normalize that go with it. */
static void
matrix_dialog_preset (GtkButton *button, MatrixDialog *md)
{
  GpuMatrixPreset preset
    = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "gpufx-preset"));
  GpufxConvolveParams *params = g_new0 (GpufxConvolveParams, 1);

  gpu_matrix_grid_get_size (md->grid, &params->width, &params->height);
  gpu_matrix_preset_fill (preset, params);
  gpu_matrix_grid_fill (md->grid, params);

  g_object_set (md->config, "divisor", params->divisor, "offset",
                params->offset, "normalize", params->normalize, NULL);
  g_free (params);
  matrix_dialog_store (md);
}

static void
matrix_dialog_config_notify (GObject      *config,
                             GParamSpec   *pspec,
                             MatrixDialog *md)
{
  /* Reset, or last values loaded by the dialog's own buttons. */
  if (! md->storing && strcmp (pspec->name, "matrix") == 0)
    matrix_dialog_load (md);

  matrix_dialog_validate (md);
  matrix_dialog_schedule_preview (md);
}

/* The preview filter comes and goes with the image's undo frozen, as
 * GIMP's documentation advises for in-situ previews: it leaves the image
 * as it was, and so should it leave the undo history, rather than an "Add
 * filter" and a "Remove filter" step whose undoing would bring the preview
 * back as a filter of the layer. */
static void
matrix_dialog_preview_remove (MatrixDialog *md)
{
  if (md->filter)
    {
      gimp_drawable_filter_delete (md->filter);
      md->filter = NULL;
      gimp_image_undo_thaw (gimp_item_get_image (GIMP_ITEM (md->drawable)));
      gimp_displays_flush ();
    }
}

static gboolean
matrix_dialog_preview_update (gpointer data)
{
  MatrixDialog *md = data;
  GError       *error = NULL;
  gboolean      fresh = FALSE;

  md->preview_id = 0;
  if (! md->valid || md->preview_broken
      || ! gtk_toggle_button_get_active (
        GTK_TOGGLE_BUTTON (md->preview_toggle)))
    return G_SOURCE_REMOVE;

  if (! md->filter)
    {
      GimpImage *image = gimp_item_get_image (GIMP_ITEM (md->drawable));

      gimp_image_undo_freeze (image);
      md->filter
        = gimp_drawable_filter_new (md->drawable, md->info->operation, NULL);
      if (! md->filter)
        {
          gimp_image_undo_thaw (image);
          md->preview_broken = TRUE;
          matrix_dialog_validate (md);
          return G_SOURCE_REMOVE;
        }
      fresh = TRUE;
    }

  if (! gpu_apply_configure (md->filter, md->config, md->info, &error))
    {
      g_free (md->problem);
      md->problem = g_strdup_printf (_ ("No preview: %s"), error->message);
      matrix_dialog_show_problem (md);
      g_clear_error (&error);
      if (fresh)
        matrix_dialog_preview_remove (md); /* appended by the next try */
      return G_SOURCE_REMOVE;
    }

  /* gpu_apply_configure sent the values (gimp_drawable_filter_update). */
  if (fresh)
    gimp_drawable_append_filter (md->drawable, md->filter);
  gimp_displays_flush ();
  return G_SOURCE_REMOVE;
}

static void
matrix_dialog_schedule_preview (MatrixDialog *md)
{
  if (md->preview_id)
    g_source_remove (md->preview_id);
  md->preview_id
    = g_timeout_add (MATRIX_PREVIEW_DELAY_MS, matrix_dialog_preview_update, md);
}

static void
matrix_dialog_preview_toggled (GtkToggleButton *toggle, MatrixDialog *md)
{
  if (gtk_toggle_button_get_active (toggle))
    matrix_dialog_schedule_preview (md);
  else
    matrix_dialog_preview_remove (md);
}

static GtkWidget *
matrix_dialog_matrix_frame (MatrixDialog *md)
{
  GtkWidget *frame = gimp_frame_new (_ ("Matrix"));
  GtkWidget *presets_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);

  md->grid = gpu_matrix_grid_new (matrix_dialog_grid_changed, md);
  gtk_container_add (GTK_CONTAINER (frame),
                     gpu_matrix_grid_get_widget (md->grid));

  gtk_style_context_add_class (gtk_widget_get_style_context (presets_box),
                               GTK_STYLE_CLASS_LINKED);
  gtk_box_pack_end (GTK_BOX (gpu_matrix_grid_get_size_box (md->grid)),
                    presets_box, FALSE, FALSE, 0);
  for (gint i = 0; i < GPU_MATRIX_N_PRESETS; i++)
    {
      GtkWidget *button
        = gtk_button_new_with_label (gpu_matrix_preset_label (i));

      gtk_widget_set_tooltip_text (button, gpu_matrix_preset_tip (i));
      g_object_set_data (G_OBJECT (button), "gpufx-preset",
                         GINT_TO_POINTER (i));
      g_signal_connect (button, "clicked", G_CALLBACK (matrix_dialog_preset),
                        md);
      gtk_box_pack_start (GTK_BOX (presets_box), button, FALSE, FALSE, 0);
    }

  /* Everything but the grid's rows and cells, which it shows itself. */
  gtk_widget_show_all (frame);
  return frame;
}

/* The procedure's arguments but the matrix (and run-mode, image and
 * drawables, which are no parameters of the table). */
static GList *
matrix_dialog_other_arguments (GimpProcedureConfig   *config,
                               const GpufxFilterInfo *info)
{
  const GpufxParam *p;
  GList            *names = NULL;

  for (gint i = 0; (p = gpufx_filter_param (info, i)); i++)
    if (p->type != GPUFX_PARAM_MATRIX)
      names = g_list_append (names, (gpointer) p->name);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (config),
                                    "non-destructive"))
    names = g_list_append (names, "non-destructive");
  return names;
}

gboolean
gpu_matrix_dialog_run (GimpProcedure         *procedure,
                       GimpProcedureConfig   *config,
                       GimpDrawable          *drawable,
                       const GpufxFilterInfo *info)
{
  MatrixDialog *md = g_new0 (MatrixDialog, 1);
  GtkWidget    *content;
  GtkWidget    *frame;
  GtkWidget    *bottom;
  GtkWidget    *icon;
  GList        *names;
  gchar         title[128];
  gboolean      run;
  gint64        t0;

  gimp_ui_init ("gpu-filters");

  md->config = config;
  md->drawable = drawable;
  md->info = info;

  gpufx_label_plain (_ (info->menu_label), TRUE, title, sizeof title);
  md->dialog = gimp_procedure_dialog_new (procedure, config, title);
  content = gtk_dialog_get_content_area (GTK_DIALOG (md->dialog));

  frame = matrix_dialog_matrix_frame (md);
  gtk_box_pack_start (GTK_BOX (content), frame, TRUE, TRUE, 0);

  t0 = g_get_monotonic_time ();
  matrix_dialog_load (md);
  if (g_getenv ("GPU_FILTERS_VERBOSE"))
    g_printerr ("gpu-filters: matrix dialog: first grid in %.1f ms\n",
                (g_get_monotonic_time () - t0) / 1000.0);

  names = matrix_dialog_other_arguments (config, info);
  gimp_procedure_dialog_fill_list (GIMP_PROCEDURE_DIALOG (md->dialog), names);
  g_list_free (names);

  bottom = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_box_pack_start (GTK_BOX (content), bottom, FALSE, FALSE, 0);

  md->message_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  icon = gtk_image_new_from_icon_name (GIMP_ICON_DIALOG_WARNING,
                                       GTK_ICON_SIZE_BUTTON);
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  md->message = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (md->message), 0.0);
  gtk_label_set_line_wrap (GTK_LABEL (md->message), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (md->message), 60);
  gtk_box_pack_start (GTK_BOX (md->message_box), icon, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (md->message_box), md->message, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (bottom), md->message_box, FALSE, FALSE, 0);

  md->preview_toggle = gtk_check_button_new_with_mnemonic (_ ("_Preview"));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (md->preview_toggle), TRUE);
  gtk_box_pack_start (GTK_BOX (bottom), md->preview_toggle, FALSE, FALSE, 0);
  g_signal_connect (md->preview_toggle, "toggled",
                    G_CALLBACK (matrix_dialog_preview_toggled), md);
  gtk_widget_show_all (bottom);

  g_signal_connect (config, "notify", G_CALLBACK (matrix_dialog_config_notify),
                    md);
  matrix_dialog_validate (md);
  matrix_dialog_schedule_preview (md);

  run = gimp_procedure_dialog_run (GIMP_PROCEDURE_DIALOG (md->dialog));

  g_signal_handlers_disconnect_by_data (config, md);
  gpu_matrix_grid_free (md->grid);
  if (md->preview_id)
    g_source_remove (md->preview_id);
  /* The plug-in applies the result its own way (merged or as a filter). */
  matrix_dialog_preview_remove (md);
  gtk_widget_destroy (md->dialog);
  g_free (md->problem);
  g_free (md);
  return run;
}

/* gimp-gpu-filters: the convolution matrix's dialog: a grid of weights and a
 * live preview on the canvas.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The weights live on a 63 x 63 canvas whose middle cell is the anchor of
 * every matrix size (the engine lays a w x h matrix with its cell (w/2, h/2)
 * over the pixel it computes).  The matrix shown is the window of the
 * chosen size around that anchor, so changing the size keeps the weights
 * centred, and shrinking then growing again while the dialog is open gives
 * back what was there.  Each canvas position has its own entry, made the
 * first time the window covers it and only shown or hidden afterwards.
 * Entries are not cheap in GTK 3 (about a millisecond each with GIMP's
 * theme), so a large grid is made a few rows at a time from an idle
 * handler and the dialog keeps answering meanwhile; the cells sit in one
 * box per row, which costs far less than one GtkGrid of thousands.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libgimp/gimpui.h>
#include <glib/gi18n-lib.h>

#include "gpufx-matrix-dialog.h"

/* The plug-in's helper that copies the procedure config into a drawable
 * filter's config and sends it to GIMP; without it, a stand-in below. */
#if ! defined HAVE_GPU_APPLY_CONFIGURE && defined __has_include
#if __has_include("plugin-apply.h")
#define HAVE_GPU_APPLY_CONFIGURE 1
#endif
#endif
#ifdef HAVE_GPU_APPLY_CONFIGURE
#include "plugin-apply.h"
#endif

#define MATRIX_N      GPUFX_MATRIX_MAX
#define MATRIX_ANCHOR (MATRIX_N / 2)
#define MATRIX_OP     "gpufx:convolve"

/* Waits this long after a change before asking GIMP for a new preview, so
 * that typing or holding a spin button's arrow renders once. */
#define MATRIX_PREVIEW_DELAY_MS 120

/* Cells made per turn of the main loop, and the most the grid shows before
 * it scrolls (pixels). */
#define MATRIX_CELLS_PER_TURN 126
#define MATRIX_SPACING        2
#define MATRIX_VIEW_MAX_W     920
#define MATRIX_VIEW_MAX_H     400

typedef enum
{
  MATRIX_PRESET_IDENTITY,
  MATRIX_PRESET_SHARPEN,
  MATRIX_PRESET_BOX_BLUR,
  MATRIX_PRESET_EMBOSS
} MatrixPreset;

typedef struct
{
  GimpProcedureConfig   *config;
  GimpDrawable          *drawable;
  const GpufxFilterInfo *info;

  GtkWidget *dialog;
  GtkWidget *width_spin;
  GtkWidget *height_spin;
  GtkWidget *scrolled;
  GtkWidget *grid; /* a vertical box of rows */
  GtkWidget *rows[MATRIX_N];
  GtkWidget *message_box;
  GtkWidget *message;
  GtkWidget *preview_toggle;

  gint       width;
  gint       height;
  gfloat     weights[MATRIX_N * MATRIX_N];
  gboolean   bad[MATRIX_N * MATRIX_N]; /* the entry's text is no number */
  GtkWidget *cells[MATRIX_N * MATRIX_N];
  gint       cell_w; /* a cell's natural size */
  gint       cell_h;
  gint       view_w; /* the scrolled view's minimum size asked for */
  gint       view_h;
  guint      build_id; /* cells still to make */

  gboolean loading; /* cells or spins being set from the model */
  gboolean storing; /* the matrix being written into the config */
  gboolean valid;   /* the config can be applied as it is */
  gchar   *problem; /* why not, or why there is no preview */

  GimpDrawableFilter *filter; /* the preview on the canvas, or NULL */
  gboolean            preview_broken;
  guint               preview_id;

  gint64 resized_at; /* GPU_FILTERS_VERBOSE: when the size last changed */
  gint   made;       /* and how many cells were made since */
} MatrixDialog;

static void matrix_dialog_cell_changed (GtkEditable  *editable,
                                        MatrixDialog *md);
static void matrix_dialog_schedule_preview (MatrixDialog *md);

/* Canvas index of the shown matrix's cell (col, row). */
static gint
matrix_dialog_index (MatrixDialog *md, gint col, gint row)
{
  return (MATRIX_ANCHOR - md->height / 2 + row) * MATRIX_N
         + (MATRIX_ANCHOR - md->width / 2 + col);
}

static gboolean
matrix_dialog_in_window (MatrixDialog *md, gint index)
{
  gint x = index % MATRIX_N - (MATRIX_ANCHOR - md->width / 2);
  gint y = index / MATRIX_N - (MATRIX_ANCHOR - md->height / 2);

  return x >= 0 && x < md->width && y >= 0 && y < md->height;
}

/* The weight into its entry, when the entry is made already (a new one
 * reads it itself). */
static void
matrix_dialog_set_cell_text (MatrixDialog *md, gint index)
{
  gchar text[G_ASCII_DTOSTR_BUF_SIZE];

  if (! md->cells[index])
    return;
  g_ascii_formatd (text, sizeof text, "%.7g", md->weights[index]);
  md->loading = TRUE;
  gtk_entry_set_text (GTK_ENTRY (md->cells[index]), text);
  md->loading = FALSE;
  md->bad[index] = FALSE;
  gtk_style_context_remove_class (
    gtk_widget_get_style_context (md->cells[index]), GTK_STYLE_CLASS_ERROR);
}

static GtkWidget *
matrix_dialog_cell_new (MatrixDialog *md, gint index)
{
  GtkWidget *cell = gtk_entry_new ();
  gint       position = 0;

  gtk_entry_set_width_chars (GTK_ENTRY (cell), 6);
  gtk_entry_set_max_width_chars (GTK_ENTRY (cell), 6);
  gtk_entry_set_alignment (GTK_ENTRY (cell), 1.0);
  gtk_entry_set_input_purpose (GTK_ENTRY (cell), GTK_INPUT_PURPOSE_NUMBER);
  gtk_style_context_add_class (gtk_widget_get_style_context (cell),
                               "gpufx-cell");
  g_object_set_data (G_OBJECT (cell), "gpufx-index", GINT_TO_POINTER (index));
  md->cells[index] = cell;
  matrix_dialog_set_cell_text (md, index);
  g_signal_connect (cell, "changed", G_CALLBACK (matrix_dialog_cell_changed),
                    md);
  if (index == MATRIX_ANCHOR * MATRIX_N + MATRIX_ANCHOR)
    {
      gtk_style_context_add_class (gtk_widget_get_style_context (cell),
                                   "gpufx-anchor");
      gtk_widget_set_tooltip_text (cell, _ ("This weight lies over the pixel "
                                            "being computed"));
    }

  /* In its row, after the cells of the columns to its left. */
  for (gint i = index - index % MATRIX_N; i < index; i++)
    if (md->cells[i])
      position++;
  gtk_box_pack_start (GTK_BOX (md->rows[index / MATRIX_N]), cell, FALSE, FALSE,
                      0);
  gtk_box_reorder_child (GTK_BOX (md->rows[index / MATRIX_N]), cell, position);
  gtk_widget_show (cell);

  if (md->cell_w == 0)
    {
      GtkRequisition natural;

      gtk_widget_get_preferred_size (cell, NULL, &natural);
      md->cell_w = natural.width;
      md->cell_h = natural.height;
    }
  return cell;
}

/* GPU_FILTERS_VERBOSE: how long a new size takes to reach the screen,
 * layout and drawing of the cells included. */
static void
matrix_dialog_painted (GdkFrameClock *clock, MatrixDialog *md)
{
  g_signal_handlers_disconnect_by_func (clock, matrix_dialog_painted, md);
  g_printerr ("gpu-filters: matrix grid %d x %d: first drawn %.1f ms after "
              "the change\n",
              md->width, md->height,
              (g_get_monotonic_time () - md->resized_at) / 1000.0);
}

/* Makes up to MATRIX_CELLS_PER_TURN missing cells of the window, top row
 * first; as an idle handler, until none is missing. */
static gboolean
matrix_dialog_build (gpointer data)
{
  MatrixDialog *md = data;
  gint          made = 0;

  for (gint row = 0; row < md->height; row++)
    for (gint col = 0; col < md->width; col++)
      {
        gint index = matrix_dialog_index (md, col, row);

        if (md->cells[index])
          continue;
        if (made == MATRIX_CELLS_PER_TURN)
          return G_SOURCE_CONTINUE;
        matrix_dialog_cell_new (md, index);
        made++;
        md->made++;
      }

  if (md->build_id && g_getenv ("GPU_FILTERS_VERBOSE"))
    g_printerr ("gpu-filters: matrix grid %d x %d: its last cell made %.1f "
                "ms after the change (%d made)\n",
                md->width, md->height,
                (g_get_monotonic_time () - md->resized_at) / 1000.0, md->made);
  md->build_id = 0;
  return G_SOURCE_REMOVE;
}

/* Asks for a view as large as the matrix, up to a limit; the dialog grows
 * with it, and shrinks back when the matrix does. */
static void
matrix_dialog_fit_view (MatrixDialog *md)
{
  gint w = md->width * (md->cell_w + MATRIX_SPACING);
  gint h = md->height * (md->cell_h + MATRIX_SPACING);

  w = MIN (w, MATRIX_VIEW_MAX_W);
  h = MIN (h, MATRIX_VIEW_MAX_H);
  gtk_scrolled_window_set_min_content_width (GTK_SCROLLED_WINDOW (md->scrolled),
                                             w);
  gtk_scrolled_window_set_min_content_height (
    GTK_SCROLLED_WINDOW (md->scrolled), h);
  if ((w < md->view_w || h < md->view_h) && gtk_widget_get_visible (md->dialog))
    gtk_window_resize (GTK_WINDOW (md->dialog), 1, 1);
  md->view_w = w;
  md->view_h = h;
}

/* Shows the cells of the current size and hides the others; cells never
 * shown before are made: the first rows at once, the rest while idle. */
static void
matrix_dialog_show_window (MatrixDialog *md)
{
  gint64 t0 = g_get_monotonic_time ();

  for (gint row = 0; row < MATRIX_N; row++)
    {
      gint y = row - (MATRIX_ANCHOR - md->height / 2);

      gtk_widget_set_visible (md->rows[row], y >= 0 && y < md->height);
    }
  for (gint i = 0; i < MATRIX_N * MATRIX_N; i++)
    if (md->cells[i])
      gtk_widget_set_visible (md->cells[i], matrix_dialog_in_window (md, i));

  md->resized_at = t0;
  md->made = 0;
  if (matrix_dialog_build (md) && ! md->build_id)
    md->build_id = g_idle_add (matrix_dialog_build, md);
  matrix_dialog_fit_view (md);

  if (g_getenv ("GPU_FILTERS_VERBOSE"))
    {
      GdkFrameClock *clock = gtk_widget_get_frame_clock (md->grid);

      g_printerr ("gpu-filters: matrix grid %d x %d: shown in %.1f ms "
                  "(%d cell(s) made, %s)\n",
                  md->width, md->height,
                  (g_get_monotonic_time () - t0) / 1000.0, md->made,
                  md->build_id ? "more to come" : "all there");
      if (clock)
        {
          g_signal_handlers_disconnect_by_func (clock, matrix_dialog_painted,
                                                md);
          g_signal_connect (clock, "after-paint",
                            G_CALLBACK (matrix_dialog_painted), md);
        }
    }
}

/* The shown matrix into params; FALSE, with the first bad cell's place in
 * message, while an entry holds something that is not a number. */
static gboolean
matrix_dialog_collect (MatrixDialog        *md,
                       GpufxConvolveParams *params,
                       gchar               *message,
                       gsize                message_size)
{
  params->width = md->width;
  params->height = md->height;
  for (gint row = 0; row < md->height; row++)
    for (gint col = 0; col < md->width; col++)
      {
        gint index = matrix_dialog_index (md, col, row);

        if (md->bad[index])
          {
            g_snprintf (message, message_size,
                        _ ("Row %d, column %d: a number was expected"), row + 1,
                        col + 1);
            return FALSE;
          }
        params->matrix[row * md->width + col] = md->weights[index];
      }
  return TRUE;
}

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
    = matrix_dialog_collect (md, &filter.convolve, message, sizeof message)
      && gpufx_filter_validate (&filter, message, sizeof message) == GPUFX_OK;
  if (! md->valid)
    md->problem
      = g_strdup_printf (_ ("This matrix cannot be applied: %s."), message);
  else if (md->preview_broken)
    md->problem = g_strdup_printf (_ ("No preview: GIMP has no operation "
                                      "%s (is the gpufx-ops GEGL module "
                                      "installed?)"),
                                   MATRIX_OP);

  matrix_dialog_show_problem (md);
  gtk_dialog_set_response_sensitive (GTK_DIALOG (md->dialog), GTK_RESPONSE_OK,
                                     md->valid);
}

/* Writes the shown matrix into the config, when every cell is a number. */
static void
matrix_dialog_store (MatrixDialog *md)
{
  GpufxConvolveParams *params = g_new0 (GpufxConvolveParams, 1);
  gchar                message[GPUFX_MESSAGE_MAX];
  gsize                size = (gsize) MATRIX_N * MATRIX_N * 18;
  gchar               *text = g_malloc (size);

  if (matrix_dialog_collect (md, params, message, sizeof message)
      && gpufx_matrix_format (params, text, size))
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
  g_free (params);
}

static void
matrix_dialog_set_spins (MatrixDialog *md)
{
  md->loading = TRUE;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (md->width_spin), md->width);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (md->height_spin), md->height);
  md->loading = FALSE;
}

/* The config's matrix onto a cleared canvas. */
static void
matrix_dialog_load (MatrixDialog *md)
{
  GpufxConvolveParams *params = g_new0 (GpufxConvolveParams, 1);
  gchar                message[GPUFX_MESSAGE_MAX] = "";
  gchar               *text = NULL;
  gboolean             parsed;

  g_object_get (md->config, "matrix", &text, NULL);
  parsed = gpufx_matrix_parse (params, text, message, sizeof message);
  if (! parsed)
    {
      g_message (_ ("The matrix \"%.40s\" could not be read (%s); the "
                    "dialog starts from the identity."),
                 text ? text : "", message);
      params->width = params->height = 3;
      memset (params->matrix, 0, sizeof params->matrix);
      params->matrix[4] = 1.0f;
    }
  g_free (text);

  memset (md->weights, 0, sizeof md->weights);
  md->width = params->width;
  md->height = params->height;
  for (gint row = 0; row < md->height; row++)
    for (gint col = 0; col < md->width; col++)
      md->weights[matrix_dialog_index (md, col, row)]
        = params->matrix[row * md->width + col];
  g_free (params);

  for (gint i = 0; i < MATRIX_N * MATRIX_N; i++)
    matrix_dialog_set_cell_text (md, i);
  matrix_dialog_set_spins (md);
  matrix_dialog_show_window (md);
  if (! parsed)
    matrix_dialog_store (md); /* so that OK applies what is shown */
}

static void
matrix_dialog_cell_changed (GtkEditable *editable, MatrixDialog *md)
{
  gint             index;
  gchar           *text;
  gchar           *s;
  gchar           *end;
  gdouble          value;
  gboolean         ok;
  GtkStyleContext *style;

  if (md->loading)
    return;

  index
    = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (editable), "gpufx-index"));
  text = g_strstrip (g_strdup (gtk_entry_get_text (GTK_ENTRY (editable))));
  /* A decimal comma is accepted too: the matrix text never sees it. */
  for (s = text; *s; s++)
    if (*s == ',')
      *s = '.';
  if (*text == '\0')
    {
      value = 0.0; /* a cleared cell weighs nothing */
      ok = TRUE;
    }
  else
    {
      value = g_ascii_strtod (text, &end);
      ok = *end == '\0' && isfinite (value) && fabs (value) <= 3.0e38;
    }
  g_free (text);

  style = gtk_widget_get_style_context (GTK_WIDGET (editable));
  md->bad[index] = ! ok;
  if (ok)
    {
      md->weights[index] = (gfloat) value;
      gtk_style_context_remove_class (style, GTK_STYLE_CLASS_ERROR);
    }
  else
    {
      gtk_style_context_add_class (style, GTK_STYLE_CLASS_ERROR);
    }
  matrix_dialog_store (md);
}

static void
matrix_dialog_size_changed (GtkSpinButton *spin, MatrixDialog *md)
{
  if (md->loading)
    return;
  md->width
    = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (md->width_spin));
  md->height
    = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (md->height_spin));
  matrix_dialog_show_window (md);
  matrix_dialog_store (md);
}

static void
matrix_dialog_preset (GtkButton *button, MatrixDialog *md)
{
  MatrixPreset preset
    = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "gpufx-preset"));
  gint     n = md->width * md->height;
  gint     anchor = matrix_dialog_index (md, md->width / 2, md->height / 2);
  gdouble  divisor = 1.0;
  gboolean normalize = FALSE;
  gdouble  sum = 0.0;

  for (gint row = 0; row < md->height; row++)
    for (gint col = 0; col < md->width; col++)
      {
        gint   index = matrix_dialog_index (md, col, row);
        gfloat w = 0.0f;

        switch (preset)
          {
          case MATRIX_PRESET_IDENTITY: w = 0.0f; break;
          /* Twice the pixel less the mean around it: unsharp masking
           * with a box, in whole numbers. */
          case MATRIX_PRESET_SHARPEN: w = -1.0f; break;
          case MATRIX_PRESET_BOX_BLUR: w = 1.0f; break;
          /* The classic 3 x 3 emboss in the middle, whatever the size:
           * a ramp as large as the matrix would grow with its cube. */
          case MATRIX_PRESET_EMBOSS:
            {
              gint dx = col - md->width / 2;
              gint dy = row - md->height / 2;

              if (ABS (dx) <= 1 && ABS (dy) <= 1)
                w = (gfloat) (dx + dy);
            }
            break;
          }
        md->weights[index] = w;
        sum += w;
      }

  switch (preset)
    {
    case MATRIX_PRESET_IDENTITY: md->weights[anchor] = 1.0f; break;
    case MATRIX_PRESET_SHARPEN:
      md->weights[anchor] = (gfloat) (2 * n - 1);
      divisor = n;
      break;
    case MATRIX_PRESET_BOX_BLUR: normalize = TRUE; break;
    case MATRIX_PRESET_EMBOSS:
      md->weights[anchor] += (gfloat) (1.0 - sum); /* the weights sum to 1 */
      break;
    }

  for (gint row = 0; row < md->height; row++)
    for (gint col = 0; col < md->width; col++)
      matrix_dialog_set_cell_text (md, matrix_dialog_index (md, col, row));

  g_object_set (md->config, "divisor", divisor, "offset", 0.0, "normalize",
                normalize, NULL);
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

#ifndef HAVE_GPU_APPLY_CONFIGURE
/* Stand-in for the plug-in's helper: every parameter of the table by its
 * name; choices go over by nick, whether GIMP shows the operation's enum
 * as a GimpChoice or as a GEGL enum. */
static gboolean
gpu_apply_configure (GimpDrawableFilter    *filter,
                     GimpProcedureConfig   *config,
                     const GpufxFilterInfo *info,
                     GError               **error)
{
  GObject          *dest = G_OBJECT (gimp_drawable_filter_get_config (filter));
  const GpufxParam *tables[2] = { info->params, gpufx_common_params };

  for (gint t = 0; t < 2; t++)
    for (const GpufxParam *p = tables[t]; p->name; p++)
      {
        GParamSpec *to
          = g_object_class_find_property (G_OBJECT_GET_CLASS (dest), p->name);
        GParamSpec *from
          = g_object_class_find_property (G_OBJECT_GET_CLASS (config), p->name);
        GValue value = G_VALUE_INIT;
        GValue converted = G_VALUE_INIT;

        if (! to || ! from)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                         "%s has no property '%s'",
                         to ? "the procedure" : MATRIX_OP, p->name);
            return FALSE;
          }

        g_value_init (&value, from->value_type);
        g_object_get_property (G_OBJECT (config), p->name, &value);

        if (p->type == GPUFX_PARAM_CHOICE && G_IS_PARAM_SPEC_ENUM (to))
          {
            GEnumValue *e = g_enum_get_value_by_nick (
              G_PARAM_SPEC_ENUM (to)->enum_class, g_value_get_string (&value));

            if (! e)
              {
                g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                             "%s has no %s '%s'", MATRIX_OP, p->name,
                             g_value_get_string (&value));
                g_value_unset (&value);
                return FALSE;
              }
            g_value_unset (&value);
            g_value_init (&value, to->value_type);
            g_value_set_enum (&value, e->value);
          }

        g_value_init (&converted, to->value_type);
        if (! g_value_transform (&value, &converted))
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         "cannot give %s's '%s' a %s", MATRIX_OP, p->name,
                         G_VALUE_TYPE_NAME (&value));
            g_value_unset (&value);
            return FALSE;
          }
        g_object_set_property (dest, p->name, &converted);
        g_value_unset (&converted);
        g_value_unset (&value);
      }
  gimp_drawable_filter_update (filter);
  return TRUE;
}
#endif

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
      md->filter = gimp_drawable_filter_new (md->drawable, MATRIX_OP, NULL);
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

static void
matrix_dialog_add_css (void)
{
  static gboolean done = FALSE;
  GtkCssProvider *css;

  if (done)
    return;
  done = TRUE;
  /* Compact cells; the anchor is framed rather than bold, which would
   * widen its column. */
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (css,
                                   "entry.gpufx-cell { padding: 2px 4px; "
                                   "min-height: 0; }\n"
                                   "entry.gpufx-anchor { box-shadow: inset 0 0 "
                                   "0 1px alpha(currentColor, 0.7); }",
                                   -1, NULL);
  gtk_style_context_add_provider_for_screen (
    gdk_screen_get_default (), GTK_STYLE_PROVIDER (css),
    GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);
  g_object_unref (css);
}

static GtkWidget *
matrix_dialog_spin (MatrixDialog *md,
                    GtkWidget    *box,
                    const gchar  *label,
                    gint          value)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (label);
  GtkWidget *spin = gtk_spin_button_new_with_range (1, MATRIX_N, 1);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), spin);
  gtk_box_pack_start (GTK_BOX (box), l, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), spin, FALSE, FALSE, 0);
  g_signal_connect (spin, "value-changed",
                    G_CALLBACK (matrix_dialog_size_changed), md);
  return spin;
}

static GtkWidget *
matrix_dialog_matrix_frame (MatrixDialog *md)
{
  static const struct
  {
    MatrixPreset preset;
    const gchar *label;
    const gchar *tip;
  } presets[] = {
    { MATRIX_PRESET_IDENTITY, N_ ("Identity"),
      N_ ("1 in the middle, 0 elsewhere: the image unchanged") },
    { MATRIX_PRESET_SHARPEN, N_ ("Sharpen"),
      N_ ("Twice the pixel less the mean of the matrix's area") },
    { MATRIX_PRESET_BOX_BLUR, N_ ("Box blur"),
      N_ ("The mean of the matrix's area") },
    { MATRIX_PRESET_EMBOSS, N_ ("Emboss"),
      N_ ("The classic 3 x 3 emboss: a diagonal relief") },
  };
  GtkWidget *frame = gimp_frame_new (_ ("Matrix"));
  GtkWidget *vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *hbox = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *presets_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);

  gtk_container_add (GTK_CONTAINER (frame), vbox);
  gtk_box_pack_start (GTK_BOX (vbox), hbox, FALSE, FALSE, 0);
  md->width_spin = matrix_dialog_spin (md, hbox, _ ("_Width:"), md->width);
  md->height_spin = matrix_dialog_spin (md, hbox, _ ("H_eight:"), md->height);

  gtk_style_context_add_class (gtk_widget_get_style_context (presets_box),
                               GTK_STYLE_CLASS_LINKED);
  gtk_box_pack_end (GTK_BOX (hbox), presets_box, FALSE, FALSE, 0);
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    {
      GtkWidget *button = gtk_button_new_with_label (_ (presets[i].label));

      gtk_widget_set_tooltip_text (button, _ (presets[i].tip));
      g_object_set_data (G_OBJECT (button), "gpufx-preset",
                         GINT_TO_POINTER (presets[i].preset));
      g_signal_connect (button, "clicked", G_CALLBACK (matrix_dialog_preset),
                        md);
      gtk_box_pack_start (GTK_BOX (presets_box), button, FALSE, FALSE, 0);
    }

  md->scrolled = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (md->scrolled),
                                  GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
  gtk_box_pack_start (GTK_BOX (vbox), md->scrolled, TRUE, TRUE, 0);

  gtk_scrolled_window_set_overlay_scrolling (GTK_SCROLLED_WINDOW (md->scrolled),
                                             FALSE);
  md->grid = gtk_box_new (GTK_ORIENTATION_VERTICAL, MATRIX_SPACING);
  for (gint row = 0; row < MATRIX_N; row++)
    {
      md->rows[row] = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, MATRIX_SPACING);
      gtk_box_pack_start (GTK_BOX (md->grid), md->rows[row], FALSE, FALSE, 0);
    }
  gtk_widget_set_halign (md->grid, GTK_ALIGN_START);
  gtk_widget_set_valign (md->grid, GTK_ALIGN_START);
  gtk_container_add (GTK_CONTAINER (md->scrolled), md->grid);
  /* Tab into a cell out of view scrolls it into view. */
  gtk_container_set_focus_hadjustment (
    GTK_CONTAINER (md->grid),
    gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (md->scrolled)));
  gtk_container_set_focus_vadjustment (
    GTK_CONTAINER (md->grid),
    gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (md->scrolled)));

  /* Everything but the rows and cells, which show_window shows. */
  gtk_widget_show_all (frame);
  for (gint row = 0; row < MATRIX_N; row++)
    gtk_widget_hide (md->rows[row]);
  return frame;
}

/* "_Convolution Matrix..." -> "Convolution Matrix" */
static gchar *
matrix_dialog_title (const GpufxFilterInfo *info)
{
  gchar *title = g_strdup (_ (info->menu_label));
  gchar *d = title;

  for (const gchar *s = title; *s; s++)
    if (*s != '_')
      *d++ = *s;
  *d = '\0';
  if (g_str_has_suffix (title, "..."))
    title[strlen (title) - 3] = '\0';
  return title;
}

/* The procedure's arguments but the matrix (and run-mode, image and
 * drawables, which are no parameters of the table). */
static GList *
matrix_dialog_other_arguments (GimpProcedureConfig   *config,
                               const GpufxFilterInfo *info)
{
  const GpufxParam *tables[2] = { info->params, gpufx_common_params };
  GList            *names = NULL;

  for (gint t = 0; t < 2; t++)
    for (const GpufxParam *p = tables[t]; p->name; p++)
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
  gchar        *title;
  gboolean      run;
  gint64        t0;

  gimp_ui_init ("gpu-filters");
  matrix_dialog_add_css ();

  md->config = config;
  md->drawable = drawable;
  md->info = info;
  md->width = md->height = 3;

  title = matrix_dialog_title (info);
  md->dialog = gimp_procedure_dialog_new (procedure, config, title);
  g_free (title);
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
  if (gtk_widget_get_frame_clock (md->grid))
    g_signal_handlers_disconnect_by_data (gtk_widget_get_frame_clock (md->grid),
                                          md);
  if (md->preview_id)
    g_source_remove (md->preview_id);
  if (md->build_id)
    g_source_remove (md->build_id);
  /* The plug-in applies the result its own way (merged or as a filter). */
  matrix_dialog_preview_remove (md);
  gtk_widget_destroy (md->dialog);
  g_free (md->problem);
  g_free (md);
  return run;
}

/* gimp-gpu-filters: the matrix's weights as a grid of entries, with its
 * size.
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

#include <string.h>

#include <glib/gi18n-lib.h>

#include "gpufx-params.h"
#include "gpufx-matrix-grid.h"

#define MATRIX_N      GPUFX_MATRIX_MAX
#define MATRIX_ANCHOR (MATRIX_N / 2)

/* Cells made per turn of the main loop, and the most the grid shows before
 * it scrolls (pixels). */
#define MATRIX_CELLS_PER_TURN 126
#define MATRIX_SPACING        2
#define MATRIX_VIEW_MAX_W     920
#define MATRIX_VIEW_MAX_H     400

struct _GpuMatrixGrid
{
  GpuMatrixGridChanged changed;
  gpointer             changed_data;

  GtkWidget *box;
  GtkWidget *size_box;
  GtkWidget *width_spin;
  GtkWidget *height_spin;
  GtkWidget *scrolled;
  GtkWidget *rows_box; /* a vertical box of rows */
  GtkWidget *rows[MATRIX_N];

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
  gboolean   loading;  /* cells or spins being set from the model */

  gint64 resized_at; /* GPU_FILTERS_VERBOSE: when the size last changed */
  gint   made;       /* and how many cells were made since */
};

static void matrix_grid_cell_changed (GtkEditable   *editable,
                                      GpuMatrixGrid *grid);

/* Canvas index of the shown matrix's cell (col, row). */
static gint
matrix_grid_index (GpuMatrixGrid *grid, gint col, gint row)
{
  return (MATRIX_ANCHOR - grid->height / 2 + row) * MATRIX_N
         + (MATRIX_ANCHOR - grid->width / 2 + col);
}

static gboolean
matrix_grid_in_window (GpuMatrixGrid *grid, gint index)
{
  gint x = index % MATRIX_N - (MATRIX_ANCHOR - grid->width / 2);
  gint y = index / MATRIX_N - (MATRIX_ANCHOR - grid->height / 2);

  return x >= 0 && x < grid->width && y >= 0 && y < grid->height;
}

/* The weight into its entry, when the entry is made already (a new one
 * reads it itself). */
static void
matrix_grid_set_cell_text (GpuMatrixGrid *grid, gint index)
{
  gchar text[G_ASCII_DTOSTR_BUF_SIZE];

  if (! grid->cells[index])
    return;
  g_ascii_formatd (text, sizeof text, "%.7g", grid->weights[index]);
  grid->loading = TRUE;
  gtk_entry_set_text (GTK_ENTRY (grid->cells[index]), text);
  grid->loading = FALSE;
  grid->bad[index] = FALSE;
  gtk_style_context_remove_class (
    gtk_widget_get_style_context (grid->cells[index]), GTK_STYLE_CLASS_ERROR);
}

static GtkWidget *
matrix_grid_cell_new (GpuMatrixGrid *grid, gint index)
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
  grid->cells[index] = cell;
  matrix_grid_set_cell_text (grid, index);
  g_signal_connect (cell, "changed", G_CALLBACK (matrix_grid_cell_changed),
                    grid);
  if (index == MATRIX_ANCHOR * MATRIX_N + MATRIX_ANCHOR)
    {
      gtk_style_context_add_class (gtk_widget_get_style_context (cell),
                                   "gpufx-anchor");
      gtk_widget_set_tooltip_text (cell, _ ("This weight lies over the pixel "
                                            "being computed"));
    }

  /* In its row, after the cells of the columns to its left. */
  for (gint i = index - index % MATRIX_N; i < index; i++)
    if (grid->cells[i])
      position++;
  gtk_box_pack_start (GTK_BOX (grid->rows[index / MATRIX_N]), cell, FALSE,
                      FALSE, 0);
  gtk_box_reorder_child (GTK_BOX (grid->rows[index / MATRIX_N]), cell,
                         position);
  gtk_widget_show (cell);

  if (grid->cell_w == 0)
    {
      GtkRequisition natural;

      gtk_widget_get_preferred_size (cell, NULL, &natural);
      grid->cell_w = natural.width;
      grid->cell_h = natural.height;
    }
  return cell;
}

/* GPU_FILTERS_VERBOSE: how long a new size takes to reach the screen,
 * layout and drawing of the cells included. */
static void
matrix_grid_painted (GdkFrameClock *clock, GpuMatrixGrid *grid)
{
  g_signal_handlers_disconnect_by_func (clock, matrix_grid_painted, grid);
  g_printerr ("gpu-filters: matrix grid %d x %d: first drawn %.1f ms after "
              "the change\n",
              grid->width, grid->height,
              (g_get_monotonic_time () - grid->resized_at) / 1000.0);
}

/* Makes up to MATRIX_CELLS_PER_TURN missing cells of the window, top row
 * first; as an idle handler, until none is missing. */
static gboolean
matrix_grid_build (gpointer data)
{
  GpuMatrixGrid *grid = data;
  gint           made = 0;

  for (gint row = 0; row < grid->height; row++)
    for (gint col = 0; col < grid->width; col++)
      {
        gint index = matrix_grid_index (grid, col, row);

        if (grid->cells[index])
          continue;
        if (made == MATRIX_CELLS_PER_TURN)
          return G_SOURCE_CONTINUE;
        matrix_grid_cell_new (grid, index);
        made++;
        grid->made++;
      }

  if (grid->build_id && g_getenv ("GPU_FILTERS_VERBOSE"))
    g_printerr ("gpu-filters: matrix grid %d x %d: its last cell made %.1f "
                "ms after the change (%d made)\n",
                grid->width, grid->height,
                (g_get_monotonic_time () - grid->resized_at) / 1000.0,
                grid->made);
  grid->build_id = 0;
  return G_SOURCE_REMOVE;
}

/* Asks for a view as large as the matrix, up to a limit; the dialog grows
 * with it, and shrinks back when the matrix does. */
static void
matrix_grid_fit_view (GpuMatrixGrid *grid)
{
  GtkWidget *toplevel = gtk_widget_get_toplevel (grid->box);
  gint       w = grid->width * (grid->cell_w + MATRIX_SPACING);
  gint       h = grid->height * (grid->cell_h + MATRIX_SPACING);

  w = MIN (w, MATRIX_VIEW_MAX_W);
  h = MIN (h, MATRIX_VIEW_MAX_H);
  gtk_scrolled_window_set_min_content_width (
    GTK_SCROLLED_WINDOW (grid->scrolled), w);
  gtk_scrolled_window_set_min_content_height (
    GTK_SCROLLED_WINDOW (grid->scrolled), h);
  if ((w < grid->view_w || h < grid->view_h) && GTK_IS_WINDOW (toplevel)
      && gtk_widget_get_visible (toplevel))
    gtk_window_resize (GTK_WINDOW (toplevel), 1, 1);
  grid->view_w = w;
  grid->view_h = h;
}

/* Shows the cells of the current size and hides the others; cells never
 * shown before are made: the first rows at once, the rest while idle. */
static void
matrix_grid_show_window (GpuMatrixGrid *grid)
{
  gint64 t0 = g_get_monotonic_time ();

  for (gint row = 0; row < MATRIX_N; row++)
    {
      gint y = row - (MATRIX_ANCHOR - grid->height / 2);

      gtk_widget_set_visible (grid->rows[row], y >= 0 && y < grid->height);
    }
  for (gint i = 0; i < MATRIX_N * MATRIX_N; i++)
    if (grid->cells[i])
      gtk_widget_set_visible (grid->cells[i], matrix_grid_in_window (grid, i));

  grid->resized_at = t0;
  grid->made = 0;
  if (matrix_grid_build (grid) && ! grid->build_id)
    grid->build_id = g_idle_add (matrix_grid_build, grid);
  matrix_grid_fit_view (grid);

  if (g_getenv ("GPU_FILTERS_VERBOSE"))
    {
      GdkFrameClock *clock = gtk_widget_get_frame_clock (grid->rows_box);

      g_printerr ("gpu-filters: matrix grid %d x %d: shown in %.1f ms "
                  "(%d cell(s) made, %s)\n",
                  grid->width, grid->height,
                  (g_get_monotonic_time () - t0) / 1000.0, grid->made,
                  grid->build_id ? "more to come" : "all there");
      if (clock)
        {
          g_signal_handlers_disconnect_by_func (clock, matrix_grid_painted,
                                                grid);
          g_signal_connect (clock, "after-paint",
                            G_CALLBACK (matrix_grid_painted), grid);
        }
    }
}

static void
matrix_grid_set_spins (GpuMatrixGrid *grid)
{
  grid->loading = TRUE;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (grid->width_spin), grid->width);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (grid->height_spin), grid->height);
  grid->loading = FALSE;
}

static void
matrix_grid_cell_changed (GtkEditable *editable, GpuMatrixGrid *grid)
{
  gint             index;
  gchar           *text;
  gchar           *s;
  gdouble          value;
  gboolean         ok;
  GtkStyleContext *style;

  if (grid->loading)
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
      /* A weight by the engine's own rule: the text as a 1 x 1 matrix
       * (63 x 63 floats of room: not on a signal handler's stack). */
      GpufxConvolveParams *cell = g_new (GpufxConvolveParams, 1);

      ok = gpufx_matrix_parse (cell, text, NULL, 0) && cell->width == 1
           && cell->height == 1;
      value = ok ? cell->matrix[0] : 0.0;
      g_free (cell);
    }
  g_free (text);

  style = gtk_widget_get_style_context (GTK_WIDGET (editable));
  grid->bad[index] = ! ok;
  if (ok)
    {
      grid->weights[index] = (gfloat) value;
      gtk_style_context_remove_class (style, GTK_STYLE_CLASS_ERROR);
    }
  else
    {
      gtk_style_context_add_class (style, GTK_STYLE_CLASS_ERROR);
    }
  grid->changed (grid, grid->changed_data);
}

static void
matrix_grid_size_changed (GtkSpinButton *spin, GpuMatrixGrid *grid)
{
  if (grid->loading)
    return;
  grid->width
    = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (grid->width_spin));
  grid->height
    = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (grid->height_spin));
  matrix_grid_show_window (grid);
  grid->changed (grid, grid->changed_data);
}

static void
matrix_grid_add_css (void)
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
matrix_grid_spin (GpuMatrixGrid *grid, const gchar *label, gint value)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (label);
  GtkWidget *spin = gtk_spin_button_new_with_range (1, MATRIX_N, 1);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), spin);
  gtk_box_pack_start (GTK_BOX (grid->size_box), l, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (grid->size_box), spin, FALSE, FALSE, 0);
  g_signal_connect (spin, "value-changed",
                    G_CALLBACK (matrix_grid_size_changed), grid);
  return spin;
}

GpuMatrixGrid *
gpu_matrix_grid_new (GpuMatrixGridChanged changed, gpointer data)
{
  GpuMatrixGrid *grid = g_new0 (GpuMatrixGrid, 1);

  matrix_grid_add_css ();
  grid->changed = changed;
  grid->changed_data = data;
  grid->width = grid->height = 3;

  grid->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  grid->size_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_box_pack_start (GTK_BOX (grid->box), grid->size_box, FALSE, FALSE, 0);
  grid->width_spin = matrix_grid_spin (grid, _ ("_Width:"), grid->width);
  grid->height_spin = matrix_grid_spin (grid, _ ("H_eight:"), grid->height);

  grid->scrolled = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (grid->scrolled),
                                  GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
  gtk_box_pack_start (GTK_BOX (grid->box), grid->scrolled, TRUE, TRUE, 0);

  gtk_scrolled_window_set_overlay_scrolling (
    GTK_SCROLLED_WINDOW (grid->scrolled), FALSE);
  grid->rows_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, MATRIX_SPACING);
  for (gint row = 0; row < MATRIX_N; row++)
    {
      grid->rows[row]
        = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, MATRIX_SPACING);
      /* Shown and hidden by show_window only, whoever shows all. */
      gtk_widget_set_no_show_all (grid->rows[row], TRUE);
      gtk_box_pack_start (GTK_BOX (grid->rows_box), grid->rows[row], FALSE,
                          FALSE, 0);
    }
  gtk_widget_set_halign (grid->rows_box, GTK_ALIGN_START);
  gtk_widget_set_valign (grid->rows_box, GTK_ALIGN_START);
  gtk_container_add (GTK_CONTAINER (grid->scrolled), grid->rows_box);
  /* Tab into a cell out of view scrolls it into view. */
  gtk_container_set_focus_hadjustment (
    GTK_CONTAINER (grid->rows_box),
    gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (grid->scrolled)));
  gtk_container_set_focus_vadjustment (
    GTK_CONTAINER (grid->rows_box),
    gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (grid->scrolled)));

  gtk_widget_show_all (grid->box);
  return grid;
}

void
gpu_matrix_grid_free (GpuMatrixGrid *grid)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (grid->rows_box);

  if (clock)
    g_signal_handlers_disconnect_by_data (clock, grid);
  if (grid->build_id)
    g_source_remove (grid->build_id);
  for (gint i = 0; i < MATRIX_N * MATRIX_N; i++)
    if (grid->cells[i])
      g_signal_handlers_disconnect_by_data (grid->cells[i], grid);
  g_signal_handlers_disconnect_by_data (grid->width_spin, grid);
  g_signal_handlers_disconnect_by_data (grid->height_spin, grid);
  g_free (grid);
}

GtkWidget *
gpu_matrix_grid_get_widget (GpuMatrixGrid *grid)
{
  return grid->box;
}

GtkWidget *
gpu_matrix_grid_get_size_box (GpuMatrixGrid *grid)
{
  return grid->size_box;
}

void
gpu_matrix_grid_get_size (GpuMatrixGrid *grid, gint *width, gint *height)
{
  *width = grid->width;
  *height = grid->height;
}

void
gpu_matrix_grid_load (GpuMatrixGrid *grid, const GpufxConvolveParams *params)
{
  memset (grid->weights, 0, sizeof grid->weights);
  grid->width = params->width;
  grid->height = params->height;
  for (gint row = 0; row < grid->height; row++)
    for (gint col = 0; col < grid->width; col++)
      grid->weights[matrix_grid_index (grid, col, row)]
        = params->matrix[row * grid->width + col];

  for (gint i = 0; i < MATRIX_N * MATRIX_N; i++)
    matrix_grid_set_cell_text (grid, i);
  matrix_grid_set_spins (grid);
  matrix_grid_show_window (grid);
}

gboolean
gpu_matrix_grid_load_text (GpuMatrixGrid *grid,
                           const gchar   *text,
                           gchar         *message,
                           gsize          message_size)
{
  GpufxConvolveParams *params = g_new0 (GpufxConvolveParams, 1);
  gboolean             parsed;

  parsed = gpufx_matrix_parse (params, text, message, message_size);
  if (parsed)
    gpu_matrix_grid_load (grid, params);
  g_free (params);
  return parsed;
}

void
gpu_matrix_grid_fill (GpuMatrixGrid *grid, const GpufxConvolveParams *params)
{
  g_return_if_fail (params->width == grid->width
                    && params->height == grid->height);

  for (gint row = 0; row < grid->height; row++)
    for (gint col = 0; col < grid->width; col++)
      {
        gint index = matrix_grid_index (grid, col, row);

        grid->weights[index] = params->matrix[row * grid->width + col];
        matrix_grid_set_cell_text (grid, index);
      }
}

gboolean
gpu_matrix_grid_get_params (GpuMatrixGrid       *grid,
                            GpufxConvolveParams *params,
                            gchar               *message,
                            gsize                message_size)
{
  params->width = grid->width;
  params->height = grid->height;
  for (gint row = 0; row < grid->height; row++)
    for (gint col = 0; col < grid->width; col++)
      {
        gint index = matrix_grid_index (grid, col, row);

        if (grid->bad[index])
          {
            g_snprintf (message, message_size,
                        _ ("Row %d, column %d: a number was expected"), row + 1,
                        col + 1);
            return FALSE;
          }
        params->matrix[row * grid->width + col] = grid->weights[index];
      }
  return TRUE;
}

gchar *
gpu_matrix_grid_get_text (GpuMatrixGrid *grid)
{
  GpufxConvolveParams *params = g_new0 (GpufxConvolveParams, 1);
  gchar                message[GPUFX_MESSAGE_MAX];
  gsize                size = GPUFX_MATRIX_TEXT_MAX;
  gchar               *text = g_malloc (size);

  if (! gpu_matrix_grid_get_params (grid, params, message, sizeof message)
      || ! gpufx_matrix_format (params, text, size))
    g_clear_pointer (&text, g_free);
  g_free (params);
  return text;
}

/* gimp-gpu-filters: the matrix's weights as a grid of entries, with its
 * size.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef GPUFX_MATRIX_GRID_H
#define GPUFX_MATRIX_GRID_H

#include <gtk/gtk.h>

#include "gpufx.h"

G_BEGIN_DECLS

typedef struct _GpuMatrixGrid GpuMatrixGrid;

/* Called when the user changes a weight or the size. */
typedef void (*GpuMatrixGridChanged) (GpuMatrixGrid *grid, gpointer data);

/* A 3 x 3 grid of zeros, without its cells until the first load. */
GpuMatrixGrid *gpu_matrix_grid_new (GpuMatrixGridChanged changed,
                                    gpointer             data);
/* Disconnects from the widgets, which their container destroys. */
void gpu_matrix_grid_free (GpuMatrixGrid *grid);

/* The grid's widget: the size's spin buttons above the scrolled cells. */
GtkWidget *gpu_matrix_grid_get_widget (GpuMatrixGrid *grid);
/* The row of the size's spin buttons, where the caller may pack its own
 * buttons at the end. */
GtkWidget *gpu_matrix_grid_get_size_box (GpuMatrixGrid *grid);

void gpu_matrix_grid_get_size (GpuMatrixGrid *grid, gint *width, gint *height);

/* Shows params' matrix, with its size, on a cleared canvas. */
void gpu_matrix_grid_load (GpuMatrixGrid             *grid,
                           const GpufxConvolveParams *params);
/* The same from the matrix text; FALSE, with the reason in message and the
 * grid as it was, when the text cannot be read. */
gboolean gpu_matrix_grid_load_text (GpuMatrixGrid *grid,
                                    const gchar   *text,
                                    gchar         *message,
                                    gsize          message_size);
/* Replaces the shown weights with params' matrix, of the shown size; the
 * canvas around them keeps what it has. */
void gpu_matrix_grid_fill (GpuMatrixGrid             *grid,
                           const GpufxConvolveParams *params);

/* The shown matrix into params' size and matrix; FALSE, with the first bad
 * cell's place in message, while an entry holds something that is not a
 * number. */
gboolean gpu_matrix_grid_get_params (GpuMatrixGrid       *grid,
                                     GpufxConvolveParams *params,
                                     gchar               *message,
                                     gsize                message_size);
/* The shown matrix as the matrix text, or NULL while an entry holds
 * something that is not a number. */
gchar *gpu_matrix_grid_get_text (GpuMatrixGrid *grid);

G_END_DECLS

#endif /* GPUFX_MATRIX_GRID_H */

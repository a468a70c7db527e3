/* gimp-gpu-filters: the convolution matrix's dialog: a grid of weights and a
 * live preview on the canvas.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef GPUFX_MATRIX_DIALOG_H
#define GPUFX_MATRIX_DIALOG_H

#include <libgimp/gimp.h>

#include "gpufx-params.h"

G_BEGIN_DECLS

/* Shows the matrix as a grid of weights and the procedure's other
 * arguments as GIMP's generated widgets, and previews the result on the
 * canvas with a GimpDrawableFilter running gpufx:convolve, which is
 * removed again before returning.  TRUE when the user chose OK; the config
 * then holds the values (GIMP remembers them for the next run).  FALSE on
 * cancel. */
gboolean gpu_matrix_dialog_run (GimpProcedure         *procedure,
                                GimpProcedureConfig   *config,
                                GimpDrawable          *drawable,
                                const GpufxFilterInfo *info);

G_END_DECLS

#endif /* GPUFX_MATRIX_DIALOG_H */

/* gimp-gpu-filters: the matrix dialog's presets, fitted to any size.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef GPUFX_MATRIX_PRESETS_H
#define GPUFX_MATRIX_PRESETS_H

#include <glib.h>

#include "gpufx.h"

G_BEGIN_DECLS

typedef enum
{
  GPU_MATRIX_PRESET_IDENTITY,
  GPU_MATRIX_PRESET_SHARPEN,
  GPU_MATRIX_PRESET_BOX_BLUR,
  GPU_MATRIX_PRESET_EMBOSS,
  GPU_MATRIX_N_PRESETS
} GpuMatrixPreset;

/* The preset's name and what it does, translated. */
const gchar *gpu_matrix_preset_label (GpuMatrixPreset preset);
const gchar *gpu_matrix_preset_tip (GpuMatrixPreset preset);

/* Fills the params->width x params->height matrix with the preset and sets
 * its divisor, offset and normalize to go with it. */
void gpu_matrix_preset_fill (GpuMatrixPreset      preset,
                             GpufxConvolveParams *params);

G_END_DECLS

#endif /* GPUFX_MATRIX_PRESETS_H */

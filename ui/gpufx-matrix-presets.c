/* gimp-gpu-filters: the matrix dialog's presets, fitted to any size.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "gpufx-matrix-presets.h"

static const struct
{
  const gchar *label;
  const gchar *tip;
} matrix_presets[GPU_MATRIX_N_PRESETS] = {
  [GPU_MATRIX_PRESET_IDENTITY]
  = { N_ ("Identity"), N_ ("1 in the middle, 0 elsewhere: the "
                           "image unchanged") },
  [GPU_MATRIX_PRESET_SHARPEN]
  = { N_ ("Sharpen"), N_ ("Twice the pixel less the mean of the "
                          "matrix's area") },
  [GPU_MATRIX_PRESET_BOX_BLUR]
  = { N_ ("Box blur"), N_ ("The mean of the matrix's area") },
  [GPU_MATRIX_PRESET_EMBOSS]
  = { N_ ("Emboss"), N_ ("The classic 3 x 3 emboss: a diagonal "
                         "relief") },
};

const gchar *
gpu_matrix_preset_label (GpuMatrixPreset preset)
{
  return _ (matrix_presets[preset].label);
}

const gchar *
gpu_matrix_preset_tip (GpuMatrixPreset preset)
{
  return _ (matrix_presets[preset].tip);
}

void
gpu_matrix_preset_fill (GpuMatrixPreset preset, GpufxConvolveParams *params)
{
  gint    w = params->width;
  gint    h = params->height;
  gint    n = w * h;
  gint    anchor = (h / 2) * w + w / 2;
  gdouble sum = 0.0;

  params->divisor = 1.0;
  params->offset = 0.0;
  params->normalize = FALSE;

  for (gint row = 0; row < h; row++)
    for (gint col = 0; col < w; col++)
      {
        gfloat weight = 0.0f;

        switch (preset)
          {
          case GPU_MATRIX_PRESET_IDENTITY: weight = 0.0f; break;
          /* Twice the pixel less the mean around it: unsharp masking
           * with a box, in whole numbers. */
          case GPU_MATRIX_PRESET_SHARPEN: weight = -1.0f; break;
          case GPU_MATRIX_PRESET_BOX_BLUR: weight = 1.0f; break;
          /* The classic 3 x 3 emboss in the middle, whatever the size:
           * a ramp as large as the matrix would grow with its cube. */
          case GPU_MATRIX_PRESET_EMBOSS:
            {
              gint dx = col - w / 2;
              gint dy = row - h / 2;

              if (ABS (dx) <= 1 && ABS (dy) <= 1)
                weight = (gfloat) (dx + dy);
            }
            break;
          case GPU_MATRIX_N_PRESETS: break;
          }
        params->matrix[row * w + col] = weight;
        sum += weight;
      }

  switch (preset)
    {
    case GPU_MATRIX_PRESET_IDENTITY: params->matrix[anchor] = 1.0f; break;
    case GPU_MATRIX_PRESET_SHARPEN:
      params->matrix[anchor] = (gfloat) (2 * n - 1);
      params->divisor = n;
      break;
    case GPU_MATRIX_PRESET_BOX_BLUR: params->normalize = TRUE; break;
    case GPU_MATRIX_PRESET_EMBOSS:
      /* The weights sum to 1. */
      params->matrix[anchor] += (gfloat) (1.0 - sum);
      break;
    case GPU_MATRIX_N_PRESETS: break;
    }
}

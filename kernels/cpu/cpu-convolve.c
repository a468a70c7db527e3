/* gimp-gpu-filters: convolution matrix on the CPU.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Works on bands of output rows: each band's input is copied once into a
 * padded buffer (border rule applied there), so the inner loops are plain
 * multiply-adds across x * channels that the compiler vectorises.  Zero
 * weights are skipped; a rank-1 matrix runs as a row pass and a column
 * pass.
 */
/* Let a * b + c become one FMA in the hot loops (C11 mode turns
 * contraction off; results move by float rounding only). */
#if defined(__GNUC__) && ! defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#elif defined(__clang__)
#pragma clang fp contract(fast)
#endif
#include "cpu-pool.h"
#include "cpu-filters.h"

#include <stdlib.h>
#include <string.h>

#define CONV_BLOCK 32 /* floats of output kept in registers */
#define CONV_BAND  32 /* output rows per task */

typedef struct
{
  int   dy; /* row of the padded band */
  int   dx; /* offset in floats along the padded row */
  float w;
} ConvTap;

typedef struct
{
  const GpufxJob *job;
  ConvTap        *taps;
  int             n_taps;
  bool            separable;
  float           row_w[GPUFX_MATRIX_MAX], col_w[GPUFX_MATRIX_MAX];
  int             mw, mh, left, top;
  ptrdiff_t      *xmap;
  float           offset[GPUFX_MAX_CHANNELS];
  bool            any_offset;
  void (*block) (const float *, ptrdiff_t, const ConvTap *, int, float *, int);
} ConvCtx;

bool
cpu_matrix_separable (const float *m, int w, int h, double *col, double *row)
{
  double big = 0, p;
  int    pi = 0, pj = 0;

  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      if (fabs (m[j * w + i]) > big)
        {
          big = fabs (m[j * w + i]);
          pi = i;
          pj = j;
        }
  if (big == 0)
    return false;
  p = m[pj * w + pi];
  for (int j = 0; j < h; j++)
    col[j] = m[j * w + pi];
  for (int i = 0; i < w; i++)
    row[i] = m[pj * w + i] / p;
  /* Rank 1 within float rounding of the largest weight: the two passes
   * then differ from the 2-D sum by no more than its own rounding. */
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      if (fabs (m[j * w + i] - col[j] * row[i]) > 1e-7 * big)
        return false;
  return true;
}

/* The inner kernel: an AVX2 + FMA copy picked at run time where the CPU
 * has them, and a 16-byte one (SSE2 and the like). */
#define CPU_VARIANTS_FILE "cpu-conv-block.h"
#include "cpu-variants.h"

static void
conv_add_offset (const ConvCtx *c, float *out, int n_pixels)
{
  const int ch = c->job->channels;

  for (int x = 0; x < n_pixels; x++)
    for (int k = 0; k < ch; k++)
      out[x * ch + k] += c->offset[k];
}

CPU_HOT static bool
conv_band (void *data, int begin, int end)
{
  ConvCtx        *c = data;
  const GpufxJob *job = c->job;
  const GpufxRect d = job->dst_rect;
  const int       ch = job->channels;
  const int       pw = (d.width + c->mw - 1) * ch; /* padded row, floats */
  const int       n = d.width * ch;
  const int       y0 = begin * CONV_BAND;
  const int       y1 = end * CONV_BAND < d.height ? end * CONV_BAND : d.height;
  const int       rows = y1 - y0 + c->mh - 1;
  float          *pad = malloc (sizeof (float) * (size_t) pw * rows);
  float          *mid = NULL;
  const bool      any_offset = c->any_offset;

  if (! pad)
    return false;
  for (int r = 0; r < rows; r++)
    cpu_fill_row (job, c->xmap, d.width + c->mw - 1, d.y + y0 - c->top + r,
                  pad + (size_t) r * pw);

  if (c->separable)
    {
      ConvTap taps[GPUFX_MATRIX_MAX];

      mid = malloc (sizeof (float) * (size_t) n * rows);
      if (! mid)
        {
          free (pad);
          return false;
        }
      for (int i = 0; i < c->mw; i++)
        taps[i] = (ConvTap){ 0, i * ch, c->row_w[i] };
      for (int r = 0; r < rows; r++)
        c->block (pad + (size_t) r * pw, pw, taps, c->mw, mid + (size_t) r * n,
                  n);
      for (int j = 0; j < c->mh; j++)
        taps[j] = (ConvTap){ j, 0, c->col_w[j] };
      for (int y = y0; y < y1; y++)
        {
          float *out = job->dst + (ptrdiff_t) y * job->dst_stride;

          c->block (mid + (size_t) (y - y0) * n, n, taps, c->mh, out, n);
          if (any_offset)
            conv_add_offset (c, out, d.width);
        }
    }
  else
    for (int y = y0; y < y1; y++)
      {
        float *out = job->dst + (ptrdiff_t) y * job->dst_stride;

        c->block (pad + (size_t) (y - y0) * pw, pw, c->taps, c->n_taps, out, n);
        if (any_offset)
          conv_add_offset (c, out, d.width);
      }
  free (mid);
  free (pad);
  return true;
}

GpufxStatus
cpu_convolve (const GpufxJob *job, GpufxReport *report)
{
  const GpufxConvolveParams *p = &job->filter.convolve;
  const GpufxRect            d = job->dst_rect;
  const int                  ch = job->channels;
  const double               scale = 1.0 / p->divisor;
  ConvCtx                    c;
  double                     col[GPUFX_MATRIX_MAX], row[GPUFX_MATRIX_MAX];
  GpufxStatus                status;
  int                        nnz = 0;

  memset (&c, 0, sizeof c);
  c.job = job;
  c.block = conv_block_v4;
#if CPU_HAVE_V3
  if (cpu_has_v3 ())
    c.block = conv_block_v8;
#endif
  c.mw = p->width;
  c.mh = p->height;
  c.left = p->width / 2;
  c.top = p->height / 2;
  for (int k = 0; k < ch; k++)
    c.offset[k] = k == job->alpha ? 0.0f : (float) p->offset;
  c.any_offset = p->offset != 0;

  c.taps = malloc (sizeof (ConvTap) * (size_t) p->width * p->height);
  c.xmap = cpu_column_map (job, d.x - c.left, d.width + c.mw - 1);
  if (! c.taps || ! c.xmap)
    {
      free (c.taps);
      free (c.xmap);
      return gpufx_fail (report, GPUFX_ERROR_OUT_OF_MEMORY,
                         "out of memory for the convolution's buffers");
    }
  for (int j = 0; j < p->height; j++)
    for (int i = 0; i < p->width; i++)
      if (p->matrix[j * p->width + i] != 0)
        c.taps[nnz++]
          = (ConvTap){ j, i * ch,
                       (float) (p->matrix[j * p->width + i] * scale) };
  c.n_taps = nnz;

  /* Two passes pay off only when they do fewer multiply-adds. */
  if (p->width > 1 && p->height > 1 && nnz > p->width + p->height
      && cpu_matrix_separable (p->matrix, p->width, p->height, col, row))
    {
      c.separable = true;
      for (int i = 0; i < p->width; i++)
        c.row_w[i] = (float) row[i];
      for (int j = 0; j < p->height; j++)
        c.col_w[j] = (float) (col[j] * scale);
    }

  status
    = cpu_parallel_for (job, report, (d.height + CONV_BAND - 1) / CONV_BAND, 1,
                        conv_band, &c, 0.0, 1.0);
  free (c.taps);
  free (c.xmap);
  return status;
}

/* gimp-gpu-filters: classic Kuwahara on the CPU.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each output needs the sums (every channel, V and V^2) of four
 * (r+1) x (r+1) boxes: those starting at box rows y and y + r, box columns
 * x and x + r (in padded coordinates).  A band of rows keeps two sliding
 * column sums in double (rows y..y+r and y+r..y+2r) and slides them across
 * the row, so the cost does not depend on r.  Float sums are known to make
 * artifacts here; double keeps the variances clean.
 *
 * Ties: a later quadrant wins only when its variance is lower by more than
 * 1e-11 of the best quadrant's mean V^2, so that exact ties (flat areas)
 * keep the first quadrant despite rounding in the sliding sums.
 */
#include "cpu-pool.h"
#include "cpu-filters.h"

#include <stdlib.h>
#include <string.h>

#define KUW_K_MAX (GPUFX_MAX_CHANNELS + 2)

typedef struct
{
  const GpufxJob *job;
  ptrdiff_t      *xmap;
  int             r, band, pw, k; /* k: channels + V + V^2 */
  int             colour[3], n_colour;
} KuwCtx;

/* The padded row of image row y as k doubles per pixel. */
static void
kuw_row (const KuwCtx *c, int y, float *pad, double *vals)
{
  const int ch = c->job->channels;

  cpu_fill_row (c->job, c->xmap, c->pw, y, pad);
  for (int x = 0; x < c->pw; x++)
    {
      const float *p = pad + (size_t) x * ch;
      double      *v = vals + (size_t) x * c->k;
      float        vmax = p[c->colour[0]];

      for (int i = 1; i < c->n_colour; i++)
        vmax = p[c->colour[i]] > vmax ? p[c->colour[i]] : vmax;
      for (int i = 0; i < ch; i++)
        v[i] = p[i];
      v[ch] = vmax;
      v[ch + 1] = (double) vmax * vmax;
    }
}

/* box[bx] = sum of col[bx .. bx + r], bx < n. */
static void
kuw_box_row (const double *col, int n, int r, int k, double *box)
{
  double s[KUW_K_MAX] = { 0 };

  for (int x = 0; x <= r; x++)
    for (int i = 0; i < k; i++)
      s[i] += col[(size_t) x * k + i];
  for (int bx = 0; bx < n; bx++)
    {
      for (int i = 0; i < k; i++)
        box[(size_t) bx * k + i] = s[i];
      if (bx + 1 < n)
        for (int i = 0; i < k; i++)
          s[i] += col[(size_t) (bx + r + 1) * k + i] - col[(size_t) bx * k + i];
    }
}

CPU_HOT static bool
kuw_band (void *data, int begin, int end)
{
  KuwCtx         *c = data;
  const GpufxJob *job = c->job;
  const GpufxRect d = job->dst_rect;
  const int       ch = job->channels, k = c->k, r = c->r;
  const int       bw = d.width + r; /* box columns needed */
  const size_t    rowk = (size_t) c->pw * k;
  const double    inv_n = 1.0 / ((double) (r + 1) * (r + 1));
  const int       y0 = begin * c->band;
  const int       y1 = end * c->band < d.height ? end * c->band : d.height;
  /* Padded row py is image row d.y - r + py. */
  const int top = d.y - r;
  float    *pad = malloc (sizeof (float) * (size_t) c->pw * ch);
  double   *buf = malloc (sizeof (double) * (4 * rowk + 2 * (size_t) bw * k));
  double   *col_a, *col_b, *v_in, *v_out, *box_a, *box_b;

  if (! pad || ! buf)
    {
      free (pad);
      free (buf);
      return false;
    }
  col_a = buf;
  col_b = col_a + rowk;
  v_in = col_b + rowk;
  v_out = v_in + rowk;
  box_a = v_out + rowk;
  box_b = box_a + (size_t) bw * k;

  memset (col_a, 0, sizeof (double) * 2 * rowk);
  for (int py = y0; py <= y0 + r; py++)
    {
      kuw_row (c, top + py, pad, v_in);
      for (size_t i = 0; i < rowk; i++)
        col_a[i] += v_in[i];
      kuw_row (c, top + py + r, pad, v_in);
      for (size_t i = 0; i < rowk; i++)
        col_b[i] += v_in[i];
    }

  for (int y = y0; y < y1; y++)
    {
      float *out = job->dst + (ptrdiff_t) (y) *job->dst_stride;

      if (y > y0)
        {
          /* col_a: rows y..y+r; col_b: rows y+r..y+2r. */
          kuw_row (c, top + y + r, pad, v_in);
          kuw_row (c, top + y - 1, pad, v_out);
          for (size_t i = 0; i < rowk; i++)
            col_a[i] += v_in[i] - v_out[i];
          kuw_row (c, top + y + 2 * r, pad, v_out);
          for (size_t i = 0; i < rowk; i++)
            col_b[i] += v_out[i];
          kuw_row (c, top + y + r - 1, pad, v_out);
          for (size_t i = 0; i < rowk; i++)
            col_b[i] -= v_out[i];
        }
      kuw_box_row (col_a, bw, r, k, box_a);
      kuw_box_row (col_b, bw, r, k, box_b);

      for (int x = 0; x < d.width; x++)
        {
          const double *q[4]
            = { box_a + (size_t) x * k, box_a + (size_t) (x + r) * k,
                box_b + (size_t) x * k, box_b + (size_t) (x + r) * k };
          int    best = 0;
          double best_var = 0, best_ev2 = 0;

          for (int i = 0; i < 4; i++)
            {
              double mean = q[i][ch] * inv_n;
              double ev2 = q[i][ch + 1] * inv_n;
              double var = ev2 - mean * mean;

              if (i == 0 || var < best_var - 1e-11 * fabs (best_ev2))
                {
                  best = i;
                  best_var = var;
                  best_ev2 = ev2;
                }
            }
          for (int i = 0; i < ch; i++)
            out[x * ch + i] = (float) (q[best][i] * inv_n);
        }
    }
  free (pad);
  free (buf);
  return true;
}

GpufxStatus
cpu_kuwahara (const GpufxJob *job, GpufxReport *report)
{
  const GpufxRect d = job->dst_rect;
  KuwCtx          c;
  GpufxStatus     status;
  int             threads = cpu_thread_count (job);
  int             n_bands;

  memset (&c, 0, sizeof c);
  c.job = job;
  c.r = job->filter.kuwahara.radius;
  c.pw = d.width + 2 * c.r;
  c.k = job->channels + 2;
  /* V: the first three channels that are not alpha. */
  for (int i = 0; i < job->channels && c.n_colour < 3; i++)
    if (i != job->alpha)
      c.colour[c.n_colour++] = i;
  if (c.n_colour == 0) /* alpha only: V is alpha */
    c.colour[c.n_colour++] = 0;

  /* Each band pays about 2r rows to start; keep that a fraction. */
  c.band = 2 * (c.r + 1) > 32 ? 2 * (c.r + 1) : 32;
  if ((d.height + c.band - 1) / c.band < 2 * threads)
    c.band = (d.height + 2 * threads - 1) / (2 * threads);
  if (c.band < 1)
    c.band = 1;
  n_bands = (d.height + c.band - 1) / c.band;

  c.xmap = cpu_column_map (job, d.x - c.r, c.pw);
  if (! c.xmap)
    return gpufx_fail (report, GPUFX_ERROR_OUT_OF_MEMORY,
                       "out of memory for Kuwahara's buffers");
  status = cpu_parallel_for (job, report, n_bands, 1, kuw_band, &c, 0.0, 1.0);
  free (c.xmap);
  return status;
}

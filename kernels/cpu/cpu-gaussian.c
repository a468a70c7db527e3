/* gimp-gpu-filters: Gaussian blur on the CPU.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two 1-D passes, each using the plan from gaussian-plan.h.
 *
 * Both radii direct (r <= GAUSS_DIRECT_MAX): one fused pass over tiles of
 * the output (gauss_fused): vertical taps straight from the source into a
 * tile-sized buffer that stays in L2, then horizontal taps into the
 * output.  The kernel's symmetry halves the multiplies; no full-size
 * temporary.  See NOTES-cpu.md for the measurements behind it.
 *
 * Otherwise: rows into a float buffer, then columns, each with direct taps
 * or the sliding sum of cosines in double, whose cost does not depend on
 * sigma.  Both run on the line padded with the border rule; the cosine
 * form starts from an empty window 2r + 1 samples before the first output,
 * so a line costs O(n + 2r).
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
#include "gaussian-plan.h"

#include <stdlib.h>
#include <string.h>

/* Helpers of the hot loops: inlined into the callers' AVX2 clones (a
 * separate copy would be built for the default target only). */
#if defined(__GNUC__)
#define CPU_INLINE __attribute__ ((always_inline))
#else
#define CPU_INLINE
#endif

#define GAUSS_BLOCK 64  /* floats of output per register block */
#define GAUSS_STRIP 128 /* columns (floats) per vertical cosine strip */
#define GAUSS_CHUNK 32  /* floats per column chunk of the fused path */
/* Radius up to which this backend applies the taps directly (measured:
 * see NOTES-cpu.md); beyond it, the cosine sums. */
#define GAUSS_DIRECT_MAX  80
#define GAUSS_BAND        32          /* rows per item of the fused path */
#define GAUSS_TILE_FLOATS (96 * 1024) /* vertical results per item */
/* Explicit 8-float vectors in the tap loops: measured no clear gain over
 * the auto-vectorised loops on the 2-core test machine, so off. */
#ifndef GAUSS_V8
#define GAUSS_V8 0
#endif

typedef struct
{
  double c1, s1;   /* e^{-i w}: cos w, sin w        */
  double cr, sr;   /* e^{-i w r}: cos wr, sin wr    */
  double cr1, sr1; /* e^{i w (r+1)}                 */
  double a;
} GaussTerm;

typedef struct
{
  int       pos;  /* first padded pixel */
  int       len;  /* pixels */
  ptrdiff_t off;  /* floats from a source row's start, -1: zeros */
  int       from; /* >= 0: copy of padded pixels from .. (computed) */
} GaussRun;

typedef struct
{
  const GpufxJob   *job;
  GpufxGaussianPlan plan_x, plan_y;
  GaussTerm         tx[GPUFX_GAUSS_MAX_TERMS], ty[GPUFX_GAUSS_MAX_TERMS];
  float             taps_x[GAUSS_DIRECT_MAX + 1]; /* taps 0..r (direct) */
  float             taps_y[GAUSS_DIRECT_MAX + 1];
  ptrdiff_t        *xmap;   /* columns d.x - rx .. */
  int               line_w; /* d.width * channels */

  /* Horizontal pass: image rows h_y0 .. into hout rows. */
  int       h_y0;
  float    *hout;
  ptrdiff_t hout_stride;

  /* Vertical pass: image row j is vin + (j - vin_y0) * vin_stride. */
  const float *vin;
  ptrdiff_t    vin_stride;
  int          vin_y0;
  const float *zero_row;

  /* Fused direct path: padded row pixels by source run. */
  GaussRun *runs;
  int       n_runs;
  int       band; /* rows per item */
  void (*hrow) (const float *, float *, int, int, int, const float *);
  void (*vchunk) (const float *const *,
                  ptrdiff_t,
                  int,
                  int,
                  int,
                  const float *,
                  float *,
                  float *,
                  ptrdiff_t);
  int tile_w;  /* output pixels per item */
  int n_tiles; /* items across */
} GaussCtx;

static void
gauss_terms (const GpufxGaussianPlan *p, GaussTerm *t)
{
  for (int m = 0; m < p->n_terms; m++)
    {
      double w = p->omega[m];

      t[m].c1 = cos (w);
      t[m].s1 = sin (w);
      t[m].cr = cos (w * p->radius);
      t[m].sr = sin (w * p->radius);
      t[m].cr1 = cos (w * (p->radius + 1));
      t[m].sr1 = sin (w * (p->radius + 1));
      t[m].a = p->coeff[m];
    }
}

/* out[q] = sum_k taps[|k|] * in[q + (r + k) * step], q < n. */
CPU_INLINE static inline void
gauss_fir (const float *in,
           float       *out,
           int          n,
           int          r,
           int          step,
           const float *taps)
{
  int q0 = 0;

  for (; GAUSS_V8 && q0 + 32 <= n; q0 += 32)
    {
      const float *c = in + q0 + (ptrdiff_t) r * step;
      CpuV8        a0 = taps[0] * *(const CpuV8 *) c;
      CpuV8        a1 = taps[0] * *(const CpuV8 *) (c + 8);
      CpuV8        a2 = taps[0] * *(const CpuV8 *) (c + 16);
      CpuV8        a3 = taps[0] * *(const CpuV8 *) (c + 24);

      for (int k = 1; k <= r; k++)
        {
          const float *a = c + (ptrdiff_t) k * step;
          const float *b = c - (ptrdiff_t) k * step;
          float        w = taps[k];

          a0 += w * (*(const CpuV8 *) a + *(const CpuV8 *) b);
          a1 += w * (*(const CpuV8 *) (a + 8) + *(const CpuV8 *) (b + 8));
          a2 += w * (*(const CpuV8 *) (a + 16) + *(const CpuV8 *) (b + 16));
          a3 += w * (*(const CpuV8 *) (a + 24) + *(const CpuV8 *) (b + 24));
        }
      *(CpuV8 *) (out + q0) = a0;
      *(CpuV8 *) (out + q0 + 8) = a1;
      *(CpuV8 *) (out + q0 + 16) = a2;
      *(CpuV8 *) (out + q0 + 24) = a3;
    }
  for (; q0 < n; q0 += GAUSS_BLOCK)
    {
      float        acc[GAUSS_BLOCK];
      int          len = n - q0 < GAUSS_BLOCK ? n - q0 : GAUSS_BLOCK;
      const float *c = in + q0 + (ptrdiff_t) r * step;

      for (int q = 0; q < len; q++)
        acc[q] = taps[0] * c[q];
      for (int k = 1; k <= r; k++)
        {
          const float *a = c + (ptrdiff_t) k * step;
          const float *b = c - (ptrdiff_t) k * step;
          float        w = taps[k];

          for (int q = 0; q < len; q++)
            acc[q] += w * (a[q] + b[q]);
        }
      memcpy (out + q0, acc, sizeof (float) * len);
    }
}

/* The sliding cosine sums along one padded line of n_pad pixels of ch
 * channels; writes n outputs (the line is n + 2r long). */
CPU_INLINE static inline void
gauss_cos_line (const float     *pad,
                int              n,
                int              r,
                int              ch,
                const GaussTerm *t,
                int              n_terms,
                float           *out)
{
  double    tr[GPUFX_GAUSS_MAX_TERMS][4] = { { 0 } };
  double    ti[GPUFX_GAUSS_MAX_TERMS][4] = { { 0 } };
  const int n_pad = n + 2 * r;

  for (int x = -2 * r - 1; x < n; x++)
    {
      const float *po = x >= 0 ? pad + (ptrdiff_t) x * ch : NULL;
      const float *pi
        = x + 2 * r + 1 < n_pad ? pad + (ptrdiff_t) (x + 2 * r + 1) * ch : NULL;
      double xo[4] = { 0, 0, 0, 0 }, xi[4] = { 0, 0, 0, 0 };

      if (x >= 0)
        {
          double y[4] = { 0, 0, 0, 0 };

          for (int m = 0; m < n_terms; m++)
            for (int c = 0; c < ch; c++)
              y[c] += t[m].a * tr[m][c];
          for (int c = 0; c < ch; c++)
            out[(ptrdiff_t) x * ch + c] = (float) y[c];
        }
      if (po)
        for (int c = 0; c < ch; c++)
          xo[c] = po[c];
      if (pi)
        for (int c = 0; c < ch; c++)
          xi[c] = pi[c];
      for (int m = 0; m < n_terms; m++)
        for (int c = 0; c < ch; c++)
          {
            double ur = tr[m][c] - t[m].cr * xo[c] + t[m].cr1 * xi[c];
            double ui = ti[m][c] + t[m].sr * xo[c] + t[m].sr1 * xi[c];

            tr[m][c] = ur * t[m].c1 + ui * t[m].s1;
            ti[m][c] = ui * t[m].c1 - ur * t[m].s1;
          }
    }
}

CPU_HOT static bool
gauss_rows (void *data, int begin, int end)
{
  GaussCtx       *g = data;
  const GpufxJob *job = g->job;
  const int       ch = job->channels;
  const int       r = g->plan_x.radius;
  const int       n = job->dst_rect.width;
  float          *pad = malloc (sizeof (float) * ((size_t) n + 2 * r) * ch);

  if (! pad)
    return false;
  for (int i = begin; i < end; i++)
    {
      float *out = g->hout + (ptrdiff_t) i * g->hout_stride;

      cpu_fill_row (job, g->xmap, n + 2 * r, g->h_y0 + i, pad);
      if (g->plan_x.n_terms == 0)
        gauss_fir (pad, out, n * ch, r, ch, g->taps_x);
      else
        switch (ch)
          {
          case 1:
            gauss_cos_line (pad, n, r, 1, g->tx, g->plan_x.n_terms, out);
            break;
          case 2:
            gauss_cos_line (pad, n, r, 2, g->tx, g->plan_x.n_terms, out);
            break;
          case 3:
            gauss_cos_line (pad, n, r, 3, g->tx, g->plan_x.n_terms, out);
            break;
          default:
            gauss_cos_line (pad, n, r, 4, g->tx, g->plan_x.n_terms, out);
            break;
          }
    }
  free (pad);
  return true;
}

static const float *
gauss_vrow (const GaussCtx *g, int y)
{
  const GpufxJob *job = g->job;
  int j = gpufx_border_index (y, job->image_height, job->filter.border);

  if (j < 0)
    return g->zero_row;
  return g->vin + (ptrdiff_t) (j - g->vin_y0) * g->vin_stride;
}

/* Direct taps down the columns, one output row per item. */
CPU_HOT static bool
gauss_cols_fir (void *data, int begin, int end)
{
  GaussCtx       *g = data;
  const GpufxJob *job = g->job;
  const int       r = g->plan_y.radius;
  const float    *rows[2 * GAUSS_DIRECT_MAX + 1];

  for (int y = begin; y < end; y++)
    {
      int    iy = job->dst_rect.y + y;
      float *out = job->dst + (ptrdiff_t) y * job->dst_stride;

      for (int k = -r; k <= r; k++)
        rows[k + r] = gauss_vrow (g, iy + k);
      int q0 = 0;

      for (; GAUSS_V8 && q0 + 32 <= g->line_w; q0 += 32)
        {
          const float *c = rows[r] + q0;
          CpuV8        a0 = g->taps_y[0] * *(const CpuV8 *) c;
          CpuV8        a1 = g->taps_y[0] * *(const CpuV8 *) (c + 8);
          CpuV8        a2 = g->taps_y[0] * *(const CpuV8 *) (c + 16);
          CpuV8        a3 = g->taps_y[0] * *(const CpuV8 *) (c + 24);

          for (int k = 1; k <= r; k++)
            {
              const float *a = rows[r + k] + q0, *b = rows[r - k] + q0;
              float        w = g->taps_y[k];

              a0 += w * (*(const CpuV8 *) a + *(const CpuV8 *) b);
              a1 += w * (*(const CpuV8 *) (a + 8) + *(const CpuV8 *) (b + 8));
              a2 += w * (*(const CpuV8 *) (a + 16) + *(const CpuV8 *) (b + 16));
              a3 += w * (*(const CpuV8 *) (a + 24) + *(const CpuV8 *) (b + 24));
            }
          *(CpuV8 *) (out + q0) = a0;
          *(CpuV8 *) (out + q0 + 8) = a1;
          *(CpuV8 *) (out + q0 + 16) = a2;
          *(CpuV8 *) (out + q0 + 24) = a3;
        }
      for (; q0 < g->line_w; q0 += GAUSS_BLOCK)
        {
          float acc[GAUSS_BLOCK];
          int len = g->line_w - q0 < GAUSS_BLOCK ? g->line_w - q0 : GAUSS_BLOCK;
          const float *c = rows[r] + q0;

          for (int q = 0; q < len; q++)
            acc[q] = g->taps_y[0] * c[q];
          for (int k = 1; k <= r; k++)
            {
              const float *a = rows[r + k] + q0, *b = rows[r - k] + q0;
              float        w = g->taps_y[k];

              for (int q = 0; q < len; q++)
                acc[q] += w * (a[q] + b[q]);
            }
          memcpy (out + q0, acc, sizeof (float) * len);
        }
    }
  return true;
}

/* Sliding cosines down a strip of columns, one strip per item. */
CPU_HOT static bool
gauss_cols_cos (void *data, int begin, int end)
{
  GaussCtx       *g = data;
  const GpufxJob *job = g->job;
  const int       r = g->plan_y.radius;
  const int       nt = g->plan_y.n_terms;
  const int       h = job->dst_rect.height;
  const int       y0 = job->dst_rect.y;
  double         *state = malloc (sizeof (double) * 2 * nt * GAUSS_STRIP);

  if (! state)
    return false;
  for (int s = begin; s < end; s++)
    {
      int q0 = s * GAUSS_STRIP;
      int len = g->line_w - q0 < GAUSS_STRIP ? g->line_w - q0 : GAUSS_STRIP;

      memset (state, 0, sizeof (double) * 2 * nt * GAUSS_STRIP);
      for (int y = -2 * r - 1; y < h; y++)
        {
          /* Leaves: row y - r (only once the window is inside the padded
           * column); enters: row y + r + 1 (while there is one). */
          const float *ro = y >= 0 ? gauss_vrow (g, y0 + y - r) + q0 : NULL;
          const float *ri = y + r + 1 <= h - 1 + r
                              ? gauss_vrow (g, y0 + y + r + 1) + q0
                              : NULL;

          if (y >= 0)
            {
              double acc[GAUSS_STRIP];
              float *out = job->dst + (ptrdiff_t) y * job->dst_stride + q0;

              for (int q = 0; q < len; q++)
                acc[q] = 0;
              for (int m = 0; m < nt; m++)
                {
                  const double *tr = state + (size_t) 2 * m * GAUSS_STRIP;
                  double        a = g->ty[m].a;

                  for (int q = 0; q < len; q++)
                    acc[q] += a * tr[q];
                }
              for (int q = 0; q < len; q++)
                out[q] = (float) acc[q];
            }
          if (! ro)
            ro = g->zero_row;
          if (! ri)
            ri = g->zero_row;
          for (int m = 0; m < nt; m++)
            {
              double         *tr = state + (size_t) 2 * m * GAUSS_STRIP;
              double         *ti = tr + GAUSS_STRIP;
              const GaussTerm t = g->ty[m];

              for (int q = 0; q < len; q++)
                {
                  double xo = ro[q], xi = ri[q];
                  double ur = tr[q] - t.cr * xo + t.cr1 * xi;
                  double ui = ti[q] + t.sr * xo + t.sr1 * xi;

                  tr[q] = ur * t.c1 + ui * t.s1;
                  ti[q] = ui * t.c1 - ur * t.s1;
                }
            }
        }
    }
  free (state);
  return true;
}

/* ---- Fused direct path: both radii direct (the common small-sigma case).
 *
 * Per output row: the vertical taps over the source rows (contiguous, read
 * straight from the source) into one padded row that stays in L1/L2, then
 * the horizontal taps from it into the output row.  No full-size temporary:
 * the source is read once and the output written once, and nothing needs a
 * warm-up, so any band of rows is an independent item. */

/* The direct-tap kernels: an AVX2 + FMA copy picked at run time where
 * the CPU has them, and a 16-byte one (SSE2 and the like). */
#define CPU_VARIANTS_FILE "cpu-gauss-fir.h"
#include "cpu-variants.h"

/* One item: a tile of g->band output rows by g->tile_w output pixels.
 * The vertical taps run column chunk by column chunk down the band, from
 * a packed copy of the chunk's source rows (rows an image stride apart
 * share a few L1 sets and evict each other), into a buffer of the tile
 * plus its horizontal reach (a few hundred KiB: L2); then the horizontal
 * taps run from that buffer into the output. */
static bool
gauss_fused (void *data, int begin, int end)
{
  GaussCtx       *g = data;
  const GpufxJob *job = g->job;
  const int       ch = job->channels;
  const int       rx = g->plan_x.radius, ry = g->plan_y.radius;
  const int       n = job->dst_rect.width;
  const ptrdiff_t pw = ((ptrdiff_t) g->tile_w + 2 * rx) * ch;
  const float    *rows[2 * GAUSS_DIRECT_MAX + 1 + GAUSS_BAND];
  float          *buf = NULL;
  float          *pack = malloc (sizeof (float) * GAUSS_CHUNK
                                 * (GAUSS_BAND + 2 * GAUSS_DIRECT_MAX));

  if (! pack)
    return false;
  if (rx > 0)
    {
      buf = malloc (sizeof (float) * (size_t) pw * g->band);
      if (! buf)
        {
          free (pack);
          return false;
        }
    }
  for (int item = begin; item < end; item++)
    {
      const int y0 = item / g->n_tiles * g->band;
      const int x0 = item % g->n_tiles * g->tile_w;
      const int nb = job->dst_rect.height - y0 < g->band
                       ? job->dst_rect.height - y0
                       : g->band;
      const int tw = n - x0 < g->tile_w ? n - x0 : g->tile_w;
      /* Padded pixels p0 .. p1 - 1 go to vout's columns 0 .. */
      const int p0 = x0, p1 = x0 + tw + 2 * rx;
      float    *vout = rx > 0 ? buf
                              : job->dst + (ptrdiff_t) y0 * job->dst_stride
                               + (ptrdiff_t) x0 * ch;
      ptrdiff_t vstride = rx > 0 ? pw : job->dst_stride;

      for (int k = 0; k < nb + 2 * ry; k++)
        {
          const float *row
            = cpu_source_row (job, job->dst_rect.y + y0 - ry + k);

          rows[k] = row ? row : g->zero_row;
        }
      for (int i = 0; i < g->n_runs; i++)
        {
          const GaussRun *u = &g->runs[i];
          const int       a = u->pos > p0 ? u->pos : p0;
          const int       b = u->pos + u->len < p1 ? u->pos + u->len : p1;
          const int       len = (b - a) * ch;
          const ptrdiff_t off = u->off + (ptrdiff_t) (a - u->pos) * ch;
          float          *o = vout + (ptrdiff_t) (a - p0) * ch;

          if (a >= b || u->off < 0
              || (u->from >= 0 && u->from + (a - u->pos) >= p0
                  && u->from + (b - u->pos) <= p1))
            continue; /* zeros or a copy: below */
          for (int q = 0; q < len; q += GAUSS_CHUNK)
            g->vchunk (rows, off + q,
                       len - q < GAUSS_CHUNK ? len - q : GAUSS_CHUNK, nb, ry,
                       g->taps_y, pack, o + q, vstride);
        }
      for (int y = 0; y < nb; y++)
        {
          float *v = vout + y * vstride;

          for (int i = 0; i < g->n_runs; i++)
            {
              const GaussRun *u = &g->runs[i];
              const int       a = u->pos > p0 ? u->pos : p0;
              const int       b = u->pos + u->len < p1 ? u->pos + u->len : p1;

              if (a >= b)
                continue;
              if (u->off < 0)
                memset (v + (ptrdiff_t) (a - p0) * ch, 0,
                        sizeof (float) * (size_t) (b - a) * ch);
              /* Border pixels that repeat ones computed in this tile
               * (clamp, mirror, wrap). */
              else if (u->from >= 0 && u->from + (a - u->pos) >= p0
                       && u->from + (b - u->pos) <= p1)
                memcpy (v + (ptrdiff_t) (a - p0) * ch,
                        v + (ptrdiff_t) (u->from + (a - u->pos) - p0) * ch,
                        sizeof (float) * (size_t) (b - a) * ch);
            }
          if (rx > 0)
            g->hrow (v,
                     job->dst + (ptrdiff_t) (y0 + y) * job->dst_stride
                       + (ptrdiff_t) x0 * ch,
                     tw * ch, rx, ch, g->taps_x);
        }
    }
  free (buf);
  free (pack);
  return true;
}

GpufxStatus
cpu_gaussian (const GpufxJob *job, GpufxReport *report)
{
  const GpufxRect d = job->dst_rect, s = job->src_rect;
  const int       ch = job->channels;
  GaussCtx        g;
  GpufxRect       need;
  GpufxStatus     status = GPUFX_OK;
  float          *tmp = NULL, *zero = NULL;
  bool            blur_x, blur_y;
  int             threads = cpu_thread_count (job);

  memset (&g, 0, sizeof g);
  g.job = job;
  g.line_w = d.width * ch;
  if (! gpufx_gaussian_plan_init (&g.plan_x, job->filter.gaussian.std_dev_x,
                                  GAUSS_DIRECT_MAX)
      || ! gpufx_gaussian_plan_init (&g.plan_y, job->filter.gaussian.std_dev_y,
                                     GAUSS_DIRECT_MAX))
    goto oom;
  gauss_terms (&g.plan_x, g.tx);
  gauss_terms (&g.plan_y, g.ty);
  if (g.plan_x.n_terms == 0)
    for (int k = 0; k <= g.plan_x.radius && k <= GAUSS_DIRECT_MAX; k++)
      g.taps_x[k] = (float) g.plan_x.taps[g.plan_x.radius + k];
  if (g.plan_y.n_terms == 0)
    for (int k = 0; k <= g.plan_y.radius && k <= GAUSS_DIRECT_MAX; k++)
      g.taps_y[k] = (float) g.plan_y.taps[g.plan_y.radius + k];
  /* The threshold must stay below the arrays above. */
  if ((g.plan_x.n_terms == 0 && g.plan_x.radius > GAUSS_DIRECT_MAX)
      || (g.plan_y.n_terms == 0 && g.plan_y.radius > GAUSS_DIRECT_MAX))
    {
      status = gpufx_fail (report, GPUFX_ERROR_BACKEND_FAILED,
                           "the Gaussian plan has no cosine fit");
      goto out;
    }
  blur_x = g.plan_x.radius > 0;
  blur_y = g.plan_y.radius > 0;

  need
    = gpufx_input_rect (&job->filter, job->image_width, job->image_height, d);
  zero = calloc ((size_t) (g.line_w > s.width * ch ? g.line_w : s.width * ch),
                 sizeof (float));
  if (! zero)
    goto oom;
  g.zero_row = zero;

  if (g.plan_x.n_terms == 0 && g.plan_y.n_terms == 0)
    {
      /* Both axes direct: the fused path (see gauss_fused). */
      const int rx = g.plan_x.radius, np = d.width + 2 * rx;

      g.hrow = gauss_hrow_v4;
      g.vchunk = gauss_vchunk_v4;
#if CPU_HAVE_V3
      if (cpu_has_v3 ())
        {
          g.hrow = gauss_hrow_v8;
          g.vchunk = gauss_vchunk_v8;
        }
#endif

      g.xmap = cpu_column_map (job, d.x - rx, np);
      g.runs = malloc (sizeof (GaussRun) * (size_t) np);
      if (! g.xmap || ! g.runs)
        goto oom;
      for (int i = 0; i < np;)
        {
          int run = 1;

          if (g.xmap[i] < 0)
            while (i + run < np && g.xmap[i + run] < 0)
              run++;
          else
            while (i + run < np
                   && g.xmap[i + run] == g.xmap[i] + (ptrdiff_t) run * ch)
              run++;
          g.runs[g.n_runs++] = (GaussRun){ i, run, g.xmap[i], -1 };
          i += run;
        }
      /* Runs whose source pixels a longer run computes become copies of
       * it: longest first, so every copy reads a computed run. */
      for (int pass = 0; pass < g.n_runs; pass++)
        {
          int best = -1;

          for (int i = 0; i < g.n_runs; i++)
            if (g.runs[i].from == -1 && g.runs[i].off >= 0
                && (best < 0 || g.runs[i].len > g.runs[best].len))
              best = i;
          if (best < 0)
            break;
          g.runs[best].from = -2; /* computed */
          for (int i = 0; i < g.n_runs; i++)
            {
              GaussRun *u = &g.runs[i], *b = &g.runs[best];

              if (u->from == -1 && u->off >= b->off
                  && u->off + (ptrdiff_t) u->len * ch
                       <= b->off + (ptrdiff_t) b->len * ch)
                u->from = b->pos + (int) ((u->off - b->off) / ch);
            }
        }
      /* Tiles of GAUSS_BAND rows whose vertical results (the tile and
       * its horizontal reach) take about GAUSS_TILE_FLOATS: L2. */
      g.band = d.height < GAUSS_BAND ? d.height : GAUSS_BAND;
      {
        int tw = GAUSS_TILE_FLOATS / g.band / ch - 2 * rx;
        int n_bands = (d.height + g.band - 1) / g.band;

        /* At least 8 rx wide, so the reach adds at most a quarter. */
        if (tw < 8 * rx)
          tw = 8 * rx;
        if (tw < 128)
          tw = 128;
        g.n_tiles = (d.width + tw - 1) / tw;
        g.tile_w = (d.width + g.n_tiles - 1) / g.n_tiles;
        status = cpu_parallel_for (job, report, n_bands * g.n_tiles,
                                   (n_bands * g.n_tiles + 4 * threads - 1)
                                     / (4 * threads),
                                   gauss_fused, &g, 0.0, 1.0);
      }
      goto out;
    }

  if (blur_x)
    {
      g.xmap = cpu_column_map (job, d.x - g.plan_x.radius,
                               d.width + 2 * g.plan_x.radius);
      if (! g.xmap)
        goto oom;
      if (blur_y)
        {
          tmp = malloc (sizeof (float) * (size_t) g.line_w * need.height);
          if (! tmp)
            goto oom;
          g.h_y0 = need.y;
          g.hout = tmp;
          g.hout_stride = g.line_w;
          g.vin = tmp;
          g.vin_stride = g.line_w;
          g.vin_y0 = need.y;
          status
            = cpu_parallel_for (job, report, need.height,
                                (need.height + 4 * threads - 1) / (4 * threads),
                                gauss_rows, &g, 0.0, 0.5);
        }
      else
        {
          g.h_y0 = d.y;
          g.hout = job->dst;
          g.hout_stride = job->dst_stride;
          status = cpu_parallel_for (
            job, report, d.height, (d.height + 4 * threads - 1) / (4 * threads),
            gauss_rows, &g, 0.0, 1.0);
        }
      if (status != GPUFX_OK)
        goto out;
    }
  else
    {
      g.vin = job->src + (ptrdiff_t) (d.x - s.x) * ch;
      g.vin_stride = job->src_stride;
      g.vin_y0 = s.y;
    }

  if (blur_y || ! blur_x)
    {
      /* With neither axis blurred this is a copy: the one tap is 1. */
      if (g.plan_y.n_terms == 0)
        status = cpu_parallel_for (job, report, d.height,
                                   (d.height + 4 * threads - 1) / (4 * threads),
                                   gauss_cols_fir, &g, blur_x ? 0.5 : 0.0, 1.0);
      else
        status = cpu_parallel_for (
          job, report, (g.line_w + GAUSS_STRIP - 1) / GAUSS_STRIP, 1,
          gauss_cols_cos, &g, blur_x ? 0.5 : 0.0, 1.0);
    }
  goto out;

oom:
  status = gpufx_fail (report, GPUFX_ERROR_OUT_OF_MEMORY,
                       "out of memory for the Gaussian's buffers "
                       "(%d x %d pixels)",
                       d.width, d.height);
out:
  gpufx_gaussian_plan_clear (&g.plan_x);
  gpufx_gaussian_plan_clear (&g.plan_y);
  free (g.xmap);
  free (g.runs);
  free (tmp);
  free (zero);
  return status;
}

/* gimp-gpu-filters: the Gaussian's direct-tap kernels, for one vector width.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Included by cpu-gaussian.c once per instruction set, with
 *   GF_V     a float vector type (GCC vector extension, any alignment)
 *   GF_W     its number of floats
 *   GF_ATTR  the functions' target attribute (or nothing)
 *   GF_NAME  (name) -> name with the width's suffix
 * The accumulators must fit the registers: a 32-byte type built for SSE2
 * goes through the stack, hence one copy per width instead of clones.
 */

/* out[q] = sum_{|k| <= r} taps[|k|] * pad[q + (r + k) * step], q < n:
 * the kernel is symmetric, so each pair is added, then multiplied once. */
GF_ATTR static inline void
GF_NAME (gauss_fir) (const float *pad,
                     float       *out,
                     int          n,
                     int          r,
                     ptrdiff_t    step,
                     const float *taps)
{
  int q = 0;

  for (; q + 4 * GF_W <= n; q += 4 * GF_W)
    {
      const float *c = pad + q + r * step;
      GF_V         a0 = taps[0] * *(const GF_V *) c;
      GF_V         a1 = taps[0] * *(const GF_V *) (c + GF_W);
      GF_V         a2 = taps[0] * *(const GF_V *) (c + 2 * GF_W);
      GF_V         a3 = taps[0] * *(const GF_V *) (c + 3 * GF_W);

      for (int k = 1; k <= r; k++)
        {
          const float *a = c + k * step;
          const float *b = c - k * step;
          float        w = taps[k];

          a0 += w * (*(const GF_V *) a + *(const GF_V *) b);
          a1 += w * (*(const GF_V *) (a + GF_W) + *(const GF_V *) (b + GF_W));
          a2 += w
                * (*(const GF_V *) (a + 2 * GF_W)
                   + *(const GF_V *) (b + 2 * GF_W));
          a3 += w
                * (*(const GF_V *) (a + 3 * GF_W)
                   + *(const GF_V *) (b + 3 * GF_W));
        }
      *(GF_V *) (out + q) = a0;
      *(GF_V *) (out + q + GF_W) = a1;
      *(GF_V *) (out + q + 2 * GF_W) = a2;
      *(GF_V *) (out + q + 3 * GF_W) = a3;
    }
  for (; q + GF_W <= n; q += GF_W)
    {
      const float *c = pad + q + r * step;
      GF_V         a0 = taps[0] * *(const GF_V *) c;

      for (int k = 1; k <= r; k++)
        a0 += taps[k]
              * (*(const GF_V *) (c + k * step)
                 + *(const GF_V *) (c - k * step));
      *(GF_V *) (out + q) = a0;
    }
  for (; q < n; q++)
    {
      const float *c = pad + q + r * step;
      float        a0 = taps[0] * c[0];

      for (int k = 1; k <= r; k++)
        a0 += taps[k] * (c[k * step] + c[-k * step]);
      out[q] = a0;
    }
}

/* The horizontal taps along n floats of one padded row (pixels of step
 * floats). */
GF_ATTR static void
GF_NAME (gauss_hrow) (const float *pad,
                      float       *out,
                      int          n,
                      int          r,
                      int          step,
                      const float *taps)
{
  GF_NAME (gauss_fir) (pad, out, n, r, step, taps);
}

/* The vertical taps for one column chunk (m <= GAUSS_CHUNK floats at off)
 * of nb output rows: rows[0 .. nb + 2r - 1] are the source rows.  They are
 * first packed into pack (GAUSS_CHUNK floats a row): rows an image stride
 * apart share a few L1 sets and evict each other. */
GF_ATTR static void
GF_NAME (gauss_vchunk) (const float *const *rows,
                        ptrdiff_t           off,
                        int                 m,
                        int                 nb,
                        int                 r,
                        const float        *taps,
                        float              *pack,
                        float              *out,
                        ptrdiff_t           out_stride)
{
  if (m == GAUSS_CHUNK)
    for (int k = 0; k < nb + 2 * r; k++)
      for (int j = 0; j < GAUSS_CHUNK; j += GF_W)
        *(GF_V *) (pack + k * GAUSS_CHUNK + j)
          = *(const GF_V *) (rows[k] + off + j);
  else
    for (int k = 0; k < nb + 2 * r; k++)
      memcpy (pack + k * GAUSS_CHUNK, rows[k] + off, sizeof (float) * m);
  for (int y = 0; y < nb; y++)
    GF_NAME (gauss_fir)
  (pack + y * GAUSS_CHUNK, out + y * out_stride, m, r, GAUSS_CHUNK, taps);
}

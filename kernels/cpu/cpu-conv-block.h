/* gimp-gpu-filters: the convolution's inner kernel, for one vector width.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Included by cpu-convolve.c once per instruction set, with GF_V (a float
 * vector type), GF_W (its floats), GF_ATTR (target attribute or nothing)
 * and GF_NAME (name -> suffixed name); see cpu-gauss-fir.h for why.
 *
 * acc[q] = sum over taps of w * in[dy][q + dx], q < n; rows of in are
 * stride floats apart.  Four vectors of output stay in registers.
 */
GF_ATTR static void
GF_NAME (conv_block) (const float   *in,
                      ptrdiff_t      stride,
                      const ConvTap *taps,
                      int            n_taps,
                      float         *out,
                      int            n)
{
  int q0 = 0;

  for (; q0 + 4 * GF_W <= n; q0 += 4 * GF_W)
    {
      GF_V a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };

      for (int t = 0; t < n_taps; t++)
        {
          const float *s = in + taps[t].dy * stride + taps[t].dx + q0;
          const float  w = taps[t].w;

          a0 += w * *(const GF_V *) s;
          a1 += w * *(const GF_V *) (s + GF_W);
          a2 += w * *(const GF_V *) (s + 2 * GF_W);
          a3 += w * *(const GF_V *) (s + 3 * GF_W);
        }
      *(GF_V *) (out + q0) = a0;
      *(GF_V *) (out + q0 + GF_W) = a1;
      *(GF_V *) (out + q0 + 2 * GF_W) = a2;
      *(GF_V *) (out + q0 + 3 * GF_W) = a3;
    }
  for (; q0 + GF_W <= n; q0 += GF_W)
    {
      GF_V a0 = { 0 };

      for (int t = 0; t < n_taps; t++)
        a0 += taps[t].w
              * *(const GF_V *) (in + taps[t].dy * stride + taps[t].dx + q0);
      *(GF_V *) (out + q0) = a0;
    }
  for (; q0 < n; q0++)
    {
      float a0 = 0;

      for (int t = 0; t < n_taps; t++)
        a0 += taps[t].w * in[taps[t].dy * stride + taps[t].dx + q0];
      out[q0] = a0;
    }
}

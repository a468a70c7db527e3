/* gimp-gpu-filters: our GEGL operations against GEGL's own filters, end to
 * end, in one GEGL process.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each run builds the graph gegl:buffer-source -> OP -> gegl:write-buffer
 * into a new buffer and calls gegl_node_process, as gegl_apply_op does:
 * GEGL's processor, its chunks and its threads, babl's conversions, the
 * operation's own transfers.  The wall clock of that call is the time; the
 * median of --runs runs after one warm-up run is reported.  The outputs of
 * backend=cuda and backend=cpu are compared (max |a - b| over every
 * channel, in the operation's working format), and ours (cpu) against
 * GEGL's (for the Gaussian its filter=fir), for information only: the
 * definitions differ (gegl:edge-sobel reads one pixel up-left; GEGL's FIR
 * truncates its kernel elsewhere).
 *
 * usage: bench-gegl [--width W] [--height H] [--runs N] [--threads T]
 *                   [--backends cuda,cpu] [--cache-mb M] [--only SUBSTR]
 *                   [--budget-s S] [--chunk-size PIXELS] [--out-format BABL]
 * The test image is RGBA float, opaque (so that GEGL's straight-alpha
 * filters and our premultiplied ones mean the same), smooth gradients plus
 * deterministic noise in [0, 1].
 */
#include <gegl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_MAX_RUNS 15

typedef struct
{
  const char *name;    /* the table's row                               */
  const char *ours_op; /* NULL: no op of ours in this row               */
  const char *ours_props;
  const char *gegl_op; /* NULL: GEGL has no such filter                 */
  const char *gegl_props;
  const char *gegl2_props; /* a second GEGL variant (gaussian filter=fir) */
  const char *format;      /* where outputs are compared                    */
  double      tolerance;   /* max |cuda - cpu| allowed                      */
} BenchCase;

/* matrix[j][i] is gegl:convolution-matrix's letter i+1, digit j+1
 * (kernels/gpufx.h); deliberately asymmetric so that a transposed reading
 * shows up in the ours-vs-GEGL column. */
#define BENCH_MATRIX "1,2,0,-1,0;0,1,3,0,-1;2,0,4,1,0;0,-1,2,1,1;1,0,0,2,1"
#define BENCH_GEGL_MATRIX                                                      \
  "a1=1 b1=2 c1=0 d1=-1 e1=0 "                                                 \
  "a2=0 b2=1 c2=3 d2=0 e2=-1 "                                                 \
  "a3=2 b3=0 c3=4 d3=1 e3=0 "                                                  \
  "a4=0 b4=-1 c4=2 d4=1 e4=1 "                                                 \
  "a5=1 b5=0 c5=0 d5=2 e5=1 "

static const BenchCase bench_cases[] = {
  { "point op (GEGL invert-linear)", NULL, NULL, "gegl:invert-linear", "", NULL,
    "RGBA float", 0 },
  { "gaussian s=2", "gpufx:gaussian-blur",
    "std-dev-x=2 std-dev-y=2 border=clamp", "gegl:gaussian-blur",
    "std-dev-x=2 std-dev-y=2 abyss-policy=clamp filter=auto",
    "std-dev-x=2 std-dev-y=2 abyss-policy=clamp filter=fir", "RaGaBaA float",
    1e-4 },
  { "gaussian s=20", "gpufx:gaussian-blur",
    "std-dev-x=20 std-dev-y=20 border=clamp", "gegl:gaussian-blur",
    "std-dev-x=20 std-dev-y=20 abyss-policy=clamp filter=auto",
    "std-dev-x=20 std-dev-y=20 abyss-policy=clamp filter=fir", "RaGaBaA float",
    1e-4 },
  /* Large sigma: GEGL's FIR would take minutes, so its IIR only. */
  { "gaussian s=100", "gpufx:gaussian-blur",
    "std-dev-x=100 std-dev-y=100 border=clamp", "gegl:gaussian-blur",
    "std-dev-x=100 std-dev-y=100 abyss-policy=clamp filter=auto", NULL,
    "RaGaBaA float", 1e-4 },
  { "sobel", "gpufx:sobel",
    "horizontal=true vertical=true keep-sign=false border=clamp",
    "gegl:edge-sobel", "horizontal=true vertical=true keep-sign=false", NULL,
    "RGBA float", 1e-5 },
  { "convolve 5x5", "gpufx:convolve",
    "matrix=" BENCH_MATRIX " divisor=1 offset=0 normalize=true border=clamp",
    "gegl:convolution-matrix",
    BENCH_GEGL_MATRIX "divisor=1 offset=0 normalize=true border=clamp", NULL,
    "RaGaBaA float", 1e-5 },
  { "kuwahara r=10", "gpufx:kuwahara", "radius=10 border=clamp", NULL, NULL,
    NULL, "RaGaBaA float", 1e-5 },
};

typedef struct
{
  double      ms; /* median; < 0: not run */
  double      min_ms;
  int         runs;
  GeglBuffer *out; /* the last run's output */
} BenchTiming;

static int    bench_width = 6000, bench_height = 4000, bench_runs = 3;
static double bench_budget_s = 20.0; /* per configuration, warm-up excluded */
/* The buffer the graph writes into, as a drawable would be: straight alpha
 * (GIMP's drawables are never premultiplied). */
static const char *bench_out_format = "RGBA float";

static double
bench_now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

/* Deterministic noise in [0, 1): a 32-bit integer hash. */
static float
bench_noise (guint32 x, guint32 y, guint32 c)
{
  guint32 h
    = x * 0x9E3779B1u ^ (y + 0x7F4A7C15u) * 0x85EBCA77u ^ c * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return (h >> 8) * (1.0f / 16777216.0f);
}

static GeglBuffer *
bench_make_input (int w, int h)
{
  GeglRectangle rect = { 0, 0, w, h };
  const Babl   *fmt = babl_format ("RGBA float");
  GeglBuffer   *buf = gegl_buffer_new (&rect, fmt);
  int           band = 64;
  float        *row = g_new (float, (gsize) w *band * 4);

  for (int y0 = 0; y0 < h; y0 += band)
    {
      int bh = MIN (band, h - y0);
      for (int y = 0; y < bh; y++)
        for (int x = 0; x < w; x++)
          {
            float *p = row + ((gsize) y * w + x) * 4;
            float  u = (float) x / w, v = (float) (y0 + y) / h;
            float  base[3]
              = { 0.5f + 0.4f * sinf (6.0f * u + 2.0f * v), 0.2f + 0.6f * u * v,
                  0.5f + 0.4f * cosf (9.0f * v - 3.0f * u) };
            for (int c = 0; c < 3; c++)
              {
                float n = bench_noise (x, y0 + y, c) - 0.5f;
                float val = base[c] + 0.2f * n;
                p[c] = val < 0 ? 0 : val > 1 ? 1 : val;
              }
            p[3] = 1.0f;
          }
      GeglRectangle r = { 0, y0, w, bh };
      gegl_buffer_set (buf, &r, 0, fmt, row, GEGL_AUTO_ROWSTRIDE);
    }
  g_free (row);
  return buf;
}

/* Sets "name=value name=value ..." on a node, whatever each property's
 * type: enums by nick, booleans as true/false, numbers, strings. */
static gboolean
bench_set_props (GeglNode *node, const char *op, const char *props)
{
  gchar  **items = g_strsplit (props, " ", -1);
  gboolean ok = TRUE;

  for (int i = 0; items[i]; i++)
    {
      if (! *items[i])
        continue;
      gchar *eq = strchr (items[i], '=');
      if (! eq)
        {
          ok = FALSE;
          break;
        }
      *eq = '\0';
      const char *name = items[i], *val = eq + 1;
      GParamSpec *pspec = gegl_operation_find_property (op, name);
      if (! pspec)
        {
          fprintf (stderr, "bench-gegl: %s has no property %s\n", op, name);
          ok = FALSE;
          break;
        }
      GValue v = G_VALUE_INIT;
      g_value_init (&v, pspec->value_type);
      if (G_TYPE_IS_ENUM (pspec->value_type))
        {
          GEnumClass *ec = g_type_class_ref (pspec->value_type);
          GEnumValue *ev = g_enum_get_value_by_nick (ec, val);
          if (! ev)
            {
              fprintf (stderr, "bench-gegl: %s.%s has no value %s\n", op, name,
                       val);
              ok = FALSE;
            }
          else
            g_value_set_enum (&v, ev->value);
          g_type_class_unref (ec);
        }
      else if (pspec->value_type == G_TYPE_BOOLEAN)
        g_value_set_boolean (&v, ! strcmp (val, "true") || ! strcmp (val, "1"));
      else if (pspec->value_type == G_TYPE_DOUBLE)
        g_value_set_double (&v, g_ascii_strtod (val, NULL));
      else if (pspec->value_type == G_TYPE_INT)
        g_value_set_int (&v, atoi (val));
      else if (pspec->value_type == G_TYPE_STRING)
        g_value_set_string (&v, val);
      else
        {
          fprintf (stderr, "bench-gegl: %s.%s: type %s not handled\n", op, name,
                   g_type_name (pspec->value_type));
          ok = FALSE;
        }
      if (ok)
        gegl_node_set_property (node, name, &v);
      g_value_unset (&v);
      if (! ok)
        break;
    }
  g_strfreev (items);
  return ok;
}

/* One run: a new graph and a new output buffer. */
static GeglBuffer *
bench_run_once (GeglBuffer *input,
                const char *op,
                const char *props,
                const char *backend,
                double     *ms)
{
  GeglNode   *graph = gegl_node_new ();
  GeglBuffer *out = gegl_buffer_new (gegl_buffer_get_extent (input),
                                     babl_format (bench_out_format));
  GeglNode *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source",
                                       "buffer", input, NULL);
  GeglNode *node = gegl_node_new_child (graph, "operation", op, NULL);
  GeglNode *sink = gegl_node_new_child (graph, "operation", "gegl:write-buffer",
                                        "buffer", out, NULL);
  gboolean  ok = bench_set_props (node, op, props);
  if (ok && backend)
    {
      gchar *b = g_strdup_printf ("backend=%s", backend);
      ok = bench_set_props (node, op, b);
      g_free (b);
    }
  if (! ok)
    {
      g_object_unref (graph);
      g_object_unref (out);
      return NULL;
    }
  gegl_node_link_many (src, node, sink, NULL);

  double t0 = bench_now_ms ();
  gegl_node_process (sink);
  *ms = bench_now_ms () - t0;

  g_object_unref (graph);
  return out;
}

static int
bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static BenchTiming
bench_time (GeglBuffer *input,
            const char *op,
            const char *props,
            const char *backend)
{
  BenchTiming t = { -1, -1, 0, NULL };
  double      times[BENCH_MAX_RUNS], warm, spent = 0;
  GeglBuffer *out;

  if (! op || ! props || ! gegl_has_operation (op))
    return t;
  out = bench_run_once (input, op, props, backend, &warm);
  if (! out)
    return t;
  fprintf (stderr, "  %-24s %-5s warm-up %9.1f ms", op, backend ? backend : "",
           warm);
  for (int r = 0; r < bench_runs && r < BENCH_MAX_RUNS; r++)
    {
      if (r > 0 && spent > bench_budget_s * 1000.0)
        break;
      g_object_unref (out);
      out = bench_run_once (input, op, props, backend, &times[r]);
      spent += times[r];
      t.runs = r + 1;
      fprintf (stderr, " %9.1f", times[r]);
    }
  fprintf (stderr, "\n");
  qsort (times, t.runs, sizeof times[0], bench_cmp_double);
  t.ms = t.runs % 2 ? times[t.runs / 2]
                    : 0.5 * (times[t.runs / 2 - 1] + times[t.runs / 2]);
  t.min_ms = times[0];
  t.out = out;
  return t;
}

/* max |a - b| over every channel of the common extent, read in FORMAT;
 * NaN anywhere gives NaN. */
static double
bench_max_diff (GeglBuffer *a, GeglBuffer *b, const char *format)
{
  const GeglRectangle *e = gegl_buffer_get_extent (a);
  const Babl          *fmt = babl_format (format);
  int                  band = 128, w = e->width;
  float               *pa = g_new (float, (gsize) w *band * 4);
  float               *pb = g_new (float, (gsize) w *band * 4);
  double               worst = 0;

  for (int y0 = 0; y0 < e->height; y0 += band)
    {
      GeglRectangle r = { e->x, e->y + y0, w, MIN (band, e->height - y0) };
      gegl_buffer_get (a, &r, 1.0, fmt, pa, GEGL_AUTO_ROWSTRIDE,
                       GEGL_ABYSS_NONE);
      gegl_buffer_get (b, &r, 1.0, fmt, pb, GEGL_AUTO_ROWSTRIDE,
                       GEGL_ABYSS_NONE);
      gsize n = (gsize) r.width * r.height * 4;
      for (gsize i = 0; i < n; i++)
        {
          double d = fabs ((double) pa[i] - pb[i]);
          if (isnan (d))
            worst = NAN;
          else if (! isnan (worst) && d > worst)
            worst = d;
        }
    }
  g_free (pa);
  g_free (pb);
  return worst;
}

/* What any operation that wants the image in one piece of linear memory
 * pays at least: GEGL's tiles to a linear premultiplied copy and back, one
 * thread, as the operations' process () does. */
static void
bench_floor (GeglBuffer *input)
{
  const GeglRectangle *e = gegl_buffer_get_extent (input);
  const Babl          *fmt = babl_format ("RaGaBaA float");
  float *lin = g_try_new (float, (gsize) e->width * e->height * 4);
  double get[3], set[3];

  if (! lin)
    return;
  for (int r = 0; r < 4; r++)
    {
      GeglBuffer *out = gegl_buffer_new (e, babl_format ("RGBA float"));
      double      t0 = bench_now_ms ();
      gegl_buffer_get (input, e, 1.0, fmt, lin, GEGL_AUTO_ROWSTRIDE,
                       GEGL_ABYSS_NONE);
      double t1 = bench_now_ms ();
      gegl_buffer_set (out, e, 0, fmt, lin, GEGL_AUTO_ROWSTRIDE);
      double t2 = bench_now_ms ();
      g_object_unref (out);
      if (r > 0)
        get[r - 1] = t1 - t0, set[r - 1] = t2 - t1;
    }
  qsort (get, 3, sizeof get[0], bench_cmp_double);
  qsort (set, 3, sizeof set[0], bench_cmp_double);
  printf (
    "floor: whole image, one thread: gegl_buffer_get RGBA float -> "
    "RaGaBaA float %.1f ms, gegl_buffer_set back into a new buffer %.1f ms "
    "(median of 3)\n",
    get[1], set[1]);

  /* What the graph's sink costs after an operation whose output is
   * premultiplied, against one whose output has the drawable's format. */
  GeglBuffer *pre = gegl_buffer_new (e, fmt);
  gegl_buffer_set (pre, e, 0, fmt, lin, GEGL_AUTO_ROWSTRIDE);
  g_free (lin);
  const char *from[2] = { "RaGaBaA float", "RGBA float" };
  double      sink[2][3];
  for (int k = 0; k < 2; k++)
    {
      GeglBuffer *src = k ? input : pre;
      for (int r = 0; r < 4; r++)
        {
          GeglBuffer *out = gegl_buffer_new (e, babl_format (bench_out_format));
          GeglNode   *g = gegl_node_new ();
          GeglNode   *a = gegl_node_new_child (
              g, "operation", "gegl:buffer-source", "buffer", src, NULL);
          GeglNode *b = gegl_node_new_child (
            g, "operation", "gegl:write-buffer", "buffer", out, NULL);
          gegl_node_link (a, b);
          double t0 = bench_now_ms ();
          gegl_node_process (b);
          if (r > 0)
            sink[k][r - 1] = bench_now_ms () - t0;
          g_object_unref (g);
          g_object_unref (out);
        }
      qsort (sink[k], 3, sizeof sink[k][0], bench_cmp_double);
    }
  printf ("floor: gegl:write-buffer of the whole image into a new %s buffer: "
          "from %s %.1f ms, from %s %.1f ms (GEGL threads, median of 3)\n",
          bench_out_format, from[0], sink[0][1], from[1], sink[1][1]);
  g_object_unref (pre);
}

static void
bench_fmt_ms (char *s, size_t n, BenchTiming t)
{
  if (t.ms < 0)
    snprintf (s, n, "-");
  else
    snprintf (s, n, "%.1f", t.ms);
}

int
main (int argc, char **argv)
{
  int         threads = (int) sysconf (_SC_NPROCESSORS_ONLN);
  long        cache_mb = 16384;
  int         chunk_size = 0; /* 0: GEGL's default */
  const char *only = NULL;
  gchar      *backends_arg = g_strdup ("cuda,cpu");
  int         failures = 0;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (! strcmp (a, "--width") && v)
        bench_width = atoi (v), i++;
      else if (! strcmp (a, "--height") && v)
        bench_height = atoi (v), i++;
      else if (! strcmp (a, "--runs") && v)
        bench_runs = atoi (v), i++;
      else if (! strcmp (a, "--threads") && v)
        threads = atoi (v), i++;
      else if (! strcmp (a, "--cache-mb") && v)
        cache_mb = atol (v), i++;
      else if (! strcmp (a, "--only") && v)
        only = v, i++;
      else if (! strcmp (a, "--budget-s") && v)
        bench_budget_s = atof (v), i++;
      else if (! strcmp (a, "--chunk-size") && v)
        chunk_size = atoi (v), i++;
      else if (! strcmp (a, "--out-format") && v)
        bench_out_format = v, i++;
      else if (! strcmp (a, "--backends") && v)
        g_free (backends_arg), backends_arg = g_strdup (v), i++;
      else
        {
          fprintf (stderr,
                   "usage: %s [--width W] [--height H] [--runs N] "
                   "[--threads T] [--backends cuda,cpu] [--cache-mb M] "
                   "[--only SUBSTR] [--budget-s S] [--chunk-size PIXELS] "
                   "[--out-format BABL]\n",
                   argv[0]);
          return 2;
        }
    }
  if (bench_runs < 1)
    bench_runs = 1;
  if (threads < 1)
    threads = 1;
  if (threads > 64)
    threads = 64; /* GEGL_MAX_THREADS */

  setvbuf (stdout, NULL, _IOLBF, 0);
  gegl_init (NULL, NULL);
  g_object_set (gegl_config (), "threads", threads, "tile-cache-size",
                (guint64) cache_mb << 20, "use-opencl", FALSE, NULL);
  /* GeglProcessor's own property allows at most 4096 * 4096 pixels. */
  if (chunk_size > 4096 * 4096)
    chunk_size = 4096 * 4096;
  if (chunk_size > 0)
    g_object_set (gegl_config (), "chunk-size", chunk_size, NULL);

  gboolean want_cuda = strstr (backends_arg, "cuda") != NULL;
  gboolean want_cpu = strstr (backends_arg, "cpu") != NULL;
  gint     gthreads, gchunk, gv[3], bv[3];
  g_object_get (gegl_config (), "threads", &gthreads, "chunk-size", &gchunk,
                NULL);
  gegl_get_version (&gv[0], &gv[1], &gv[2]);
  babl_get_version (&bv[0], &bv[1], &bv[2]);
  printf ("GEGL %d.%d.%d, babl %d.%d.%d; %d GEGL threads, chunk-size %d; "
          "image %dx%d RGBA float into %s; median of up to %d runs after one "
          "warm-up\n",
          gv[0], gv[1], gv[2], bv[0], bv[1], bv[2], gthreads, gchunk,
          bench_width, bench_height, bench_out_format, bench_runs);
  for (size_t c = 0; c < G_N_ELEMENTS (bench_cases); c++)
    {
      const char *o = bench_cases[c].ours_op;
      if (o && ! gegl_has_operation (o))
        printf ("NOTE: %s is not loaded (is gpufx-ops.so in "
                "$XDG_DATA_HOME/gegl-0.4/plug-ins?)\n",
                o);
    }

  double      t0 = bench_now_ms ();
  GeglBuffer *input = bench_make_input (bench_width, bench_height);
  fprintf (stderr, "input made in %.0f ms\n", bench_now_ms () - t0);

  bench_floor (input);

  GString *table = g_string_new (NULL);
  GString *goal = g_string_new (NULL);
  g_string_append (table,
                   "| case | ours cuda ms | ours cpu ms | GEGL ms | GEGL fir "
                   "ms | GEGL / ours cuda "
                   "| max abs(cuda-cpu) | tolerance | max abs(ours-GEGL) |\n"
                   "|---|---|---|---|---|---|---|---|---|\n");

  for (size_t c = 0; c < G_N_ELEMENTS (bench_cases); c++)
    {
      const BenchCase *bc = &bench_cases[c];
      if (only && ! strstr (bc->name, only))
        continue;
      fprintf (stderr, "%s:\n", bc->name);
      BenchTiming cu = { -1, -1, 0, NULL }, cp = cu, ge = cu, g2 = cu;
      if (want_cuda && bc->ours_op)
        cu = bench_time (input, bc->ours_op, bc->ours_props, "cuda");
      if (want_cpu && bc->ours_op)
        cp = bench_time (input, bc->ours_op, bc->ours_props, "cpu");
      if (bc->gegl_op)
        ge = bench_time (input, bc->gegl_op, bc->gegl_props, NULL);
      if (bc->gegl_op && bc->gegl2_props)
        g2 = bench_time (input, bc->gegl_op, bc->gegl2_props, NULL);

      char s_cu[32], s_cp[32], s_ge[32], s_g2[32],
        ratio[32] = "-", d_cc[48] = "-", d_og[32] = "-";
      bench_fmt_ms (s_cu, sizeof s_cu, cu);
      bench_fmt_ms (s_cp, sizeof s_cp, cp);
      bench_fmt_ms (s_ge, sizeof s_ge, ge);
      bench_fmt_ms (s_g2, sizeof s_g2, g2);
      if (cu.ms > 0 && ge.ms > 0)
        snprintf (ratio, sizeof ratio, "%.1fx", ge.ms / cu.ms);
      else if (cp.ms > 0 && ge.ms > 0)
        snprintf (ratio, sizeof ratio, "(cpu: %.1fx)", ge.ms / cp.ms);
      if (cu.out && cp.out)
        {
          double   d = bench_max_diff (cu.out, cp.out, bc->format);
          gboolean pass = ! isnan (d) && d <= bc->tolerance;
          snprintf (d_cc, sizeof d_cc, "%.2g %s", d, pass ? "ok" : "FAIL");
          if (! pass)
            failures++;
        }
      BenchTiming *ours = cp.out ? &cp : cu.out ? &cu : NULL;
      /* Against GEGL's exact FIR where there is one, not its IIR. */
      BenchTiming *theirs = g2.out ? &g2 : ge.out ? &ge : NULL;
      if (ours && theirs)
        snprintf (d_og, sizeof d_og, "%.2g",
                  bench_max_diff (ours->out, theirs->out, bc->format));
      if (bc->ours_op && ! ours)
        failures += (want_cuda || want_cpu) ? 1 : 0;
      if (! strcmp (bc->name, "gaussian s=20") && cu.ms > 0 && ge.ms > 0)
        g_string_append_printf (
          goal,
          "goal: %dx%d gaussian s=20, gpufx:gaussian-blur backend=cuda %.1f ms "
          "vs "
          "gegl:gaussian-blur (filter=auto) %.1f ms: %.1fx (goal >= 5x: %s)\n",
          bench_width, bench_height, cu.ms, ge.ms, ge.ms / cu.ms,
          ge.ms / cu.ms >= 5.0 ? "met" : "NOT met");
      char tol[32] = "-";
      if (bc->ours_op)
        snprintf (tol, sizeof tol, "%.0e", bc->tolerance);
      g_string_append_printf (
        table, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", bc->name,
        s_cu, s_cp, s_ge, s_g2, ratio, d_cc, tol, d_og);
      fflush (stdout);
      BenchTiming *all[] = { &cu, &cp, &ge, &g2 };
      for (int k = 0; k < 4; k++)
        if (all[k]->out)
          g_object_unref (all[k]->out);
    }

  printf ("\n%s", table->str);
  if (goal->len)
    printf ("\n%s", goal->str);
  g_string_free (goal, TRUE);
  printf ("\n%s\n", failures ? "RESULT: FAIL" : "RESULT: ok");
  g_string_free (table, TRUE);
  g_object_unref (input);
  g_free (backends_arg);
  gegl_exit ();
  return failures ? 1 : 0;
}

/* gimp-gpu-filters: the engine's core.  Checks everything, then hands one
 * validated job to a backend.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gpufx-private.h"
#include "cpu/cpu-pool.h"
#include "gaussian-plan.h"
#include "gpufx-params.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *
gpufx_status_message (GpufxStatus status)
{
  switch (status)
    {
    case GPUFX_OK: return "success";
    case GPUFX_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case GPUFX_ERROR_OUT_OF_MEMORY: return "out of memory";
    case GPUFX_ERROR_BACKEND_UNAVAILABLE: return "backend not available";
    case GPUFX_ERROR_BACKEND_FAILED: return "backend failed";
    case GPUFX_ERROR_CANCELLED: return "cancelled";
    }
  return "unknown status";
}

const char *
gpufx_backend_name (GpufxBackend backend)
{
  switch (backend)
    {
    case GPUFX_BACKEND_AUTO: return "auto";
    case GPUFX_BACKEND_CPU: return "cpu";
    case GPUFX_BACKEND_CUDA: return "cuda";
    }
  return "unknown";
}

const char *
gpufx_border_name (GpufxBorder border)
{
  int i = (int) border;

  if (i < 0 || i > GPUFX_BORDER_ZERO)
    return "unknown";
  return gpufx_common_params[0].choices[i].name;
}

const char *
gpufx_filter_name (GpufxFilterKind kind)
{
  const GpufxFilterInfo *info = gpufx_filter_info (kind);

  return info ? info->name : "unknown";
}

GpufxStatus
gpufx_fail (GpufxReport *report, GpufxStatus status, const char *format, ...)
{
  if (report)
    {
      va_list args;

      va_start (args, format);
      vsnprintf (report->message, sizeof report->message, format, args);
      va_end (args);
    }
  return status;
}

bool
gpufx_filter_premultiplies (GpufxFilterKind kind)
{
  return kind != GPUFX_FILTER_SOBEL;
}

int
gpufx_gaussian_radius (double sigma)
{
  return sigma > 0 ? (int) floor (4.0 * sigma + 0.5) : 0;
}

void
gpufx_filter_init (GpufxFilter *filter, GpufxFilterKind kind)
{
  const GpufxFilterInfo *info;

  memset (filter, 0, sizeof *filter);
  filter->kind = kind;
  filter->border = GPUFX_BORDER_CLAMP;

  /* The identity until someone gives a matrix. */
  filter->convolve.width = 3;
  filter->convolve.height = 3;
  filter->convolve.matrix[4] = 1.0f;

  /* Every filter's defaults, so that switching kind keeps sane values. */
  for (int k = 0; k < GPUFX_N_FILTERS; k++)
    {
      info = gpufx_filter_info ((GpufxFilterKind) k);
      for (const GpufxParam *p = info->params; p->name; p++)
        if (p->type != GPUFX_PARAM_MATRIX)
          gpufx_param_set (filter, NULL, p, p->def, NULL, 0);
    }
}

void
gpufx_options_init (GpufxOptions *options)
{
  memset (options, 0, sizeof *options);
  options->backend = GPUFX_BACKEND_AUTO;
}

static bool
gpufx_in_range (double v, double lo, double hi)
{
  return isfinite (v) && v >= lo && v <= hi;
}

/* The largest factor a convolution puts on a pixel value: the weights'
 * magnitudes over the divisor that normalize or the caller gives. */
static double
gpufx_convolve_scale (const GpufxConvolveParams *c)
{
  double sum = 0, magnitude = 0, divisor;

  for (int i = 0; i < c->width * c->height; i++)
    {
      sum += c->matrix[i];
      magnitude += fabs (c->matrix[i]);
    }
  divisor = ! c->normalize ? fabs (c->divisor) : sum != 0 ? fabs (sum) : 1.0;
  return magnitude / divisor;
}

GpufxStatus
gpufx_filter_validate (const GpufxFilter *filter,
                       char              *message,
                       size_t             message_size)
{
  GpufxReport  scratch;
  GpufxReport *r = &scratch;
  GpufxStatus  status = GPUFX_OK;

  scratch.message[0] = '\0';
  if (! filter)
    status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT, "no filter given");
  else if ((int) filter->kind < 0 || filter->kind >= GPUFX_N_FILTERS)
    status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT,
                         "unknown filter kind %d", (int) filter->kind);
  else if ((int) filter->border < 0 || filter->border > GPUFX_BORDER_ZERO)
    status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT,
                         "unknown border mode %d", (int) filter->border);
  else
    switch (filter->kind)
      {
      case GPUFX_FILTER_CONVOLVE:
        {
          const GpufxConvolveParams *c = &filter->convolve;

          if (c->width < 1 || c->width > GPUFX_MATRIX_MAX || c->height < 1
              || c->height > GPUFX_MATRIX_MAX)
            {
              status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT,
                                   "the matrix is %d x %d; each side must "
                                   "be 1 to %d",
                                   c->width, c->height, GPUFX_MATRIX_MAX);
              break;
            }
          for (int i = 0; i < c->width * c->height; i++)
            if (! isfinite (c->matrix[i]))
              {
                status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT,
                                     "matrix weight %d (row %d) is not "
                                     "finite",
                                     i % c->width + 1, i / c->width + 1);
                break;
              }
          if (status != GPUFX_OK)
            break;
          if (! isfinite (c->offset))
            status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT,
                                 "offset must be finite");
          else if (! c->normalize
                   && (! isfinite (c->divisor) || c->divisor == 0.0))
            status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT,
                                 "divisor must be finite and not 0 "
                                 "(or use normalize)");
          else if (gpufx_convolve_scale (c) > FLT_MAX)
            /* Past 32-bit float the sums overflow to inf, and to NaN where
             * a pixel is 0: a float image would keep them. */
            status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT,
                                 "the weights divided by the divisor add up "
                                 "to %g, more than 32-bit float pixels hold "
                                 "(%g); use smaller weights or a larger "
                                 "divisor",
                                 gpufx_convolve_scale (c), (double) FLT_MAX);
          break;
        }

      case GPUFX_FILTER_GAUSSIAN_BLUR:
        if (! gpufx_in_range (filter->gaussian.std_dev_x, 0, GPUFX_STD_DEV_MAX)
            || ! gpufx_in_range (filter->gaussian.std_dev_y, 0,
                                 GPUFX_STD_DEV_MAX))
          status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT,
                               "std-dev-x and std-dev-y must be numbers "
                               "from 0 to %g",
                               GPUFX_STD_DEV_MAX);
        break;

      case GPUFX_FILTER_SOBEL: break;

      case GPUFX_FILTER_KUWAHARA:
        if (filter->kuwahara.radius < 1
            || filter->kuwahara.radius > GPUFX_KUWAHARA_MAX_RADIUS)
          status = gpufx_fail (r, GPUFX_ERROR_INVALID_ARGUMENT,
                               "radius must be a whole number from 1 to %d",
                               GPUFX_KUWAHARA_MAX_RADIUS);
        break;
      }

  if (message && message_size)
    snprintf (message, message_size, "%s", scratch.message);
  return status;
}

void
gpufx_filter_reach (const GpufxFilter *filter,
                    int               *left,
                    int               *right,
                    int               *top,
                    int               *bottom)
{
  int l = 0, r = 0, t = 0, b = 0;

  switch (filter->kind)
    {
    case GPUFX_FILTER_CONVOLVE:
      l = filter->convolve.width / 2;
      r = filter->convolve.width - 1 - l;
      t = filter->convolve.height / 2;
      b = filter->convolve.height - 1 - t;
      break;

    case GPUFX_FILTER_GAUSSIAN_BLUR:
      l = r = gpufx_gaussian_radius (filter->gaussian.std_dev_x);
      t = b = gpufx_gaussian_radius (filter->gaussian.std_dev_y);
      break;

    case GPUFX_FILTER_SOBEL: l = r = t = b = 1; break;

    case GPUFX_FILTER_KUWAHARA: l = r = t = b = filter->kuwahara.radius; break;
    }
  *left = l;
  *right = r;
  *top = t;
  *bottom = b;
}

/* The image pixels [*a, *b) that outputs [lo + reach_lo, hi - reach_hi)
 * read along one axis of n pixels. */
static void
gpufx_axis_input (int64_t     lo,
                  int64_t     hi,
                  int         n,
                  GpufxBorder border,
                  int        *a,
                  int        *b)
{
  int64_t from = lo < 0 ? 0 : lo;
  int64_t to = hi > n ? n : hi;

  if (lo >= 0 && hi <= n)
    {
      *a = (int) lo;
      *b = (int) hi;
      return;
    }

  switch (border)
    {
    case GPUFX_BORDER_CLAMP:
      /* Clamping reads the edge pixel, which is already in range unless the
       * whole range lies outside. */
      if (from >= n)
        from = n - 1;
      if (to <= 0)
        to = 1;
      break;

    case GPUFX_BORDER_ZERO:
      if (from > to)
        from = to;
      break;

    case GPUFX_BORDER_MIRROR:
      /* One reflection lands inside [0, n); more need the whole axis. */
      if (lo < -(int64_t) (n - 1) || hi > 2 * (int64_t) n - 1)
        {
          from = 0;
          to = n;
          break;
        }
      if (lo < 0 && 1 - lo > to)
        to = 1 - lo;
      if (hi > n && 2 * (int64_t) n - 1 - hi < from)
        from = 2 * (int64_t) n - 1 - hi;
      if (from > to)
        from = to;
      break;

    case GPUFX_BORDER_WRAP:
      from = 0;
      to = n;
      break;
    }
  *a = (int) from;
  *b = (int) to;
}

GpufxRect
gpufx_input_rect (const GpufxFilter *filter,
                  int                image_width,
                  int                image_height,
                  GpufxRect          dst_rect)
{
  GpufxRect r = { 0, 0, 0, 0 };
  int       left, right, top, bottom;
  int       x0, x1, y0, y1;

  if (image_width < 1 || image_height < 1 || dst_rect.width < 1
      || dst_rect.height < 1)
    return r;

  gpufx_filter_reach (filter, &left, &right, &top, &bottom);
  gpufx_axis_input ((int64_t) dst_rect.x - left,
                    (int64_t) dst_rect.x + dst_rect.width + right, image_width,
                    filter->border, &x0, &x1);
  gpufx_axis_input ((int64_t) dst_rect.y - top,
                    (int64_t) dst_rect.y + dst_rect.height + bottom,
                    image_height, filter->border, &y0, &y1);
  r.x = x0;
  r.y = y0;
  r.width = x1 - x0;
  r.height = y1 - y0;
  return r;
}

bool
gpufx_job_progress (const GpufxJob *job, double fraction)
{
  const GpufxOptions *o = job->options;

  if (! o->progress)
    return true;
  if (fraction < 0)
    fraction = 0;
  if (fraction > 1)
    fraction = 1;
  return o->progress (fraction, o->progress_data);
}

static bool
gpufx_rect_contains (GpufxRect outer, GpufxRect inner)
{
  return inner.width <= 0 || inner.height <= 0
         || (inner.x >= outer.x && inner.y >= outer.y
             && (int64_t) inner.x + inner.width
                  <= (int64_t) outer.x + outer.width
             && (int64_t) inner.y + inner.height
                  <= (int64_t) outer.y + outer.height);
}

static GpufxStatus
gpufx_check_view (const GpufxImage *v, const char *what, GpufxReport *report)
{
  if (! v || ! v->data)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the %s image has no pixels", what);
  if (v->width < 1 || v->height < 1)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the %s image is %d x %d; it must not be empty", what,
                       v->width, v->height);
  if (v->channels < 1 || v->channels > GPUFX_MAX_CHANNELS)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the %s image has %d channels; 1 to 4 are allowed", what,
                       v->channels);
  if (v->alpha < -1 || v->alpha >= v->channels)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the %s image's alpha channel %d does not exist", what,
                       v->alpha);
  if (v->stride < (ptrdiff_t) v->width * v->channels)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the %s image's row stride %td is shorter than a row",
                       what, v->stride);
  if ((double) v->stride * v->height > (double) (PTRDIFF_MAX / 8))
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the %s image is too large", what);
  return GPUFX_OK;
}

static bool
gpufx_views_overlap (const GpufxImage *a, const GpufxImage *b)
{
  uintptr_t a0 = (uintptr_t) a->data;
  uintptr_t a1 = a0
                 + sizeof (float)
                     * ((size_t) a->stride * (a->height - 1)
                        + (size_t) a->width * a->channels);
  uintptr_t b0 = (uintptr_t) b->data;
  uintptr_t b1 = b0
                 + sizeof (float)
                     * ((size_t) b->stride * (b->height - 1)
                        + (size_t) b->width * b->channels);

  return a0 < b1 && b0 < a1;
}

/* Colour to or from premultiplied form, over a w x h view, in place or from
 * src into dst. */
typedef struct
{
  const float *src;
  ptrdiff_t    src_stride;
  float       *dst;
  ptrdiff_t    dst_stride;
  int          w;
  int          channels;
  int          alpha;
  bool         multiply;
} GpufxAlphaRows;

static bool
gpufx_convert_alpha_rows (void *data, int begin, int end)
{
  const GpufxAlphaRows *a = data;

  for (int y = begin; y < end; y++)
    {
      const float *s = a->src + (ptrdiff_t) y * a->src_stride;
      float       *d = a->dst + (ptrdiff_t) y * a->dst_stride;

      for (int x = 0; x < a->w; x++, s += a->channels, d += a->channels)
        {
          float v = s[a->alpha];
          float k;

          if (a->multiply)
            k = v;
          else
            k = fabsf (v) > 1e-30f ? 1.0f / v : 0.0f;
          for (int c = 0; c < a->channels; c++)
            d[c] = c == a->alpha ? v : s[c] * k;
        }
    }
  return true;
}

/* On the job's threads: a huge image's conversion would otherwise take
 * longer than the filter (a 6 GB image, several seconds on one core). */
static void
gpufx_convert_alpha (const GpufxJob *job,
                     const float    *src,
                     ptrdiff_t       src_stride,
                     float          *dst,
                     ptrdiff_t       dst_stride,
                     int             w,
                     int             h,
                     bool            multiply)
{
  GpufxAlphaRows rows = { src, src_stride,    dst,        dst_stride,
                          w,   job->channels, job->alpha, multiply };

  cpu_parallel_quiet (job, h, 65536 / w + 1, gpufx_convert_alpha_rows, &rows);
}

static void
gpufx_resolve_normalize (GpufxConvolveParams *c)
{
  double sum = 0;

  if (! c->normalize)
    return;
  for (int i = 0; i < c->width * c->height; i++)
    sum += c->matrix[i];
  /* GEGL's rules: a zero sum keeps the scale and centres on mid-gray; a
   * negative sum flips the result up from white. */
  if (sum > 0)
    {
      c->divisor = sum;
      c->offset = 0.0;
    }
  else if (sum < 0)
    {
      c->divisor = -sum;
      c->offset = 1.0;
    }
  else
    {
      c->divisor = 1.0;
      c->offset = 0.5;
    }
  c->normalize = false;
}

static double
gpufx_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

bool
gpufx_backend_available (GpufxBackend backend, char *why, size_t why_size)
{
  if (why && why_size)
    why[0] = '\0';
  switch (backend)
    {
    case GPUFX_BACKEND_AUTO:
    case GPUFX_BACKEND_CPU: return true;
    case GPUFX_BACKEND_CUDA: return gpufx_cuda_probe (why, why_size);
    }
  if (why && why_size)
    snprintf (why, why_size, "unknown backend %d", (int) backend);
  return false;
}

void
gpufx_release (void)
{
  gpufx_cuda_release ();
  gpufx_host_release ();
  gpufx_gaussian_plan_forget ();
}

static GpufxStatus
gpufx_dispatch (GpufxJob *job, GpufxReport *report)
{
  GpufxBackend want = job->options->backend;
  char         why[GPUFX_MESSAGE_MAX];
  GpufxStatus  status;

  if (want == GPUFX_BACKEND_CPU)
    {
      report->backend_used = GPUFX_BACKEND_CPU;
      return gpufx_cpu_run (job, report);
    }

  if (! gpufx_cuda_probe (why, sizeof why))
    {
      if (want == GPUFX_BACKEND_CUDA)
        return gpufx_fail (report, GPUFX_ERROR_BACKEND_UNAVAILABLE,
                           "the CUDA backend is not available: %s", why);
      report->backend_used = GPUFX_BACKEND_CPU;
      return gpufx_cpu_run (job, report);
    }

  report->backend_used = GPUFX_BACKEND_CUDA;
  status = gpufx_cuda_run (job, report);
  if (status == GPUFX_OK || status == GPUFX_ERROR_CANCELLED
      || want == GPUFX_BACKEND_CUDA)
    return status;

  /* auto: a GPU that fails mid-run must not cost the user the result. */
  snprintf (why, sizeof why, "%s", report->message);
  report->backend_used = GPUFX_BACKEND_CPU;
  report->message[0] = '\0';
  status = gpufx_cpu_run (job, report);
  if (status == GPUFX_OK)
    gpufx_fail (report, GPUFX_OK, "CUDA failed (%s); finished on the CPU", why);
  return status;
}

GpufxStatus
gpufx_run_region (const GpufxFilter  *filter,
                  const GpufxImage   *src,
                  GpufxRect           src_rect,
                  const GpufxImage   *dst,
                  GpufxRect           dst_rect,
                  int                 image_width,
                  int                 image_height,
                  const GpufxOptions *options,
                  GpufxReport        *report)
{
  GpufxReport  scratch;
  GpufxOptions default_options;
  GpufxRect    whole = { 0, 0, image_width, image_height };
  GpufxRect    needed;
  GpufxJob     job;
  GpufxStatus  status;
  float       *converted = NULL;
  bool         premultiplies;
  double       t0;

  if (! report)
    report = &scratch;
  report->backend_used = GPUFX_BACKEND_AUTO;
  report->milliseconds = 0;
  report->message[0] = '\0';

  if (! options)
    {
      gpufx_options_init (&default_options);
      options = &default_options;
    }
  if ((int) options->backend < 0 || options->backend > GPUFX_BACKEND_CPU)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "unknown backend %d", (int) options->backend);
  if (options->threads < 0)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "threads must be 0 (all cores) or more");

  status
    = gpufx_filter_validate (filter, report->message, sizeof report->message);
  if (status != GPUFX_OK)
    return status;
  if ((status = gpufx_check_view (src, "input", report)) != GPUFX_OK
      || (status = gpufx_check_view (dst, "output", report)) != GPUFX_OK)
    return status;
  if (src->channels != dst->channels || src->alpha != dst->alpha)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the input and output images must have the same "
                       "channels and alpha");
  if (image_width < 1 || image_height < 1)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the image is %d x %d; it must not be empty",
                       image_width, image_height);
  if (src->width != src_rect.width || src->height != src_rect.height
      || dst->width != dst_rect.width || dst->height != dst_rect.height)
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "a view's size differs from its rectangle's");
  if (! gpufx_rect_contains (whole, src_rect)
      || ! gpufx_rect_contains (whole, dst_rect))
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "a rectangle reaches outside the %d x %d image",
                       image_width, image_height);
  needed = gpufx_input_rect (filter, image_width, image_height, dst_rect);
  if (! gpufx_rect_contains (src_rect, needed))
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the input covers %dx%d+%d+%d but the output needs "
                       "%dx%d+%d+%d",
                       src_rect.width, src_rect.height, src_rect.x, src_rect.y,
                       needed.width, needed.height, needed.x, needed.y);
  if (gpufx_views_overlap (src, dst))
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the input and output images overlap");

  t0 = gpufx_now_ms ();

  memset (&job, 0, sizeof job);
  job.filter = *filter;
  gpufx_resolve_normalize (&job.filter.convolve);
  job.channels = src->channels;
  job.alpha = src->alpha;
  job.image_width = image_width;
  job.image_height = image_height;
  job.src = src->data;
  job.src_stride = src->stride;
  job.src_rect = src_rect;
  job.dst = dst->data;
  job.dst_stride = dst->stride;
  job.dst_rect = dst_rect;
  job.options = options;

  premultiplies = gpufx_filter_premultiplies (filter->kind);
  if (src->alpha >= 0 && src->premultiplied != premultiplies)
    {
      size_t row = (size_t) src->width * src->channels;

      converted = malloc (sizeof (float) * row * src->height);
      if (! converted)
        return gpufx_fail (report, GPUFX_ERROR_OUT_OF_MEMORY,
                           "out of memory converting alpha (%d x %d)",
                           src->width, src->height);
      gpufx_convert_alpha (&job, src->data, src->stride, converted,
                           (ptrdiff_t) row, src->width, src->height,
                           premultiplies);
      job.src = converted;
      job.src_stride = (ptrdiff_t) row;
    }

  status = gpufx_dispatch (&job, report);
  free (converted);

  if (status == GPUFX_OK && dst->alpha >= 0
      && dst->premultiplied != premultiplies)
    gpufx_convert_alpha (&job, dst->data, dst->stride, dst->data, dst->stride,
                         dst->width, dst->height, dst->premultiplied);

  report->milliseconds = gpufx_now_ms () - t0;
  return status;
}

GpufxStatus
gpufx_run (const GpufxFilter  *filter,
           const GpufxImage   *src,
           const GpufxImage   *dst,
           const GpufxOptions *options,
           GpufxReport        *report)
{
  GpufxRect src_rect = { 0, 0, src ? src->width : 0, src ? src->height : 0 };
  GpufxRect dst_rect = { 0, 0, dst ? dst->width : 0, dst ? dst->height : 0 };

  if (src && dst && (src->width != dst->width || src->height != dst->height))
    return gpufx_fail (report, GPUFX_ERROR_INVALID_ARGUMENT,
                       "the input is %d x %d but the output is %d x %d",
                       src->width, src->height, dst->width, dst->height);
  return gpufx_run_region (filter, src, src_rect, dst, dst_rect, src_rect.width,
                           src_rect.height, options, report);
}

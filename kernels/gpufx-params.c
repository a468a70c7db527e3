/* gimp-gpu-filters: the parameter tables and their generic accessors.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gpufx-params.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest weight's size, as a float. */
#define PARAMS_WEIGHT_MAX 3.0e38f

static const GpufxChoice params_border_choices[]
  = { { "clamp", GPUFX_N_ ("Clamp (repeat the edge pixel)") },
      { "mirror", GPUFX_N_ ("Mirror (reflect about the edge pixel)") },
      { "wrap", GPUFX_N_ ("Wrap (periodic)") },
      { "zero", GPUFX_N_ ("Zero (transparent)") },
      { NULL, NULL } };

static const GpufxChoice params_backend_choices[]
  = { { "auto", GPUFX_N_ ("Automatic (GPU when available)") },
      { "cuda", GPUFX_N_ ("CUDA GPU") },
      { "cpu", GPUFX_N_ ("CPU") },
      { NULL, NULL } };

const GpufxParam gpufx_common_params[]
  = { { GPUFX_P_BORDER, "border", GPUFX_N_ ("_Border"),
        GPUFX_N_ ("How pixels outside the image are made"), GPUFX_PARAM_CHOICE,
        0, 3, GPUFX_BORDER_CLAMP, 0, params_border_choices, 0, 0 },
      { GPUFX_P_BACKEND, "backend", GPUFX_N_ ("Bac_kend"),
        GPUFX_N_ ("Where the filter runs"), GPUFX_PARAM_CHOICE, 0, 2,
        GPUFX_BACKEND_AUTO, 0, params_backend_choices, 0, 0 },
      { 0, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0 } };

static const GpufxParam params_convolve[]
  = { { GPUFX_P_MATRIX, "matrix", GPUFX_N_ ("_Matrix"),
        GPUFX_N_ ("Weights, rows separated by ';' and weights by ',' "
                  "(1 to 63 each way)"),
        GPUFX_PARAM_MATRIX, 0, 0, 0, 0, NULL, 0, 0 },
      { GPUFX_P_DIVISOR, "divisor", GPUFX_N_ ("_Divisor"),
        GPUFX_N_ ("The weighted sum is divided by this (not 0)"),
        GPUFX_PARAM_DOUBLE, -1e6, 1e6, 1.0, 3, NULL, 100, 0 },
      { GPUFX_P_OFFSET, "offset", GPUFX_N_ ("O_ffset"),
        GPUFX_N_ ("Added to every colour channel after dividing"),
        GPUFX_PARAM_DOUBLE, -1e6, 1e6, 0.0, 3, NULL, 1, 0 },
      { GPUFX_P_NORMALIZE, "normalize", GPUFX_N_ ("_Normalize"),
        GPUFX_N_ ("Divide by the sum of the weights instead of the divisor"),
        GPUFX_PARAM_BOOL, 0, 1, 0, 0, NULL, 0, 0 },
      { 0, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0 } };

static const GpufxParam params_gaussian[]
  = { { GPUFX_P_STD_DEV_X, "std-dev-x", GPUFX_N_ ("Size _X"),
        GPUFX_N_ ("Standard deviation of the horizontal Gaussian, in pixels"),
        GPUFX_PARAM_DOUBLE, 0.0, GPUFX_STD_DEV_MAX, 1.5, 2, NULL, 100, 3.0 },
      { GPUFX_P_STD_DEV_Y, "std-dev-y", GPUFX_N_ ("Size _Y"),
        GPUFX_N_ ("Standard deviation of the vertical Gaussian, in pixels"),
        GPUFX_PARAM_DOUBLE, 0.0, GPUFX_STD_DEV_MAX, 1.5, 2, NULL, 100, 3.0 },
      { 0, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0 } };

static const GpufxParam params_sobel[] = {
  { GPUFX_P_HORIZONTAL, "horizontal", GPUFX_N_ ("_Horizontal"),
    GPUFX_N_ ("Detect horizontal changes (vertical edges)"), GPUFX_PARAM_BOOL,
    0, 1, 1, 0, NULL, 0, 0 },
  { GPUFX_P_VERTICAL, "vertical", GPUFX_N_ ("_Vertical"),
    GPUFX_N_ ("Detect vertical changes (horizontal edges)"), GPUFX_PARAM_BOOL,
    0, 1, 1, 0, NULL, 0, 0 },
  { GPUFX_P_KEEP_SIGN, "keep-sign", GPUFX_N_ ("_Keep sign"),
    GPUFX_N_ ("With one direction, keep the gradient's sign around mid-gray"),
    GPUFX_PARAM_BOOL, 0, 1, 1, 0, NULL, 0, 0 },
  { 0, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0 }
};

static const GpufxParam params_kuwahara[]
  = { { GPUFX_P_RADIUS, "radius", GPUFX_N_ ("_Radius"),
        GPUFX_N_ ("Each quadrant is radius + 1 pixels square"), GPUFX_PARAM_INT,
        1, GPUFX_KUWAHARA_MAX_RADIUS, 3, 0, NULL, 30, 0 },
      { 0, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0 } };

static const GpufxFilterInfo params_filters[GPUFX_N_FILTERS] = {
  { GPUFX_FILTER_CONVOLVE, "convolve", "plug-in-gpu-convolve", "gpufx:convolve",
    GPUFX_N_ ("_Convolution Matrix..."),
    GPUFX_N_ ("Correlate with a matrix of any size on the GPU"),
    GPUFX_N_ ("Applies a user-defined matrix of up to 63 x 63 weights, "
              "laid over the image as written, as GIMP's Convolution "
              "Matrix does."),
    params_convolve },
  { GPUFX_FILTER_GAUSSIAN_BLUR, "gaussian-blur", "plug-in-gpu-gaussian-blur",
    "gpufx:gaussian-blur", GPUFX_N_ ("_Gaussian Blur..."),
    GPUFX_N_ ("Gaussian blur on the GPU"),
    GPUFX_N_ ("Blurs with an exact sampled Gaussian, truncated at four "
              "standard deviations, in linear light with premultiplied "
              "alpha, like GIMP's own Gaussian Blur."),
    params_gaussian },
  { GPUFX_FILTER_SOBEL, "sobel", "plug-in-gpu-sobel", "gpufx:sobel",
    GPUFX_N_ ("_Sobel..."), GPUFX_N_ ("Sobel edge detection on the GPU"),
    GPUFX_N_ ("Finds edges with the Sobel operator, per colour channel, "
              "with the options of GIMP's Sobel filter."),
    params_sobel },
  { GPUFX_FILTER_KUWAHARA, "kuwahara", "plug-in-gpu-kuwahara", "gpufx:kuwahara",
    GPUFX_N_ ("_Kuwahara..."),
    GPUFX_N_ ("Kuwahara edge-preserving smoothing on the GPU"),
    GPUFX_N_ ("Replaces each pixel by the mean of the least varied of the "
              "four quadrants around it."),
    params_kuwahara },
};

const GpufxFilterInfo *
gpufx_filter_info (GpufxFilterKind kind)
{
  if ((int) kind < 0 || kind >= GPUFX_N_FILTERS)
    return NULL;
  return &params_filters[kind];
}

const GpufxFilterInfo *
gpufx_filter_info_by_name (const char *name)
{
  int i;

  for (i = 0; name && i < GPUFX_N_FILTERS; i++)
    if (strcmp (params_filters[i].name, name) == 0)
      return &params_filters[i];
  return NULL;
}

bool
gpufx_filter_info_needs_own_dialog (const GpufxFilterInfo *info)
{
  for (const GpufxParam *p = info->params; p->name; p++)
    if (p->type == GPUFX_PARAM_MATRIX)
      return true;
  return false;
}

const GpufxParam *
gpufx_filter_param (const GpufxFilterInfo *info, int i)
{
  int own = 0;

  if (i < 0)
    return NULL;
  while (info->params[own].name)
    own++;
  if (i < own)
    return &info->params[i];
  for (int c = 0; gpufx_common_params[c].name; c++)
    if (c == i - own)
      return &gpufx_common_params[c];
  return NULL;
}

void
gpufx_label_plain (const char *label,
                   bool        drop_ellipsis,
                   char       *text,
                   size_t      size)
{
  size_t n = 0;

  if (size == 0)
    return;
  for (const char *s = label; *s && n + 1 < size; s++)
    if (*s != '_')
      text[n++] = *s;
  text[n] = '\0';
  if (drop_ellipsis && n >= 3 && strcmp (text + n - 3, "...") == 0)
    text[n - 3] = '\0';
}

int
gpufx_choice_index (const GpufxParam *param, const char *name)
{
  int i;

  if (param->type != GPUFX_PARAM_CHOICE || ! name)
    return -1;
  for (i = 0; param->choices[i].name; i++)
    if (strcmp (param->choices[i].name, name) == 0)
      return i;
  return -1;
}

double
gpufx_param_get (const GpufxFilter  *filter,
                 const GpufxOptions *options,
                 const GpufxParam   *param)
{
  switch (param->id)
    {
    case GPUFX_P_BORDER: return filter->border;
    case GPUFX_P_BACKEND: return options ? options->backend : 0;
    case GPUFX_P_MATRIX: return 0;
    case GPUFX_P_DIVISOR: return filter->convolve.divisor;
    case GPUFX_P_OFFSET: return filter->convolve.offset;
    case GPUFX_P_NORMALIZE: return filter->convolve.normalize;
    case GPUFX_P_STD_DEV_X: return filter->gaussian.std_dev_x;
    case GPUFX_P_STD_DEV_Y: return filter->gaussian.std_dev_y;
    case GPUFX_P_HORIZONTAL: return filter->sobel.horizontal;
    case GPUFX_P_VERTICAL: return filter->sobel.vertical;
    case GPUFX_P_KEEP_SIGN: return filter->sobel.keep_sign;
    case GPUFX_P_RADIUS: return filter->kuwahara.radius;
    }
  return 0;
}

bool
gpufx_param_set (GpufxFilter      *filter,
                 GpufxOptions     *options,
                 const GpufxParam *param,
                 double            value,
                 char             *message,
                 size_t            message_size)
{
  if (param->type == GPUFX_PARAM_MATRIX)
    {
      if (message)
        snprintf (message, message_size, "%s is text; use gpufx_matrix_parse",
                  param->name);
      return false;
    }
  if (! isfinite (value) || value < param->min || value > param->max
      || (param->type != GPUFX_PARAM_DOUBLE && value != floor (value)))
    {
      if (message)
        {
          if (param->type == GPUFX_PARAM_DOUBLE)
            snprintf (message, message_size,
                      "%s must be a number from %g to %g", param->name,
                      param->min, param->max);
          else
            snprintf (message, message_size,
                      "%s must be a whole number from %g to %g", param->name,
                      param->min, param->max);
        }
      return false;
    }

  switch (param->id)
    {
    case GPUFX_P_BORDER: filter->border = (GpufxBorder) value; break;
    case GPUFX_P_BACKEND:
      if (options)
        options->backend = (GpufxBackend) value;
      break;
    case GPUFX_P_MATRIX: break;
    case GPUFX_P_DIVISOR: filter->convolve.divisor = value; break;
    case GPUFX_P_OFFSET: filter->convolve.offset = value; break;
    case GPUFX_P_NORMALIZE: filter->convolve.normalize = value != 0; break;
    case GPUFX_P_STD_DEV_X: filter->gaussian.std_dev_x = value; break;
    case GPUFX_P_STD_DEV_Y: filter->gaussian.std_dev_y = value; break;
    case GPUFX_P_HORIZONTAL: filter->sobel.horizontal = value != 0; break;
    case GPUFX_P_VERTICAL: filter->sobel.vertical = value != 0; break;
    case GPUFX_P_KEEP_SIGN: filter->sobel.keep_sign = value != 0; break;
    case GPUFX_P_RADIUS: filter->kuwahara.radius = (int) value; break;
    }
  return true;
}

static const char *
params_skip_space (const char *s)
{
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
    s++;
  return s;
}

static bool
params_matrix_parse (GpufxConvolveParams *params,
                     const char          *text,
                     char                *message,
                     size_t               message_size)
{
  float       weights[GPUFX_MATRIX_MAX * GPUFX_MATRIX_MAX];
  int         width = -1;
  int         row = 0;
  int         col = 0;
  const char *s;

  if (! text)
    text = "";
  s = params_skip_space (text);
  if (*s == '\0')
    {
      if (message)
        snprintf (message, message_size, "the matrix is empty");
      return false;
    }

  for (;;)
    {
      char  *end;
      double w;

      s = params_skip_space (s);
      w = strtod (s, &end);
      /* Plain decimal numbers only, as gpufx's options: no hex, and "inf"
       * or "nan" are not weights. */
      if (end == s || strspn (s, "0123456789+-.eE") < (size_t) (end - s))
        {
          if (message)
            snprintf (message, message_size,
                      "matrix row %d, weight %d: a number was expected",
                      row + 1, col + 1);
          return false;
        }
      /* The bound holds for the float that is stored, so that a matrix
       * written by gpufx_matrix_format always reads back: a weight just
       * under 3e38 can round to a float just over it. */
      if (! isfinite (w) || fabs (w) > FLT_MAX
          || fabsf ((float) w) > PARAMS_WEIGHT_MAX)
        {
          if (message)
            snprintf (message, message_size,
                      "matrix row %d, weight %d: weights must be finite "
                      "(at most %g in size)",
                      row + 1, col + 1, (double) PARAMS_WEIGHT_MAX);
          return false;
        }
      if (col >= GPUFX_MATRIX_MAX || row >= GPUFX_MATRIX_MAX)
        {
          if (message)
            snprintf (message, message_size, "the matrix has more than %d %s",
                      GPUFX_MATRIX_MAX,
                      col >= GPUFX_MATRIX_MAX ? "columns" : "rows");
          return false;
        }
      weights[row * GPUFX_MATRIX_MAX + col] = (float) w;
      col++;
      s = params_skip_space (end);

      if (*s == ',')
        {
          s++;
          continue;
        }
      if (*s == ';' || *s == '\0')
        {
          if (width < 0)
            width = col;
          else if (col != width)
            {
              if (message)
                snprintf (message, message_size,
                          "matrix row %d has %d weights, row 1 has %d", row + 1,
                          col, width);
              return false;
            }
          row++;
          col = 0;
          if (*s == '\0')
            break;
          s = params_skip_space (s + 1);
          if (*s == '\0')
            break; /* a trailing ';' ends the matrix */
          continue;
        }
      if (message)
        {
          /* Never echo a control or non-ASCII byte: the message is one
           * printable line. */
          unsigned char c = (unsigned char) *s;
          char          shown[8];

          if (c >= 0x20 && c < 0x7f)
            snprintf (shown, sizeof shown, "'%c'", c);
          else
            snprintf (shown, sizeof shown, "0x%02x", c);
          snprintf (message, message_size,
                    "matrix row %d: unexpected %s (use ',' between weights "
                    "and ';' between rows)",
                    row + 1, shown);
        }
      return false;
    }

  params->width = width;
  params->height = row;
  for (int j = 0; j < row; j++)
    for (int i = 0; i < width; i++)
      params->matrix[j * width + i] = weights[j * GPUFX_MATRIX_MAX + i];
  return true;
}

static bool
params_matrix_format (const GpufxConvolveParams *params,
                      char                      *text,
                      size_t                     size)
{
  size_t used = 0;

  if (size == 0)
    return false;
  text[0] = '\0';
  for (int j = 0; j < params->height; j++)
    for (int i = 0; i < params->width; i++)
      {
        int n = snprintf (text + used, size - used, "%s%.9g",
                          i ? "," : (j ? ";" : ""),
                          params->matrix[j * params->width + i]);
        if (n < 0 || (size_t) n >= size - used)
          {
            text[used] = '\0';
            return false;
          }
        used += (size_t) n;
      }
  return true;
}

bool
gpufx_matrix_default_text (char *text, size_t size)
{
  GpufxFilter filter;

  gpufx_filter_init (&filter, GPUFX_FILTER_CONVOLVE);
  return gpufx_matrix_format (&filter.convolve, text, size);
}

/* The matrix text is the same everywhere: '.' is the decimal point even in
 * a process whose locale writes a comma (GIMP and its plug-ins set the
 * user's), where strtod would stop at '.' and printf write ','.  The C
 * locale is made current for this thread only, while the text is read or
 * written. */
static locale_t       params_c_numeric;
static pthread_once_t params_c_numeric_once = PTHREAD_ONCE_INIT;

static void
params_make_c_numeric (void)
{
  params_c_numeric = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
}

static locale_t
params_enter_c_numeric (void)
{
  pthread_once (&params_c_numeric_once, params_make_c_numeric);
  return params_c_numeric ? uselocale (params_c_numeric) : (locale_t) 0;
}

static void
params_leave_c_numeric (locale_t previous)
{
  if (previous)
    uselocale (previous);
}

bool
gpufx_matrix_parse (GpufxConvolveParams *params,
                    const char          *text,
                    char                *message,
                    size_t               message_size)
{
  locale_t previous = params_enter_c_numeric ();
  bool     ok = params_matrix_parse (params, text, message, message_size);

  params_leave_c_numeric (previous);
  return ok;
}

bool
gpufx_matrix_format (const GpufxConvolveParams *params, char *text, size_t size)
{
  locale_t previous = params_enter_c_numeric ();
  bool     ok = params_matrix_format (params, text, size);

  params_leave_c_numeric (previous);
  return ok;
}

/* gimp-gpu-filters: the one description of every filter's parameters.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The PDB arguments, the dialogs and the CLI options are all made from these
 * tables, so a parameter is named, ranged and defaulted in exactly one place.
 * Labels and blurbs are untranslated English marked with GPUFX_N_ so that
 * xgettext finds them; front ends translate them at run time.
 */
#ifndef GPUFX_PARAMS_H
#define GPUFX_PARAMS_H

#include "gpufx.h"

#ifdef __cplusplus
extern "C"
{
#endif

#define GPUFX_N_(s) (s)

/* Room for any matrix as text. */
#define GPUFX_MATRIX_TEXT_MAX (GPUFX_MATRIX_MAX * GPUFX_MATRIX_MAX * 16)

  typedef enum
  {
    GPUFX_PARAM_DOUBLE,
    GPUFX_PARAM_INT,
    GPUFX_PARAM_BOOL,
    GPUFX_PARAM_CHOICE, /* an index into choices */
    GPUFX_PARAM_MATRIX  /* text: rows separated by ';', weights by ',' */
  } GpufxParamType;

  typedef enum
  {
    GPUFX_P_BORDER,
    GPUFX_P_BACKEND,
    GPUFX_P_MATRIX,
    GPUFX_P_DIVISOR,
    GPUFX_P_OFFSET,
    GPUFX_P_NORMALIZE,
    GPUFX_P_STD_DEV_X,
    GPUFX_P_STD_DEV_Y,
    GPUFX_P_HORIZONTAL,
    GPUFX_P_VERTICAL,
    GPUFX_P_KEEP_SIGN,
    GPUFX_P_RADIUS
  } GpufxParamId;

  typedef struct
  {
    const char *name;  /* machine name: "clamp" */
    const char *label; /* "Clamp (repeat edge pixels)" */
  } GpufxChoice;

  typedef struct
  {
    GpufxParamId       id;
    const char        *name;  /* kebab-case: PDB argument and --option */
    const char        *label; /* dialog label, with a mnemonic */
    const char        *blurb; /* one line for PDB browser and --help */
    GpufxParamType     type;
    double             min;
    double             max;
    double             def;     /* BOOL: 0 or 1; CHOICE: index */
    int                digits;  /* DOUBLE: decimals shown in the dialog */
    const GpufxChoice *choices; /* CHOICE: terminated by a NULL name */
    double             ui_max;  /* DOUBLE, INT: a slider's usual top; 0 = max */
    double             ui_gamma; /* DOUBLE: a slider's gamma; 0 = linear */
  } GpufxParam;

  typedef struct
  {
    GpufxFilterKind   kind;
    const char       *name;       /* "gaussian-blur": the CLI's subcommand */
    const char       *procedure;  /* "plug-in-gpu-gaussian-blur" */
    const char       *operation;  /* "gpufx:gaussian-blur": the GEGL op */
    const char       *menu_label; /* "_Gaussian Blur..." */
    const char       *blurb;
    const char       *help;
    const GpufxParam *params; /* the filter's own, ended by a NULL name */
  } GpufxFilterInfo;

  /* Every filter, in menu order. */
  const GpufxFilterInfo *gpufx_filter_info (GpufxFilterKind kind);
  const GpufxFilterInfo *gpufx_filter_info_by_name (const char *name);

  /* The parameters every filter has after its own: border, then backend. */
  extern const GpufxParam gpufx_common_params[];

  /* A filter's i-th parameter, its own first, then the common ones: the
   * order of the PDB arguments, the operation's properties and the CLI's
   * options.  NULL past the last. */
  const GpufxParam *gpufx_filter_param (const GpufxFilterInfo *info, int i);

  /* Generic access to a parameter's value.  Setters check the range and
   * return false with a message when the value is refused; nothing changes
   * then.  For BOOL and CHOICE the double is 0/1 or the index. */
  double gpufx_param_get (const GpufxFilter  *filter,
                          const GpufxOptions *options,
                          const GpufxParam   *param);
  bool   gpufx_param_set (GpufxFilter      *filter,
                          GpufxOptions     *options,
                          const GpufxParam *param,
                          double            value,
                          char             *message,
                          size_t            message_size);

  /* True for filters that a front end edits in a dialog of its own rather
   * than a generated one: those with a matrix, which wants a grid. */
  bool gpufx_filter_info_needs_own_dialog (const GpufxFilterInfo *info);

  /* A choice's index from its name, or -1. */
  int gpufx_choice_index (const GpufxParam *param, const char *name);

  /* "a,b,c;d,e,f" <-> matrix.  Rows must have equal lengths; whitespace is
   * allowed around numbers.  On failure nothing changes. */
  bool gpufx_matrix_parse (GpufxConvolveParams *params,
                           const char          *text,
                           char                *message,
                           size_t               message_size);
  /* The default filter's matrix as text (the matrix parameter's default). */
  bool gpufx_matrix_default_text (char *text, size_t size);
  /* A label as plain text: without its mnemonic '_' and, with
   * drop_ellipsis, without a trailing "...".  Cut to fit size. */
  void gpufx_label_plain (const char *label,
                          bool        drop_ellipsis,
                          char       *text,
                          size_t      size);
  /* Writes at most size bytes, always terminated; returns false if cut. */
  bool gpufx_matrix_format (const GpufxConvolveParams *params,
                            char                      *text,
                            size_t                     size);

#ifdef __cplusplus
}
#endif

#endif /* GPUFX_PARAMS_H */

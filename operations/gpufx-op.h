/* gimp-gpu-filters: the engine's filters as GEGL operations.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One GObject type per filter of the engine, all sharing this instance and
 * class layout; the class knows its filter through the parameter table, so
 * nothing about a particular filter is written out in this folder.
 */
#ifndef GPUFX_OP_H
#define GPUFX_OP_H

#include <gegl.h>
#include <gegl-plugin.h>

#include "gpufx-params.h"

G_BEGIN_DECLS

typedef struct
{
  GeglOperationFilter parent_instance;

  GpufxFilter  filter;  /* the properties' values, ready for the engine */
  GpufxOptions options; /* the backend property lives here */
  gchar       *matrix;  /* the matrix property as set */
  gchar        matrix_error[GPUFX_MESSAGE_MAX]; /* why it was refused, or "" */

  /* Decided in prepare from the input's format. */
  const Babl *format; /* of the engine's buffers */
  gint        channels;
  gint        alpha;
  gboolean    premultiplied;

  gchar  last_warning[GPUFX_MESSAGE_MAX]; /* said once, not per chunk */
  gchar *report; /* the token the plug-in reads the outcome by, or NULL */
} GpufxOp;

typedef struct
{
  GeglOperationFilterClass parent_class;

  const GpufxFilterInfo *info;
} GpufxOpClass;

#define GPUFX_OP(obj)           ((GpufxOp *) (obj))
#define GPUFX_OP_GET_CLASS(obj) ((GpufxOpClass *) G_OBJECT_GET_CLASS (obj))

/* Registers the operation for one filter of the engine ("gpufx:NAME"). */
GType gpufx_op_register (GTypeModule *module, const GpufxFilterInfo *info);

G_END_DECLS

#endif /* GPUFX_OP_H */

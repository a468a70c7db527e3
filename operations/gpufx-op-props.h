/* gimp-gpu-filters: GObject properties made from the parameter table.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef GPUFX_OP_PROPS_H
#define GPUFX_OP_PROPS_H

#include "gpufx-op.h"

G_BEGIN_DECLS

/* The enum types of the table's choices (border, backend); once, before any
 * class is made. */
void gpufx_op_props_register_enums (GTypeModule *module);

/* Installs one property per parameter of the filter, then the common ones,
 * with the table's names, ranges and defaults. */
void gpufx_op_props_install (GObjectClass *klass, const GpufxFilterInfo *info);

/* The instance's values at their defaults. */
void gpufx_op_props_init (GpufxOp *self, const GpufxFilterInfo *info);

void gpufx_op_props_set (GObject      *object,
                         guint         property_id,
                         const GValue *value,
                         GParamSpec   *pspec);
void gpufx_op_props_get (GObject    *object,
                         guint       property_id,
                         GValue     *value,
                         GParamSpec *pspec);

G_END_DECLS

#endif /* GPUFX_OP_PROPS_H */

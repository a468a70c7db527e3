/* gimp-gpu-filters: PDB arguments made from the engine's parameter tables.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef PLUGIN_ARGS_H
#define PLUGIN_ARGS_H

#include <libgimp/gimp.h>

#include "gpufx-params.h"

G_BEGIN_DECLS

/* Adds one argument per table entry: the filter's own parameters, then the
 * common ones (border, backend).  Nothing is written per filter. */
void gpu_args_add (GimpProcedure *procedure, const GpufxFilterInfo *info);

/* Reads the config back into an engine filter and options.  A refused value
 * gives FALSE and a GError naming the argument; nothing else is touched. */
gboolean gpu_args_read (GimpProcedureConfig   *config,
                        const GpufxFilterInfo *info,
                        GpufxFilter           *filter,
                        GpufxOptions          *options,
                        GError               **error);

/* Calls func for each parameter of the filter, its own then the common. */
typedef void (*GpuArgsFunc) (const GpufxParam *param, gpointer data);
void
gpu_args_foreach (const GpufxFilterInfo *info, GpuArgsFunc func, gpointer data);

G_END_DECLS

#endif /* PLUGIN_ARGS_H */

/* gimp-gpu-filters: a filter applied inside GIMP as its GEGL operation.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef PLUGIN_APPLY_H
#define PLUGIN_APPLY_H

#include <libgimp/gimp.h>

#include "gpufx-params.h"

G_BEGIN_DECLS

#define HAVE_GPU_APPLY_CONFIGURE 1

/* Copies the procedure's arguments into the drawable filter's config (the
 * operation's properties carry the same names) and sends them to GIMP. */
gboolean gpu_apply_configure (GimpDrawableFilter    *filter,
                              GimpProcedureConfig   *config,
                              const GpufxFilterInfo *info,
                              GError               **error);

/* TRUE, with GIMP's message in error, when the last PDB call made here
 * failed (libgimp calls that return nothing leave their verdict there). */
gboolean gpu_apply_pdb_error (GError **error);

/* Runs the filter's operation on the drawable inside GIMP: merged (one undo
 * step, the selection respected) or kept as a non-destructive filter.
 * Checks the arguments first; on an error found then the drawable is
 * unchanged.  A merge also learns from the operation which backend ran
 * (backend, to free; NULL when not known) and fails when the operation
 * could not filter (the pixels it could not do are unchanged). */
gboolean gpu_apply_drawable (GimpDrawable          *drawable,
                             GimpProcedureConfig   *config,
                             const GpufxFilterInfo *info,
                             gboolean               non_destructive,
                             gchar                **backend,
                             GError               **error);

G_END_DECLS

#endif /* PLUGIN_APPLY_H */

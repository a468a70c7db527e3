/* gimp-gpu-filters: the filters' dialog with a live preview.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef GPUFX_DIALOG_H
#define GPUFX_DIALOG_H

#include <libgimp/gimp.h>

#include "gpufx-params.h"

G_BEGIN_DECLS

/* Shows the procedure's arguments (widgets made from the config, itself
 * made from the parameter table) and a preview of the drawable that runs
 * the engine on the visible area.  TRUE when the user chose OK; the config
 * then holds the values and GIMP remembers them for the next run. */
gboolean gpufx_dialog_run (GimpProcedure         *procedure,
                           GimpProcedureConfig   *config,
                           GimpDrawable          *drawable,
                           const GpufxFilterInfo *info);

G_END_DECLS

#endif /* GPUFX_DIALOG_H */

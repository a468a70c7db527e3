/* gimp-gpu-filters: the GEGL module: one operation per filter of the engine.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "gpufx-op-props.h"
#include "gpufx-op.h"

static const GeglModuleInfo module_info = { GEGL_MODULE_ABI_VERSION };

G_MODULE_EXPORT const GeglModuleInfo *
gegl_module_query (GTypeModule *module)
{
  return &module_info;
}

G_MODULE_EXPORT gboolean
gegl_module_register (GTypeModule *module)
{
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  gpufx_op_props_register_enums (module);
  for (int k = 0; k < GPUFX_N_FILTERS; k++)
    gpufx_op_register (module, gpufx_filter_info ((GpufxFilterKind) k));
  return TRUE;
}

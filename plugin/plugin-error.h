/* gimp-gpu-filters: the plug-in's GError domain.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef PLUGIN_ERROR_H
#define PLUGIN_ERROR_H

#include <glib.h>

#define GPU_FILTERS_ERROR (g_quark_from_static_string ("gpu-filters-error"))

#endif /* PLUGIN_ERROR_H */

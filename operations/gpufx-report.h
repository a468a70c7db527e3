/* gimp-gpu-filters: how an operation tells the plug-in what happened.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GIMP runs the operation in its own process and gives a plug-in's
 * GimpDrawableFilter no word back from it.  So the plug-in names a report
 * (the operation's hidden "report" property, a token), and the operation
 * appends one line per region it processed to a file of that name in the
 * user's runtime folder, which the plug-in reads after the merge.
 */
#ifndef GPUFX_REPORT_H
#define GPUFX_REPORT_H

#include <glib.h>

G_BEGIN_DECLS

/* The name of the operations' report property. */
#define GPUFX_REPORT_PROPERTY "report"

/* What a region came to: filtered, or passed through unchanged. */
#define GPUFX_REPORT_FILTERED  "filtered"
#define GPUFX_REPORT_UNCHANGED "unchanged"

/* The report's file for token, or NULL for a token that is not one of
 * ours (only letters, digits and '-': never a path). */
gchar *gpufx_report_path (const gchar *token);

/* Appends "OUTCOME BACKEND MESSAGE" as one line, where the plug-in has made
 * the folder; silently nothing otherwise, or without a token. */
void gpufx_report_append (const gchar *token,
                          const gchar *outcome,
                          const gchar *backend,
                          const gchar *message);

/* A new token, with its file's folder made and no file yet.  NULL when
 * there is no folder to be had. */
gchar *gpufx_report_new_token (void);

G_END_DECLS

#endif /* GPUFX_REPORT_H */

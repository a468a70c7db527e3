/* gimp-gpu-filters: how an operation tells the plug-in what happened.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gpufx-report.h"

#define REPORT_TOKEN_MAX 64

static gchar *
report_folder (void)
{
  return g_build_filename (g_get_user_runtime_dir (), "gimp-gpu-filters", NULL);
}

gchar *
gpufx_report_path (const gchar *token)
{
  gchar *folder, *path;
  gsize  n = token ? strlen (token) : 0;

  if (n == 0 || n > REPORT_TOKEN_MAX)
    return NULL;
  for (gsize i = 0; i < n; i++)
    if (! g_ascii_isalnum (token[i]) && token[i] != '-')
      return NULL;
  folder = report_folder ();
  path = g_build_filename (folder, token, NULL);
  g_free (folder);
  return path;
}

void
gpufx_report_append (const gchar *token,
                     const gchar *outcome,
                     const gchar *backend,
                     const gchar *message)
{
  gchar *path = gpufx_report_path (token);
  gchar *line, *c;
  gint   fd;

  if (! path)
    return;
  line = g_strdup_printf ("%s %s %s\n", outcome, backend,
                          message && *message ? message : "-");
  /* One line per record, whatever the message holds. */
  for (c = line; c[1]; c++)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  /* No symbolic link is followed and no folder made: where the plug-in
   * has not prepared one, nothing is written. */
  fd = g_open (path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
               0600);
  if (fd >= 0)
    {
      /* A short line in one append: reports of parallel regions do not
       * interleave. */
      if (write (fd, line, strlen (line)) < 0)
        errno = 0;
      close (fd);
    }
  g_free (line);
  g_free (path);
}

gchar *
gpufx_report_new_token (void)
{
  static gint counter;
  gchar      *folder = report_folder ();
  gchar      *token, *path;

  if (g_mkdir_with_parents (folder, 0700) != 0)
    {
      g_free (folder);
      return NULL;
    }
  g_free (folder);
  token = g_strdup_printf ("%d-%d-%08x", (gint) getpid (),
                           g_atomic_int_add (&counter, 1), g_random_int ());
  path = gpufx_report_path (token);
  g_unlink (path);
  g_free (path);
  return token;
}

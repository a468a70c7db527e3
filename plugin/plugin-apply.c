/* gimp-gpu-filters: a filter applied inside GIMP as its GEGL operation.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pixels never come to this process: GIMP runs the operation on its
 * own buffers.  What is left here is naming the operation and copying the
 * arguments over, both by the parameter table.
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "gpufx-report.h"
#include "plugin-apply.h"
#include "plugin-args.h"
#include "plugin-error.h"

typedef struct
{
  GimpProcedureConfig *config;
  GObject             *target;
  GError              *error;
} ApplyCopy;

/* A choice goes over by its name: GIMP presents the operation's enum
 * property as a GimpChoice of its nicks; a GIMP that handed over the enum
 * type itself would need the module loaded here, and gets the number. */
static void
apply_copy_choice (ApplyCopy *copy, const GpufxParam *p)
{
  GParamSpec *pspec
    = g_object_class_find_property (G_OBJECT_GET_CLASS (copy->target), p->name);
  gchar *nick = NULL;

  g_object_get (copy->config, p->name, &nick, NULL);
  if (G_IS_PARAM_SPEC_ENUM (pspec))
    {
      GEnumClass *enum_class = G_PARAM_SPEC_ENUM (pspec)->enum_class;
      GEnumValue *value = g_enum_get_value_by_nick (enum_class, nick);

      if (value)
        g_object_set (copy->target, p->name, value->value, NULL);
      else
        g_set_error (&copy->error, GPU_FILTERS_ERROR, 0,
                     _ ("The operation has no %s '%s'"), p->name, nick);
    }
  else
    {
      g_object_set (copy->target, p->name, nick, NULL);
    }
  g_free (nick);
}

static void
apply_copy_one (const GpufxParam *p, gpointer data)
{
  ApplyCopy *copy = data;
  GValue     value = G_VALUE_INIT;

  if (copy->error)
    return;
  if (! g_object_class_find_property (G_OBJECT_GET_CLASS (copy->target),
                                      p->name))
    {
      g_set_error (&copy->error, GPU_FILTERS_ERROR, 0,
                   _ ("The GEGL operation has no property '%s': is the "
                      "gpufx-ops module of the same version installed?"),
                   p->name);
      return;
    }
  if (p->type == GPUFX_PARAM_CHOICE)
    {
      apply_copy_choice (copy, p);
      return;
    }
  g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property (
                          G_OBJECT_GET_CLASS (copy->config), p->name)));
  g_object_get_property (G_OBJECT (copy->config), p->name, &value);
  g_object_set_property (copy->target, p->name, &value);
  g_value_unset (&value);
}

gboolean
gpu_apply_configure (GimpDrawableFilter    *filter,
                     GimpProcedureConfig   *config,
                     const GpufxFilterInfo *info,
                     GError               **error)
{
  ApplyCopy copy = { config, NULL, NULL };

  copy.target = G_OBJECT (gimp_drawable_filter_get_config (filter));
  gpu_args_foreach (info, apply_copy_one, &copy);
  if (copy.error)
    {
      g_propagate_error (error, copy.error);
      return FALSE;
    }
  gimp_drawable_filter_update (filter);
  return TRUE;
}

gboolean
gpu_apply_pdb_error (GError **error)
{
  GimpPDB     *pdb = gimp_get_pdb ();
  const gchar *why;

  if (gimp_pdb_get_last_status (pdb) == GIMP_PDB_SUCCESS)
    return FALSE;
  why = gimp_pdb_get_last_error (pdb);
  g_set_error (error, GPU_FILTERS_ERROR, 0, "%s",
               why && *why ? why
                           : _ ("GIMP refused the call, without a "
                                "reason"));
  return TRUE;
}

/* What the operation said of the regions it processed: FALSE, with its
 * reason, when any region passed through unchanged; the backend that ran
 * the others otherwise (NULL when none ran, as for an empty region). */
static gboolean
apply_read_report (const gchar *token, gchar **backend, GError **error)
{
  gchar  *path = gpufx_report_path (token);
  gchar  *text = NULL;
  gchar **lines;
  gint    filtered = 0, unchanged = 0;
  gchar  *why = NULL;

  *backend = NULL;
  if (! path || ! g_file_get_contents (path, &text, NULL, NULL))
    {
      g_free (path);
      return TRUE;
    }
  g_unlink (path);
  g_free (path);
  lines = g_strsplit (text, "\n", -1);
  for (gint i = 0; lines[i]; i++)
    {
      gchar **f = g_strsplit (lines[i], " ", 3);

      if (f[0] && f[1] && f[2] && strcmp (f[0], GPUFX_REPORT_FILTERED) == 0)
        {
          filtered++;
          /* Mixed means some regions fell back: the CPU did the rest. */
          if (! *backend || strcmp (f[1], *backend) != 0)
            {
              gboolean first = ! *backend;

              g_free (*backend);
              *backend = g_strdup (first ? f[1] : "cpu");
            }
        }
      else if (f[0] && f[1] && f[2]
               && strcmp (f[0], GPUFX_REPORT_UNCHANGED) == 0)
        {
          unchanged++;
          if (! why)
            why = g_strdup (f[2]);
        }
      g_strfreev (f);
    }
  g_strfreev (lines);
  g_free (text);
  if (unchanged == 0)
    return TRUE;

  if (filtered == 0)
    g_set_error (error, GPU_FILTERS_ERROR, 0,
                 _ ("The filter could not run (%s); the image is "
                    "unchanged."),
                 why);
  else
    g_set_error (error, GPU_FILTERS_ERROR, 0,
                 _ ("The filter could run on only part of the image (%s): "
                    "%d of its %d parts are unchanged.  Edit > Undo "
                    "takes the whole step back."),
                 why, unchanged, unchanged + filtered);
  g_clear_pointer (backend, g_free);
  g_free (why);
  return FALSE;
}

gboolean
gpu_apply_drawable (GimpDrawable          *drawable,
                    GimpProcedureConfig   *config,
                    const GpufxFilterInfo *info,
                    gboolean               non_destructive,
                    gchar                **backend,
                    GError               **error)
{
  GimpDrawableFilter *filter;
  gchar              *token = NULL;
  gboolean            ok;

  filter = gimp_drawable_filter_new (drawable, info->operation, NULL);
  if (! filter && gpu_apply_pdb_error (error))
    return FALSE;
  if (! filter)
    {
      g_set_error (error, GPU_FILTERS_ERROR, 0,
                   _ ("GIMP does not know the GEGL operation %s: the "
                      "gpufx-ops module is not installed where GEGL looks "
                      "(see the README)"),
                   info->operation);
      return FALSE;
    }

  *backend = NULL;
  /* A merge renders before it returns, so its report is complete then; a
   * layer effect renders later, whenever GIMP needs it, with no report. */
  if (! non_destructive && (token = gpufx_report_new_token ()))
    g_object_set (gimp_drawable_filter_get_config (filter),
                  GPUFX_REPORT_PROPERTY, token, NULL);
  if (! gpu_apply_configure (filter, config, info, error))
    {
      gimp_drawable_filter_delete (filter);
      g_free (token);
      return FALSE;
    }
  /* Both say nothing back: GIMP's verdict is the PDB's last status. */
  if (non_destructive)
    gimp_drawable_append_filter (drawable, filter);
  else
    gimp_drawable_merge_filter (drawable, filter);
  ok = ! gpu_apply_pdb_error (error);
  if (token && ok)
    ok = apply_read_report (token, backend, error);
  g_free (token);
  return ok;
}

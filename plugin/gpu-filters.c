/* gimp-gpu-filters: the plug-in: one PDB procedure per filter, for scripts,
 * each applying the filter's GEGL operation inside GIMP; and the matrix
 * editor, the one dialog GIMP cannot generate.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <libgimp/gimp.h>
#include <glib/gi18n-lib.h>

#include "gpufx-params.h"
#include "plugin-args.h"
#include "plugin-error.h"
#include "plugin-apply.h"
#include "gpufx-matrix-dialog.h"

#define GPU_FILTERS_TYPE (gpu_filters_get_type ())
G_DECLARE_FINAL_TYPE (GpuFilters, gpu_filters, GPU, FILTERS, GimpPlugIn)

struct _GpuFilters
{
  GimpPlugIn parent_instance;
};

G_DEFINE_TYPE (GpuFilters, gpu_filters, GIMP_TYPE_PLUG_IN)

GIMP_MAIN (GPU_FILTERS_TYPE)

static const GpufxFilterInfo *
gpu_filters_info_by_procedure (const gchar *name)
{
  for (int k = 0; k < GPUFX_N_FILTERS; k++)
    {
      const GpufxFilterInfo *info = gpufx_filter_info ((GpufxFilterKind) k);

      if (info && strcmp (info->procedure, name) == 0)
        return info;
    }
  return NULL;
}

static GList *
gpu_filters_query_procedures (GimpPlugIn *plug_in)
{
  GList *list = NULL;

  for (int k = 0; k < GPUFX_N_FILTERS; k++)
    {
      const GpufxFilterInfo *info = gpufx_filter_info ((GpufxFilterKind) k);

      if (info)
        list = g_list_append (list, g_strdup (info->procedure));
    }
  return list;
}

static GimpValueArray *
gpu_filters_fail (GimpProcedure    *procedure,
                  GimpPDBStatusType status,
                  GError           *error)
{
  return gimp_procedure_new_return_values (procedure, status, error);
}

/* What GIMP's own procedures refuse (gimp_pdb_item_is_attached,
 * gimp_pdb_item_is_modifiable, and the merging of a group, which GIMP would
 * skip without a word): said here, with the drawable's name, before any
 * pixel is touched. */
static gboolean
gpu_filters_check_drawable (GimpProcedure *procedure,
                            GimpImage     *image,
                            GimpDrawable  *drawable,
                            gboolean       non_destructive,
                            GError       **error)
{
  GimpItem    *item = GIMP_ITEM (drawable);
  GimpItem    *owner = item;
  const gchar *name = gimp_item_get_name (item);

  if (image && gimp_item_get_image (item) != image)
    {
      g_set_error (error, GPU_FILTERS_ERROR, 0,
                   _ ("Argument 'drawables': '%s' belongs to another image "
                      "than the one given in 'image'."),
                   name);
      return FALSE;
    }
  if (GIMP_IS_LAYER_MASK (drawable))
    owner = GIMP_ITEM (gimp_layer_from_mask (GIMP_LAYER_MASK (drawable)));
  if (owner && gimp_item_get_lock_content (owner))
    {
      g_set_error (error, GPU_FILTERS_ERROR, 0,
                   _ ("The pixels of '%s' are locked; unlock them to apply "
                      "%s."),
                   gimp_item_get_name (owner),
                   gimp_procedure_get_name (procedure));
      return FALSE;
    }
  if (gimp_item_is_group (item) && ! non_destructive)
    {
      g_set_error (error, GPU_FILTERS_ERROR, 0,
                   _ ("'%s' is a layer group, whose pixels come from its "
                      "layers: apply %s to a layer, or keep it on the group "
                      "as a layer effect (non-destructive)."),
                   name, gimp_procedure_get_name (procedure));
      return FALSE;
    }
  return TRUE;
}

/* The backend the operation will run on, for the return value: the
 * operation itself picks the same way, and says so in GIMP's error console
 * should CUDA fail mid-run and the CPU take over. */
static const gchar *
gpu_filters_backend (const GpufxOptions *options)
{
  if (options->backend != GPUFX_BACKEND_AUTO)
    return gpufx_backend_name (options->backend);
  return gpufx_backend_available (GPUFX_BACKEND_CUDA, NULL, 0)
           ? gpufx_backend_name (GPUFX_BACKEND_CUDA)
           : gpufx_backend_name (GPUFX_BACKEND_CPU);
}

static GimpValueArray *
gpu_filters_run (GimpProcedure       *procedure,
                 GimpRunMode          run_mode,
                 GimpImage           *image,
                 GimpDrawable       **drawables,
                 GimpProcedureConfig *config,
                 gpointer             run_data)
{
  const GpufxFilterInfo *info = run_data;
  GimpValueArray        *values;
  GpufxFilter            filter;
  GpufxOptions           options;
  GError                *error = NULL;
  gboolean               non_destructive = FALSE;
  gchar                  why[GPUFX_MESSAGE_MAX] = "";
  gint                   x, y, width, height;
  gint64                 t0;
  gchar                 *backend = NULL;

  /* Like GIMP's own filters: one drawable at a time, so that the preview
   * and the undo step are about one thing. */
  if (! drawables || ! drawables[0] || drawables[1])
    {
      g_set_error (&error, GPU_FILTERS_ERROR, 0,
                   _ ("%s works on exactly one layer or channel; "
                      "select one."),
                   gimp_procedure_get_name (procedure));
      return gpu_filters_fail (procedure, GIMP_PDB_CALLING_ERROR, error);
    }
  /* A dialog may yet choose to keep the filter as a layer effect, which a
   * group allows: the group waits for that choice. */
  g_object_get (config, "non-destructive", &non_destructive, NULL);
  if (! gpu_filters_check_drawable (
        procedure, image, drawables[0],
        non_destructive || run_mode == GIMP_RUN_INTERACTIVE, &error))
    return gpu_filters_fail (procedure, GIMP_PDB_CALLING_ERROR, error);

  if (run_mode == GIMP_RUN_INTERACTIVE
      && gpufx_filter_info_needs_own_dialog (info)
      && ! gpu_matrix_dialog_run (procedure, config, drawables[0], info))
    return gimp_procedure_new_return_values (procedure, GIMP_PDB_CANCEL, NULL);
  g_object_get (config, "non-destructive", &non_destructive, NULL);
  if (! gpu_filters_check_drawable (procedure, image, drawables[0],
                                    non_destructive, &error))
    return gpu_filters_fail (procedure, GIMP_PDB_CALLING_ERROR, error);

  if (! gpu_args_read (config, info, &filter, &options, &error))
    return gpu_filters_fail (procedure, GIMP_PDB_CALLING_ERROR, error);
  if (options.backend == GPUFX_BACKEND_CUDA
      && ! gpufx_backend_available (GPUFX_BACKEND_CUDA, why, sizeof why))
    {
      g_set_error (&error, GPU_FILTERS_ERROR, 0,
                   _ ("The CUDA backend cannot run here: %s.  Choose "
                      "\"auto\" or \"cpu\"."),
                   why);
      return gpu_filters_fail (procedure, GIMP_PDB_EXECUTION_ERROR, error);
    }

  values = gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
  if (! gimp_drawable_mask_intersect (drawables[0], &x, &y, &width, &height))
    {
      /* GIMP's refusal (a layer never added to an image) ... */
      if (gpu_apply_pdb_error (&error))
        {
          gimp_value_array_unref (values);
          return gpu_filters_fail (procedure, GIMP_PDB_CALLING_ERROR, error);
        }
      /* ... or a selection that misses this drawable: nothing to do. */
      GIMP_VALUES_SET_STRING (values, 1, "none");
      return values;
    }

  t0 = g_get_monotonic_time ();
  if (! gpu_apply_drawable (drawables[0], config, info, non_destructive,
                            &backend, &error))
    {
      gimp_value_array_unref (values);
      return gpu_filters_fail (procedure, GIMP_PDB_EXECUTION_ERROR, error);
    }

  /* For benchmarks and the demo: where the time went. */
  if (g_getenv ("GPU_FILTERS_VERBOSE"))
    g_printerr ("gpu-filters: %s %s: %.1f ms in GIMP\n", info->name,
                non_destructive ? "appended" : "merged",
                (g_get_monotonic_time () - t0) / 1000.0);

  if (run_mode != GIMP_RUN_NONINTERACTIVE)
    gimp_displays_flush ();

  /* What ran, where the operation said; else what Automatic picks here. */
  GIMP_VALUES_SET_STRING (values, 1,
                          backend ? backend : gpu_filters_backend (&options));
  g_free (backend);
  return values;
}

/* "_Gaussian Blur..." in the table; GIMP's menus use a real ellipsis. */
static gchar *
gpu_filters_menu_label (const gchar *label)
{
  gsize n = strlen (label);

  if (n >= 3 && strcmp (label + n - 3, "...") == 0)
    return g_strdup_printf ("%.*s\u2026", (int) (n - 3), label);
  return g_strdup (label);
}

static GimpProcedure *
gpu_filters_create_procedure (GimpPlugIn *plug_in, const gchar *name)
{
  const GpufxFilterInfo *info = gpu_filters_info_by_procedure (name);
  GimpProcedure         *procedure;
  gchar                 *label;

  if (! info)
    return NULL;

  procedure
    = gimp_image_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PLUGIN,
                                gpu_filters_run, (gpointer) info, NULL);
  gimp_procedure_set_image_types (procedure, "RGB*, GRAY*");
  gimp_procedure_set_sensitivity_mask (procedure,
                                       GIMP_PROCEDURE_SENSITIVE_DRAWABLE);
  /* The operations put themselves into Filters > GPU with GIMP's own
   * dialog; only a filter that needs a dialog of ours has its entry here,
   * so that each filter is listed once. */
  if (gpufx_filter_info_needs_own_dialog (info))
    {
      label = gpu_filters_menu_label (_ (info->menu_label));
      gimp_procedure_set_menu_label (procedure, label);
      g_free (label);
      gimp_procedure_add_menu_path (procedure, "<Image>/Filters/GPU");
    }
  gimp_procedure_set_documentation (procedure, _ (info->blurb), _ (info->help),
                                    name);
  gimp_procedure_set_attribution (procedure, "The gimp-gpu-filters authors",
                                  "The gimp-gpu-filters authors", "2026");

  gpu_args_add (procedure, info);

  gimp_procedure_add_string_return_value (procedure, "backend", _ ("Backend"),
                                          _ ("The backend the operation "
                                             "runs on: cpu or cuda (none "
                                             "when the selection misses the "
                                             "drawable)"),
                                          "none", G_PARAM_READWRITE);
  return procedure;
}

static gboolean
gpu_filters_set_i18n (GimpPlugIn  *plug_in,
                      const gchar *procedure_name,
                      gchar      **gettext_domain,
                      gchar      **catalog_dir)
{
  gchar   *dir = g_path_get_dirname (gimp_get_progname ());
  gchar   *locale = g_build_filename (dir, "locale", NULL);
  gboolean have = g_file_test (locale, G_FILE_TEST_IS_DIR);

  g_free (locale);
  g_free (dir);
  /* Catalogs live in locale/ beside the binary (GIMP's default place); a
   * build without any (none translated yet, or the build folder) runs
   * untranslated instead of warning on every start. */
  if (! have)
    return FALSE;
  *gettext_domain = g_strdup (GETTEXT_PACKAGE);
  return TRUE;
}

static void
gpu_filters_quit (GimpPlugIn *plug_in)
{
  gpufx_release ();
}

static void
gpu_filters_class_init (GpuFiltersClass *klass)
{
  GimpPlugInClass *plug_in_class = GIMP_PLUG_IN_CLASS (klass);

  plug_in_class->query_procedures = gpu_filters_query_procedures;
  plug_in_class->create_procedure = gpu_filters_create_procedure;
  plug_in_class->set_i18n = gpu_filters_set_i18n;
  plug_in_class->quit = gpu_filters_quit;
}

static void
gpu_filters_init (GpuFilters *filters)
{
}

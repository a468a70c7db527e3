/* gimp-gpu-filters: PDB arguments made from the engine's parameter tables.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "plugin-args.h"
#include "plugin-error.h"

void
gpu_args_foreach (const GpufxFilterInfo *info, GpuArgsFunc func, gpointer data)
{
  const GpufxParam *p;

  for (int i = 0; (p = gpufx_filter_param (info, i)); i++)
    func (p, data);
}

static GimpChoice *
args_make_choice (const GpufxParam *param)
{
  GimpChoice *choice = gimp_choice_new ();

  for (int i = 0; param->choices[i].name; i++)
    gimp_choice_add (choice, param->choices[i].name, i,
                     _ (param->choices[i].label), NULL);
  return choice;
}

static void
args_add_one (const GpufxParam *p, gpointer data)
{
  GimpProcedure *procedure = data;
  const gchar   *label = _ (p->label);
  const gchar   *blurb = _ (p->blurb);

  switch (p->type)
    {
    case GPUFX_PARAM_DOUBLE:
      gimp_procedure_add_double_argument (procedure, p->name, label, blurb,
                                          p->min, p->max, p->def,
                                          G_PARAM_READWRITE);
      break;
    case GPUFX_PARAM_INT:
      gimp_procedure_add_int_argument (procedure, p->name, label, blurb,
                                       (gint) p->min, (gint) p->max,
                                       (gint) p->def, G_PARAM_READWRITE);
      break;
    case GPUFX_PARAM_BOOL:
      gimp_procedure_add_boolean_argument (procedure, p->name, label, blurb,
                                           p->def != 0, G_PARAM_READWRITE);
      break;
    case GPUFX_PARAM_CHOICE:
      gimp_procedure_add_choice_argument (
        procedure, p->name, label, blurb, args_make_choice (p),
        p->choices[(int) p->def].name, G_PARAM_READWRITE);
      break;
    case GPUFX_PARAM_MATRIX:
      {
        gchar text[GPUFX_MATRIX_TEXT_MAX];

        if (! gpufx_matrix_default_text (text, sizeof text))
          text[0] = '\0';
        gimp_procedure_add_string_argument (procedure, p->name, label, blurb,
                                            text, G_PARAM_READWRITE);
      }
      break;
    }
}

void
gpu_args_add (GimpProcedure *procedure, const GpufxFilterInfo *info)
{
  gpu_args_foreach (info, args_add_one, procedure);
  /* GIMP's, not the engine's: so it is not in the table. */
  gimp_procedure_add_boolean_argument (
    procedure, "non-destructive", _ ("Keep as a la_yer effect"),
    _ ("Keep the filter as a non-destructive layer effect, editable later, "
       "instead of merging it into the pixels"),
    FALSE, G_PARAM_READWRITE);
}

typedef struct
{
  GimpProcedureConfig *config;
  GpufxFilter         *filter;
  GpufxOptions        *options;
  GError              *error;
} ArgsRead;

static void
args_read_one (const GpufxParam *p, gpointer data)
{
  ArgsRead *r = data;
  char      message[GPUFX_MESSAGE_MAX] = "";
  double    value = 0;

  if (r->error)
    return;

  switch (p->type)
    {
    case GPUFX_PARAM_DOUBLE:
      {
        gdouble d;

        g_object_get (r->config, p->name, &d, NULL);
        value = d;
      }
      break;
    case GPUFX_PARAM_INT:
      {
        gint i;

        g_object_get (r->config, p->name, &i, NULL);
        value = i;
      }
      break;
    case GPUFX_PARAM_BOOL:
      {
        gboolean b;

        g_object_get (r->config, p->name, &b, NULL);
        value = b ? 1 : 0;
      }
      break;
    case GPUFX_PARAM_CHOICE:
      value = gimp_procedure_config_get_choice_id (r->config, p->name);
      break;
    case GPUFX_PARAM_MATRIX:
      {
        gchar *text = NULL;

        g_object_get (r->config, p->name, &text, NULL);
        if (! gpufx_matrix_parse (&r->filter->convolve, text, message,
                                  sizeof message))
          g_set_error (&r->error, GPU_FILTERS_ERROR, 0, _ ("Argument '%s': %s"),
                       p->name, message);
        g_free (text);
      }
      return;
    }

  if (! gpufx_param_set (r->filter, r->options, p, value, message,
                         sizeof message))
    g_set_error (&r->error, GPU_FILTERS_ERROR, 0, _ ("Argument '%s': %s"),
                 p->name, message);
}

gboolean
gpu_args_read (GimpProcedureConfig   *config,
               const GpufxFilterInfo *info,
               GpufxFilter           *filter,
               GpufxOptions          *options,
               GError               **error)
{
  GpufxFilter  f;
  GpufxOptions o;
  ArgsRead     r = { config, &f, &o, NULL };
  char         message[GPUFX_MESSAGE_MAX] = "";

  gpufx_filter_init (&f, info->kind);
  gpufx_options_init (&o);
  gpu_args_foreach (info, args_read_one, &r);
  if (r.error)
    {
      g_propagate_error (error, r.error);
      return FALSE;
    }
  if (gpufx_filter_validate (&f, message, sizeof message) != GPUFX_OK)
    {
      g_set_error (error, GPU_FILTERS_ERROR, 0, "%s", message);
      return FALSE;
    }
  *filter = f;
  *options = o;
  return TRUE;
}

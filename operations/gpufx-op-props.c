/* gimp-gpu-filters: GObject properties made from the parameter table.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Property ids count the filter's own parameters first, then the common
 * ones (border, backend): the order of the PDB arguments and CLI options.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "gpufx-op-props.h"
#include "gpufx-report.h"

/* One enum type per choice parameter, by parameter id. */
#define PROPS_MAX_IDS 32
static GType props_enum_types[PROPS_MAX_IDS];

/* A cheap look at whether CUDA can run here, for the choices' labels: no
 * CUDA call, because GEGL loads this module into every process that
 * initialises it, most of which never run a filter.  The labels are what a
 * user of GIMP's generated dialog sees before choosing. */
static gboolean
props_gpu_here (void)
{
#if HAVE_CUDA
  return access ("/dev/nvidiactl", F_OK) == 0;
#else
  return FALSE;
#endif
}

static const gchar *
props_backend_label (const GpufxChoice *choice)
{
  if (strcmp (choice->name, "auto") == 0)
    {
#if HAVE_CUDA
      return props_gpu_here () ? _ ("Automatic (NVIDIA GPU, else CPU)")
                               : _ ("Automatic (no NVIDIA GPU here: CPU)");
#else
      return _ ("Automatic (built without CUDA: CPU)");
#endif
    }
  if (strcmp (choice->name, "cuda") == 0 && ! props_gpu_here ())
    return _ ("CUDA GPU (not available here: changes nothing)");
  return _ (choice->label);
}

static void
props_register_enum (GTypeModule *module, const GpufxParam *p)
{
  GEnumValue *values;
  gchar      *type_name;
  gint        n = 0;

  if (p->type != GPUFX_PARAM_CHOICE || p->id >= PROPS_MAX_IDS
      || props_enum_types[p->id])
    return;
  while (p->choices[n].name)
    n++;
  /* GLib keeps pointers to these for the life of the type. */
  values = g_new0 (GEnumValue, n + 1);
  for (gint i = 0; i < n; i++)
    {
      values[i].value = i;
      values[i].value_nick = p->choices[i].name;
      values[i].value_name = p->id == GPUFX_P_BACKEND
                               ? props_backend_label (&p->choices[i])
                               : _ (p->choices[i].label);
    }
  /* "border" -> "GpufxOpBorder": one name per choice parameter. */
  type_name = g_strdup_printf ("GpufxOp%c%s", g_ascii_toupper (p->name[0]),
                               p->name + 1);
  for (gchar *c = type_name; *c; c++)
    if (! g_ascii_isalnum (*c))
      *c = '_';
  props_enum_types[p->id]
    = g_type_module_register_enum (module, type_name, values);
  g_free (type_name);
}

void
gpufx_op_props_register_enums (GTypeModule *module)
{
  const GpufxParam *p;

  for (int k = 0; k < GPUFX_N_FILTERS; k++)
    for (int i = 0;
         (p = gpufx_filter_param (gpufx_filter_info ((GpufxFilterKind) k), i));
         i++)
      props_register_enum (module, p);
}

/* The parameter behind a property id (ids count from 1), or NULL. */
static const GpufxParam *
props_param (const GpufxFilterInfo *info, guint id)
{
  return id > 0 ? gpufx_filter_param (info, (int) id - 1) : NULL;
}

static GParamSpec *
props_make_pspec (const GpufxParam *p)
{
  const GParamFlags flags
    = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | GEGL_PARAM_PAD_INPUT;
  const gchar *label = _ (p->label);
  const gchar *blurb = _ (p->blurb);
  gchar        nick[128];
  GParamSpec  *pspec = NULL;
  gdouble      ui_max = p->ui_max > 0 ? MIN (p->ui_max, p->max) : p->max;
  gdouble      ui_min = MAX (p->min, -ui_max);

  /* GIMP's generated dialog shows the nick; mnemonics are for our own. */
  gpufx_label_plain (label, FALSE, nick, sizeof nick);

  switch (p->type)
    {
    case GPUFX_PARAM_DOUBLE:
      pspec = gegl_param_spec_double (
        p->name, nick, blurb, p->min, p->max, p->def, ui_min, ui_max,
        p->ui_gamma > 0 ? p->ui_gamma : 1.0, flags);
      GEGL_PARAM_SPEC_DOUBLE (pspec)->ui_digits = p->digits;
      /* GIMP links an x/y pair with a chain button and shows pixels. */
      if (g_str_has_suffix (p->name, "-x") || g_str_has_suffix (p->name, "-y"))
        {
          gegl_param_spec_set_property_key (pspec, "unit", "pixel-distance");
          gegl_param_spec_set_property_key (
            pspec, "axis", g_str_has_suffix (p->name, "-x") ? "x" : "y");
        }
      break;
    case GPUFX_PARAM_INT:
      pspec = gegl_param_spec_int (p->name, nick, blurb, (gint) p->min,
                                   (gint) p->max, (gint) p->def, (gint) ui_min,
                                   (gint) ui_max, 1.0, flags);
      break;
    case GPUFX_PARAM_BOOL:
      pspec = g_param_spec_boolean (p->name, nick, blurb, p->def != 0, flags);
      break;
    case GPUFX_PARAM_CHOICE:
      /* GEGL's kind of enum pspec: GIMP hands it to plug-ins and scripts
       * as a GimpChoice of the nicks, so they need not load this module
       * to know the enum type. */
      pspec = gegl_param_spec_enum (
        p->name, nick, blurb, props_enum_types[p->id], (gint) p->def, flags);
      break;
    case GPUFX_PARAM_MATRIX:
      {
        gchar text[GPUFX_MATRIX_TEXT_MAX];

        if (! gpufx_matrix_default_text (text, sizeof text))
          text[0] = '\0';
        pspec = g_param_spec_string (p->name, nick, blurb, text, flags);
        gegl_param_spec_set_property_key (pspec, "multiline", "true");
      }
      break;
    }
  return pspec;
}

void
gpufx_op_props_install (GObjectClass *klass, const GpufxFilterInfo *info)
{
  const GpufxParam *p;

  GParamSpec *report;
  int         i;

  for (i = 0; (p = gpufx_filter_param (info, i)); i++)
    g_object_class_install_property (klass, i + 1, props_make_pspec (p));
  /* For scripts' sake only: hidden from GIMP's dialog, and never set by
   * one, so a layer effect saved in an XCF carries none. */
  report = g_param_spec_string (
    GPUFX_REPORT_PROPERTY, GPUFX_REPORT_PROPERTY,
    "Where the outcome goes (set by the gpu-filters plug-in)", NULL,
    G_PARAM_READWRITE);
  gegl_param_spec_set_property_key (report, "visible", "0");
  g_object_class_install_property (klass, i + 1, report);
}

void
gpufx_op_props_init (GpufxOp *self, const GpufxFilterInfo *info)
{
  gpufx_filter_init (&self->filter, info->kind);
  gpufx_options_init (&self->options);
  self->matrix = NULL;
  self->matrix_error[0] = '\0';
  self->last_warning[0] = '\0';
  self->report = NULL;
}

static void
props_set_matrix (GpufxOp *self, const gchar *text)
{
  g_free (self->matrix);
  self->matrix = g_strdup (text ? text : "");
  self->matrix_error[0] = '\0';
  /* A refused matrix is remembered as text so that the dialog keeps what
   * the user typed; processing then says why and changes nothing. */
  if (! gpufx_matrix_parse (&self->filter.convolve, self->matrix,
                            self->matrix_error, sizeof self->matrix_error)
      && ! self->matrix_error[0])
    g_strlcpy (self->matrix_error, "invalid matrix", sizeof self->matrix_error);
}

void
gpufx_op_props_set (GObject      *object,
                    guint         property_id,
                    const GValue *value,
                    GParamSpec   *pspec)
{
  GpufxOp          *self = GPUFX_OP (object);
  const GpufxParam *p
    = props_param (GPUFX_OP_GET_CLASS (object)->info, property_id);
  gdouble v = 0;
  char    message[GPUFX_MESSAGE_MAX];

  if (! p && strcmp (pspec->name, GPUFX_REPORT_PROPERTY) == 0)
    {
      g_free (self->report);
      self->report = g_value_dup_string (value);
      return;
    }
  if (! p)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, property_id, pspec);
      return;
    }
  switch (p->type)
    {
    case GPUFX_PARAM_DOUBLE: v = g_value_get_double (value); break;
    case GPUFX_PARAM_INT: v = g_value_get_int (value); break;
    case GPUFX_PARAM_BOOL: v = g_value_get_boolean (value) ? 1 : 0; break;
    case GPUFX_PARAM_CHOICE: v = g_value_get_enum (value); break;
    case GPUFX_PARAM_MATRIX:
      props_set_matrix (self, g_value_get_string (value));
      return;
    }
  /* GObject has already held the value to the pspec's range, which is the
   * table's, so a refusal here would be a bug in the table. */
  if (! gpufx_param_set (&self->filter, &self->options, p, v, message,
                         sizeof message))
    g_warning ("gpufx: %s", message);
}

void
gpufx_op_props_get (GObject    *object,
                    guint       property_id,
                    GValue     *value,
                    GParamSpec *pspec)
{
  GpufxOp          *self = GPUFX_OP (object);
  const GpufxParam *p
    = props_param (GPUFX_OP_GET_CLASS (object)->info, property_id);
  gdouble v;

  if (! p && strcmp (pspec->name, GPUFX_REPORT_PROPERTY) == 0)
    {
      g_value_set_string (value, self->report);
      return;
    }
  if (! p)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, property_id, pspec);
      return;
    }
  v = gpufx_param_get (&self->filter, &self->options, p);
  switch (p->type)
    {
    case GPUFX_PARAM_DOUBLE: g_value_set_double (value, v); break;
    case GPUFX_PARAM_INT: g_value_set_int (value, (gint) v); break;
    case GPUFX_PARAM_BOOL: g_value_set_boolean (value, v != 0); break;
    case GPUFX_PARAM_CHOICE: g_value_set_enum (value, (gint) v); break;
    case GPUFX_PARAM_MATRIX: g_value_set_string (value, self->matrix); break;
    }
}

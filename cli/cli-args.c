/* gimp-gpu-filters: gpufx's options, made from the parameter tables.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A filter's options are its table's parameters, then the common ones
 * (border, backend), then gpufx's own below.  Nothing here names a filter
 * parameter: a parameter added to gpufx-params.c appears in gpufx at once.
 */
#include "cli-args.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum
{
  ARGS_REPORT,
  ARGS_REPEAT,
  ARGS_THREADS,
  ARGS_DEPTH,
  ARGS_HELP
} ArgsOwnId;

typedef struct
{
  ArgsOwnId   id;
  const char *name;
  const char *metavar; /* NULL: a flag */
  int         min;
  int         max;
  int         def;
  const char *help;
} ArgsOwn;

static const ArgsOwn args_own[] = {
  { ARGS_DEPTH, "depth", "8|16", 8, 16, 0,
    "Bits per sample of PAM, PPM, PGM (and PNG, TIFF) output; default: 8 "
    "for 8-bit input, else 16" },
  { ARGS_THREADS, "threads", "N", 0, 4096, 0, "CPU threads, 0 = all cores" },
  { ARGS_REPEAT, "repeat", "N", 1, 100000, 1,
    "Run the filter N times and report the median time" },
  { ARGS_REPORT, "report", NULL, 0, 0, 0,
    "Print one JSON line: filter, backend, width, height, channels, "
    "milliseconds (the filter alone, no file I/O)" },
  { ARGS_HELP, "help", NULL, 0, 0, 0, "Show this help and exit" },
};

#define ARGS_N_OWN (sizeof args_own / sizeof args_own[0])

static const GpufxParam *
args_find_param (const GpufxFilterInfo *info, const char *name, size_t len)
{
  const GpufxParam *p;

  for (int i = 0; (p = gpufx_filter_param (info, i)); i++)
    if (strlen (p->name) == len && strncmp (p->name, name, len) == 0)
      return p;
  return NULL;
}

static const ArgsOwn *
args_find_own (const char *name, size_t len)
{
  for (size_t i = 0; i < ARGS_N_OWN; i++)
    if (strlen (args_own[i].name) == len
        && strncmp (args_own[i].name, name, len) == 0)
      return &args_own[i];
  return NULL;
}

/* A plain decimal number: no hex, no "inf" or "nan". */
static bool
args_parse_number (const char *text, double *value)
{
  char *end;

  if (! text[0] || strspn (text, "0123456789+-.eE") != strlen (text))
    return false;
  *value = strtod (text, &end);
  return *end == '\0' && end != text && isfinite (*value);
}

static bool
args_parse_bool (const char *text, bool *value)
{
  static const char *yes[] = { "1", "true", "yes", "on" };
  static const char *no[] = { "0", "false", "no", "off" };

  for (size_t i = 0; i < 4; i++)
    {
      if (strcmp (text, yes[i]) == 0)
        return *value = true, true;
      if (strcmp (text, no[i]) == 0)
        return *value = false, true;
    }
  return false;
}

static bool
args_set_param (CliArgs          *args,
                const GpufxParam *p,
                const char       *value,
                bool             *matrix_given,
                char             *err,
                size_t            err_size)
{
  char   why[GPUFX_MESSAGE_MAX];
  double v;

  switch (p->type)
    {
    case GPUFX_PARAM_MATRIX:
      if (! gpufx_matrix_parse (&args->filter.convolve, value, why, sizeof why))
        {
          snprintf (err, err_size, "--%s: %s", p->name, why);
          return false;
        }
      *matrix_given = true;
      return true;

    case GPUFX_PARAM_BOOL:
      {
        bool b;

        if (! args_parse_bool (value, &b))
          {
            snprintf (err, err_size,
                      "--%s: '%.40s' is not true or false (or use --%s and "
                      "--no-%s)",
                      p->name, value, p->name, p->name);
            return false;
          }
        v = b;
        break;
      }

    case GPUFX_PARAM_CHOICE:
      {
        int  i = gpufx_choice_index (p, value);
        char list[128] = "";

        if (i < 0)
          {
            for (int c = 0; p->choices[c].name; c++)
              {
                strncat (list, c ? ", " : "", sizeof list - strlen (list) - 1);
                strncat (list, p->choices[c].name,
                         sizeof list - strlen (list) - 1);
              }
            snprintf (err, err_size, "--%s: '%.40s' is not one of %s", p->name,
                      value, list);
            return false;
          }
        v = i;
        break;
      }

    case GPUFX_PARAM_INT:
    case GPUFX_PARAM_DOUBLE:
    default:
      if (! args_parse_number (value, &v))
        {
          snprintf (err, err_size, "--%s: '%.40s' is not a %snumber", p->name,
                    value, p->type == GPUFX_PARAM_INT ? "whole " : "finite ");
          return false;
        }
      break;
    }

  if (! gpufx_param_set (&args->filter, &args->options, p, v, why, sizeof why))
    {
      snprintf (err, err_size, "--%s (got '%.40s')", why, value);
      return false;
    }
  return true;
}

static bool
args_set_own (CliArgs       *args,
              const ArgsOwn *o,
              const char    *value,
              char          *err,
              size_t         err_size)
{
  double v;

  if (! o->metavar)
    {
      if (o->id == ARGS_REPORT)
        args->report = true;
      else
        args->help = true;
      return true;
    }
  if (! args_parse_number (value, &v) || v != floor (v) || v < o->min
      || v > o->max || (o->id == ARGS_DEPTH && v != 8 && v != 16))
    {
      if (o->id == ARGS_DEPTH)
        snprintf (err, err_size, "--depth: '%.40s' is not 8 or 16", value);
      else
        snprintf (err, err_size,
                  "--%s: '%.40s' is not a whole number from %d to %d", o->name,
                  value, o->min, o->max);
      return false;
    }
  switch (o->id)
    {
    case ARGS_DEPTH: args->depth = (int) v; break;
    case ARGS_THREADS: args->options.threads = (int) v; break;
    case ARGS_REPEAT: args->repeat = (int) v; break;
    default: break;
    }
  return true;
}

static bool
args_parse (CliArgs *args, int argc, char **argv, char *err, size_t err_size)
{
  const char *files[2];
  int         n_files = 0;
  bool        options_done = false;
  bool        matrix_given = false;

  memset (args, 0, sizeof *args);
  args->info = gpufx_filter_info_by_name (argv[0]);
  if (! args->info)
    {
      snprintf (err, err_size, "unknown filter '%.40s' (see gpufx --help)",
                argv[0]);
      return false;
    }
  gpufx_filter_init (&args->filter, args->info->kind);
  gpufx_options_init (&args->options);
  args->repeat = 1;

  /* Help wins over any mistake next to it. */
  for (int i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      {
        args->help = true;
        return true;
      }

  for (int i = 1; i < argc; i++)
    {
      const char       *arg = argv[i];
      const char       *name, *eq, *value;
      const GpufxParam *p;
      const ArgsOwn    *o;
      size_t            len;
      bool              negated = false;

      if (options_done || arg[0] != '-' || strcmp (arg, "-") == 0)
        {
          if (n_files == 2)
            {
              snprintf (err, err_size,
                        "too many files ('%.60s'): give one input and one "
                        "output",
                        arg);
              return false;
            }
          files[n_files++] = arg;
          continue;
        }
      if (strcmp (arg, "--") == 0)
        {
          options_done = true;
          continue;
        }
      if (strcmp (arg, "-h") == 0)
        {
          args->help = true;
          continue;
        }
      if (arg[1] != '-')
        {
          snprintf (err, err_size,
                    "unknown option '%.40s' (options are long: --name)", arg);
          return false;
        }

      name = arg + 2;
      eq = strchr (name, '=');
      len = eq ? (size_t) (eq - name) : strlen (name);
      p = args_find_param (args->info, name, len);
      o = p ? NULL : args_find_own (name, len);
      if (! p && ! o && len > 3 && strncmp (name, "no-", 3) == 0)
        {
          p = args_find_param (args->info, name + 3, len - 3);
          if (p && p->type != GPUFX_PARAM_BOOL)
            p = NULL;
          negated = p != NULL;
        }
      if (! p && ! o)
        {
          snprintf (err, err_size,
                    "%s: unknown option '--%.*s' (see gpufx %s --help)",
                    args->info->name, (int) (len > 40 ? 40 : len), name,
                    args->info->name);
          return false;
        }

      if ((p && p->type == GPUFX_PARAM_BOOL) || (o && ! o->metavar))
        {
          if (eq && (negated || o))
            {
              snprintf (err, err_size, "--%.*s takes no value",
                        (int) (len > 40 ? 40 : len), name);
              return false;
            }
          value = eq ? eq + 1 : negated ? "0" : "1";
        }
      else if (eq)
        value = eq + 1;
      else if (i + 1 < argc)
        value = argv[++i];
      else
        {
          snprintf (err, err_size, "--%.*s needs a value",
                    (int) (len > 40 ? 40 : len), name);
          return false;
        }

      if (p ? ! args_set_param (args, p, value, &matrix_given, err, err_size)
            : ! args_set_own (args, o, value, err, err_size))
        return false;
    }

  if (args->help)
    return true;

  /* A matrix has no sensible default: convolving with the identity is
   * surely a mistake. */
  for (const GpufxParam *p = args->info->params; p->name; p++)
    if (p->type == GPUFX_PARAM_MATRIX && ! matrix_given)
      {
        snprintf (err, err_size, "%s: --%s is required", args->info->name,
                  p->name);
        return false;
      }
  if (gpufx_filter_validate (&args->filter, err, err_size) != GPUFX_OK)
    return false;
  if (n_files != 2)
    {
      snprintf (err, err_size,
                "%s: expected an input and an output file, got %d "
                "(see gpufx %s --help)",
                args->info->name, n_files, args->info->name);
      return false;
    }
  args->input = files[0];
  args->output = files[1];
  return true;
}

bool
cli_args_parse (CliArgs *args,
                int      argc,
                char   **argv,
                char    *err,
                size_t   err_size)
{
  if (args_parse (args, argc, argv, err, err_size))
    return true;
  /* Messages quote the user's arguments, which may hold newlines or
   * terminal escapes: the error stays one printable line. */
  for (char *s = err; *s; s++)
    if ((unsigned char) *s < 0x20 || *s == 0x7f)
      *s = '?';
  return false;
}

static void
args_print_option (FILE *out, const char *left, const char *help)
{
  if (strlen (left) < 26)
    fprintf (out, "  %-26s %s\n", left, help);
  else
    fprintf (out, "  %s\n  %-26s %s\n", left, "", help);
}

static void
args_print_param (FILE *out, const GpufxParam *p)
{
  char left[96];
  char help[512];

  switch (p->type)
    {
    case GPUFX_PARAM_BOOL:
      snprintf (left, sizeof left, "--[no-]%s", p->name);
      snprintf (help, sizeof help, "%s (default: %s)", p->blurb,
                p->def ? "on" : "off");
      break;
    case GPUFX_PARAM_MATRIX:
      snprintf (left, sizeof left, "--%s 'a,b;c,d'", p->name);
      snprintf (help, sizeof help, "%s (required)", p->blurb);
      break;
    case GPUFX_PARAM_CHOICE:
      {
        size_t n;

        snprintf (left, sizeof left, "--%s NAME", p->name);
        n = (size_t) snprintf (help, sizeof help, "%s:", p->blurb);
        for (int c = 0; p->choices[c].name && n < sizeof help; c++)
          n += (size_t) snprintf (help + n, sizeof help - n, "%s %s%s",
                                  c ? "," : "", p->choices[c].name,
                                  c == (int) p->def ? " (default)" : "");
        break;
      }
    case GPUFX_PARAM_INT:
      snprintf (left, sizeof left, "--%s N", p->name);
      snprintf (help, sizeof help, "%s (%g to %g, default %g)", p->blurb,
                p->min, p->max, p->def);
      break;
    case GPUFX_PARAM_DOUBLE:
    default:
      snprintf (left, sizeof left, "--%s X", p->name);
      snprintf (help, sizeof help, "%s (%g to %g, default %g)", p->blurb,
                p->min, p->max, p->def);
      break;
    }
  args_print_option (out, left, help);
}

void
cli_args_print_filter_help (FILE *out, const GpufxFilterInfo *info)
{
  fprintf (out, "Usage: gpufx %s [OPTION...] IN OUT\n\n%s.\n%s\n\n", info->name,
           info->blurb, info->help);
  fprintf (out, "Filter options:\n");
  for (const GpufxParam *p = info->params; p->name; p++)
    args_print_param (out, p);
  fprintf (out, "\nCommon options:\n");
  for (const GpufxParam *p = gpufx_common_params; p->name; p++)
    args_print_param (out, p);
  for (size_t i = 0; i < ARGS_N_OWN; i++)
    {
      const ArgsOwn *o = &args_own[i];
      char           left[96];
      char           help[512];

      if (o->metavar)
        snprintf (left, sizeof left, "--%s %s", o->name, o->metavar);
      else
        snprintf (left, sizeof left, "--%s", o->name);
      /* Ranges as the table's numbers show theirs (tests read them). */
      if (o->metavar && strcmp (o->metavar, "N") == 0)
        snprintf (help, sizeof help, "%s (%d to %d, default %d)", o->help,
                  o->min, o->max, o->def);
      else
        snprintf (help, sizeof help, "%s", o->help);
      args_print_option (out, left, help);
    }
  fprintf (out, "\nOptions also take the form --name=value.  See gpufx --help "
                "for file formats.\n");
}

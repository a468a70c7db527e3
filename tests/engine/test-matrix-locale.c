/* gimp-gpu-filters: the matrix text is read and written with '.' as the
 * decimal point whatever the process's locale: GIMP runs its plug-ins and
 * the operations in the user's, which may write a comma.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine-test.h"

#include <locale.h>
#include <string.h>

#include "gpufx-params.h"

int
main (void)
{
  static const char *const comma_locales[]
    = { "de_DE.UTF-8", "fr_FR.UTF-8", "de_DE.utf8", "ru_RU.UTF-8", NULL };
  const char         *used = NULL;
  GpufxConvolveParams c;
  char                text[GPUFX_MATRIX_TEXT_MAX];
  char                message[GPUFX_MESSAGE_MAX];

  for (int i = 0; comma_locales[i] && ! used; i++)
    if (setlocale (LC_ALL, comma_locales[i]))
      used = comma_locales[i];
  if (! used)
    {
      printf ("SKIP: no locale with a decimal comma is installed "
              "(tried de_DE.UTF-8, fr_FR.UTF-8, ru_RU.UTF-8)\n");
      return 77;
    }
  snprintf (text, sizeof text, "%.1f", 0.5);
  printf ("locale %s writes 0.5 as %s\n", used, text);

  CHECK (
    gpufx_matrix_parse (&c, "0.5, -1.25; 2e-1, 3", message, sizeof message),
    "parse failed: %s", message);
  CHECK (c.width == 2 && c.height == 2, "size %d x %d", c.width, c.height);
  CHECK (c.matrix[0] == 0.5f && c.matrix[1] == -1.25f && c.matrix[2] == 0.2f
           && c.matrix[3] == 3.0f,
         "weights %g %g %g %g", c.matrix[0], c.matrix[1], c.matrix[2],
         c.matrix[3]);
  CHECK (gpufx_matrix_format (&c, text, sizeof text), "format failed");
  CHECK (strcmp (text, "0.5,-1.25;0.200000003,3") == 0, "formatted as %s",
         text);
  /* The caller's locale is as it was. */
  snprintf (text, sizeof text, "%.1f", 0.5);
  CHECK (strcmp (text, "0.5") != 0, "the locale was changed: %s", text);
  return test_summary ("test-matrix-locale");
}

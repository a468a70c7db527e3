/* gimp-gpu-filters: what the fuzz harnesses share.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef FUZZ_REQUIRE_H
#define FUZZ_REQUIRE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* A promise the code under test broke: abort, so that libFuzzer keeps the
 * input and the replay test fails. */
static inline void
fuzz_require (bool condition, const char *what)
{
  if (! condition)
    {
      fprintf (stderr, "fuzz: broken promise: %s\n", what);
      abort ();
    }
}

/* An error message as gpufx prints it: one line of printable text. */
static inline void
fuzz_require_message (const char *message)
{
  fuzz_require (message[0] != '\0', "a refusal without a message");
  for (const char *s = message; *s; s++)
    fuzz_require ((unsigned char) *s >= 0x20 && *s != 0x7f,
                  "a message with a line break or a control character");
}

#endif /* FUZZ_REQUIRE_H */

/* gimp-gpu-filters: runs a fuzz harness over files, without libFuzzer.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: fuzz-replay-NAME FILE|DIR...  Each file (a directory's files, in
 * name order) is given to the harness's LLVMFuzzerTestOneInput once, as
 * libFuzzer would.  This is how the seeds and the reproducers of every bug
 * the fuzzers found run in the normal test suite, with any compiler.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
replay_file (const char *path)
{
  FILE          *file = fopen (path, "rb");
  unsigned char *data = NULL;
  size_t         size = 0, room = 0, n;

  if (! file)
    {
      fprintf (stderr, "fuzz-replay: cannot open %s\n", path);
      return 1;
    }
  do
    {
      if (size == room)
        {
          unsigned char *more = realloc (data, room = room ? 2 * room : 4096);

          if (! more)
            {
              fprintf (stderr, "fuzz-replay: out of memory for %s\n", path);
              free (data);
              fclose (file);
              return 1;
            }
          data = more;
        }
      n = fread (data + size, 1, room - size, file);
      size += n;
    }
  while (n > 0);
  fclose (file);
  printf ("%s (%zu bytes)\n", path, size);
  fflush (stdout);
  LLVMFuzzerTestOneInput (data, size);
  free (data);
  return 0;
}

static int
replay_compare (const struct dirent **a, const struct dirent **b)
{
  return strcmp ((*a)->d_name, (*b)->d_name);
}

int
main (int argc, char **argv)
{
  int files = 0, failures = 0;

  for (int i = 1; i < argc; i++)
    {
      struct stat     st;
      struct dirent **names;
      int             n;

      if (stat (argv[i], &st) != 0)
        {
          fprintf (stderr, "fuzz-replay: no such file %s\n", argv[i]);
          return 1;
        }
      if (! S_ISDIR (st.st_mode))
        {
          failures += replay_file (argv[i]);
          files++;
          continue;
        }
      n = scandir (argv[i], &names, NULL, replay_compare);
      if (n < 0)
        {
          fprintf (stderr, "fuzz-replay: cannot list %s\n", argv[i]);
          return 1;
        }
      for (int k = 0; k < n; k++)
        {
          char path[4096];

          if (names[k]->d_name[0] != '.')
            {
              snprintf (path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
              failures += replay_file (path);
              files++;
            }
          free (names[k]);
        }
      free (names);
    }
  printf ("%d files, %d unreadable\n", files, failures);
  return failures ? 1 : 0;
}

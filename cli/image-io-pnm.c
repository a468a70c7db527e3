/* gimp-gpu-filters: PFM, PAM, PPM (P6) and PGM (P5) for gpufx.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Readers trust nothing in a header: sizes are checked against
 * CLI_MAX_PIXELS and against the bytes the file really has before anything
 * is allocated, so a hostile or truncated file gives an error, not a crash
 * or a huge allocation.
 */
#include "config.h"
#include "image-io-private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PNM_TOKEN_MAX 64
#define PNM_LINE_MAX  256

typedef struct
{
  FILE       *file;
  const char *path;
  char       *err;
  size_t      err_size;
} PnmReader;

static bool
pnm_host_is_little_endian (void)
{
  const uint16_t one = 1;

  return *(const unsigned char *) &one == 1;
}

static bool
pnm_fail (PnmReader *r, const char *what)
{
  cli_set_error (r->err, r->err_size, "%s: %s", r->path, what);
  return false;
}

/* The next whitespace-separated token, skipping '#' comments.  The single
 * whitespace character that ends it is consumed, as the formats require
 * after the last header field. */
static bool
pnm_token (PnmReader *r, char *token, const char *what)
{
  int    c;
  size_t n = 0;

  for (;;)
    {
      c = getc (r->file);
      if (c == '#')
        {
          while (c != '\n' && c != '\r' && c != EOF)
            c = getc (r->file);
        }
      if (c == EOF)
        {
          cli_set_error (r->err, r->err_size,
                         "%s: truncated header: %s is missing", r->path, what);
          return false;
        }
      if (! isspace (c))
        break;
    }
  while (c != EOF && ! isspace (c) && c != '#')
    {
      if (n + 1 >= PNM_TOKEN_MAX)
        {
          cli_set_error (r->err, r->err_size, "%s: bad header: %s is too long",
                         r->path, what);
          return false;
        }
      token[n++] = (char) c;
      c = getc (r->file);
    }
  if (c == '#')
    ungetc (c, r->file);
  token[n] = '\0';
  if (c == EOF)
    {
      cli_set_error (r->err, r->err_size, "%s: truncated header after %s",
                     r->path, what);
      return false;
    }
  return true;
}

static bool
pnm_parse_int (PnmReader  *r,
               const char *text,
               long        min,
               long        max,
               const char *what,
               int        *value)
{
  char *end;
  long  v;

  if (! isdigit ((unsigned char) text[0]))
    {
      cli_set_error (r->err, r->err_size,
                     "%s: bad header: %s '%.20s' is not a whole number",
                     r->path, what, text);
      return false;
    }
  errno = 0;
  v = strtol (text, &end, 10);
  if (*end != '\0')
    {
      cli_set_error (r->err, r->err_size,
                     "%s: bad header: %s '%.20s' is not a whole number",
                     r->path, what, text);
      return false;
    }
  if (errno == ERANGE || v < min || v > max)
    {
      cli_set_error (r->err, r->err_size,
                     "%s: bad header: %s %.20s is out of range (%ld to %ld)",
                     r->path, what, text, min, max);
      return false;
    }
  *value = (int) v;
  return true;
}

static bool
pnm_token_int (PnmReader *r, long min, long max, const char *what, int *value)
{
  char token[PNM_TOKEN_MAX];

  return pnm_token (r, token, what)
         && pnm_parse_int (r, token, min, max, what, value);
}

/* Size checks shared by every format, before any allocation: the pixel
 * count, and the bytes left in the file. */
static bool
pnm_check_size (PnmReader *r,
                int        width,
                int        height,
                int        channels,
                int        sample_bytes,
                size_t    *data_bytes)
{
  struct stat st;
  int64_t     pixels = (int64_t) width * height;
  uint64_t    need;
  off_t       here;

  if (pixels > CLI_MAX_PIXELS)
    {
      cli_set_error (r->err, r->err_size,
                     "%s: %d x %d is too large (at most 2^31 pixels)", r->path,
                     width, height);
      return false;
    }
  need = (uint64_t) pixels * channels * sample_bytes;
  here = ftello (r->file);
  if (here >= 0 && fstat (fileno (r->file), &st) == 0 && S_ISREG (st.st_mode)
      && (uint64_t) (st.st_size - here) < need)
    {
      cli_set_error (r->err, r->err_size,
                     "%s: truncated: %d x %d x %d needs %llu bytes of "
                     "pixels, the file has %llu",
                     r->path, width, height, channels,
                     (unsigned long long) need,
                     (unsigned long long) (st.st_size - here));
      return false;
    }
  if (need > SIZE_MAX / 4)
    return pnm_fail (r, "too large for this machine");
  *data_bytes = (size_t) need;
  return true;
}

static bool
pnm_alloc (PnmReader *r, CliImage *image, int width, int height, int channels)
{
  size_t n = (size_t) width * height * channels;

  image->data = malloc (n * sizeof (float));
  if (! image->data)
    {
      cli_set_error (r->err, r->err_size,
                     "%s: out of memory for %d x %d x %d floats", r->path,
                     width, height, channels);
      return false;
    }
  image->width = width;
  image->height = height;
  image->channels = channels;
  return true;
}

static bool
pnm_read_row (PnmReader *r, unsigned char *bytes, size_t n)
{
  if (fread (bytes, 1, n, r->file) != n)
    {
      if (ferror (r->file))
        cli_set_error (r->err, r->err_size, "%s: read error: %s", r->path,
                       strerror (errno));
      else
        cli_set_error (r->err, r->err_size,
                       "%s: truncated: the file ends inside the pixels",
                       r->path);
      return false;
    }
  return true;
}

static bool
pnm_read_pfm (PnmReader *r, CliImage *image, int channels)
{
  char           token[PNM_TOKEN_MAX];
  char          *end;
  double         scale;
  int            width, height;
  size_t         bytes, row_bytes;
  unsigned char *row;
  bool           swap;

  if (! pnm_token_int (r, 1, INT32_MAX, "width", &width)
      || ! pnm_token_int (r, 1, INT32_MAX, "height", &height)
      || ! pnm_token (r, token, "scale"))
    return false;
  scale = strtod (token, &end);
  if (*end != '\0' || ! isfinite (scale) || scale == 0.0)
    {
      cli_set_error (r->err, r->err_size,
                     "%s: bad header: the scale '%.20s' must be a non-zero "
                     "number (negative: little-endian)",
                     r->path, token);
      return false;
    }
  /* The scale's sign gives the byte order; its size is ignored, as most
   * readers do. */
  swap = (scale < 0) != pnm_host_is_little_endian ();

  if (! pnm_check_size (r, width, height, channels, 4, &bytes))
    return false;
  row_bytes = (size_t) width * channels * 4;
  row = malloc (row_bytes);
  if (! row || ! pnm_alloc (r, image, width, height, channels))
    {
      free (row);
      return row ? false : pnm_fail (r, "out of memory");
    }
  image->bits = 32;
  image->linear = true;

  /* PFM rows run from the bottom of the image to the top. */
  for (int y = height - 1; y >= 0; y--)
    {
      float *out = image->data + (size_t) y * width * channels;

      if (! pnm_read_row (r, row, row_bytes))
        {
          free (row);
          return false;
        }
      if (swap)
        for (size_t i = 0; i < row_bytes; i += 4)
          {
            unsigned char t0 = row[i], t1 = row[i + 1];

            row[i] = row[i + 3];
            row[i + 1] = row[i + 2];
            row[i + 2] = t1;
            row[i + 3] = t0;
          }
      memcpy (out, row, row_bytes);
    }
  free (row);
  return true;
}

static bool
pnm_read_integers (PnmReader *r,
                   CliImage  *image,
                   int        width,
                   int        height,
                   int        channels,
                   int        maxval)
{
  const int      sample_bytes = maxval > 255 ? 2 : 1;
  size_t         bytes, row_bytes;
  unsigned char *row;

  if (! pnm_check_size (r, width, height, channels, sample_bytes, &bytes))
    return false;
  row_bytes = (size_t) width * channels * sample_bytes;
  row = malloc (row_bytes);
  if (! row || ! pnm_alloc (r, image, width, height, channels))
    {
      free (row);
      return row ? false : pnm_fail (r, "out of memory");
    }
  image->bits = sample_bytes * 8;
  image->linear = false;

  for (int y = 0; y < height; y++)
    {
      float *out = image->data + (size_t) y * width * channels;
      size_t n = (size_t) width * channels;

      if (! pnm_read_row (r, row, row_bytes))
        {
          free (row);
          return false;
        }
      for (size_t i = 0; i < n; i++)
        {
          unsigned v = sample_bytes == 2
                         ? ((unsigned) row[2 * i] << 8) | row[2 * i + 1]
                         : row[i];

          /* Values above maxval break the format; clamp rather than
           * invent brighter-than-white. */
          if (v > (unsigned) maxval)
            v = (unsigned) maxval;
          out[i] = (float) v / (float) maxval;
        }
    }
  free (row);
  return true;
}

static bool
pnm_read_pnm (PnmReader *r, CliImage *image, int channels)
{
  int width, height, maxval;

  return pnm_token_int (r, 1, INT32_MAX, "width", &width)
         && pnm_token_int (r, 1, INT32_MAX, "height", &height)
         && pnm_token_int (r, 1, 65535, "maxval", &maxval)
         && pnm_read_integers (r, image, width, height, channels, maxval);
}

/* One header line of a PAM, without comments and blank lines; false at
 * end of file or on a line too long. */
static bool
pnm_pam_line (PnmReader *r, char *line)
{
  for (;;)
    {
      size_t n;
      char  *s;

      if (! fgets (line, PNM_LINE_MAX, r->file))
        return pnm_fail (r, "truncated header: ENDHDR is missing");
      n = strlen (line);
      if (n == PNM_LINE_MAX - 1 && line[n - 1] != '\n')
        return pnm_fail (r, "bad header: a header line is too long");
      while (n > 0 && isspace ((unsigned char) line[n - 1]))
        line[--n] = '\0';
      s = line;
      while (isspace ((unsigned char) *s))
        s++;
      if (*s == '\0' || *s == '#')
        continue;
      memmove (line, s, strlen (s) + 1);
      return true;
    }
}

static bool
pnm_read_pam (PnmReader *r, CliImage *image)
{
  static const struct
  {
    const char *name;
    int         depth;
  } types[] = {
    { "GRAYSCALE", 1 },
    { "BLACKANDWHITE", 1 },
    { "GRAYSCALE_ALPHA", 2 },
    { "BLACKANDWHITE_ALPHA", 2 },
    { "RGB", 3 },
    { "RGB_ALPHA", 4 },
  };
  char line[PNM_LINE_MAX];
  char tupltype[PNM_LINE_MAX] = "";
  int  width = -1, height = -1, depth = -1, maxval = -1;

  /* The rest of the "P7" line. */
  if (! pnm_pam_line (r, line))
    return false;
  for (int lines = 0; strcmp (line, "ENDHDR") != 0; lines++)
    {
      char *value = line;

      while (*value && ! isspace ((unsigned char) *value))
        value++;
      if (*value)
        *value++ = '\0';
      while (isspace ((unsigned char) *value))
        value++;

      if (lines > 1000)
        return pnm_fail (r, "bad header: more than 1000 lines");
      if (strcmp (line, "WIDTH") == 0)
        {
          if (! pnm_parse_int (r, value, 1, INT32_MAX, "WIDTH", &width))
            return false;
        }
      else if (strcmp (line, "HEIGHT") == 0)
        {
          if (! pnm_parse_int (r, value, 1, INT32_MAX, "HEIGHT", &height))
            return false;
        }
      else if (strcmp (line, "DEPTH") == 0)
        {
          if (! pnm_parse_int (r, value, 1, 4, "DEPTH", &depth))
            return false;
        }
      else if (strcmp (line, "MAXVAL") == 0)
        {
          if (! pnm_parse_int (r, value, 1, 65535, "MAXVAL", &maxval))
            return false;
        }
      else if (strcmp (line, "TUPLTYPE") == 0)
        {
          /* Several TUPLTYPE lines concatenate; one word is all we know. */
          if (tupltype[0])
            return pnm_fail (r, "bad header: more than one TUPLTYPE");
          snprintf (tupltype, sizeof tupltype, "%s", value);
        }
      else
        {
          cli_set_error (r->err, r->err_size,
                         "%s: bad header: unknown PAM field '%.40s'", r->path,
                         line);
          return false;
        }
      if (! pnm_pam_line (r, line))
        return false;
    }

  if (width < 0 || height < 0 || depth < 0 || maxval < 0)
    return pnm_fail (r, "bad header: WIDTH, HEIGHT, DEPTH and MAXVAL are "
                        "all required");
  if (tupltype[0])
    {
      size_t i;

      for (i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp (tupltype, types[i].name) == 0)
          break;
      if (i == sizeof types / sizeof types[0])
        {
          cli_set_error (r->err, r->err_size,
                         "%s: TUPLTYPE %.40s is not supported (GRAYSCALE, "
                         "GRAYSCALE_ALPHA, RGB or RGB_ALPHA)",
                         r->path, tupltype);
          return false;
        }
      if (types[i].depth != depth)
        {
          cli_set_error (r->err, r->err_size,
                         "%s: bad header: TUPLTYPE %s needs DEPTH %d, not %d",
                         r->path, tupltype, types[i].depth, depth);
          return false;
        }
    }
  /* Without TUPLTYPE the depth says it: 1 gray, 2 gray + alpha, 3 RGB,
   * 4 RGBA. */
  return pnm_read_integers (r, image, width, height, depth, maxval);
}

bool
cli_pnm_sniff (const unsigned char *head, size_t n)
{
  return n >= 2 && head[0] == 'P' && strchr ("1234567Ff", head[1])
         && head[1] != '\0' && (n == 2 || isspace (head[2]));
}

bool
cli_pnm_load (const char *path, CliImage *image, char *err, size_t err_size)
{
  PnmReader r = { NULL, path, err, err_size };
  char      magic[3] = "";
  bool      ok;

  memset (image, 0, sizeof *image);
  r.file = fopen (path, "rb");
  if (! r.file)
    {
      cli_set_error (err, err_size, "cannot open %s: %s", path,
                     strerror (errno));
      return false;
    }
  if (fread (magic, 1, 2, r.file) != 2)
    {
      fclose (r.file);
      return pnm_fail (&r, "truncated: not a PFM, PAM, PPM or PGM file");
    }

  if (magic[0] != 'P')
    ok = pnm_fail (&r, "not a PFM, PAM, PPM or PGM file (bad magic number)");
  else
    switch (magic[1])
      {
      case 'F': ok = pnm_read_pfm (&r, image, 3); break;
      case 'f': ok = pnm_read_pfm (&r, image, 1); break;
      case '5': ok = pnm_read_pnm (&r, image, 1); break;
      case '6': ok = pnm_read_pnm (&r, image, 3); break;
      case '7': ok = pnm_read_pam (&r, image); break;
      case '1':
      case '2':
      case '3':
      case '4':
        cli_set_error (err, err_size,
                       "%s: P%c (plain or bitmap PNM) is not supported; "
                       "use P5, P6, P7 or PFM (e.g. pnmtopnm, pamtopam)",
                       path, magic[1]);
        ok = false;
        break;
      default:
        ok = pnm_fail (&r, "not a PFM, PAM, PPM or PGM file "
                           "(bad magic number)");
      }
  fclose (r.file);
  if (! ok)
    cli_image_clear (image);
  return ok;
}

static bool
pnm_write_integers (FILE *file, const CliImage *image, int maxval)
{
  const size_t   n = (size_t) image->width * image->channels;
  const int      sample_bytes = maxval > 255 ? 2 : 1;
  unsigned char *row = malloc (n * sample_bytes);
  bool           ok = row != NULL;

  for (int y = 0; ok && y < image->height; y++)
    {
      const float *in = image->data + (size_t) y * n;

      for (size_t i = 0; i < n; i++)
        {
          float    v = in[i] * maxval;
          unsigned q;

          /* Round to nearest and clamp; NaN becomes 0. */
          if (! (v > 0.0f))
            q = 0;
          else if (v >= maxval)
            q = (unsigned) maxval;
          else
            q = (unsigned) (v + 0.5f);
          if (sample_bytes == 2)
            {
              row[2 * i] = (unsigned char) (q >> 8);
              row[2 * i + 1] = (unsigned char) (q & 0xff);
            }
          else
            row[i] = (unsigned char) q;
        }
      ok = fwrite (row, sample_bytes, n, file) == n;
    }
  free (row);
  return ok;
}

static bool
pnm_write_pfm (FILE *file, const CliImage *image)
{
  const size_t   n = (size_t) image->width * image->channels;
  const bool     swap = ! pnm_host_is_little_endian ();
  unsigned char *row = malloc (n * 4);
  bool           ok = row != NULL;

  /* Little-endian (negative scale), bottom row first. */
  for (int y = image->height - 1; ok && y >= 0; y--)
    {
      memcpy (row, image->data + (size_t) y * n, n * 4);
      if (swap)
        for (size_t i = 0; i < n * 4; i += 4)
          {
            unsigned char t0 = row[i], t1 = row[i + 1];

            row[i] = row[i + 3];
            row[i + 1] = row[i + 2];
            row[i + 2] = t1;
            row[i + 3] = t0;
          }
      ok = fwrite (row, 4, n, file) == n;
    }
  free (row);
  return ok;
}

bool
cli_pnm_write (FILE           *file,
               CliFormat       format,
               const CliImage *image,
               int             depth,
               char           *err,
               size_t          err_size)
{
  static const char *tupltypes[]
    = { "GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA" };
  const int maxval = depth == 16 ? 65535 : 255;
  bool      ok;

  switch (format)
    {
    case CLI_FORMAT_PFM:
      ok = fprintf (file, "%s\n%d %d\n-1.0\n",
                    image->channels == 1 ? "Pf" : "PF", image->width,
                    image->height)
             > 0
           && pnm_write_pfm (file, image);
      break;
    case CLI_FORMAT_PAM:
      ok = fprintf (file,
                    "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\n"
                    "TUPLTYPE %s\nENDHDR\n",
                    image->width, image->height, image->channels, maxval,
                    tupltypes[image->channels - 1])
             > 0
           && pnm_write_integers (file, image, maxval);
      break;
    case CLI_FORMAT_PPM:
    case CLI_FORMAT_PGM:
      ok = fprintf (file, "P%c\n%d %d\n%d\n",
                    format == CLI_FORMAT_PPM ? '6' : '5', image->width,
                    image->height, maxval)
             > 0
           && pnm_write_integers (file, image, maxval);
      break;
    default:
      cli_set_error (err, err_size, "internal error: not a netpbm format");
      return false;
    }
  if (! ok)
    cli_set_error (err, err_size, "write error: %s",
                   errno ? strerror (errno) : "out of memory");
  return ok;
}

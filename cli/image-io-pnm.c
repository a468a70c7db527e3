/* gimp-gpu-filters: PFM, PAM, PPM (P6) and PGM (P5) for gpufx.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Readers trust nothing in a header: sizes are checked against
 * CLI_MAX_PIXELS and against the bytes the file really has before anything
 * is allocated, so a hostile or truncated file gives an error, not a crash
 * or a huge allocation.  Where the length is unknown (a pipe), memory grows
 * only with the pixels that really arrive.  tests/fuzz/ fuzzes this file.
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

/* Samples read and converted at a time: memory for the raw bytes stays
 * small whatever the row length. */
#define PNM_CHUNK_SAMPLES 16384
/* A stream of unknown length starts with room for this many samples and
 * doubles as they arrive. */
#define PNM_GROW_FIRST (1 << 16)

typedef struct
{
  FILE       *file;
  const char *path;
  int64_t     size; /* the stream's length, or -1 when unknown */
  char       *err;
  size_t      err_size;
} PnmReader;

typedef enum
{
  PNM_SAMPLE_U8,
  PNM_SAMPLE_U16, /* big-endian, as netpbm stores them */
  PNM_SAMPLE_F32, /* in the host's byte order */
  PNM_SAMPLE_F32_SWAPPED
} PnmSample;

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
 * count, and the bytes left in the file when its length is known. */
static bool
pnm_check_size (PnmReader *r,
                int        width,
                int        height,
                int        channels,
                int        sample_bytes)
{
  int64_t  pixels = (int64_t) width * height;
  uint64_t need;
  off_t    here;

  if (pixels > CLI_MAX_PIXELS)
    {
      cli_set_error (r->err, r->err_size,
                     "%s: %d x %d is too large (at most 2^31 pixels)", r->path,
                     width, height);
      return false;
    }
  need = (uint64_t) pixels * channels * sample_bytes;
  here = ftello (r->file);
  if (r->size >= 0 && here >= 0 && here <= r->size
      && (uint64_t) (r->size - here) < need)
    {
      cli_set_error (r->err, r->err_size,
                     "%s: truncated: %d x %d x %d needs %llu bytes of "
                     "pixels, the file has %llu",
                     r->path, width, height, channels,
                     (unsigned long long) need,
                     (unsigned long long) (r->size - here));
      return false;
    }
  if ((uint64_t) pixels * channels > SIZE_MAX / sizeof (float))
    return pnm_fail (r, "too large for this machine");
  return true;
}

static void
pnm_convert (const unsigned char *in,
             float               *out,
             size_t               n,
             PnmSample            kind,
             unsigned             maxval)
{
  /* Values above maxval break the format; clamp rather than invent
   * brighter-than-white. */
  switch (kind)
    {
    case PNM_SAMPLE_F32: memcpy (out, in, n * 4); break;
    case PNM_SAMPLE_F32_SWAPPED:
      for (size_t i = 0; i < n; i++)
        {
          unsigned char b[4]
            = { in[4 * i + 3], in[4 * i + 2], in[4 * i + 1], in[4 * i] };

          memcpy (&out[i], b, 4);
        }
      break;
    case PNM_SAMPLE_U16:
      for (size_t i = 0; i < n; i++)
        {
          unsigned v = ((unsigned) in[2 * i] << 8) | in[2 * i + 1];

          out[i] = v > maxval ? 1.0f : (float) v / (float) maxval;
        }
      break;
    case PNM_SAMPLE_U8:
    default:
      for (size_t i = 0; i < n; i++)
        out[i] = in[i] > maxval ? 1.0f : (float) in[i] / (float) maxval;
      break;
    }
}

/* Reads the image's samples into image->data, top row first as the file
 * stores them.  With the stream's length unknown, the buffer grows with the
 * bytes that really arrive: a header claiming a huge image cannot make us
 * allocate more than a small multiple of what the input holds. */
static bool
pnm_read_samples (PnmReader *r,
                  CliImage  *image,
                  int        width,
                  int        height,
                  int        channels,
                  PnmSample  kind,
                  unsigned   maxval)
{
  const size_t  sample_bytes = kind == PNM_SAMPLE_U8    ? 1
                               : kind == PNM_SAMPLE_U16 ? 2
                                                        : 4;
  const size_t  count = (size_t) width * height * channels;
  unsigned char chunk[PNM_CHUNK_SAMPLES * 4];
  size_t        capacity, done = 0;
  float        *data;

  if (! pnm_check_size (r, width, height, channels, (int) sample_bytes))
    return false;
  capacity = r->size >= 0 || count < PNM_GROW_FIRST ? count : PNM_GROW_FIRST;
  data = malloc (capacity * sizeof (float));
  if (! data)
    {
      cli_set_error (r->err, r->err_size,
                     "%s: out of memory for %d x %d x %d floats", r->path,
                     width, height, channels);
      return false;
    }

  while (done < count)
    {
      size_t n
        = count - done < PNM_CHUNK_SAMPLES ? count - done : PNM_CHUNK_SAMPLES;

      if (fread (chunk, sample_bytes, n, r->file) != n)
        {
          if (ferror (r->file))
            cli_set_error (r->err, r->err_size, "%s: read error: %s", r->path,
                           strerror (errno));
          else
            cli_set_error (r->err, r->err_size,
                           "%s: truncated: the file ends inside the pixels",
                           r->path);
          free (data);
          return false;
        }
      if (done + n > capacity)
        {
          size_t grown = capacity > count / 2 ? count : 2 * capacity;
          float *more = realloc (data, grown * sizeof (float));

          if (! more)
            {
              free (data);
              return pnm_fail (r, "out of memory");
            }
          data = more;
          capacity = grown;
        }
      pnm_convert (chunk, data + done, n, kind, maxval);
      done += n;
    }

  image->data = data;
  image->width = width;
  image->height = height;
  image->channels = channels;
  return true;
}

static bool
pnm_read_pfm (PnmReader *r, CliImage *image, int channels)
{
  char      token[PNM_TOKEN_MAX];
  char     *end;
  double    scale;
  int       width, height;
  PnmSample kind;
  size_t    row;

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
  kind = (scale < 0) == pnm_host_is_little_endian () ? PNM_SAMPLE_F32
                                                     : PNM_SAMPLE_F32_SWAPPED;
  if (! pnm_read_samples (r, image, width, height, channels, kind, 1))
    return false;
  image->bits = 32;
  image->linear = true;

  /* PFM rows run from the bottom of the image to the top. */
  row = (size_t) width * channels;
  for (size_t top = 0, bottom = (size_t) height - 1; top < bottom;
       top++, bottom--)
    for (size_t i = 0; i < row; i++)
      {
        float t = image->data[top * row + i];

        image->data[top * row + i] = image->data[bottom * row + i];
        image->data[bottom * row + i] = t;
      }
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
  if (! pnm_read_samples (r, image, width, height, channels,
                          maxval > 255 ? PNM_SAMPLE_U16 : PNM_SAMPLE_U8,
                          (unsigned) maxval))
    return false;
  image->bits = maxval > 255 ? 16 : 8;
  image->linear = false;
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
cli_pnm_read (FILE                *file,
              const char          *name,
              const unsigned char *magic,
              int64_t              size,
              CliImage            *image,
              char                *err,
              size_t               err_size)
{
  PnmReader r = { file, name, size, err, err_size };
  bool      ok;

  memset (image, 0, sizeof *image);
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
                       name, magic[1]);
        ok = false;
        break;
      default:
        ok = pnm_fail (&r, "not a PFM, PAM, PPM or PGM file "
                           "(bad magic number)");
      }
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

/* gimp-gpu-filters: gpufx's file dispatch and atomic saving.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"
#include "image-io-private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

void
cli_set_error (char *err, size_t err_size, const char *format, ...)
{
  va_list args;

  if (! err || ! err_size)
    return;
  va_start (args, format);
  vsnprintf (err, err_size, format, args);
  va_end (args);
  /* Paths may hold newlines or terminal escapes: one printable line. */
  for (char *s = err; *s; s++)
    if (*s == '\n' || *s == '\r')
      *s = ' ';
    else if ((unsigned char) *s < 0x20 || *s == 0x7f)
      *s = '?';
}

void
cli_image_clear (CliImage *image)
{
  free (image->data);
  memset (image, 0, sizeof *image);
}

void
cli_image_io_shutdown (void)
{
#if HAVE_GEGL_IO
  cli_gegl_shutdown ();
#endif
}

/* The extension with its dot, or "" when the file name has none. */
static const char *
io_extension (const char *path)
{
  const char *slash = strrchr (path, '/');
  const char *dot = strrchr (path, '.');

  if (! dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
    return "";
  return dot;
}

CliFormat
cli_format_from_path (const char *path)
{
  const char *ext = io_extension (path);

  if (strcasecmp (ext, ".pfm") == 0)
    return CLI_FORMAT_PFM;
  if (strcasecmp (ext, ".pam") == 0)
    return CLI_FORMAT_PAM;
  if (strcasecmp (ext, ".ppm") == 0)
    return CLI_FORMAT_PPM;
  if (strcasecmp (ext, ".pgm") == 0)
    return CLI_FORMAT_PGM;
#if HAVE_GEGL_IO
  if (ext[0])
    return CLI_FORMAT_GEGL;
#endif
  return CLI_FORMAT_UNKNOWN;
}

#if HAVE_GEGL_IO
#define IO_OTHER_FORMATS ", or any format GEGL saves (.png, .tif, .exr, .jpg)"
#else
#define IO_OTHER_FORMATS                                                       \
  " (this gpufx was built without GEGL, so no PNG, "                           \
  "TIFF, EXR or JPEG)"
#endif

bool
cli_image_load (const char *path, CliImage *image, char *err, size_t err_size)
{
  unsigned char head[3] = { 0 };
  struct stat   st;
  FILE         *file;
  size_t        n;
  int           c;
  bool          ok;
  CliFormat     format = cli_format_from_path (path);

  memset (image, 0, sizeof *image);
  if (stat (path, &st) == 0 && S_ISDIR (st.st_mode))
    {
      cli_set_error (err, err_size, "cannot read %s: it is a directory", path);
      return false;
    }
  file = fopen (path, "rb");
  if (! file)
    {
      cli_set_error (err, err_size, "cannot open %s: %s", path,
                     strerror (errno));
      return false;
    }
  /* The magic number, and a peek at the byte after it, from the stream the
   * reader goes on with: a pipe cannot be opened twice. */
  n = fread (head, 1, 2, file);
  if (n == 2 && (c = getc (file)) != EOF)
    {
      head[n++] = (unsigned char) c;
      ungetc (c, file);
    }
  if (ferror (file))
    {
      cli_set_error (err, err_size, "cannot read %s: %s", path,
                     strerror (errno));
      fclose (file);
      return false;
    }
  if (n == 0)
    {
      cli_set_error (err, err_size, "%s is empty", path);
      fclose (file);
      return false;
    }

  if ((format != CLI_FORMAT_UNKNOWN && format != CLI_FORMAT_GEGL)
      || cli_pnm_sniff (head, n))
    {
      if (n < 2)
        {
          cli_set_error (err, err_size,
                         "%s: truncated: not a PFM, PAM, PPM or PGM file",
                         path);
          ok = false;
        }
      else
        ok = cli_pnm_read (file, path, head,
                           fstat (fileno (file), &st) == 0
                               && S_ISREG (st.st_mode)
                             ? (int64_t) st.st_size
                             : -1,
                           image, err, err_size);
      fclose (file);
      return ok;
    }
  fclose (file);
#if HAVE_GEGL_IO
  return cli_gegl_load (path, image, err, err_size);
#else
  cli_set_error (
    err, err_size,
    "%s: unknown format; gpufx reads PFM, PAM, PPM and PGM" IO_OTHER_FORMATS,
    path);
  return false;
#endif
}

bool
cli_image_check_output (const char *path,
                        int         channels,
                        int         depth,
                        char       *err,
                        size_t      err_size)
{
  const char *ext = io_extension (path);
  const char *slash = strrchr (path, '/');

  if (slash)
    {
      char       *dir = strndup (path, (size_t) (slash - path + 1));
      struct stat st;
      int         e = 0;

      if (! dir)
        e = ENOMEM;
      else if (stat (dir, &st) != 0)
        e = errno;
      else if (! S_ISDIR (st.st_mode))
        e = ENOTDIR;
      else if (access (dir, W_OK | X_OK) != 0)
        e = errno;
      free (dir);
      if (e)
        {
          cli_set_error (err, err_size, "cannot write %s: %s", path,
                         strerror (e));
          return false;
        }
    }
  else if (access (".", W_OK | X_OK) != 0)
    {
      cli_set_error (err, err_size, "cannot write %s: %s", path,
                     strerror (errno));
      return false;
    }
  if (depth != 0 && depth != 8 && depth != 16)
    {
      cli_set_error (err, err_size, "--depth must be 8 or 16");
      return false;
    }
  switch (cli_format_from_path (path))
    {
    case CLI_FORMAT_UNKNOWN:
      cli_set_error (
        err, err_size,
        "%s: %s%s; write .pfm, .pam, .ppm or .pgm" IO_OTHER_FORMATS, path,
        ext[0] ? "unknown extension " : "no extension", ext);
      return false;
    case CLI_FORMAT_PFM:
      if (channels > 0 && (channels == 2 || channels == 4))
        {
          cli_set_error (err, err_size,
                         "%s: PFM has no alpha channel and the image has "
                         "one; write .pam%s to keep it",
                         path,
#if HAVE_GEGL_IO
                         " (or .tif or .exr for float)"
#else
                         ""
#endif
          );
          return false;
        }
      if (depth)
        {
          cli_set_error (err, err_size,
                         "%s: --depth does not apply to PFM (always 32-bit "
                         "float)",
                         path);
          return false;
        }
      return true;
    case CLI_FORMAT_PGM:
      if (channels > 0 && channels != 1)
        {
          cli_set_error (err, err_size, "%s: %s", path,
                         channels == 2
                           ? "PGM has no alpha channel and the image has one; "
                             "write .pam to keep it"
                           : "PGM is gray and the image has colour; write "
                             ".ppm or .pam");
          return false;
        }
      return true;
    case CLI_FORMAT_PPM:
      if (channels > 0 && channels != 3)
        {
          cli_set_error (err, err_size, "%s: %s", path,
                         channels == 4
                           ? "PPM has no alpha channel and the image has one; "
                             "write .pam to keep it"
                           : "PPM is RGB and the image is gray; write .pgm or "
                             ".pam");
          return false;
        }
      return true;
    case CLI_FORMAT_PAM: return true;
    case CLI_FORMAT_GEGL:
#if HAVE_GEGL_IO
      if (channels > 0 && (channels == 2 || channels == 4)
          && (strcasecmp (ext, ".jpg") == 0 || strcasecmp (ext, ".jpeg") == 0))
        {
          cli_set_error (err, err_size,
                         "%s: JPEG has no alpha channel and the image has "
                         "one; write .png, .tif or .pam to keep it",
                         path);
          return false;
        }
      if (! cli_gegl_has_saver (ext))
        {
          cli_set_error (err, err_size,
                         "%s: GEGL cannot save %s files; write .pfm, .pam, "
                         ".ppm, .pgm, .png, .tif or .exr",
                         path, ext);
          return false;
        }
#endif
      return true;
    }
  return false;
}

/* A temporary file next to path, so that rename is atomic; suffix keeps
 * the extension for savers that pick the format by name. */
static int
io_temp_file (const char *path, const char *suffix, char **temp_path)
{
  const char *slash = strrchr (path, '/');
  size_t      dir_len = slash ? (size_t) (slash - path + 1) : 0;
  size_t      size = strlen (path) + strlen (suffix) + 32;
  char       *t = malloc (size);
  int         fd;

  if (! t)
    return -1;
  snprintf (t, size, "%.*s.%s.gpufx-XXXXXX%s", (int) dir_len, path,
            path + dir_len, suffix);
  fd = mkstemps (t, (int) strlen (suffix));
  if (fd < 0)
    {
      free (t);
      return -1;
    }
  *temp_path = t;
  return fd;
}

/* The temporary file being written, for cli_image_io_abort. */
static char *volatile io_pending_temp;

void
cli_image_io_abort (void)
{
  char *temp = io_pending_temp;

  if (temp)
    unlink (temp);
}

static mode_t
io_default_mode (void)
{
  mode_t mask = umask (0);

  umask (mask);
  return 0666 & ~mask;
}

bool
cli_image_save (const char     *path,
                const CliImage *image,
                int             depth,
                char           *err,
                size_t          err_size)
{
  CliFormat   format = cli_format_from_path (path);
  const char *ext = io_extension (path);
  char       *temp = NULL;
  bool        ok;
  int         fd;

  if (! cli_image_check_output (path, image->channels, depth, err, err_size))
    return false;
  if (depth == 0)
    depth = image->bits == 8 ? 8 : 16;

  fd = io_temp_file (path, format == CLI_FORMAT_GEGL ? ext : "", &temp);
  if (fd < 0)
    {
      cli_set_error (err, err_size, "cannot write %s: %s", path,
                     strerror (errno));
      return false;
    }
  io_pending_temp = temp;

  if (format == CLI_FORMAT_GEGL)
    {
#if HAVE_GEGL_IO
      struct stat st;

      close (fd);
      ok = cli_gegl_save (temp, ext, image, depth, err, err_size);
      if (ok && (stat (temp, &st) != 0 || st.st_size == 0))
        {
          cli_set_error (err, err_size, "%s: GEGL wrote nothing", path);
          ok = false;
        }
      if (ok && chmod (temp, io_default_mode ()) != 0)
        {
          cli_set_error (err, err_size, "cannot write %s: %s", path,
                         strerror (errno));
          ok = false;
        }
#else
      close (fd);
      ok = false;
#endif
    }
  else
    {
      FILE *file = fdopen (fd, "wb");

      if (! file)
        {
          cli_set_error (err, err_size, "cannot write %s: %s", path,
                         strerror (errno));
          close (fd);
          ok = false;
        }
      else
        {
          char why[CLI_ERR_MAX] = "";

          errno = 0;
          ok = fchmod (fd, io_default_mode ()) == 0
               && cli_pnm_write (file, format, image, depth, why, sizeof why)
               && fflush (file) == 0 && fsync (fd) == 0;
          if (! ok && ! why[0])
            snprintf (why, sizeof why, "%s", strerror (errno));
          if (fclose (file) != 0 && ok)
            {
              snprintf (why, sizeof why, "%s", strerror (errno));
              ok = false;
            }
          if (! ok)
            cli_set_error (err, err_size, "cannot write %s: %s", path, why);
        }
    }

  if (ok && rename (temp, path) != 0)
    {
      cli_set_error (err, err_size, "cannot write %s: %s", path,
                     strerror (errno));
      ok = false;
    }
  if (! ok)
    unlink (temp);
  io_pending_temp = NULL;
  free (temp);
  return ok;
}

/* gimp-gpu-filters: every other file format, through GEGL.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Values are read as stored: in the file's own transfer curve (R'G'B' for
 * an sRGB PNG, linear RGB for a float EXR) and colour space, as float.  So
 * an 8-bit PNG gives n / 255 exactly and a PNG round trip is lossless; the
 * filters then work on those values, as GIMP's own filters do on an image
 * in perceptual precision.  On saving, the image keeps the curve and space
 * it came with; PFM input counts as linear, PAM/PPM/PGM input as sRGB.
 */
#include "config.h"
#include "image-io-private.h"

#include <fcntl.h>
#include <gegl.h>
#include <string.h>
#include <unistd.h>

/* Public in libgegl but declared only in gegl-plugin.h, which wants the
 * including project's config.h. */
const gchar *gegl_operation_handlers_get_saver (const gchar *content_type);

static bool gegl_io_started;
static int  gegl_io_warnings;
static char gegl_io_last_message[200];

/* gpufx's errors are one line: GEGL's messages are kept for them, not
 * printed. */
static void
gegl_io_log (const gchar   *domain,
             GLogLevelFlags level,
             const gchar   *message,
             gpointer       data)
{
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    {
      gegl_io_warnings++;
      snprintf (gegl_io_last_message, sizeof gegl_io_last_message, "%s",
                message ? message : "");
    }
}

static void
gegl_io_start (void)
{
  if (gegl_io_started)
    return;
  g_log_set_default_handler (gegl_io_log, NULL);
  gegl_init (NULL, NULL);
  /* Savers register their extensions when their class is made: listing
   * the operations makes them all. */
  {
    guint n;

    g_free (gegl_list_operations (&n));
  }
  gegl_io_started = true;
}

void
cli_gegl_shutdown (void)
{
  if (gegl_io_started)
    gegl_exit ();
  gegl_io_started = false;
}

/* Libraries under GEGL (libpng, libtiff) print straight to stderr; while
 * GEGL works, stderr goes to /dev/null.  Returns the saved descriptor. */
static int
gegl_io_mute_stderr (void)
{
  int saved = dup (STDERR_FILENO);
  int null = open ("/dev/null", O_WRONLY | O_CLOEXEC);

  fflush (stderr);
  if (saved >= 0 && null >= 0)
    dup2 (null, STDERR_FILENO);
  if (null >= 0)
    close (null);
  return saved;
}

static void
gegl_io_unmute_stderr (int saved)
{
  if (saved < 0)
    return;
  fflush (stderr);
  dup2 (saved, STDERR_FILENO);
  close (saved);
}

static void
gegl_io_reset_messages (void)
{
  gegl_io_warnings = 0;
  gegl_io_last_message[0] = '\0';
}

static const char *
gegl_io_format_name (int channels, bool linear)
{
  static const char *names[2][4] = {
    { "Y' float", "Y'A float", "R'G'B' float", "R'G'B'A float" },
    { "Y float", "YA float", "RGB float", "RGBA float" },
  };

  return names[linear][channels - 1];
}

bool
cli_gegl_load (const char *path, CliImage *image, char *err, size_t err_size)
{
  GeglBuffer          *buffer = NULL;
  GeglNode            *graph, *load, *sink;
  const GeglRectangle *extent;
  const Babl          *format, *type;
  const char          *model, *type_name;
  bool                 gray, alpha;
  int                  muted;

  memset (image, 0, sizeof *image);
  gegl_io_start ();
  gegl_io_reset_messages ();

  muted = gegl_io_mute_stderr ();
  graph = gegl_node_new ();
  load
    = gegl_node_new_child (graph, "operation", "gegl:load", "path", path, NULL);
  sink = gegl_node_new_child (graph, "operation", "gegl:buffer-sink", "buffer",
                              &buffer, NULL);
  gegl_node_link (load, sink);
  gegl_node_process (sink);
  g_object_unref (graph);
  gegl_io_unmute_stderr (muted);

  extent = buffer ? gegl_buffer_get_extent (buffer) : NULL;
  if (! extent || extent->width < 1 || extent->height < 1)
    {
      /* GEGL's own messages ("processing 0px rectangle") say less. */
      cli_set_error (err, err_size,
                     "%s: GEGL cannot read it (an unknown "
                     "format, or a damaged file)",
                     path);
      g_clear_object (&buffer);
      return false;
    }
  if ((int64_t) extent->width * extent->height > CLI_MAX_PIXELS)
    {
      cli_set_error (err, err_size,
                     "%s: %d x %d is too large (at most "
                     "2^31 pixels)",
                     path, extent->width, extent->height);
      g_object_unref (buffer);
      return false;
    }

  format = gegl_buffer_get_format (buffer);
  model = babl_get_name (babl_format_get_model (format));
  type = babl_format_get_type (format, 0);
  type_name = type ? babl_get_name (type) : "float";
  gray = model[0] == 'Y';
  alpha = babl_format_has_alpha (format) != 0;

  image->width = extent->width;
  image->height = extent->height;
  image->channels = (gray ? 1 : 3) + (alpha ? 1 : 0);
  image->linear = ! strchr (model, '\'') && ! strchr (model, '~');
  image->bits = strcmp (type_name, "u8") == 0    ? 8
                : strcmp (type_name, "u16") == 0 ? 16
                                                 : 32;
  image->space = babl_format_get_space (format);
  image->data = g_try_malloc (sizeof (float) * image->width * image->height
                              * image->channels);
  if (! image->data)
    {
      cli_set_error (err, err_size, "%s: out of memory for %d x %d pixels",
                     path, image->width, image->height);
      g_object_unref (buffer);
      memset (image, 0, sizeof *image);
      return false;
    }
  gegl_buffer_get (
    buffer, extent, 1.0,
    babl_format_with_space (
      gegl_io_format_name (image->channels, image->linear), image->space),
    image->data, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  g_object_unref (buffer);
  return true;
}

bool
cli_gegl_has_saver (const char *extension)
{
  const char *saver;

  gegl_io_start ();
  gegl_io_reset_messages ();
  saver = gegl_operation_handlers_get_saver (extension);
  /* An unknown extension gets PNG with a warning: refuse it instead. */
  return saver && gegl_has_operation (saver) && gegl_io_warnings == 0;
}

bool
cli_gegl_save (const char     *path,
               const char     *extension,
               const CliImage *image,
               int             depth,
               char           *err,
               size_t          err_size)
{
  GeglRectangle rect = { 0, 0, image->width, image->height };
  const Babl   *format;
  const char   *saver;
  GeglBuffer   *buffer;
  GeglNode     *graph, *source, *save;
  GParamSpec   *bitdepth;
  int           muted;

  if (! cli_gegl_has_saver (extension))
    {
      cli_set_error (err, err_size, "GEGL cannot save %s files", extension);
      return false;
    }
  saver = gegl_operation_handlers_get_saver (extension);
  gegl_io_reset_messages ();

  format = babl_format_with_space (
    gegl_io_format_name (image->channels, image->linear), image->space);
  buffer = gegl_buffer_new (&rect, format);
  gegl_buffer_set (buffer, &rect, 0, format, image->data, GEGL_AUTO_ROWSTRIDE);

  muted = gegl_io_mute_stderr ();
  graph = gegl_node_new ();
  source = gegl_node_new_child (graph, "operation", "gegl:buffer-source",
                                "buffer", buffer, NULL);
  save = gegl_node_new_child (graph, "operation", saver, "path", path, NULL);
  bitdepth = gegl_operation_find_property (saver, "bitdepth");
  if (bitdepth && G_PARAM_SPEC_VALUE_TYPE (bitdepth) == G_TYPE_INT)
    gegl_node_set (save, "bitdepth", depth, NULL);
  gegl_node_link (source, save);
  gegl_node_process (save);
  g_object_unref (graph);
  gegl_io_unmute_stderr (muted);
  g_object_unref (buffer);

  if (gegl_io_warnings)
    {
      cli_set_error (err, err_size, "GEGL (%s) failed: %s", saver,
                     gegl_io_last_message);
      return false;
    }
  return true;
}

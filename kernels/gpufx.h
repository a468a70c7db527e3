/* gimp-gpu-filters: the filter engine's public API.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This header is the project's contract.  The CPU backend defines the
 * results; the CUDA backend must reproduce them (within float32 rounding).
 * Nothing here depends on GIMP, GEGL, GTK or GLib.
 *
 * IMAGES
 *   Float32, 1 to 4 interleaved channels, any row stride.  Values are not
 *   limited to [0, 1] (HDR is fine); NaN and Inf never crash anything, they
 *   just propagate through the arithmetic.  One channel may be alpha.
 *   When the image has alpha, gaussian-blur, convolve and kuwahara weight
 *   colour by alpha: they work on premultiplied colour, so transparent pixels
 *   leave no dark fringes.  An image flagged `premultiplied' is taken as it
 *   is (GIMP's "RaGaBaA float"); otherwise the engine premultiplies before
 *   and divides after (alpha <= 0 gives colour 0).  Sobel copies alpha.
 *
 * BORDER MODES (outside the whole image; defined for masks of any size by
 *   repeating the rule, as scipy.ndimage does)
 *   clamp   repeat the edge pixel                 (scipy "nearest")
 *   mirror  reflect about the edge pixel, the edge
 *           pixel not repeated: d c b | a b c d | c b a
 *                                                 (scipy "mirror",
 *                                                  OpenCV BORDER_REFLECT_101)
 *   wrap    periodic                              (scipy "grid-wrap")
 *   zero    0 outside; transparent where there is alpha
 *                                                 (scipy "constant", cval 0)
 *
 * FILTERS
 *   convolve
 *     A matrix of 1..63 columns by 1..63 rows, odd or even, finite weights,
 *     stored row-major as written (matrix[j * width + i]).
 *       out(x, y) = sum_j sum_i m[j][i] * in(x + i - w/2, y + j - h/2)
 *                   / divisor + offset          (w/2, h/2 rounded down)
 *     This is correlation with the matrix laid over the image as written
 *     (scipy.ndimage.correlate, origin 0; GIMP's Convolution Matrix).
 *     divisor must be non-zero unless normalize is set.  With normalize the
 *     divisor becomes the sum of the weights; when that sum is 0 the divisor
 *     is 1 and the offset 0.5, when it is negative the divisor is minus the
 *     sum and the offset 1 (GEGL's rules).  The offset applies to colour
 *     channels, not to alpha.  Orientation note: gegl:convolution-matrix
 *     reads its property (letter L, digit D) as the weight at horizontal
 *     offset L and vertical offset D, so matrix[j][i] here is GEGL's
 *     property letter i+1, digit j+1 (for a 5 x 5, centred).
 *     A rank-1 matrix runs as two 1-D passes.
 *   gaussian-blur
 *     std_dev_x, std_dev_y in [0, 1500]; 0 means no blur along that axis.
 *     Per axis, the sampled Gaussian exp(-k^2 / (2 sigma^2)) for |k| <= r,
 *     r = floor(4 sigma + 0.5), normalised to sum 1
 *     (scipy.ndimage.gaussian_filter1d with truncate = 4).  Error allowed
 *     on [0, 1] images: 1e-4 absolute for sigma <= 32, 1e-3 beyond.
 *   sobel
 *     Per colour channel, correlation with
 *       Gx = [-1 0 1; -2 0 2; -1 0 1]   Gy = [1 2 1; 0 0 0; -1 -2 -1]
 *     horizontal selects Gx (the gradient along x: it finds vertical
 *     edges), vertical selects Gy, as in gegl:edge-sobel.
 *     horizontal && vertical:   sqrt(Gx^2 + Gy^2) / sqrt(32)
 *     one direction, keep_sign: 0.5 + G / 8
 *     one direction, no sign:   |G| / 4
 *     neither direction:        colour 0
 *     Alpha is copied unchanged.  Works on straight (not premultiplied)
 *     colour, as gegl:edge-sobel does.
 *   kuwahara (classic)
 *     radius r >= 1 (at most GPUFX_KUWAHARA_MAX_RADIUS).  Four (r+1) x (r+1)
 *     quadrants share the centre pixel: top-left, top-right, bottom-left,
 *     bottom-right.  The winner has the smallest population variance of the
 *     value channel V = max(R, G, B) (the gray value for gray images); ties
 *     go to the first in that order.  The output is the winner's mean of
 *     every colour channel (of premultiplied colour where there is alpha);
 *     alpha is the winner's mean alpha.
 *
 * REGIONS
 *   gpufx_run_region filters dst_rect of an image_width x image_height
 *   image.  The caller passes an input that covers src_rect, which must
 *   contain gpufx_input_rect (filter, ..., dst_rect): the real neighbouring
 *   pixels.  Border rules apply only at the whole image's edges.  That is
 *   how the plug-in filters a selection, or one band of a huge image, with
 *   the true surrounding pixels.
 *
 * ERRORS
 *   Invalid parameters or images (NaN or out-of-range parameters, an empty
 *   or oversized matrix, a zero divisor without normalize, an empty image,
 *   overlapping input and output, ...) return an error status with a
 *   message in the report, and write nothing.
 */
#ifndef GPUFX_H
#define GPUFX_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define GPUFX_MAX_CHANNELS        4
#define GPUFX_MATRIX_MAX          63
#define GPUFX_STD_DEV_MAX         1500.0
#define GPUFX_KUWAHARA_MAX_RADIUS 255
#define GPUFX_MESSAGE_MAX         256

  typedef enum
  {
    GPUFX_OK = 0,
    GPUFX_ERROR_INVALID_ARGUMENT,    /* a parameter or a view is wrong        */
    GPUFX_ERROR_OUT_OF_MEMORY,       /* host memory                           */
    GPUFX_ERROR_BACKEND_UNAVAILABLE, /* the backend asked for cannot run here */
    GPUFX_ERROR_BACKEND_FAILED,      /* the backend failed mid-run            */
    GPUFX_ERROR_CANCELLED            /* the progress callback asked to stop   */
  } GpufxStatus;

  typedef enum
  {
    GPUFX_BORDER_CLAMP = 0,
    GPUFX_BORDER_MIRROR,
    GPUFX_BORDER_WRAP,
    GPUFX_BORDER_ZERO
  } GpufxBorder;

  typedef enum
  {
    GPUFX_BACKEND_AUTO = 0, /* CUDA when it works, else the CPU */
    GPUFX_BACKEND_CUDA,
    GPUFX_BACKEND_CPU
  } GpufxBackend;

  typedef enum
  {
    GPUFX_FILTER_CONVOLVE = 0,
    GPUFX_FILTER_GAUSSIAN_BLUR,
    GPUFX_FILTER_SOBEL,
    GPUFX_FILTER_KUWAHARA
  } GpufxFilterKind;

#define GPUFX_N_FILTERS 4

  /* A view of float32 pixels; it does not own them. */
  typedef struct
  {
    float    *data; /* the first channel of the top-left pixel      */
    int       width;
    int       height;
    int       channels;      /* 1 to 4, interleaved                          */
    ptrdiff_t stride;        /* floats from one row to the next, >= w * ch   */
    int       alpha;         /* index of the alpha channel, or -1 for none   */
    bool      premultiplied; /* colour already multiplied by alpha           */
  } GpufxImage;

  typedef struct
  {
    int x;
    int y;
    int width;
    int height;
  } GpufxRect;

  typedef struct
  {
    int    width;  /* 1 .. GPUFX_MATRIX_MAX */
    int    height; /* 1 .. GPUFX_MATRIX_MAX */
    float  matrix[GPUFX_MATRIX_MAX * GPUFX_MATRIX_MAX];
    double divisor;
    double offset;
    bool   normalize;
  } GpufxConvolveParams;

  typedef struct
  {
    double std_dev_x;
    double std_dev_y;
  } GpufxGaussianParams;

  typedef struct
  {
    bool horizontal;
    bool vertical;
    bool keep_sign;
  } GpufxSobelParams;

  typedef struct
  {
    int radius;
  } GpufxKuwaharaParams;

  typedef struct
  {
    GpufxFilterKind     kind;
    GpufxBorder         border;
    GpufxConvolveParams convolve;
    GpufxGaussianParams gaussian;
    GpufxSobelParams    sobel;
    GpufxKuwaharaParams kuwahara;
  } GpufxFilter;

  /* Return false to cancel; called from the calling thread only. */
  typedef bool (*GpufxProgressFunc) (double fraction, void *user_data);

  typedef struct
  {
    GpufxBackend      backend;
    int               threads;  /* CPU threads; 0 = all cores           */
    GpufxProgressFunc progress; /* may be NULL                          */
    void             *progress_data;
    size_t            cuda_band_bytes; /* 0 = sized from free GPU memory;
                                          tests force small bands with it   */
  } GpufxOptions;

  typedef struct
  {
    GpufxBackend backend_used; /* CPU or CUDA once something ran       */
    double       milliseconds; /* the filter alone, no file I/O        */
    char         message[GPUFX_MESSAGE_MAX]; /* why it failed, or a note such
                                                as a fallback to the CPU     */
  } GpufxReport;

  /* Filter defaults: the values the plug-in and the CLI start from. */
  void gpufx_filter_init (GpufxFilter *filter, GpufxFilterKind kind);
  void gpufx_options_init (GpufxOptions *options);

  /* Checks parameters only; message may be NULL. */
  GpufxStatus gpufx_filter_validate (const GpufxFilter *filter,
                                     char              *message,
                                     size_t             message_size);

  /* The input a region needs: dst_rect grown by the filter's reach, clipped
   * to the image (the whole axis where wrap or a mask larger than the image
   * needs it). */
  GpufxRect gpufx_input_rect (const GpufxFilter *filter,
                              int                image_width,
                              int                image_height,
                              GpufxRect          dst_rect);

  /* The whole image: src and dst have the same size and channels and must not
   * overlap.  options and report may be NULL. */
  GpufxStatus gpufx_run (const GpufxFilter  *filter,
                         const GpufxImage   *src,
                         const GpufxImage   *dst,
                         const GpufxOptions *options,
                         GpufxReport        *report);

  /* A region: src covers src_rect, dst receives dst_rect, both in the
   * coordinates of an image_width x image_height image. */
  GpufxStatus gpufx_run_region (const GpufxFilter  *filter,
                                const GpufxImage   *src,
                                GpufxRect           src_rect,
                                const GpufxImage   *dst,
                                GpufxRect           dst_rect,
                                int                 image_width,
                                int                 image_height,
                                const GpufxOptions *options,
                                GpufxReport        *report);

  /* Whether a backend can run here; AUTO is always available.  On false,
   * why (if not NULL) says what is missing.  The CUDA device is probed once. */
  bool
  gpufx_backend_available (GpufxBackend backend, char *why, size_t why_size);

  /* Memory for images that a backend will filter: page-locked when the
   * backend may be CUDA and CUDA works here, so that it goes to and from
   * the GPU without staging copies (such blocks are kept for reuse after
   * gpufx_host_free, up to an eighth of the machine's memory, until
   * gpufx_release); else ordinary memory in huge pages.  NULL when there is
   * not enough, or when the environment's GPUFX_MEMORY_LIMIT (bytes, or
   * with a K, M or G suffix) would be passed by the large blocks in use.
   * Free with gpufx_host_free. */
  void *gpufx_host_alloc (size_t bytes, GpufxBackend backend);
  void  gpufx_host_free (void *p);

  /* Frees the CUDA context (device buffers, pinned memory, streams) that
   * calls keep between them.  Safe to call at any time. */
  void gpufx_release (void);

  const char *gpufx_status_message (GpufxStatus status);
  const char *gpufx_backend_name (GpufxBackend backend);
  const char *gpufx_border_name (GpufxBorder border);
  const char *gpufx_filter_name (GpufxFilterKind kind);

#ifdef __cplusplus
}
#endif

#endif /* GPUFX_H */

/* gimp-gpu-filters: what the engine's core hands to a backend.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The core (gpufx.c) checks every parameter and view, resolves normalize
 * into a plain divisor and offset, converts alpha to what the filter works
 * on, and then calls one backend with a GpufxJob.  A backend only does the
 * arithmetic; border semantics come from border.h, shared by both.
 */
#ifndef GPUFX_PRIVATE_H
#define GPUFX_PRIVATE_H

#include "gpufx.h"

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct
  {
    /* Validated.  For convolve, normalize is resolved: divisor and offset are
     * final and normalize is false. */
    GpufxFilter filter;

    int channels; /* 1..4 */
    int alpha;    /* alpha channel index or -1 */
    int image_width;
    int image_height;

    /* Input: covers src_rect (image coordinates), which contains every pixel
     * inside the image that dst_rect's outputs reach.  Colour is
     * premultiplied by alpha when the filter works premultiplied
     * (gpufx_filter_premultiplies), straight otherwise. */
    const float *src;
    ptrdiff_t    src_stride; /* floats between rows */
    GpufxRect    src_rect;

    /* Output: dst_rect (image coordinates), same channel layout. */
    float    *dst;
    ptrdiff_t dst_stride;
    GpufxRect dst_rect;

    const GpufxOptions *options; /* never NULL */
  } GpufxJob;

  /* True for filters that work on premultiplied colour (all but sobel). */
  bool gpufx_filter_premultiplies (GpufxFilterKind kind);

  /* The Gaussian's half-width for one axis: floor(4 sigma + 0.5); 0 for
   * sigma == 0. */
  int gpufx_gaussian_radius (double sigma);

  /* How far the filter reaches from an output pixel, per side. */
  void gpufx_filter_reach (const GpufxFilter *filter,
                           int               *left,
                           int               *right,
                           int               *top,
                           int               *bottom);

  /* Writes a message into report (if not NULL) and returns status. */
  GpufxStatus
  gpufx_fail (GpufxReport *report, GpufxStatus status, const char *format, ...)
#ifdef __GNUC__
    __attribute__ ((format (printf, 3, 4)))
#endif
    ;

  /* Progress from a backend: fraction of the job done.  Returns false when
   * the caller asked to cancel.  Safe to call often: it calls the user's
   * function only from the thread that started the job. */
  bool gpufx_job_progress (const GpufxJob *job, double fraction);

  /* Backends.  They may assume a validated job. */
  GpufxStatus gpufx_cpu_run (const GpufxJob *job, GpufxReport *report);

  /* CUDA: probe once (cached), run.  Built as stubs without CUDA. */
  bool        gpufx_cuda_probe (char *why, size_t why_size);
  GpufxStatus gpufx_cuda_run (const GpufxJob *job, GpufxReport *report);
  void        gpufx_cuda_release (void);

  /* Page-locked host memory (NULL when CUDA cannot run here). */
  void *gpufx_cuda_host_alloc (size_t bytes);
  void  gpufx_cuda_host_free (void *p);

  /* Copies rows of row_bytes (strides in bytes) on the job's threads, for
   * the large copies around a backend (the CUDA backend's staging). */
  void gpufx_copy_rows (const GpufxJob *job,
                        void           *dst,
                        size_t          dst_stride,
                        const void     *src,
                        size_t          src_stride,
                        size_t          row_bytes,
                        int             rows);

  /* Frees the idle blocks that gpufx_host_alloc keeps for reuse. */
  void gpufx_host_release (void);

#ifdef __cplusplus
}
#endif

#endif /* GPUFX_PRIVATE_H */

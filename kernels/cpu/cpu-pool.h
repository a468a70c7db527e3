/* gimp-gpu-filters: the CPU backend's worker pool and shared helpers.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef GPUFX_CPU_POOL_H
#define GPUFX_CPU_POOL_H

#include "gpufx-private.h"

/* Hot loops get an AVX2+FMA clone picked at load time; the build stays
 * portable (no -march).  x86-64 ELF with GCC only. */
#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__)               \
  && ! defined(__clang__) && ! defined(GPUFX_NO_CLONES)
#define CPU_HOT __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#else
#define CPU_HOT
#endif

/* Kernels written twice (8-float and 4-float vectors) pick at run time:
 * CPU_HAVE_V3 says the AVX2 + FMA copy is built, cpu_has_v3 () whether
 * this CPU runs it. */
#if defined(__x86_64__) && defined(__GNUC__) && ! defined(GPUFX_NO_CLONES)
#define CPU_HAVE_V3 1
static inline bool
cpu_has_v3 (void)
{
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
}
#else
#define CPU_HAVE_V3 0
#endif

/* Eight floats, any alignment: accumulators that stay in registers (GCC
 * and Clang vector extensions; lowered to SSE in the default clone). */
typedef float CpuV8 __attribute__ ((vector_size (32), aligned (4), may_alias));
/* Four floats: the same for CPUs without AVX2 (cpu-variants.h). */
typedef float CpuV4 __attribute__ ((vector_size (16), aligned (4), may_alias));

/* Runs fn (ctx, begin, end) over [0, n_items) in chunks of grain items on
 * the job's threads (options->threads, 0 = all cores), the calling thread
 * included.  fn returns false when it ran out of memory.  Progress goes
 * from lo to hi, reported from the calling thread only; a cancel from the
 * progress callback stops handing out chunks.  Returns GPUFX_OK,
 * GPUFX_ERROR_CANCELLED or GPUFX_ERROR_OUT_OF_MEMORY (with a message). */
typedef bool (*CpuTaskFunc) (void *ctx, int begin, int end);

GpufxStatus cpu_parallel_for (const GpufxJob *job,
                              GpufxReport    *report,
                              int             n_items,
                              int             grain,
                              CpuTaskFunc     fn,
                              void           *ctx,
                              double          lo,
                              double          hi);

/* The same for work around the filter (copies, alpha conversions): no
 * progress reported, no cancel, and fn must not fail. */
void cpu_parallel_quiet (const GpufxJob *job,
                         int             n_items,
                         int             grain,
                         CpuTaskFunc     fn,
                         void           *ctx);

/* How many threads the job may use. */
int cpu_thread_count (const GpufxJob *job);

/* Source columns for image columns x0 .. x0 + n - 1 under the job's border
 * rule: offsets in floats from a source row's start, or -1 for zero.
 * Returns NULL when out of memory. */
ptrdiff_t *cpu_column_map (const GpufxJob *job, int x0, int n);

/* The source row for image row y under the border rule, or NULL (zero). */
const float *cpu_source_row (const GpufxJob *job, int y);

/* Copies image columns described by map (n entries) of image row y into
 * out (n * channels floats), zeros where the border says so. */
void cpu_fill_row (const GpufxJob  *job,
                   const ptrdiff_t *map,
                   int              n,
                   int              y,
                   float           *out);

#endif /* GPUFX_CPU_POOL_H */

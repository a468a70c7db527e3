/* gimp-gpu-filters: builds a vector kernel file twice, as an 8-float
 * AVX2 + FMA copy (where the compiler can make one) and a 4-float copy for
 * every other x86-64 CPU; the caller picks one at run time with
 * cpu_has_v3 ().
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: #define CPU_VARIANTS_FILE "kernel-file.h", then include this.
 * The kernel file sees GF_V (the vector type), GF_W (its width in floats),
 * GF_ATTR (the target attribute) and GF_NAME (f) (f with the variant's
 * suffix, _v4 or _v8).
 */
#include "cpu-pool.h"

#ifndef CPU_VARIANTS_FILE
#error "define CPU_VARIANTS_FILE before including cpu-variants.h"
#endif

#define GF_V CpuV4
#define GF_W 4
#define GF_ATTR
#define GF_NAME(f) f##_v4
#include CPU_VARIANTS_FILE
#undef GF_V
#undef GF_W
#undef GF_ATTR
#undef GF_NAME

#if CPU_HAVE_V3
#define GF_V       CpuV8
#define GF_W       8
#define GF_ATTR    __attribute__ ((target ("arch=x86-64-v3")))
#define GF_NAME(f) f##_v8
#include CPU_VARIANTS_FILE
#undef GF_V
#undef GF_W
#undef GF_ATTR
#undef GF_NAME
#endif

#undef CPU_VARIANTS_FILE

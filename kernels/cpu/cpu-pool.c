/* gimp-gpu-filters: a small reusable worker pool for the CPU backend.
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Workers are started once and wait for parallel-for jobs.  One job runs on
 * the pool at a time; a second caller that finds it busy (two previews at
 * once) gets threads of its own for that call, so nobody waits.
 *
 * Why a job cannot wait for ever (reviewed for a hang once seen and never
 * reproduced; tests/engine/test-pool-stress.c):
 * - A job on the pool waits for running == helpers workers.  helpers is at
 *   most pool.n_workers, and every worker that exists takes part in it:
 *   the job is posted under pool.lock with generation + 1, and a worker
 *   sees a generation it has not seen (seen <= generation always) whether
 *   it is waiting on pool.work (the broadcast wakes it) or not (it checks
 *   the generation under the lock before it waits).  It joins if fewer
 *   than helpers have joined; joining, the job and its clearing are all
 *   under pool.lock, so a late worker never touches a job that is gone.
 * - Only one job is on the pool at a time (busy), and it is cleared only
 *   when running is 0, so no worker is inside an older job when a new one
 *   is posted: the helpers a job counts on are all free to come.  A
 *   worker joins at most once per generation, so running counts each
 *   helper once; a failed pthread_create only makes n_workers smaller.
 * - running reaches 0 under the job's lock, with a broadcast, and the
 *   caller re-checks it under that lock (and every 100 ms anyway).
 * - Private threads (the pool busy, or a job started from inside a job)
 *   are counted before they start and joined before the caller returns.
 * The one way found to wait for ever: fork ().  A child has the parent's
 * pool.n_workers but none of its threads, so its first job on the pool
 * waited for helpers that did not exist (and pool.lock or busy could be
 * held by a thread that is not there).  pool_atfork_child () now starts
 * the child with an empty pool.
 */
#include "cpu-pool.h"
#include "border.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POOL_MAX_THREADS 256

typedef struct
{
  CpuTaskFunc      fn;
  void            *ctx;
  int              n_items;
  int              grain;
  int              helpers; /* workers wanted besides the caller */
  atomic_int       next;    /* next chunk */
  atomic_int       done;    /* items finished */
  atomic_int       joined;  /* workers that took part */
  atomic_bool      stop;    /* cancelled or failed */
  atomic_bool      oom;
  atomic_int       running; /* helpers still working */
  pthread_mutex_t *lock;
  pthread_cond_t  *finished;
} PoolJob;

typedef struct
{
  pthread_mutex_t lock;
  pthread_cond_t  work;
  pthread_cond_t  finished;
  pthread_mutex_t busy; /* held by the caller whose job the pool runs */
  unsigned long   generation;
  PoolJob        *job;
  int             n_workers;
} Pool;

static Pool pool = { PTHREAD_MUTEX_INITIALIZER,
                     PTHREAD_COND_INITIALIZER,
                     PTHREAD_COND_INITIALIZER,
                     PTHREAD_MUTEX_INITIALIZER,
                     0,
                     NULL,
                     0 };

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* pool.lock is held across fork () so that the child's copy of the pool is
 * consistent; the child has only the forking thread, so it starts with no
 * workers, no job, a fresh busy lock (it may have been held by a thread
 * that the child does not have) and fresh conditions. */
static void
pool_atfork_prepare (void)
{
  pthread_mutex_lock (&pool.lock);
}

static void
pool_atfork_parent (void)
{
  pthread_mutex_unlock (&pool.lock);
}

static void
pool_atfork_child (void)
{
  pthread_mutex_unlock (&pool.lock); /* this thread's, from prepare */
  pthread_mutex_init (&pool.busy, NULL);
  pthread_cond_init (&pool.work, NULL);
  pthread_cond_init (&pool.finished, NULL);
  pool.job = NULL;
  pool.n_workers = 0;
}

static void
pool_init (void)
{
  pthread_atfork (pool_atfork_prepare, pool_atfork_parent, pool_atfork_child);
}

int
cpu_thread_count (const GpufxJob *job)
{
  int n = job->options->threads;

  if (n <= 0)
    {
      long cores = sysconf (_SC_NPROCESSORS_ONLN);

      n = cores > 0 ? (int) cores : 1;
    }
  return n < POOL_MAX_THREADS ? n : POOL_MAX_THREADS;
}

/* Takes chunks until none are left or the job stops. */
static void
pool_work (PoolJob *job)
{
  for (;;)
    {
      int chunk, begin, end;

      if (atomic_load (&job->stop))
        return;
      chunk = atomic_fetch_add (&job->next, 1);
      if ((long) chunk * job->grain >= job->n_items)
        return;
      begin = chunk * job->grain;
      end
        = job->n_items - begin < job->grain ? job->n_items : begin + job->grain;
      if (! job->fn (job->ctx, begin, end))
        {
          atomic_store (&job->oom, true);
          atomic_store (&job->stop, true);
          return;
        }
      atomic_fetch_add (&job->done, end - begin);
    }
}

static void
pool_helper_done (PoolJob *job)
{
  pthread_mutex_lock (job->lock);
  if (atomic_fetch_sub (&job->running, 1) == 1)
    pthread_cond_broadcast (job->finished);
  pthread_mutex_unlock (job->lock);
}

static void *
pool_worker (void *data)
{
  /* The generation when this worker was made: a job posted before the
   * thread got the lock must not be missed. */
  unsigned long seen = (unsigned long) (uintptr_t) data;

  pthread_mutex_lock (&pool.lock);
  for (;;)
    {
      PoolJob *job;

      while (pool.generation == seen)
        pthread_cond_wait (&pool.work, &pool.lock);
      seen = pool.generation;
      /* Joining is decided under the lock: the caller clears pool.job
       * under it once its helpers are done, so nobody touches a job that
       * is gone. */
      job = pool.job;
      if (job && atomic_load (&job->joined) < job->helpers)
        atomic_fetch_add (&job->joined, 1);
      else
        job = NULL;
      pthread_mutex_unlock (&pool.lock);

      if (job)
        {
          pool_work (job);
          pool_helper_done (job);
        }
      pthread_mutex_lock (&pool.lock);
    }
  return NULL;
}

static void *
pool_private_worker (void *data)
{
  PoolJob *job = data;

  pool_work (job);
  pool_helper_done (job);
  return NULL;
}

/* Grows the pool to n workers (as many as it can). */
static void
pool_grow (int n)
{
  while (pool.n_workers < n)
    {
      pthread_t      t;
      pthread_attr_t attr;

      pthread_attr_init (&attr);
      pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
      if (pthread_create (&t, &attr, pool_worker,
                          (void *) (uintptr_t) pool.generation)
          != 0)
        {
          pthread_attr_destroy (&attr);
          break;
        }
      pthread_attr_destroy (&attr);
      pool.n_workers++;
    }
}

GpufxStatus
cpu_parallel_for (const GpufxJob *job,
                  GpufxReport    *report,
                  int             n_items,
                  int             grain,
                  CpuTaskFunc     fn,
                  void           *ctx,
                  double          lo,
                  double          hi)
{
  PoolJob         pj;
  pthread_mutex_t private_lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t  private_finished = PTHREAD_COND_INITIALIZER;
  pthread_t       private_threads[POOL_MAX_THREADS];
  int             n_private = 0;
  bool            on_pool = false;
  int             want;
  bool            cancelled = false;

  if (n_items <= 0)
    return GPUFX_OK;
  if (grain < 1)
    grain = 1;

  memset (&pj, 0, sizeof pj);
  pj.fn = fn;
  pj.ctx = ctx;
  pj.n_items = n_items;
  pj.grain = grain;
  want = cpu_thread_count (job) - 1;
  if (want > (n_items + grain - 1) / grain - 1)
    want = (n_items + grain - 1) / grain - 1;
  atomic_init (&pj.next, 0);
  atomic_init (&pj.done, 0);
  atomic_init (&pj.joined, 0);
  atomic_init (&pj.stop, false);
  atomic_init (&pj.oom, false);
  atomic_init (&pj.running, 0);

  if (want > 0)
    pthread_once (&pool_once, pool_init);
  if (want > 0 && pthread_mutex_trylock (&pool.busy) == 0)
    {
      on_pool = true;
      pthread_mutex_lock (&pool.lock);
      pool_grow (want);
      pj.helpers = want < pool.n_workers ? want : pool.n_workers;
      atomic_store (&pj.running, pj.helpers);
      pj.lock = &pool.lock;
      pj.finished = &pool.finished;
      if (pj.helpers > 0)
        {
          pool.job = &pj;
          pool.generation++;
          pthread_cond_broadcast (&pool.work);
        }
      pthread_mutex_unlock (&pool.lock);
    }
  else if (want > 0)
    {
      pj.lock = &private_lock;
      pj.finished = &private_finished;
      atomic_store (&pj.running, want);
      for (; n_private < want; n_private++)
        if (pthread_create (&private_threads[n_private], NULL,
                            pool_private_worker, &pj)
            != 0)
          break;
      atomic_fetch_sub (&pj.running, want - n_private);
    }
  else
    {
      pj.lock = &private_lock;
      pj.finished = &private_finished;
    }

  /* The caller works too, and reports progress between its chunks. */
  for (;;)
    {
      int chunk, begin, end;

      if (atomic_load (&pj.stop))
        break;
      chunk = atomic_fetch_add (&pj.next, 1);
      if ((long) chunk * grain >= n_items)
        break;
      begin = chunk * grain;
      end = n_items - begin < grain ? n_items : begin + grain;
      if (! fn (ctx, begin, end))
        {
          atomic_store (&pj.oom, true);
          atomic_store (&pj.stop, true);
          break;
        }
      atomic_fetch_add (&pj.done, end - begin);
      if (! gpufx_job_progress (
            job, lo + (hi - lo) * atomic_load (&pj.done) / n_items))
        {
          cancelled = true;
          atomic_store (&pj.stop, true);
        }
    }

  /* Wait for the helpers, still reporting progress now and then. */
  pthread_mutex_lock (pj.lock);
  while (atomic_load (&pj.running) > 0)
    {
      struct timespec ts;

      clock_gettime (CLOCK_REALTIME, &ts);
      ts.tv_nsec += 100 * 1000 * 1000;
      if (ts.tv_nsec >= 1000000000L)
        {
          ts.tv_sec++;
          ts.tv_nsec -= 1000000000L;
        }
      pthread_cond_timedwait (pj.finished, pj.lock, &ts);
      if (atomic_load (&pj.running) > 0 && ! cancelled)
        {
          pthread_mutex_unlock (pj.lock);
          if (! gpufx_job_progress (
                job, lo + (hi - lo) * atomic_load (&pj.done) / n_items))
            {
              cancelled = true;
              atomic_store (&pj.stop, true);
            }
          pthread_mutex_lock (pj.lock);
        }
    }
  if (on_pool)
    pool.job = NULL;
  pthread_mutex_unlock (pj.lock);
  if (on_pool)
    pthread_mutex_unlock (&pool.busy);
  for (int i = 0; i < n_private; i++)
    pthread_join (private_threads[i], NULL);

  if (atomic_load (&pj.oom))
    return gpufx_fail (report, GPUFX_ERROR_OUT_OF_MEMORY,
                       "out of memory for the %s's working buffers",
                       gpufx_filter_name (job->filter.kind));
  if (cancelled)
    return gpufx_fail (report, GPUFX_ERROR_CANCELLED, "cancelled");
  return GPUFX_OK;
}

ptrdiff_t *
cpu_column_map (const GpufxJob *job, int x0, int n)
{
  ptrdiff_t *map = malloc (sizeof (ptrdiff_t) * (size_t) (n > 0 ? n : 1));

  if (! map)
    return NULL;
  for (int i = 0; i < n; i++)
    {
      int x = gpufx_border_index (x0 + i, job->image_width, job->filter.border);

      map[i] = x < 0 ? -1 : (ptrdiff_t) (x - job->src_rect.x) * job->channels;
    }
  return map;
}

const float *
cpu_source_row (const GpufxJob *job, int y)
{
  int j = gpufx_border_index (y, job->image_height, job->filter.border);

  if (j < 0)
    return NULL;
  return job->src + (ptrdiff_t) (j - job->src_rect.y) * job->src_stride;
}

void
cpu_fill_row (const GpufxJob  *job,
              const ptrdiff_t *map,
              int              n,
              int              y,
              float           *out)
{
  const int    ch = job->channels;
  const float *row = cpu_source_row (job, y);

  if (! row)
    {
      memset (out, 0, sizeof (float) * (size_t) n * ch);
      return;
    }
  for (int i = 0; i < n;)
    {
      /* Runs of consecutive source pixels are copied in one go. */
      int run = 1;

      if (map[i] < 0)
        {
          memset (out + (size_t) i * ch, 0, sizeof (float) * ch);
          i++;
          continue;
        }
      while (i + run < n && map[i + run] == map[i] + (ptrdiff_t) run * ch)
        run++;
      memcpy (out + (size_t) i * ch, row + map[i],
              sizeof (float) * (size_t) run * ch);
      i += run;
    }
}

void
cpu_parallel_quiet (const GpufxJob *job,
                    int             n_items,
                    int             grain,
                    CpuTaskFunc     fn,
                    void           *ctx)
{
  GpufxOptions quiet = *job->options;
  GpufxJob     copy = *job;
  GpufxReport  unused;

  quiet.progress = NULL;
  copy.options = &quiet;
  cpu_parallel_for (&copy, &unused, n_items, grain, fn, ctx, 0.0, 0.0);
}

typedef struct
{
  char       *dst;
  size_t      dst_stride;
  const char *src;
  size_t      src_stride;
  size_t      row_bytes;
} CpuRowCopy;

static bool
cpu_copy_rows_part (void *data, int begin, int end)
{
  const CpuRowCopy *c = data;

  for (int j = begin; j < end; j++)
    memcpy (c->dst + c->dst_stride * j, c->src + c->src_stride * j,
            c->row_bytes);
  return true;
}

void
gpufx_copy_rows (const GpufxJob *job,
                 void           *dst,
                 size_t          dst_stride,
                 const void     *src,
                 size_t          src_stride,
                 size_t          row_bytes,
                 int             rows)
{
  CpuRowCopy c = { dst, dst_stride, src, src_stride, row_bytes };
  /* A thread is worth about 256 KiB: below that, waking it costs more (one
   * chunk runs on the calling thread alone). */
  int grain = (int) ((size_t) 256 * 1024 / (row_bytes ? row_bytes : 1)) + 1;

  cpu_parallel_quiet (job, rows, grain, cpu_copy_rows_part, &c);
}

/* gimp-gpu-filters: Kuwahara's plan (GPUFX_CUDA_KUWA_BLOCK unset)
 * against forced configurations, in one process.
 *   bench-kuwa-plan [CONFIG...]   (default: plan 4ar 8ar 8a 16a)
 * A few seconds on an H100 (device-resident; nothing copied back but a max).
 *
 * Per case and configuration, two passes (cases and configurations in
 * opposite orders), each 3 warm-ups then 15 timed runs with the input
 * rotated over 4 buffers larger than L2, median of 15:
 *   ev:  CUDA events around the call, as bench-gpu does (the
 *        host's planning is inside the bracket: the GPU waits for it);
 *   dev: the same with a ~100 us spin kernel queued before the first
 *        event, so that the host has launched before the bracket opens:
 *        the kernel alone;
 *   host: the call's host time (us, median; the launch is asynchronous).
 * What each configuration resolved to is read from a stream capture of
 * one call (kernel name, block, dynamic shared memory, grid), so a forced
 * configuration that cannot run (the plan then chooses) shows what ran:
 *   <warps><a|u>[r][t][c<cols>] grid <bx>x<by> (<rows> rows per block)
 * "worst" is the largest |out - plan's out| (pass 1, every pixel).
 * Lines: "W H C r cfg -> resolved | ev p1/p2 | dev p1/p2 | host | worst",
 * then one summary line per case: the plan's pick and dev time against
 * the fastest forced configuration's (min over passes).
 *
 * Copyright (C) 2026 The gimp-gpu-filters authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda-internal.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include "bench-check.h"

__global__ void
spin (long long cycles)
{
  long long t0 = clock64 ();

  while (clock64 () - t0 < cycles)
    ;
}

/* max |a - b| as float bits (non-negative floats order as integers). */
__global__ void
maxdiff (const float *a, const float *b, size_t n, unsigned *m)
{
  unsigned v = 0;

  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    {
      float d = fabsf (a[i] - b[i]);

      if (! (d <= 3e38f))
        d = 3e38f; /* NaN or inf */
      v = max (v, __float_as_uint (d));
    }
  atomicMax (m, v);
}

struct Case
{
  int w, h, c, r;
};

struct Res
{
  std::string        resolved;
  std::vector<float> ev[2], dev[2], host[2];
  float              worst = -1;
};

static float
median (std::vector<float> v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

/* What one call launches, from a capture on a stream of our own. */
static std::string
resolve (CudaGeom g, CudaPlane pi, CudaPlane po, int r, CudaScratch sc)
{
  cudaStream_t s;
  cudaGraph_t  graph;
  size_t       n = 0;
  std::string  out = "?";

  CK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CK (cudaStreamBeginCapture (s, cudaStreamCaptureModeRelaxed));
  cudaError_t e = gpufx_cuda_kuwahara (g, pi, po, r, sc, s);
  CK (cudaStreamEndCapture (s, &graph));
  CK (e);
  CK (cudaGraphGetNodes (graph, NULL, &n));
  std::vector<cudaGraphNode_t> nodes (n);
  CK (cudaGraphGetNodes (graph, nodes.data (), &n));
  for (cudaGraphNode_t nd : nodes)
    {
      cudaGraphNodeType    t;
      cudaKernelNodeParams p;
      const char          *name = NULL;
      int                  c = 0, tp = 0, al = 0, va = 0, rg = 0;
      int                  lm = 0, ws = 0;
      char                 buf[160];

      CK (cudaGraphNodeGetType (nd, &t));
      if (t != cudaGraphNodeTypeKernel)
        continue;
      CK (cudaGraphKernelNodeGetParams (nd, &p));
      if (cudaFuncGetName (&name, p.func) != cudaSuccess || ! name)
        {
          cudaGetLastError ();
          name = "";
        }
      int         nw = (int) (p.blockDim.x * p.blockDim.y / 32);
      const char *k = strstr (name, "kuwa_fused");
      /* (older kernels: 5 or 6 flags) */
      if (k
          && sscanf (k, "kuwa_fusedILi%dELb%dELb%dELb%dELb%dELb%dELb%dE", &c,
                     &tp, &al, &va, &rg, &lm, &ws)
               >= 5)
        {
          const char *ring = ws ? "w" : rg ? "r" : "";

          if (ws) /* specialized warps: two per column warp */
            nw /= 2;
          /* the plain kernels ask for 4 x 2 x nt x (16 + 4C) bytes; more
           * is capped residency (columns per SM from the blocks that fit) */
          size_t      plain = (size_t) 8 * 32 * nw * (16 + 4 * c);
          std::string cap;
          if (! rg && p.sharedMemBytes > plain)
            {
              int per = (int) (233472 / (p.sharedMemBytes + 16 + 1024 + 127));
              cap = "c" + std::to_string (per * 64 * nw);
            }
          snprintf (buf, sizeof buf, "%d%c%s%s%s grid %ux%u (%d rows)", nw,
                    al ? 'a' : 'u', ring, tp ? "t" : "", cap.c_str (),
                    p.gridDim.x, p.gridDim.y,
                    (int) ((po.h + p.gridDim.y - 1) / p.gridDim.y));
        }
      else
        snprintf (buf, sizeof buf, "%.40s block %d grid %ux%u smem %zu",
                  *name ? name : "(kernel)", 32 * nw, p.gridDim.x, p.gridDim.y,
                  (size_t) p.sharedMemBytes);
      out = out == "?" ? std::string (buf) : out + " + " + buf;
    }
  CK (cudaGraphDestroy (graph));
  CK (cudaStreamDestroy (s));
  return out;
}

int
main (int argc, char **argv)
{
  char why[256];
  if (! gpufx_backend_available (GPUFX_BACKEND_CUDA, why, sizeof why))
    {
      printf ("SKIP: %s\n", why);
      return 77;
    }
  std::vector<std::string> cfgs (argv + 1, argv + argc);
  if (cfgs.empty ())
    cfgs = { "plan", "4ar", "8ar", "8a", "16a" };
  std::vector<Case> cases;
  for (int r : { 1, 2, 5, 6, 7, 8, 9, 10, 12, 16, 30 })
    cases.push_back ({ 3840, 2160, 4, r });
  for (int r : { 10, 13 })
    cases.push_back ({ 3840, 2160, 1, r });
  for (int r : { 2, 6, 8, 10 })
    cases.push_back ({ 1920, 1080, 4, r });

  const int          NBUF = 4, WARM = 3, RUNS = 15;
  float             *in[NBUF], *out, *ref;
  unsigned          *dm;
  size_t             maxn = (size_t) 3840 * 2160 * 4;
  std::vector<float> host (maxn);
  int                dev = 0, clk = 0;

  CK (cudaGetDevice (&dev));
  CK (cudaDeviceGetAttribute (&clk, cudaDevAttrClockRate, dev)); /* kHz */
  const long long spin_cycles = (long long) clk * 100 / 1000;    /* ~100 us */
  {
    cudaDeviceProp prop;
    CK (cudaGetDeviceProperties (&prop, dev));
    printf ("# %s, %d SMs; ev / dev in ms, host in us\n", prop.name,
            prop.multiProcessorCount);
  }
  for (size_t k = 0; k < maxn; k++)
    host[k] = (float) ((k * 2654435761u) % 1000) / 1000.f;
  for (int i = 0; i < NBUF; i++)
    {
      CK (cudaMalloc (&in[i], maxn * 4));
      CK (cudaMemcpy (in[i], host.data (), maxn * 4, cudaMemcpyHostToDevice));
    }
  CK (cudaMalloc (&out, maxn * 4));
  CK (cudaMalloc (&ref, maxn * 4));
  CK (cudaMalloc (&dm, sizeof (unsigned)));
  cudaEvent_t a, b;
  CK (cudaEventCreate (&a));
  CK (cudaEventCreate (&b));
  CudaScratch                        sc = { NULL, 0 };
  std::map<std::pair<int, int>, Res> res; /* (case, cfg) */

  for (int pass = 0; pass < 2; pass++)
    for (int ci = 0; ci < (int) cases.size (); ci++)
      for (int fi = 0; fi < (int) cfgs.size (); fi++)
        {
          int                cj = pass ? (int) cases.size () - 1 - ci : ci;
          int                fj = pass ? (int) cfgs.size () - 1 - fi : fi;
          const Case        &cs = cases[cj];
          const std::string &cfg = cfgs[fj];
          Res               &R = res[{ cj, fj }];
          CudaGeom           g
            = { cs.w, cs.h, cs.c, cs.c == 4 ? 3 : -1, GPUFX_BORDER_CLAMP };
          size_t n = (size_t) cs.w * cs.h * cs.c;
          auto   plane = [&] (float *p) {
            CudaPlane q = { p, (ptrdiff_t) cs.w * cs.c, 0, 0, cs.w, cs.h };
            return q;
          };

          if (cfg == "plan")
            unsetenv ("GPUFX_CUDA_KUWA_BLOCK");
          else
            setenv ("GPUFX_CUDA_KUWA_BLOCK", cfg.c_str (), 1);
          for (int i = 0; i < WARM + RUNS; i++)
            {
              CudaPlane pi = plane (in[i % NBUF]), po = plane (out);
              float     ms, md;

              CK (cudaEventRecord (a));
              auto h0 = std::chrono::steady_clock::now ();
              CK (gpufx_cuda_kuwahara (g, pi, po, cs.r, sc, 0));
              auto h1 = std::chrono::steady_clock::now ();
              CK (cudaEventRecord (b));
              CK (cudaEventSynchronize (b));
              CK (cudaEventElapsedTime (&ms, a, b));
              pi = plane (in[(i + 1) % NBUF]);
              spin<<<1, 1>>> (spin_cycles);
              CK (cudaEventRecord (a));
              CK (gpufx_cuda_kuwahara (g, pi, po, cs.r, sc, 0));
              CK (cudaEventRecord (b));
              CK (cudaEventSynchronize (b));
              CK (cudaEventElapsedTime (&md, a, b));
              if (i >= WARM)
                {
                  R.ev[pass].push_back (ms);
                  R.dev[pass].push_back (md);
                  R.host[pass].push_back (
                    std::chrono::duration<float, std::micro> (h1 - h0)
                      .count ());
                }
            }
          if (pass == 0)
            {
              /* the last run read in[(WARM + RUNS) % NBUF]; rerun on in[0]
               * for a comparable output */
              CK (gpufx_cuda_kuwahara (g, plane (in[0]), plane (out), cs.r, sc,
                                       0));
              if (fj == 0)
                CK (cudaMemcpy (ref, out, n * 4, cudaMemcpyDeviceToDevice));
              else
                {
                  unsigned m = 0;
                  CK (cudaMemset (dm, 0, sizeof m));
                  maxdiff<<<528, 256>>> (out, ref, n, dm);
                  CK (cudaMemcpy (&m, dm, sizeof m, cudaMemcpyDeviceToHost));
                  memcpy (&R.worst, &m, sizeof m);
                }
              R.resolved = resolve (g, plane (in[0]), plane (out), cs.r, sc);
            }
        }
  unsetenv ("GPUFX_CUDA_KUWA_BLOCK");

  for (int cj = 0; cj < (int) cases.size (); cj++)
    {
      const Case &cs = cases[cj];
      for (int fj = 0; fj < (int) cfgs.size (); fj++)
        {
          Res &R = res[{ cj, fj }];
          printf ("%d %d %d %2d %-4s -> %-36s | ev %.4f/%.4f | dev %.4f/%.4f "
                  "| host %.1f | worst %s\n",
                  cs.w, cs.h, cs.c, cs.r, cfgs[fj].c_str (),
                  R.resolved.c_str (), median (R.ev[0]), median (R.ev[1]),
                  median (R.dev[0]), median (R.dev[1]), median (R.host[0]),
                  fj == 0 ? "(ref)" : (std::to_string (R.worst)).c_str ());
        }
    }
  printf ("# summary: plan's pick, its dev time (min of passes), the fastest "
          "configuration's\n");
  for (int cj = 0; cj < (int) cases.size (); cj++)
    {
      const Case &cs = cases[cj];
      auto        dmin = [&] (int fj) {
        Res &R = res[{ cj, fj }];
        return std::min (median (R.dev[0]), median (R.dev[1]));
      };
      int best = 0;
      for (int fj = 1; fj < (int) cfgs.size (); fj++)
        if (dmin (fj) < dmin (best))
          best = fj;
      int pj = (int) (std::find (cfgs.begin (), cfgs.end (), "plan")
                      - cfgs.begin ());
      if (pj == (int) cfgs.size ())
        pj = 0;
      printf ("%d %d %d %2d plan %-36s %.4f | best %s (%s) %.4f | plan/best "
              "%.3f\n",
              cs.w, cs.h, cs.c, cs.r, res[{ cj, pj }].resolved.c_str (),
              dmin (pj), cfgs[best].c_str (),
              res[{ cj, best }].resolved.c_str (), dmin (best),
              dmin (pj) / dmin (best));
    }
  return 0;
}

#!/usr/bin/env python3
# gimp-gpu-filters: how many cosine terms the large-sigma Gaussian needs
# (tests/bench/NOTES-gpu.md, round 30).  The plan (kernels/gaussian-plan.c)
# fits the truncated, normalised Gaussian w(k), |k| <= r = floor (4 sigma +
# 0.5), by harmonics cos (pi m k / L), L = ceil (stretch r) + 1, m < M.
# Here the same fit (least squares, best stretch of the plan's six) against
# M free frequencies (variable projection from the harmonic start), and the
# free frequencies of sigma = 200, scaled by 1 / r, reused at every sigma.
# Prints the L1 error sum |fit - w| (the plan's measure) for each.
# --universal: the six frequencies the plan uses at every sigma
# (plan_free_u in kernels/gaussian-plan.c, round 31): least squares over
# the half-lines of 15 sigmas from 15.9 to 1500 at once, from sigma 200's,
# each fitted as the plan fits (unweighted, k = 0..r); then the worst L1
# error over 380 sigmas (round 31: 1.28e-7 at sigma 15.9).
#   python3 tests/bench/cosine-fit-study.py [--universal]   (numpy, scipy)
#
# Copyright (C) 2026 The gimp-gpu-filters authors
# SPDX-License-Identifier: GPL-3.0-or-later
import numpy as np
from scipy.optimize import least_squares

STRETCHES = (1.0, 1.05, 1.1, 1.2, 1.3, 1.5)


def target(sigma):
    r = int(np.floor(4 * sigma + 0.5))
    k = np.arange(-r, r + 1)
    w = np.exp(-0.5 * k * k / (sigma * sigma))
    return r, k, w / w.sum()


def fit(k, w, omega):
    a = np.cos(np.outer(k, omega))
    coeff = np.linalg.lstsq(a, w, rcond=None)[0]
    return coeff, np.abs(a @ coeff - w).sum()


def harmonic(r, k, w, m):
    return min((fit(k, w, np.pi * np.arange(m) / (np.ceil(s * r) + 1))[1], s)
               for s in STRETCHES)


def free(r, k, w, m, stretch):
    half = k >= 0
    kk, ww = k[half], w[half]
    wt = np.where(kk == 0, 1.0, np.sqrt(2.0))  # both halves in the norm

    def resid(x):
        a = np.cos(np.outer(kk, np.concatenate([[0.0], x]))) * wt[:, None]
        c = np.linalg.lstsq(a, ww * wt, rcond=None)[0]
        return (a @ c - ww * wt) * 1e4

    start = np.pi * np.arange(1, m) / (np.ceil(stretch * r) + 1)
    x = least_squares(resid, start, xtol=1e-15, ftol=1e-15, gtol=1e-15,
                      max_nfev=4000).x
    return np.concatenate([[0.0], x])


def main():
    sigmas = (3, 6, 16, 50, 200, 1500)
    for m in (5, 6, 7, 8):
        r200, k200, w200 = target(200)
        u = free(r200, k200, w200, m, harmonic(r200, k200, w200, m)[1])
        u = u * r200 / np.pi  # omega_m = pi u_m / r
        print("M = %d, frequencies of sigma 200 (omega r / pi): %s"
              % (m, np.array2string(u, precision=4)))
        for s in sigmas:
            r, k, w = target(s)
            h, st = harmonic(r, k, w, m)
            f = fit(k, w, free(r, k, w, m, st))[1]
            coeff, g = fit(k, w, np.pi * u / r)
            print("  sigma %5g r %5d: harmonic %.2e (stretch %.2f), free %.2e, "
                  "sigma 200's %.2e; |coeff| (2r + 1) %s"
                  % (s, r, h, st, f, g,
                     np.array2string(np.abs(coeff) * (2 * r + 1),
                                     precision=1, formatter={
                                         'float_kind': lambda v: '%.1e' % v})))


UNIVERSAL_SIGMAS = (15.9, 16.5, 17.3, 18.1, 19, 20.5, 22, 25, 30, 40, 60, 100,
                    200, 500, 1500)


def plan_l1(sigma, u):
    r, k, w = target(sigma)
    half = k >= 0
    a = np.cos(np.outer(k[half], np.pi * u / r))
    coeff = np.linalg.lstsq(a, w[half], rcond=None)[0]
    e = np.abs(a @ coeff - w[half])
    return e[0] + 2 * e[1:].sum()


def universal():
    r200, k200, w200 = target(200)
    start = free(r200, k200, w200, 6, harmonic(r200, k200, w200, 6)[1])[1:]
    start = start * r200 / np.pi
    tgt = [target(s) for s in UNIVERSAL_SIGMAS]

    def resid(x):
        out = []
        for r, k, w in tgt:
            half = k >= 0
            kk, ww = k[half], w[half]
            wt = np.where(kk == 0, 1.0, np.sqrt(2.0))
            a = np.cos(np.outer(kk, np.pi * np.concatenate([[0.0], x]) / r))
            c = np.linalg.lstsq(a * wt[:, None], ww * wt, rcond=None)[0]
            out.append((a @ c - ww) * wt * np.sqrt(r) * 1e6)
        return np.concatenate(out)

    x = least_squares(resid, start, xtol=1e-15, ftol=1e-15, gtol=1e-15,
                      max_nfev=3000).x
    u = np.concatenate([[0.0], x])
    print("universal u (omega_m = pi u_m / r): %s" % ", ".join(repr(float(v))
                                                               for v in u))
    sig = np.concatenate([np.arange(15.9, 40, 0.13),
                          np.geomspace(40, 1500, 200)])
    err = [plan_l1(s, u) for s in sig]
    i = int(np.argmax(err))
    print("worst L1 %.3g at sigma %.4g, median %.3g"
          % (err[i], sig[i], np.median(err)))


if __name__ == '__main__':
    import sys
    if '--universal' in sys.argv[1:]:
        universal()
    else:
        main()

#!/usr/bin/python3
# %% [markdown]
# # heatscope.score against NumPy / scikit-learn
#
# A notebook in script form (cells are `# %%`; run it with
# `PYTHONPATH=build/python /usr/bin/python3 python/examples/benchmark_score.py`, or open it in
# Jupyter/VS Code as a notebook).  The same map and target are scored by
# heatscope.score (libheatscope, through ctypes) and by the NumPy/scikit-learn/OpenCV
# reference of tools/bench-score-reference.py; the numbers are compared, then timed in
# the same process, and the ratio is printed.

# %%
import importlib.util
import os
import sys
import time

import numpy as np

import heatscope

source_dir = os.environ.get("HS_SOURCE_DIR") or getattr(
    __import__("heatscope._build", fromlist=["SOURCE_DIR"]), "SOURCE_DIR")
spec = importlib.util.spec_from_file_location("reference", os.path.join(source_dir, "tools",
                                                                        "bench-score-reference.py"))
reference = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reference)
runs = int(os.environ.get("RUNS", "3"))


def median_ms(fn):
    fn()                                   # warm-up (buffers, caches)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return sorted(times)[len(times) // 2]


# %% [markdown]
# Cases: a 16 × 16 and a 32 × 32 model grid upsampled (bilinear) onto a 512² and a 2048²
# image, the target a box in the left lung.

# %%
rng = np.random.default_rng(7)
with open("/proc/loadavg") as f:
    print("machine: %d cores, load average %s" % (os.cpu_count(), " ".join(f.read().split()[:3])))
print("%-26s %10s %12s %9s  %s" % ("case", "heatscope", "numpy/sklearn", "speedup", "largest |difference|"))
for size, grid in ((512, 16), (2048, 32)):
    reference.W = reference.H = size
    A = rng.random((grid, grid))
    box = [0.15 * size, 0.2 * size, 0.45 * size, 0.7 * size]
    g = np.zeros((size, size), bool)
    ys, xs = np.mgrid[:size, :size] + 0.5
    g[(xs >= box[0]) & (xs < box[2]) & (ys >= box[1]) & (ys < box[3])] = True

    ours = heatscope.score(A, size=(size, size), boxes=[box])
    theirs = reference.score(A, g)
    diff = max(abs(ours[k] - float(theirs[k])) for k in theirs)
    assert diff < 1e-9, "the two disagree by %g" % diff

    t_hs = median_ms(lambda: heatscope.score(A, size=(size, size), boxes=[box]))
    t_ref = median_ms(lambda: reference.score(A, g))
    print("%-26s %8.1f ms %9.1f ms %8.0fx  %.1e over %d metrics"
          % ("%d² image, %d² map" % (size, grid), t_hs, t_ref, t_ref / t_hs, diff, len(theirs)))

# %% [markdown]
# heatscope.score computes every metric of the protocol (21 under default, as
# `heatscope-cli score`) while the reference computes the 19 it shares; both include the
# resampling onto the image grid.  The 2048² reference takes tens of seconds a run.

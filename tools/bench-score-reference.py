#!/usr/bin/python3
"""NumPy/scikit-learn/OpenCV reference of `heatscope-cli score` (metrics.md,
default protocol) for tools/bench-score: reads the inputs bench-score wrote
(--write-inputs DIR) and times the same metrics on the same 2048 x 2048 grid.

Prints one line per case: case NAME median_ms M auroc A ap P cpu_ms C
(cpu_ms: median process CPU time, all threads)
"""
import argparse
import os
import sys
import time

import numpy as np
import cv2
from sklearn.metrics import roc_auc_score, average_precision_score

W = H = 2048
CASES = [("grid32-upsampled", 32, 32), ("grid19-upsampled", 19, 19),
         ("full-res-random", 2048, 2048), ("full-res-ties", 2048, 2048)]


def resample(A, W, H):
    h, w = A.shape
    x = np.arange(W, dtype=np.float64)
    y = np.arange(H, dtype=np.float64)
    sx = np.clip((x + 0.5) * w / W - 0.5, 0, w - 1)
    sy = np.clip((y + 0.5) * h / H - 0.5, 0, h - 1)
    x0 = np.floor(sx).astype(int); y0 = np.floor(sy).astype(int)
    x1 = np.minimum(x0 + 1, w - 1); y1 = np.minimum(y0 + 1, h - 1)
    fx = sx - x0; fy = (sy - y0)[:, None]
    top = (1 - fx) * A[y0][:, x0] + fx * A[y0][:, x1]
    bot = (1 - fx) * A[y1][:, x0] + fx * A[y1][:, x1]
    return (1 - fy) * top + fy * bot


def score(A, g):
    s = resample(A, W, H)
    sf = s.ravel(); gf = g.ravel(); P = sf.size; ng = int(gf.sum())
    out = {"auroc": roc_auc_score(gf, sf), "ap": average_precision_score(gf, sf)}
    desc = np.sort(sf)[::-1]
    for k in (5, 10, 30):
        T = sf >= desc[-(-k * P // 100) - 1]
        inter = int((T & gf).sum())
        out["iou@%d" % k] = inter / int((T | gf).sum())
        out["precision@%d" % k] = inter / int(T.sum())
        out["recall@%d" % k] = inter / ng
    out["pointing_hit"] = float(gf[int(np.argmax(sf))])
    pos = np.maximum(sf, 0)
    out["mass_in_target"] = pos[gf].sum() / pos.sum()
    mn, mx = sf.min(), sf.max()
    u = np.floor(255 * ((s - mn) / (mx - mn))).astype(np.uint8)
    _, pred = cv2.threshold(u, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    pred = pred.ravel() > 0
    out["otsu_iou"] = int((pred & gf).sum()) / int((pred | gf).sum())
    order = np.argsort(-np.abs(sf), kind="stable")
    out["explanation_precision"] = int(gf[order[:ng]].sum()) / ng
    vi = sf[gf].var(); vo = sf[~gf].var()
    out["cnr"] = abs(sf[gf].mean() - sf[~gf].mean()) / np.sqrt(vi + vo)
    a = np.maximum(A, 0).ravel(); a = a / a.sum(); nz = a[a > 0]
    out["entropy"] = float(-(nz * np.log(nz)).sum())
    out["entropy_norm"] = out["entropy"] / np.log(a.size)
    xs = np.arange(W) + 0.5
    p2 = np.maximum(s, 0)
    mR = p2[:, xs < W / 2].sum(); mL = p2[:, xs > W / 2].sum()
    out["laterality"] = (mL - mR) / (mL + mR)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--case")
    args = ap.parse_args()
    g = np.fromfile(os.path.join(args.dir, "target.u8"), dtype=np.uint8).reshape(H, W) > 0
    for name, w, h in CASES:
        if args.case and name != args.case:
            continue
        path = os.path.join(args.dir, name + ".f64")
        if not os.path.exists(path):
            continue
        A = np.fromfile(path, dtype=np.float64).reshape(h, w)
        times = []
        cpu = []
        for _ in range(max(args.runs, 1)):
            t0 = time.perf_counter()
            c0 = time.process_time()
            out = score(A, g)
            cpu.append((time.process_time() - c0) * 1000)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        cpu.sort()
        print("case %s median_ms %.1f auroc %.6f ap %.6f cpu_ms %.1f" % (name, times[len(times) // 2], out["auroc"], out["ap"], cpu[len(cpu) // 2]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()

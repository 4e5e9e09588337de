"""heatscope.score equals `heatscope-cli score --json` byte for byte on random cases
(every protocol, [h,w] and [T,h,w] maps in float32 and float64, boxes, mask files and mask
arrays, no_attn, perturbed maps, baselines, upsample, eval_size, threshold), and its errors
are the CLI's refusals."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import heatscope
from heatscope.scoring import score_text

CLI = os.environ["HS_CLI"]
N_CASES = 60


def write_png(path, arr):
    import cv2
    if not cv2.imwrite(path, arr):
        raise RuntimeError("cv2 could not write " + path)


class ScoreEqualsCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="hs-py-score-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def cli(self, args):
        p = subprocess.run([CLI, "score"] + args + ["--json"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def test_random_cases_bit_identical(self):
        rng = np.random.default_rng(20261126)
        compared = set()
        for case in range(N_CASES):
            protocol = heatscope.PROTOCOLS[case % 3]
            W, H = int(rng.integers(12, 300)), int(rng.integers(12, 300))
            h, w = int(rng.integers(1, 30)), int(rng.integers(1, 30))
            T = int(rng.integers(0, 4))
            shape = (T, h, w) if T else (h, w)
            values = rng.random(shape) * 3 - 1
            if case % 5 == 1:
                values = np.round(values, 1)            # ties
            if case % 11 == 3:
                values = np.full(shape, 0.25)            # constant map
            values = values.astype(np.float32 if case % 2 else np.float64)
            mpath = os.path.join(self.dir, "m%d.npy" % case)
            np.save(mpath, values)
            args = ["--map", mpath, "--size", "%dx%d" % (W, H), "--protocol", protocol]
            kw = dict(size=(W, H), protocol=protocol)

            boxes = []
            for _ in range(int(rng.integers(0, 3))):
                x1, y1 = rng.uniform(0, W - 2), rng.uniform(0, H - 2)
                x2, y2 = rng.uniform(x1 + 1, W), rng.uniform(y1 + 1, H)
                if case % 3 == 0:
                    x1, y1, x2, y2 = (float(int(v)) for v in (x1, y1, x2, y2 + 1))
                boxes.append([x1, y1, x2, y2])
                args += ["--box", ",".join(repr(v) for v in (x1, y1, x2, y2))]
            kw["boxes"] = boxes

            masks = []
            for k in range(int(rng.integers(0, 3))):
                mh, mw = (H, W) if k == 0 else (int(rng.integers(5, 80)), int(rng.integers(5, 80)))
                m = np.zeros((mh, mw), np.uint8)
                cy, cx, r = rng.integers(0, mh), rng.integers(0, mw), rng.integers(2, max(3, mh // 2))
                yy, xx = np.mgrid[:mh, :mw]
                m[(yy - cy) ** 2 + (xx - cx) ** 2 <= r * r] = 255 if k % 2 == 0 else 1
                p = os.path.join(self.dir, "mask%d_%d.png" % (case, k))
                write_png(p, m)
                args += ["--mask", p]
                masks.append(p if (case + k) % 2 == 0 else m)     # the file or the same array
            kw["masks"] = masks

            if case % 4 == 2:
                na = float(rng.random())
                args += ["--no-attn", repr(na)]
                kw["no_attn"] = na
            if case % 6 == 5:
                pert = values[..., ::-1].copy()
                ppath = os.path.join(self.dir, "p%d.npy" % case)
                np.save(ppath, pert)
                args += ["--perturbed", ppath]
                kw["perturbed"] = pert
            if case % 7 == 4:
                img = (rng.random((H, W)) * (65535 if case % 2 else 255)).astype(np.uint16 if case % 2 else np.uint8)
                ipath = os.path.join(self.dir, "img%d.png" % case)
                write_png(ipath, img)
                seed = int(rng.integers(0, 2 ** 32))
                args += ["--image", ipath, "--baselines", "--seed", str(seed)]
                kw.update(baselines=True, image=ipath if case % 3 else img, seed=seed)
            if protocol == "default" and case % 8 == 0:
                args += ["--upsample", "nearest"]
                kw["upsample"] = "nearest"
            if protocol == "default" and case % 9 == 0:
                args += ["--eval-size", "64"]
                kw["eval_size"] = 64
            if protocol == "chexlocalize" and case % 4 == 1:
                args += ["--threshold", "0.4"]
                kw["threshold"] = 0.4
            elif protocol == "chexlocalize" and case % 4 == 3:
                table = os.path.join(self.dir, "tuning_results.csv")
                with open(table, "w") as f:
                    f.write("threshold,task\n0.35,Atelectasis\n0.6,Cardiomegaly\n")
                cls = ["Atelectasis", "Cardiomegaly", "Edema"][(case // 12) % 3]    # Edema: no row, Otsu
                args += ["--thresholds", table, "--query", cls]
                kw.update(thresholds=table, query=cls)
                compared.add("thresholds " + ("otsu" if cls == "Edema" else "table"))

            if case % 14 == 4 and kw.get("baselines") and "perturbed" not in kw and "no_attn" not in kw:
                args = args[2:]                          # the baselines alone, without --map
                values = None
                compared.add("baselines alone")
            rc, out, err = self.cli(args)
            self.assertEqual(rc, 0, "case %d: CLI failed: %s" % (case, err))
            text = score_text(values, **kw)
            self.assertEqual(text + "\n", out, "case %d (%s): Python and CLI differ" % (case, " ".join(args)))
            self.assertEqual(heatscope.score(values, **kw), json.loads(out))
            compared.update(k for k in ("perturbed", "baselines", "no_attn", "upsample", "eval_size",
                                        "threshold") if k in kw)
            compared.add(protocol)
        # the random draw did exercise every option
        self.assertEqual(compared, {"perturbed", "baselines", "no_attn", "upsample", "eval_size", "threshold",
                                    "default", "gloria", "chexlocalize", "baselines alone",
                                    "thresholds table", "thresholds otsu"})

    def test_hand_worked_case(self):
        # 2 × 2 map on a 2 × 2 image, target = the top-left pixel: its value is the largest,
        # so AUROC = 1 and the pointing game hits; mass_in_target = 4 / (4 + 1 + 1 + 0).
        r = heatscope.score(np.array([[4.0, 1.0], [1.0, 0.0]]), size=(2, 2), boxes=[[0, 0, 1, 1]])
        self.assertEqual(r["auroc"], 1.0)
        self.assertEqual(r["pointing_hit"], 1)
        self.assertAlmostEqual(r["mass_in_target"], 4.0 / 6.0, places=15)
        self.assertIsNone(r["no_attn"])

    def test_torch_tensor_and_lists(self):
        try:
            import torch
        except ImportError:
            self.skipTest("python3-torch is not installed")
        m = np.random.default_rng(3).random((7, 9)).astype(np.float32)
        a = heatscope.score(torch.from_numpy(m), size=(90, 70), boxes=[(10, 10, 40, 30)])
        b = heatscope.score(m, size=(90, 70), boxes=np.array([[10, 10, 40, 30]]))
        self.assertEqual(a, b)

    def test_errors_match_cli_refusals(self):
        m = np.ones((4, 4))
        mpath = os.path.join(self.dir, "m.npy")
        np.save(mpath, m)
        # a box outside the image, partly outside, or with no pixel centre
        # inside: the one box check (hs_box_check) of the CLI and Python
        for box, message in (("20,20,30,30", r"box \[20, 20, 30, 30\] reaches outside the 10 × 10 image"),
                             ("5,5,12,8", r"box \[5, 5, 12, 8\] reaches outside the 10 × 10 image"),
                             ("5.6,5,5.9,8", r"box \[5.6, 5, 5.9, 8\] has no pixel of the 10 × 10 image inside")):
            rc, _, err = self.cli(["--map", mpath, "--size", "10x10", "--box", box])
            self.assertEqual(rc, 1)
            self.assertRegex(err, message)
            with self.assertRaisesRegex(heatscope.HeatscopeError, message):
                heatscope.score(m, size=(10, 10), boxes=[[float(v) for v in box.split(",")]])
        # a NaN cell, named
        bad = m.copy()
        bad[2, 1] = np.nan
        with self.assertRaisesRegex(heatscope.HeatscopeError, r"map: .*(NaN|non-finite).*"):
            heatscope.score(bad, size=(10, 10), boxes=[[0, 0, 5, 5]])
        with self.assertRaisesRegex(heatscope.HeatscopeError, "unknown protocol"):
            heatscope.score(m, size=(10, 10), protocol="nope")
        with self.assertRaisesRegex(heatscope.HeatscopeError, "baselines need the image"):
            heatscope.score(m, size=(10, 10), baselines=True)
        with self.assertRaisesRegex(heatscope.HeatscopeError, r"shape \(4,\) is not"):
            heatscope.score(np.ones(4), size=(10, 10))
        with self.assertRaisesRegex(heatscope.HeatscopeError, "missing.png"):
            heatscope.score(m, size=(10, 10), masks=[os.path.join(self.dir, "missing.png")])
        with self.assertRaisesRegex(heatscope.HeatscopeError, "missing size"):
            heatscope.score(m)
        with self.assertRaisesRegex(heatscope.HeatscopeError, r"no_attn must be a share in \[0, 1\], not 1.5"):
            heatscope.score(m, size=(10, 10), no_attn=1.5)
        with self.assertRaisesRegex(heatscope.HeatscopeError, "missing map"):
            heatscope.score(None, size=(10, 10))


if __name__ == "__main__":
    sys.exit(0 if unittest.main(verbosity=2, exit=False).result.wasSuccessful() else 1)

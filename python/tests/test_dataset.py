"""heatscope.Dataset round trip: written from Python → `heatscope-cli validate` accepts it →
`heatscope-cli metrics` scores it (rows equal heatscope.score on the maps read back) → the
manifest, the 16-bit PNGs, the masks and the .npy files read back with independent readers
(json, cv2, numpy) hold exactly what was given.  Nothing appears at the target before save()."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import heatscope

CLI = os.environ["HS_CLI"]
SHARED = os.environ.get("HS_SHARED_DATA", "")


def read_json(path):
    with open(path) as f:
        return json.load(f)


def cli(*args):
    return subprocess.run([CLI] + list(args), stdin=subprocess.DEVNULL, capture_output=True, text=True)


class DatasetRoundTrip(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="hs-py-dataset-")
        self.dir = self.tmp.name
        self.rng = np.random.default_rng(17)

    def tearDown(self):
        self.tmp.cleanup()

    def build(self, path):
        rng = self.rng
        W, H = 120, 80
        img16 = rng.integers(0, 65536, (H, W), dtype=np.uint16)
        img8 = rng.integers(0, 256, (H, W), dtype=np.uint8)
        mask = np.zeros((H, W), bool)
        mask[20:50, 70:100] = True
        maps = {
            ("a", "s1"): rng.random((10, 12)).astype(np.float32),
            ("a", "s2"): rng.random((3, 10, 12)),
            ("b", "s1"): rng.random((5, 5)) * 7 - 2,
        }
        ds = heatscope.Dataset.create(path, name="round trip", description="written by test_dataset.py")
        self.assertFalse(os.path.exists(path), "the target appears before save()")
        ds.add_instance("a", image=img16, sentences=["Opacity in the left lung.", "Heart size normal."],
                        regions={"left lung": [60, 5, 115, 75], "heart": {"mask": mask}},
                        targets={"Opacity in the left lung.": ["left lung"], "s2": ["heart"]},
                        labels=[("opacity", "positive", ["left lung"])],
                        metadata={"view": "PA", "source": "test"})
        ds.add_instance("b", image=img8, sentences=[{"id": "q", "text": "right lung", "kind": "custom"}],
                        regions={"right lung": [[5, 5, 55, 75], [10, 10, 20, 20]]},
                        targets={"q": ["right lung"]})
        ds.add_map("a", "s1", "m1", maps[("a", "s1")])
        ds.add_map("a", "Heart size normal.", "m1", maps[("a", "s2")], tokens=["heart", "size", "normal"],
                   no_attn=0.25)
        ds.add_map("b", "q", "m1", maps[("b", "s1")])
        ds.add_map("a", "s1", "m2", maps[("a", "s1")] * 2, prompt="Opacity in the right lung.")
        ds.describe_model("m1", "a test model")
        return ds, img16, img8, mask, maps

    def test_round_trip(self):
        path = os.path.join(self.dir, "ds")
        ds, img16, img8, mask, maps = self.build(path)
        self.assertEqual(ds.save(), path)
        self.assertEqual([n for n in os.listdir(self.dir)], ["ds"], "staging left behind")

        # 1. the C validator accepts it
        v = cli("validate", path)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn("ok: 2 instances, 3 sentences, 4 maps", v.stdout)

        # 2. read back with independent readers
        man = read_json(os.path.join(path, "heatscope.json"))
        self.assertEqual(man["name"], "round trip")
        self.assertEqual(man["models"], {"m1": {"description": "a test model"}})
        a, b = man["instances"]
        self.assertEqual((a["id"], a["width"], a["height"], a["abnormal"]), ("a", 120, 80, True))
        self.assertEqual(b["abnormal"], False)
        self.assertEqual(a["metadata"], {"source": "test", "view": "PA"})
        self.assertEqual(a["findings"], [{"condition": "opacity", "context": "positive", "locations": ["left lung"]}])
        self.assertEqual(a["regions"]["left lung"], {"boxes": [[60, 5, 115, 75]]})
        self.assertEqual(a["regions"]["heart"]["extent"], [70, 20, 100, 50])
        self.assertEqual([(s["id"], s["targets"]) for s in a["sentences"]], [("s1", ["left lung"]), ("s2", ["heart"])])
        self.assertEqual(b["sentences"][0]["kind"], "custom")
        self.assertEqual(b["regions"]["right lung"], {"boxes": [[5, 5, 55, 75], [10, 10, 20, 20]]})
        import cv2
        got16 = cv2.imread(os.path.join(path, a["image"]), cv2.IMREAD_UNCHANGED)
        self.assertEqual(got16.dtype, np.uint16)
        np.testing.assert_array_equal(got16, img16)
        got8 = cv2.imread(os.path.join(path, b["image"]), cv2.IMREAD_UNCHANGED)
        self.assertEqual(got8.dtype, np.uint16, "images are written as 16-bit PNG")
        np.testing.assert_array_equal(got8, img8.astype(np.uint16) * 257)
        gotmask = cv2.imread(os.path.join(path, a["regions"]["heart"]["mask"]), cv2.IMREAD_UNCHANGED)
        np.testing.assert_array_equal(gotmask != 0, mask)
        np.testing.assert_array_equal(heatscope.load_image(os.path.join(path, a["image"])), img16)
        by = {(m["model"], m.get("query"), m.get("prompt")): m for m in a["maps"] + b["maps"]}
        ref = by[("m1", "s2", None)]
        self.assertEqual((ref["tokens"], ref["no_attn"]), (["heart", "size", "normal"], 0.25))
        back = np.load(os.path.join(path, ref["file"]))
        self.assertEqual((back.dtype, back.shape), (np.dtype("<f4"), (3, 10, 12)))
        np.testing.assert_array_equal(back, maps[("a", "s2")].astype(np.float32))
        self.assertIn(("m2", "s1", "Opacity in the right lung."), by)

        # 3. metrics rows are the C library's scores of the maps as stored
        rows = heatscope.metrics(path, model="m1", dataframe=False)
        self.assertEqual([(r["instance"], r["query"]) for r in rows], [("a", "s1"), ("a", "s2"), ("b", "q")])
        direct = [json.loads(l) for l in cli("metrics", path, "--model", "m1", "--format", "jsonl").stdout.splitlines()]
        self.assertEqual(rows, direct)
        exp = heatscope.score(np.load(os.path.join(path, by[("m1", "s1", None)]["file"])), size=(120, 80),
                              boxes=[[60, 5, 115, 75]])
        for k, v in exp.items():
            self.assertEqual(rows[0][k], v, k)
        exp = heatscope.score(back, size=(120, 80), masks=[mask], no_attn=0.25)
        for k, v in exp.items():
            self.assertEqual(rows[1][k], v, k)
        self.assertEqual(rows[1]["no_attn"], 0.25)

    def test_real_image_file_and_gloria_rows(self):
        src = os.path.join(SHARED, "mri-brain-tumor", "0", "1001.jpg")
        if not os.path.exists(src):
            self.skipTest("HS_SHARED_DATA has no mri-brain-tumor")
        path = os.path.join(self.dir, "mri")
        with heatscope.Dataset.create(path) as ds:
            ds.add_instance("1001", image=src, sentences=["tumour"], regions={"tumour": [200, 180, 300, 260]},
                            targets={"tumour": ["tumour"]})
            ds.add_map("1001", "tumour", "cam", self.rng.random((7, 7)))
        self.assertEqual(cli("validate", path).returncode, 0)
        man = read_json(os.path.join(path, "heatscope.json"))
        self.assertEqual(man["instances"][0]["image"], "images/1001.jpg")
        with open(src, "rb") as f1, open(os.path.join(path, "images", "1001.jpg"), "rb") as f2:
            self.assertEqual(f1.read(), f2.read(), "an image file is copied as is")
        rows = heatscope.metrics(path, protocol="gloria", dataframe=False)
        self.assertEqual(len(rows), 1)
        self.assertIn("iou@20", rows[0])

    def test_refusals_publish_nothing(self):
        path = os.path.join(self.dir, "bad")
        ds = heatscope.Dataset.create(path)
        img = np.zeros((10, 10), np.uint8)
        with self.assertRaisesRegex(heatscope.HeatscopeError, "leaves the 10×10 image"):
            ds.add_instance("x", image=img, regions={"r": [0, 0, 20, 5]})
        ds.add_instance("x", image=img, sentences=["t"], regions={"r": [0, 0, 5, 5]})
        with self.assertRaisesRegex(heatscope.HeatscopeError, "added twice"):
            ds.add_instance("x", image=img)
        with self.assertRaisesRegex(heatscope.HeatscopeError, "not one of its regions"):
            ds.add_instance("y", image=img, sentences=["t"], targets={"t": ["nowhere"]})
        with self.assertRaisesRegex(heatscope.HeatscopeError, r"non-finite value nan at \(1, 2\)"):
            bad = np.zeros((4, 4))
            bad[1, 2] = np.nan
            ds.add_map("x", "t", "m", bad)
        with self.assertRaisesRegex(heatscope.HeatscopeError, "needs 2 tokens, got 1"):
            ds.add_map("x", "t", "m", np.zeros((2, 4, 4)), tokens=["a"])
        with self.assertRaisesRegex(heatscope.HeatscopeError, "no_attn 1.5"):
            ds.add_map("x", "t", "m", np.zeros((4, 4)), no_attn=1.5)
        with self.assertRaisesRegex(heatscope.HeatscopeError, "unknown instance"):
            ds.add_map("zz", "t", "m", np.zeros((4, 4)))
        with self.assertRaisesRegex(heatscope.HeatscopeError, "missing.png"):
            ds.add_instance("z", image=os.path.join(self.dir, "missing.png"))
        ds.discard()
        self.assertEqual(os.listdir(self.dir), [], "discard leaves nothing")

        # an exception inside `with` publishes nothing
        with self.assertRaises(RuntimeError):
            with heatscope.Dataset.create(path) as ds:
                ds.add_instance("x", image=img)
                raise RuntimeError("stop")
        self.assertEqual(os.listdir(self.dir), [])

        # a non-empty folder is not replaced unless it is a dataset and overwrite=True
        os.makedirs(path)
        open(os.path.join(path, "notes.txt"), "w").close()
        with self.assertRaisesRegex(heatscope.HeatscopeError, "not empty"):
            heatscope.Dataset.create(path)
        first = os.path.join(self.dir, "first")
        with heatscope.Dataset.create(first) as ds:
            ds.add_instance("one", image=img)
        with self.assertRaisesRegex(heatscope.HeatscopeError, "not empty"):
            heatscope.Dataset.create(first)
        with heatscope.Dataset.create(first, overwrite=True) as ds:
            ds.add_instance("two", image=img)
        man = read_json(os.path.join(first, "heatscope.json"))
        self.assertEqual([i["id"] for i in man["instances"]], ["two"])
        self.assertEqual(sorted(os.listdir(self.dir)), ["bad", "first"], "old copy or staging left behind")
        with self.assertRaisesRegex(heatscope.HeatscopeError, "already saved"):
            ds.add_instance("three", image=img)

    def test_metrics_dataframe_or_list(self):
        path = os.path.join(self.dir, "frame")
        ds, *_ = self.build(path)
        ds.save()
        rows = heatscope.metrics(path, dataframe=False)
        self.assertEqual(len(rows), 4)
        try:
            import pandas
        except ImportError:
            pandas = None
        got = heatscope.metrics(path)
        if pandas is None:
            self.assertEqual(got, rows)
        else:
            self.assertIsInstance(got, pandas.DataFrame)
            self.assertEqual(list(got.columns), list(rows[0].keys()))
            for r, (_, g) in zip(rows, got.iterrows()):
                for k, v in r.items():
                    if v is None:
                        self.assertTrue(g[k] is None or g[k] != g[k], k)     # None or NaN
                    else:
                        self.assertEqual(g[k], v, k)
        # without pandas importable: the list of dicts
        code = ("import sys, json; sys.modules['pandas'] = None; import heatscope; "
                "r = heatscope.metrics(sys.argv[1]); print(type(r).__name__, json.dumps(r))")
        p = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        kind, text = p.stdout.split(" ", 1)
        self.assertEqual((kind, json.loads(text)), ("list", rows))

    def test_open_starts_the_app_on_the_dataset(self):
        path = os.path.join(self.dir, "opened")
        with heatscope.Dataset.create(path) as ds:
            ds.add_instance("x", image=np.zeros((8, 8), np.uint8))
        record = os.path.join(self.dir, "argv.txt")
        fake = os.path.join(self.dir, "fake-heatscope")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\nprintf "%%s\\n" "$@" > "%s"\n' % record)
        os.chmod(fake, 0o755)
        old = os.environ.get("HEATSCOPE_APP")
        os.environ["HEATSCOPE_APP"] = fake
        try:
            self.assertEqual(heatscope.open(ds, wait=True), 0)
            with open(record) as f:
                self.assertEqual(f.read().splitlines(), [path])
            self.assertEqual(heatscope.open(path, backend_exec="python3 m.py", wait=True), 0)
            with open(record) as f:
                self.assertEqual(f.read().splitlines(), ["--backend-exec", "python3 m.py", path])
        finally:
            if old is None:
                del os.environ["HEATSCOPE_APP"]
            else:
                os.environ["HEATSCOPE_APP"] = old
        with self.assertRaisesRegex(heatscope.HeatscopeError, "no heatscope.json"):
            heatscope.open(self.dir)

    def test_open_refuses_unsaved(self):
        ds = heatscope.Dataset.create(os.path.join(self.dir, "u"))
        with self.assertRaisesRegex(heatscope.HeatscopeError, "save"):
            heatscope.open(ds)
        ds.discard()


if __name__ == "__main__":
    sys.exit(0 if unittest.main(verbosity=2, exit=False).result.wasSuccessful() else 1)

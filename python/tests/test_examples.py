"""The examples of docs/python.md run: the five-line backend and the CLIP-like stub served
to `heatscope-cli attend --backend-exec`, and the Grad-CAM dataset of MRI slices written,
validated and scored."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

CLI = os.environ["HS_CLI"]
EXAMPLES = os.path.join(os.environ["HS_SOURCE_DIR"], "python", "examples")
SHARED = os.environ.get("HS_SHARED_DATA", "")


class Examples(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="hs-py-examples-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def attend(self, script, image, prompt, tokens=False):
        out = os.path.join(self.dir, "out.npy")
        cmd = [CLI, "attend", "--backend-exec", "%s %s" % (sys.executable, os.path.join(EXAMPLES, script)),
               "--image", image, "--prompt", prompt, "-o", out] + (["--tokens"] if tokens else [])
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout), np.load(out)

    def test_five_lines(self):
        import cv2
        with open(os.path.join(EXAMPLES, "five_lines.py")) as f:
            self.assertLessEqual(len([l for l in f if l.strip()]), 5)
        rgb = np.random.default_rng(2).integers(0, 256, (100, 70, 3), dtype=np.uint8)
        path = os.path.join(self.dir, "rgb.png")
        cv2.imwrite(path, rgb)
        _, m = self.attend("five_lines.py", path, "anything")
        np.testing.assert_allclose(m, rgb.astype(np.float64).mean(axis=2)[::32, ::32], rtol=1e-6)
        self.assertEqual(m.shape, (4, 3))

    def test_clip_stub(self):
        import cv2
        grey = np.random.default_rng(3).integers(0, 65536, (90, 120), dtype=np.uint16)
        path = os.path.join(self.dir, "grey.png")
        cv2.imwrite(path, grey)
        summary, m = self.attend("clip_stub_backend.py", path, "Opacity, left lung.", tokens=True)
        self.assertEqual(summary["tokens"], ["Opacity", "left", "lung"])
        self.assertEqual(m.shape, (3, 14, 14))
        np.testing.assert_allclose(m.sum(axis=(1, 2)), 1.0, rtol=1e-5)    # softmax over patches
        _, sentence = self.attend("clip_stub_backend.py", path, "Opacity, left lung.")
        np.testing.assert_allclose(sentence, m.astype(np.float64).mean(axis=0), rtol=1e-5)

    def test_mri_gradcam(self):
        try:
            import torchvision  # noqa: F401
        except ImportError:
            self.skipTest("python3-torchvision is not installed")
        data = os.path.join(SHARED, "mri-brain-tumor")
        if not os.path.isdir(data):
            self.skipTest("HS_SHARED_DATA has no mri-brain-tumor")
        out = os.path.join(self.dir, "mri-cam")
        p = subprocess.run([sys.executable, os.path.join(EXAMPLES, "mri_gradcam.py"), out, "--data", data,
                            "--limit", "4"], stdin=subprocess.DEVNULL, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("4 slices, 12 maps, 4 scored", p.stdout)
        v = subprocess.run([CLI, "validate", out], capture_output=True, text=True)
        self.assertEqual(v.returncode, 0, v.stdout)
        with open(os.path.join(out, "heatscope.json")) as f:
            man = json.load(f)
        inst = man["instances"][0]
        self.assertEqual([s["kind"] for s in inst["sentences"]], ["class"] * 3)
        x1, y1, x2, y2 = inst["regions"]["tumour"]["boxes"][0]
        self.assertTrue(0 <= x1 < x2 <= inst["width"] and 0 <= y1 < y2 <= inst["height"])
        cam = np.load(os.path.join(out, inst["maps"][0]["file"]))
        self.assertEqual(cam.shape, (7, 7))
        self.assertGreaterEqual(float(cam.min()), 0.0)                       # ReLU


if __name__ == "__main__":
    sys.exit(0 if unittest.main(verbosity=2, exit=False).result.wasSuccessful() else 1)

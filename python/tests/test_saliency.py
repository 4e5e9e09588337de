"""The saliency maps of the built-in lesion classifier computed in C (src/core/hs-model-cnn.c,
through `heatscope-cli attend --model cnn-*`) equal PyTorch's autograd on the same weights
(tools/lesion_cnn_lib.py) to 1e-4 per cell, relative to the map's largest value: the shipped
weights (data/models/lesion-cnn*.safetensors) and two seeded random classifiers of other shapes
(odd sizes, stride 3, three classes with a two-word name), on 8-bit, 16-bit and colour images of
other sizes than the network input (the area resize), for a class named in the prompt, the
earliest of two, and none (the predicted class)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

try:
    import torch
    import cv2
except ImportError as e:                      # meson: exit status 77 = skipped
    print("SKIP: %s (python3-torch and python3-opencv are in tools/deps.sh)" % e)
    sys.exit(77)

SOURCE = os.environ["HS_SOURCE_DIR"]
CLI = os.environ["HS_CLI"]
sys.path.insert(0, os.path.join(SOURCE, "tools"))
import lesion_cnn_lib as lc  # noqa: E402
import model_lib as ml       # noqa: E402

SHIPPED = os.path.join(SOURCE, "data", "models")
SHIPPED_STEMS = ("lesion-cnn", "lesion-cnn-random")
TOLERANCE = 1e-4
OTHER_CONFIGS = {
    # 37 px: every stride leaves a remainder; three classes, one of two words
    "odd": {"image_size": 37, "conv": [[1, 4, 1], [4, 6, 3], [6, 5, 2]],
            "classes": ["regular lesion", "irregular", "none"], "normalize_mean": 0.4, "normalize_std": 0.3},
    "default": lc.DEFAULT_CONFIG,
}
PROMPTS = ["irregular", "A regular lesion.", "irregular or regular", "what is this"]


def images(tmp):
    rng = np.random.default_rng(18)
    out = []
    yy, xx = np.mgrid[0:150, 0:200]
    blobs = np.zeros((150, 200))
    for _ in range(6):
        cy, cx, r = rng.uniform(20, 130), rng.uniform(20, 180), rng.uniform(5, 20)
        blobs += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
    grey = np.clip(0.2 + 0.6 * blobs / blobs.max() + 0.05 * rng.standard_normal(blobs.shape), 0, 1)
    for name, arr in [("grey8.png", (grey * 255).astype(np.uint8)),
                      ("grey16.png", (grey[:, ::-1] * 65535).astype(np.uint16)),
                      ("square.png", (grey[:128, 30:158] * 255).astype(np.uint8)),
                      ("colour.png", rng.integers(0, 256, (90, 70, 3), dtype=np.uint8))]:
        path = os.path.join(tmp, name)
        cv2.imwrite(path, arr)
        out.append(path)
    return out


class Saliency(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="hs-py-saliency-")
        cls.images = images(cls.tmp.name)
        torch.manual_seed(18)
        cls.other_dirs = {}
        for key, config in OTHER_CONFIGS.items():
            d = os.path.join(cls.tmp.name, key)
            os.mkdir(d)
            for stem in ("lesion-cnn", "lesion-cnn-random"):
                model = lc.LesionCNN(config)
                lc.save(model, os.path.join(d, stem + ".safetensors"), stem.replace("lesion-", ""), {"seed": 18})
            cls.other_dirs[key] = d

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def attend(self, models_dir, name, image, prompt):
        out = os.path.join(self.tmp.name, "map.npy")
        env = dict(os.environ)
        if models_dir is not None:
            env["HEATSCOPE_MODELS_DIR"] = models_dir
        p = subprocess.run([CLI, "attend", "--model", name, "--image", image, "--prompt", prompt,
                            "--tokens", "-o", out], env=env, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        info = json.loads(p.stdout)
        self.assertEqual(info["model"], name)
        return np.load(out), info["tokens"]

    def compare_dir(self, models_dir, weights_dir, stems=("lesion-cnn", "lesion-cnn-random")):
        """Largest |C - torch| over the largest |torch| of each model and method (a Grad-CAM
        may be all zero for one class: ReLU of a negative sum)."""
        worst = 0.0
        for stem in stems:
            prefix = {"lesion-cnn": "cnn-", "lesion-cnn-random": "cnn-random-"}[stem]
            model = lc.load(os.path.join(weights_dir, stem + ".safetensors"))
            classes = model.config["classes"]
            for method in lc.METHODS:
                pairs = []
                for image in self.images:
                    x = lc.preprocess(ml.load_grey(image), model.config)
                    for prompt in PROMPTS:
                        ref, c = lc.saliency(model, x, prompt, method)
                        got, tokens = self.attend(models_dir, prefix + method, image, prompt)
                        self.assertEqual(tokens, [classes[c]], (prefix + method, image, prompt))
                        self.assertEqual(got.shape, (1,) + ref.shape)
                        pairs.append((got[0], ref, image, prompt))
                scale = max(float(np.abs(ref).max()) for _, ref, _, _ in pairs)
                self.assertGreater(scale, 0.0, "all-zero references prove nothing")
                for got, ref, image, prompt in pairs:
                    diff = float(np.abs(got - ref).max())
                    self.assertLessEqual(diff, TOLERANCE * scale,
                                         (prefix + method, os.path.basename(image), prompt, scale))
                    worst = max(worst, diff / scale)
        return worst

    def test_shipped_weights(self):
        stems = [stem for stem in SHIPPED_STEMS if os.path.isfile(os.path.join(SHIPPED, stem + ".safetensors"))]
        self.assertEqual(stems, list(SHIPPED_STEMS))
        worst = self.compare_dir(None, SHIPPED, stems)
        print("shipped: largest |C - torch| / max|torch| = %.2e" % worst)

    def test_shipped_untrained_twin(self):
        """The random-model baseline (Oliveira et al.) is the trained classifier's architecture
        at the random initialisation the training started from: same config, no training, and
        tensor for tensor what LesionCNN draws for the torch seed both files record."""
        tensors, metadata = ml.load_safetensors(os.path.join(SHIPPED, "lesion-cnn-random.safetensors"))
        trained_tensors, trained_metadata = ml.load_safetensors(os.path.join(SHIPPED, "lesion-cnn.safetensors"))
        config = json.loads(metadata["config"])
        self.assertEqual(config, json.loads(trained_metadata["config"]))
        self.assertEqual(sorted(tensors), sorted(trained_tensors))
        training, trained = json.loads(metadata["training"]), json.loads(trained_metadata["training"])
        self.assertEqual(training["epochs"], 0)
        self.assertGreater(trained["epochs"], 0)
        self.assertEqual(training["torch_seed"], trained["torch_seed"])
        torch.manual_seed(training["torch_seed"])
        fresh = lc.LesionCNN(config).tensors()
        self.assertEqual(sorted(fresh), sorted(tensors))
        for name, t in fresh.items():
            self.assertTrue(torch.equal(t, tensors[name]), name)

    def test_shipped_classifier_accuracy(self):
        """The shipped classifier, run by the C code (the class `attend` explains when the prompt
        names none is the predicted one), names the class of held-out slices of the documented
        held-out seed 2; PyTorch predicts the same.  The 4-epoch weights it replaced (0.60
        held-out accuracy) got 26 of these 40 right."""
        d = os.path.join(self.tmp.name, "held")
        p = subprocess.run([CLI, "demo", "--kind", "mri-lesions", "--count", "40", "--seed", "2", "--maps", "none", d],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(d, "heatscope.json")) as f:
            instances = json.load(f)["instances"]
        model = lc.load(os.path.join(SHIPPED, "lesion-cnn.safetensors"))
        right = 0
        for inst in instances:
            image = os.path.join(d, inst["image"])
            truth = inst["sentences"][0]["text"]
            self.assertIn(truth, model.config["classes"])
            _, tokens = self.attend(None, "cnn-grad", image, "what is this")
            with torch.no_grad():
                predicted = int(torch.argmax(model(lc.preprocess(ml.load_grey(image), model.config))[0]))
            self.assertEqual(tokens, [model.config["classes"][predicted]], inst["id"])
            right += tokens == [truth]
        print("shipped classifier: %d of %d held-out slices right" % (right, len(instances)))
        self.assertGreaterEqual(right, 36)

    def test_other_shapes(self):
        for key, d in self.other_dirs.items():
            worst = self.compare_dir(d, d)
            print("%s: largest |C - torch| / max|torch| = %.2e" % (key, worst))

    def test_class_choice(self):
        d = self.other_dirs["default"]
        image = self.images[0]
        for prompt, expected in [("irregular", "irregular"), ("A regular lesion.", "regular"),
                                 ("irregular or regular", "irregular"), ("Regular, not irregular", "regular")]:
            _, tokens = self.attend(d, "cnn-grad", image, prompt)
            self.assertEqual(tokens, [expected], prompt)
        d = self.other_dirs["odd"]
        _, tokens = self.attend(d, "cnn-grad", image, "is it a REGULAR lesion?")
        self.assertEqual(tokens, ["regular lesion"])
        _, tokens = self.attend(d, "cnn-gradcam", image, "none, irregular")
        self.assertEqual(tokens, ["none"])
        # a class's words must be in a row: "regular" alone is not "regular lesion"
        model = lc.load(os.path.join(d, "lesion-cnn.safetensors"))
        x = lc.preprocess(ml.load_grey(image), model.config)
        predicted = int(torch.argmax(model(x)[0]).item())
        _, tokens = self.attend(d, "cnn-ixg", image, "regular")
        self.assertEqual(tokens, [model.config["classes"][predicted]])

    def test_bad_weights(self):
        d = os.path.join(self.tmp.name, "bad")
        os.mkdir(d)
        tensors, metadata = ml.load_safetensors(os.path.join(self.other_dirs["odd"], "lesion-cnn.safetensors"))
        tensors["head.weight"] = tensors["head.weight"][:2]
        ml.save_safetensors(os.path.join(d, "lesion-cnn.safetensors"), tensors, metadata)
        p = subprocess.run([CLI, "attend", "--model", "cnn-grad", "--image", self.images[0], "--prompt", "x"],
                           env=dict(os.environ, HEATSCOPE_MODELS_DIR=d), capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("lesion-cnn.safetensors", p.stderr)
        self.assertIn("head.weight", p.stderr)
        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)


if __name__ == "__main__":
    sys.exit(0 if unittest.main(verbosity=2, exit=False).result.wasSuccessful() else 1)

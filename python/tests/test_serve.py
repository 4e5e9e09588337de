"""heatscope.serve: a Python function served as an exec backend and driven by the C client
(`heatscope-cli attend --backend-exec`), in each of its three return forms; and a function
that raises, returns NaN, returns the wrong shape, prints to stdout or hangs gives a clear
error each time while the process goes on serving."""

import base64
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import numpy as np

CLI = os.environ["HS_CLI"]

BACKEND = textwrap.dedent('''
    import os, sys
    import numpy as np
    import heatscope

    MODE = sys.argv[1]

    def attend(image, prompt):
        small = image.astype(np.float64)[::16, ::16] / 65535.0 * len(prompt)
        if MODE == "array":
            return small
        if MODE == "tuple":
            words = prompt.split()
            return words, np.stack([small * (k + 1) for k in range(len(words))])
        if MODE == "dict":
            return dict(maps=small[None], no_attn=0.125, tokens=prompt.split())
        if MODE == "print":
            print("chatty model")                      # must not reach the protocol
            os.write(1, b"raw bytes on fd 1\\n")
            sys.stdout.flush()
            return small
        if MODE == "raise":
            raise RuntimeError("the GPU caught fire")
        if MODE == "nan":
            small[1, 2] = np.nan
            return small
        if MODE == "shape":
            return small.ravel()
        if MODE == "tokens":
            return ["one"], np.stack([small, small])
        if MODE == "hang":
            while True:
                pass
        if MODE == "by-prompt":
            if prompt == "raise":
                raise ValueError("bad prompt")
            if prompt == "hang":
                while True:
                    pass
            return small

    heatscope.serve(attend, timeout=float(sys.argv[2]) if len(sys.argv) > 2 else None)
''')


class Serve(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import cv2
        cls.tmp = tempfile.TemporaryDirectory(prefix="hs-py-serve-")
        d = cls.tmp.name
        cls.script = os.path.join(d, "my_model.py")
        with open(cls.script, "w") as f:
            f.write(BACKEND)
        rng = np.random.default_rng(5)
        cls.image = rng.integers(0, 65536, (64, 96), dtype=np.uint16)
        cls.image_path = os.path.join(d, "image.png")
        cv2.imwrite(cls.image_path, cls.image)
        cls.small = cls.image.astype(np.float64)[::16, ::16] / 65535.0

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def attend(self, mode, prompt="left lung", tokens=False, timeout=None):
        out = os.path.join(self.tmp.name, "out-%s.npy" % mode)
        if os.path.exists(out):
            os.unlink(out)
        cmd = [CLI, "attend", "--backend-exec", "%s %s %s" % (sys.executable, self.script, mode),
               "--image", self.image_path, "--prompt", prompt, "-o", out]
        if tokens:
            cmd.append("--tokens")
        if timeout:
            cmd += ["--timeout", str(timeout)]
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        return p, (np.load(out) if p.returncode == 0 else None)

    def test_array(self):
        p, m = self.attend("array")
        self.assertEqual(p.returncode, 0, p.stderr)
        np.testing.assert_array_equal(m, (self.small * 9).astype(np.float32))
        self.assertEqual(json.loads(p.stdout)["no_attn"], None)

    def test_tuple_tokens(self):
        p, m = self.attend("tuple", tokens=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["tokens"], ["left", "lung"])
        np.testing.assert_array_equal(m, np.stack([self.small * 9, self.small * 18]).astype(np.float32))

    def test_dict(self):
        p, m = self.attend("dict", prompt="heart")
        self.assertEqual(p.returncode, 0, p.stderr)
        summary = json.loads(p.stdout)
        self.assertEqual((summary["no_attn"], summary["tokens"]), (0.125, ["heart"]))
        np.testing.assert_array_equal(m, (self.small * 5).astype(np.float32))

    def test_prints_go_to_stderr(self):
        p, m = self.attend("print")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("chatty model", p.stderr)
        self.assertIn("raw bytes on fd 1", p.stderr)
        np.testing.assert_array_equal(m, (self.small * 9).astype(np.float32))

    def check_error(self, mode, *needles, **kw):
        p, _ = self.attend(mode, **kw)
        self.assertEqual(p.returncode, 1, "%s: %s" % (mode, p.stdout))
        last = p.stderr.strip().splitlines()[-1]
        self.assertIn("heatscope-cli attend", last)
        for n in needles:
            self.assertIn(n, last)

    def test_raise(self):
        self.check_error("raise", "RuntimeError: the GPU caught fire")

    def test_nan(self):
        self.check_error("nan", "non-finite value (nan) at [1, 2]")

    def test_wrong_shape(self):
        self.check_error("shape", "shape [24]", "expected [h, w] or [T, h, w]")

    def test_token_count(self):
        self.check_error("tokens", "1 tokens for 2 per-token maps")

    def test_hang_client_timeout(self):
        # The client's own deadline ends a backend that never answers (it hangs for good: the
        # deadline is what is tested, and no machine speed makes the backend answer within it).
        p, _ = self.attend("hang", timeout=2)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stderr.strip().splitlines()[-1], r"heatscope-cli attend: .*did not answer within 2.0 s")

    def test_session_survives_errors(self):
        """Protocol level: errors answer their own request and the next one is served."""
        proc = subprocess.Popen([sys.executable, self.script, "by-prompt", "1"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        answers = []
        for rid, prompt in enumerate(["raise", "hang", "ok", "ok!"], start=1):
            proc.stdin.write(json.dumps({"id": rid, "image": self.image_path, "prompt": prompt,
                                         "tokens": False}) + "\n")
            proc.stdin.flush()
            answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.write("not json\n")
        proc.stdin.write(json.dumps({"id": 9, "image": os.path.join(self.tmp.name, "missing.png"),
                                     "prompt": "x"}) + "\n")
        proc.stdin.flush()
        answers.append(json.loads(proc.stdout.readline()))
        answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        self.assertEqual(proc.wait(), 0)
        proc.stdout.close()
        proc.stderr.close()
        self.assertEqual(answers[0], {"id": 1, "error": "ValueError: bad prompt"})
        self.assertEqual(answers[1], {"id": 2, "error": "TimeoutError: the model took longer than 1 s"})
        for a, n in ((answers[2], 2), (answers[3], 3)):
            self.assertEqual(a["shape"], [4, 6])
            got = np.frombuffer(base64.b64decode(a["maps"]), "<f4").reshape(4, 6)
            np.testing.assert_array_equal(got, (self.small * n).astype(np.float32))
        self.assertEqual(answers[4]["id"], -1)
        self.assertIn("not JSON", answers[4]["error"])
        self.assertEqual(answers[5]["id"], 9)
        self.assertIn("missing.png", answers[5]["error"])


class LoadImage(unittest.TestCase):
    """GDCM decodes DICOM in a helper process: a file it aborts on (the fuzz-jpeg regression,
    a 16-byte ACR-NEMA header) is a HeatscopeError naming the file, and Python goes on."""

    def test_gdcm_abort_names_the_file(self):
        import heatscope
        src = os.path.join(os.environ["HS_SOURCE_DIR"], "tests", "fuzz", "regressions", "jpeg",
                           "gdcm-assert-acr-nema.bin")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "acr-nema.dcm")
            with open(src, "rb") as f, open(path, "wb") as g:
                g.write(f.read())
            with self.assertRaises(heatscope.HeatscopeError) as caught:
                heatscope.load_image(path)
        message = str(caught.exception)
        self.assertTrue(message.startswith(path + ": damaged or unsupported DICOM file: GDCM stopped"),
                        message)
        self.assertIn("ReadACRNEMAImage(): Assertion", message)
        self.assertNotIn("\n", message)
        shared = os.environ.get("HS_SHARED_DATA")
        ct = os.path.join(shared or "", "dicom", "pydicom-CT_small.dcm")
        if shared and os.path.exists(ct):
            self.assertEqual(heatscope.load_image(ct).shape, (128, 128))


if __name__ == "__main__":
    sys.exit(0 if unittest.main(verbosity=2, exit=False).result.wasSuccessful() else 1)

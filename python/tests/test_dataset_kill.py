"""A Python process writing a dataset, stopped (HS_TEST_STOP_AT) and SIGKILLed at each phase of
save(): before the rename nothing new is at the target (no folder, or the old dataset
untouched); after it the whole new dataset is there and validates."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import unittest

CLI = os.environ["HS_CLI"]

WRITER = textwrap.dedent('''
    import sys
    import numpy as np
    import heatscope
    path, tag, overwrite = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    ds = heatscope.Dataset.create(path, name=tag, overwrite=overwrite)
    for k in range(3):
        ds.add_instance("i%d" % k, image=np.full((32, 48), k * 1000, np.uint16), sentences=["left lung"],
                        regions={"left lung": [24, 0, 48, 32]}, targets={"left lung": ["left lung"]})
        ds.add_map("i%d" % k, "left lung", "m", np.eye(8)[: 6] + k)
    ds.save()
''')


def read_name(path):
    with open(os.path.join(path, "heatscope.json")) as f:
        return json.load(f)["name"]


class DatasetKill(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="hs-py-kill-")
        self.dir = self.tmp.name
        self.script = os.path.join(self.dir, "writer.py")
        with open(self.script, "w") as f:
            f.write(WRITER)

    def tearDown(self):
        self.tmp.cleanup()

    def stop_and_kill(self, point, path, tag, overwrite=False):
        """Runs the writer until it stops at `point`, returns after SIGKILL."""
        env = dict(os.environ, HS_TEST_STOP_AT=point)
        proc = subprocess.Popen([sys.executable, self.script, path, tag, "1" if overwrite else "0"],
                                env=env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
        self.assertTrue(os.WIFSTOPPED(status), "the writer did not stop at %s (status %#x): %s"
                        % (point, status, proc.stderr.read().decode() if os.WIFEXITED(status) else ""))
        on_disk = self.look(path)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
        return on_disk

    def look(self, path):
        staging = [n for n in os.listdir(self.dir) if ".staging-" in n]
        return (os.path.exists(path) and read_name(path)), staging

    def test_kill_at_each_phase(self):
        path = os.path.join(self.dir, "ds")
        for point in ("atomic-partial@heatscope.json", "dataset-before-publish@ds"):
            published, staging = self.stop_and_kill(point, path, "new")
            self.assertFalse(published, "%s: a dataset appeared before the rename" % point)
            self.assertEqual(len(staging), 1, point)
            self.assertFalse(os.path.exists(path), point)
            if point.startswith("dataset-before"):
                # the staged folder is whole: the library's validator accepts it as it is
                v = subprocess.run([CLI, "validate", os.path.join(self.dir, staging[0])], capture_output=True, text=True)
                self.assertEqual(v.returncode, 0, v.stdout)
            shutil.rmtree(os.path.join(self.dir, staging[0]))
        published, staging = self.stop_and_kill("dataset-after-publish@ds", path, "new")
        self.assertEqual((published, staging), ("new", []))
        self.assertEqual(subprocess.run([CLI, "validate", path], capture_output=True).returncode, 0)

        # replacing a dataset: the old one stays whole until the rename
        published, staging = self.stop_and_kill("dataset-before-publish@ds", path, "newer", overwrite=True)
        self.assertEqual(published, "new")
        self.assertEqual(read_name(path), "new")
        self.assertEqual(subprocess.run([CLI, "validate", path], capture_output=True).returncode, 0)
        for n in staging:
            shutil.rmtree(os.path.join(self.dir, n))
        # and a run that is not killed replaces it
        subprocess.run([sys.executable, self.script, path, "newer", "1"], check=True)
        self.assertEqual(read_name(path), "newer")
        self.assertEqual(sorted(os.listdir(self.dir)), ["ds", "writer.py"])


if __name__ == "__main__":
    sys.exit(0 if unittest.main(verbosity=2, exit=False).result.wasSuccessful() else 1)

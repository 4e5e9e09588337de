"""heatscope.open: the desktop application on a dataset."""

import os
import subprocess

from . import _lib


def open(dataset, instance=None, backend_exec=None, wait=False):
    """Starts the Heatscope app on `dataset` (a saved heatscope.Dataset or a folder) and
    returns the subprocess.Popen (wait=True: waits and returns the exit status).
    The app comes from $HEATSCOPE_APP, the build that made this package, or PATH."""
    path = os.fspath(getattr(dataset, "path", dataset))
    if getattr(dataset, "_saved", True) is False:
        raise _lib.HeatscopeError("%s: save() the dataset before opening it" % path)
    if not os.path.exists(os.path.join(path, "heatscope.json")) and not path.endswith(".json"):
        raise _lib.HeatscopeError("%s: no heatscope.json (not a dataset folder)" % path)
    cmd = [_lib.program_path("heatscope", "HEATSCOPE_APP")]
    if backend_exec is not None:
        cmd += ["--backend-exec", backend_exec]
    cmd.append(path)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
    return proc.wait() if wait else proc

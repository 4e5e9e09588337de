"""heatscope.serve: any Python function as an `exec` backend (docs/backend-protocol.md).

    import heatscope
    def attend(image, prompt):                     # image: ndarray [H, W] or [H, W, C]
        return my_model(image, prompt)             # [h, w], (tokens, [T, h, w]) or dict
    heatscope.serve(attend)

    heatscope --backend-exec "python3 my_model.py"

One request per line on stdin, one response per line on stdout.  Whatever
the function raises or returns wrong (an exception, NaN, a bad shape, too
few tokens) becomes that request's error response and the process serves
the next request; only the end of stdin ends it.
"""

import base64
import json
import math
import os
import signal
import sys
import traceback

import numpy as np


class _Timeout(Exception):
    pass


def load_image(path):
    """The image as the C library decodes it (what Heatscope shows): [H, W] or [H, W, C]
    uint8 (8-bit sources) or uint16 samples."""
    import ctypes
    from . import _lib
    lib = _lib.lib()
    err = _lib.GErrorP()
    img = lib.hs_image_load(os.fsencode(path), ctypes.byref(err))
    _lib.check(img, err, path)
    try:
        w, h, c = lib.hs_image_get_width(img), lib.hs_image_get_height(img), lib.hs_image_get_channels(img)
        data = np.ctypeslib.as_array(lib.hs_image_peek_data(img), shape=(h * w * c,)).copy()
        depth = lib.hs_image_get_bit_depth(img)
    finally:
        lib.hs_image_unref(img)
    arr = data.reshape((h, w) if c == 1 else (h, w, c))
    return arr.astype(np.uint8) if depth <= 8 else arr


def _as_array(x):
    if hasattr(x, "detach"):          # a torch tensor, without importing torch
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def _normalise(result):
    """(tokens or None, float64 array [h, w] or [T, h, w], no_attn or None) from what fn
    returned; raises ValueError naming the problem."""
    tokens, no_attn = None, None
    if isinstance(result, dict):
        if "maps" not in result:
            raise ValueError("the returned dict has no \"maps\"")
        maps, tokens, no_attn = result["maps"], result.get("tokens"), result.get("no_attn")
    elif isinstance(result, tuple):
        if len(result) != 2:
            raise ValueError("a returned tuple must be (tokens, maps), got %d items" % len(result))
        tokens, maps = result
    else:
        maps = result
    if maps is None:
        raise ValueError("returned None instead of a map")
    try:
        arr = _as_array(maps)
    except Exception as e:
        raise ValueError("the map is not an array: %s" % e) from None
    if arr.dtype.kind not in "biuf":
        raise ValueError("the map has dtype %s, not numbers" % arr.dtype)
    if arr.ndim not in (2, 3) or min(arr.shape) == 0:
        raise ValueError("the map has shape %s; expected [h, w] or [T, h, w]" % (list(arr.shape),))
    arr = arr.astype(np.float64)
    finite = np.isfinite(arr.astype(np.float32))
    if not finite.all():
        bad = [int(v) for v in np.argwhere(~finite)[0]]
        raise ValueError("the map has a non-finite value (%r) at %s" % (float(arr[tuple(bad)]), bad))
    if tokens is not None:
        tokens = [str(t) for t in tokens]
        if arr.ndim == 3 and len(tokens) != arr.shape[0]:
            raise ValueError("%d tokens for %d per-token maps" % (len(tokens), arr.shape[0]))
    elif arr.ndim == 3:
        raise ValueError("per-token maps [T, h, w] need their tokens: return (tokens, maps)")
    if no_attn is not None:
        no_attn = float(_as_array(no_attn))
        if not (math.isfinite(no_attn) and 0.0 <= no_attn <= 1.0):
            raise ValueError("no_attn %r is not a number in [0, 1]" % no_attn)
    return tokens, arr, no_attn


def response(req_id, result, want_tokens):
    """The protocol line (a dict) for fn's result."""
    tokens, arr, no_attn = _normalise(result)
    if arr.ndim == 3 and not want_tokens:
        arr = arr.mean(axis=0)
    out = np.ascontiguousarray(arr, dtype="<f4")
    msg = {"id": req_id, "shape": list(out.shape),
           "maps": base64.b64encode(out.tobytes()).decode("ascii"), "no_attn": no_attn}
    if tokens is not None:
        msg["tokens"] = tokens
    return msg


def serve(fn, image_as="array", timeout=None, stdin=None, stdout=None):
    """Serves fn(image, prompt) over the exec protocol until stdin closes.  Returns 0.

    fn returns a map [h, w], a (tokens, maps [T, h, w]) pair, or a dict with "maps",
    "tokens" and "no_attn"; NumPy arrays or torch tensors.
    image_as: "array" passes the decoded image (heatscope.load_image), "path" its path
              (for models with their own loader or cache).
    timeout:  seconds one call of fn may take (SIGALRM; Python code only): past it that
              request gets an error and the next one is served.  Heatscope's own timeout
              (30 s, `attend --timeout`) kills a backend that does not answer at all.
    Anything printed while fn runs goes to stderr: file descriptor 1 is redirected
    there, so even C code writing to stdout cannot corrupt the protocol."""
    if image_as not in ("array", "path"):
        raise ValueError("image_as must be \"array\" or \"path\"")
    if stdout is None:
        sys.stdout.flush()
        protocol_fd = os.dup(1)
        os.dup2(2, 1)                       # stray prints and C writes go to stderr
        out = os.fdopen(protocol_fd, "w", encoding="utf-8", newline="\n")
        sys.stdout = sys.stderr
    else:
        out = stdout
    inp = stdin if stdin is not None else sys.stdin

    def answer(obj):
        out.write(json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n")
        out.flush()

    use_alarm = timeout is not None and hasattr(signal, "SIGALRM")
    if use_alarm:
        def on_alarm(signum, frame):
            raise _Timeout()
        signal.signal(signal.SIGALRM, on_alarm)

    for line in inp:
        if not line.strip():
            continue
        req_id = -1
        try:
            try:
                req = json.loads(line)
            except ValueError as e:
                raise ValueError("the request is not JSON: %s" % e) from None
            if not isinstance(req, dict):
                raise ValueError("the request is not a JSON object")
            rid = req.get("id")
            if not isinstance(rid, int) or isinstance(rid, bool) or rid < 0:
                raise ValueError("the request has no integer \"id\"")
            req_id = rid
            image, prompt = req.get("image"), req.get("prompt")
            if not isinstance(image, str) or not isinstance(prompt, str):
                raise ValueError("\"image\" and \"prompt\" must be strings")
            arg = image if image_as == "path" else load_image(image)
            if use_alarm:
                signal.setitimer(signal.ITIMER_REAL, float(timeout))
            try:
                result = fn(arg, prompt)
            except _Timeout:
                raise TimeoutError("the model took longer than %g s" % timeout) from None
            finally:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            answer(response(req_id, result, bool(req.get("tokens"))))
        except (Exception, SystemExit) as e:     # one bad request never ends the session
            traceback.print_exc(file=sys.stderr)
            message = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
            answer({"id": req_id, "error": message})
    return 0

"""heatscope.score and heatscope.metrics: the C library's numbers in a notebook."""

import ctypes
import json
import math
import os
import subprocess

import numpy as np

from . import _lib
from ._lib import HeatscopeError

PROTOCOLS = ("default", "gloria", "chexlocalize")


def _map_array(values, what):
    arr = np.asarray(values.detach().cpu().numpy() if hasattr(values, "detach") else values)
    if arr.ndim not in (2, 3) or min(arr.shape) == 0:
        raise HeatscopeError("%s: shape %s is not [h, w] or [T, h, w]" % (what, tuple(arr.shape)))
    if arr.dtype.kind not in "biuf":
        raise HeatscopeError("%s: dtype %s is not numeric" % (what, arr.dtype))
    # float64 exactly as the CLI converts a .npy cell: one rounding-free cast.
    return np.ascontiguousarray(arr, dtype=np.float64)


def _image_array(image):
    """An image array as (uint16 samples, channels, bit depth)."""
    arr = np.asarray(image)
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (2, 3, 4)):
        raise HeatscopeError("image: shape %s is not [H, W] or [H, W, 1|2|3|4]" % (tuple(arr.shape),))
    if arr.dtype == np.uint8 or arr.dtype == np.bool_:
        depth = 8
    elif arr.dtype == np.uint16:
        depth = 16
    else:
        raise HeatscopeError("image: dtype %s — pass uint8 or uint16 samples (or a file path)" % arr.dtype)
    channels = 1 if arr.ndim == 2 else arr.shape[2]
    return np.ascontiguousarray(arr, dtype=np.uint16), channels, depth


def score_text(map, size=None, boxes=(), masks=(), protocol="default", baselines=False, image=None,
               no_attn=None, perturbed=None, upsample=None, eval_size=0, threshold=None, seed=20240229,
               thresholds=None, query=None):
    """Every metric of one map, as `heatscope-cli score --json` prints it (same keys, same
    numbers: both go through the C library and hs_score_report_to_json).

    map:       [h, w] or [T, h, w] array (NumPy, or a torch tensor); per-token maps are
               averaged into the sentence map by the library.  None with baselines=True:
               the baselines alone on a 16 × 16 grid (`score --baselines` without --map).
    size:      (W, H) of the image in pixels (optional when `image` is given).
    boxes:     [x1, y1, x2, y2] boxes in image pixels.
    masks:     file paths or [H', W'] arrays (non-zero = inside; any size, scaled by the
               library's nearest rule); [H', W', C] arrays count a pixel when any channel is
               non-zero, as for mask files.
    protocol:  "default", "gloria" or "chexlocalize".
    baselines: add the null baselines (needs `image`: a path or a uint8/uint16 array).
    perturbed: a second map of the same image: adds sym_kl and delta_<metric>.
    thresholds, query: chexlocalize: CheXlocalize's per-class threshold table (CSV) and the
               class label picking its row (adds threshold_source and threshold).
    Returns a dict; undefined metrics are None (JSON null).
    """
    if protocol not in PROTOCOLS:
        raise HeatscopeError("unknown protocol %r (default, gloria or chexlocalize)" % (protocol,))
    req = _lib.ScoreRequest()
    keep = []
    if map is not None:
        values = _map_array(map, "map")
        keep.append(values)
        req.values = values.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        req.n_tokens = values.shape[0] if values.ndim == 3 else 0
        req.height, req.width = values.shape[-2:]
    req.no_attn = math.nan if no_attn is None else float(no_attn)
    req.p_no_attn = req.no_attn
    if perturbed is not None:
        p = _map_array(perturbed, "perturbed")
        keep.append(p)
        req.perturbed = p.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        req.p_tokens = p.shape[0] if p.ndim == 3 else 0
        req.p_height, req.p_width = p.shape[-2:]
    img_size = None
    if image is not None:
        if isinstance(image, (str, bytes, os.PathLike)):
            req.image_path = os.fsencode(image)
        else:
            data, channels, depth = _image_array(image)
            keep.append(data)
            req.image_data = data.ctypes.data_as(ctypes.POINTER(ctypes.c_uint16))
            req.image_channels, req.image_depth = channels, depth
            img_size = (data.shape[1], data.shape[0])
            if size is None:
                size = img_size
    if size is None and req.image_path:
        w, h = ctypes.c_uint(), ctypes.c_uint()
        err = _lib.GErrorP()
        _lib.check(_lib.lib().hs_image_probe(req.image_path, ctypes.byref(w), ctypes.byref(h),
                                             ctypes.byref(err)), err, os.fsdecode(req.image_path))
        size = (w.value, h.value)
    if size is None:
        raise HeatscopeError("missing size=(W, H) (or image= to take the size from)")
    W, H = (int(v) for v in size)
    if W <= 0 or H <= 0:
        raise HeatscopeError("size %r is not two positive integers (W, H)" % (size,))
    if img_size is not None and img_size != (W, H):
        raise HeatscopeError("image: the image is %d×%d but size is %d×%d" % (img_size + (W, H)))
    req.image_width, req.image_height = W, H

    box_arr = np.ascontiguousarray(np.asarray(list(boxes), dtype=np.float64).reshape(-1, 4)) \
        if len(boxes) else np.zeros((0, 4))
    keep.append(box_arr)
    req.boxes = box_arr.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    req.n_boxes = box_arr.shape[0]

    paths = [os.fsencode(m) for m in masks if isinstance(m, (str, bytes, os.PathLike))]
    arrays = []
    for m in masks:
        if isinstance(m, (str, bytes, os.PathLike)):
            continue
        a = np.asarray(m)
        if a.ndim == 3:
            a = (a != 0).any(axis=2)
        if a.ndim != 2 or min(a.shape) == 0:
            raise HeatscopeError("mask: shape %s is not [H, W]" % (tuple(a.shape),))
        arrays.append(np.ascontiguousarray(a != 0, dtype=np.uint8))
    path_arr = (ctypes.c_char_p * max(1, len(paths)))(*paths)
    data_arr = (ctypes.POINTER(ctypes.c_uint8) * max(1, len(arrays)))(
        *[a.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)) for a in arrays])
    widths = (ctypes.c_uint * max(1, len(arrays)))(*[a.shape[1] for a in arrays])
    heights = (ctypes.c_uint * max(1, len(arrays)))(*[a.shape[0] for a in arrays])
    keep += [arrays, path_arr, data_arr, widths, heights]
    req.mask_paths, req.n_mask_paths = path_arr, len(paths)
    req.mask_data, req.n_mask_data = data_arr, len(arrays)
    req.mask_widths, req.mask_heights = widths, heights

    req.protocol = protocol.encode()
    req.upsample = None if upsample is None else str(upsample).encode()
    req.eval_size = int(eval_size)
    req.threshold = math.nan if threshold is None else float(threshold)
    req.baselines = 1 if baselines else 0
    if not 0 <= int(seed) <= 0xFFFFFFFF:
        raise HeatscopeError("seed must be in 0 … 4294967295")
    req.seed = int(seed)
    req.thresholds = None if thresholds is None else os.fsencode(thresholds)
    req.query_class = None if query is None else str(query).encode("utf-8")

    error = ctypes.c_char_p()
    text = _lib.lib().hs_py_score(ctypes.byref(req), ctypes.byref(error))
    del keep
    if not text:
        message = error.value.decode("utf-8", "replace") if error.value else "scoring failed"
        _lib.lib().hs_py_free(ctypes.cast(error, ctypes.c_void_p))
        raise HeatscopeError(message)
    return _lib.take_string(text)


def score(map, size=None, boxes=(), masks=(), protocol="default", baselines=False, image=None,
          no_attn=None, perturbed=None, upsample=None, eval_size=0, threshold=None, seed=20240229,
          thresholds=None, query=None):
    return json.loads(score_text(map, size=size, boxes=boxes, masks=masks, protocol=protocol,
                                 baselines=baselines, image=image, no_attn=no_attn, perturbed=perturbed,
                                 upsample=upsample, eval_size=eval_size, threshold=threshold, seed=seed,
                                 thresholds=thresholds, query=query))


score.__doc__ = score_text.__doc__
score_text.__doc__ = "The JSON text heatscope.score() parses: byte for byte what `heatscope-cli score --json` prints (without the newline)."


def metrics(dataset, model=None, protocol="default", subset=None, perturb=None, jobs=1,
            dataframe=True):
    """Every (instance, query, model) row of `heatscope-cli metrics DATASET --format jsonl`
    with the same options: a pandas DataFrame when pandas is installed (and dataframe is
    true), else a list of dicts.  The rows are the CLI's, computed by the C library in a
    child process (its --jobs, its errors)."""
    path = getattr(dataset, "path", dataset)
    cmd = [_lib.program_path("heatscope-cli", "HEATSCOPE_CLI"), "metrics", os.fspath(path),
           "--format", "jsonl", "--protocol", protocol, "--jobs", str(int(jobs))]
    if model is not None:
        cmd += ["--model", model]
    if subset is not None:
        cmd += ["--subset", subset]
    if perturb is not None:
        cmd += ["--perturb", perturb]
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip() or "exit status %d" % proc.returncode
        raise HeatscopeError(message.splitlines()[-1] if message else message)
    rows = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines() if line.strip()]
    if dataframe:
        try:
            import pandas
        except ImportError:
            return rows
        return pandas.DataFrame(rows)
    return rows

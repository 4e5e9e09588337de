"""The bridge to libheatscope: one shared module loaded through ctypes.

Every number (scores, the manifest text, PNG and .npy bytes) comes from the C
library; this module only declares the C signatures the package calls and
turns GError into HeatscopeError.  It is loaded on first use, so the pure
Python parts (heatscope.serve with image_as="path") work without it.
"""

import ctypes
import os
import shutil
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY_NAME = "_libheatscope.so"


class HeatscopeError(Exception):
    """An error reported by the C library or a Heatscope program: one line naming the file
    and the problem."""


class GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


# Mirrors HsPyScoreRequest in python/src/hs-python.c: change both together.
class ScoreRequest(ctypes.Structure):
    _fields_ = [
        ("values", ctypes.POINTER(ctypes.c_double)),
        ("n_tokens", ctypes.c_uint), ("height", ctypes.c_uint), ("width", ctypes.c_uint),
        ("no_attn", ctypes.c_double),
        ("perturbed", ctypes.POINTER(ctypes.c_double)),
        ("p_tokens", ctypes.c_uint), ("p_height", ctypes.c_uint), ("p_width", ctypes.c_uint),
        ("p_no_attn", ctypes.c_double),
        ("image_width", ctypes.c_uint), ("image_height", ctypes.c_uint),
        ("boxes", ctypes.POINTER(ctypes.c_double)), ("n_boxes", ctypes.c_uint),
        ("mask_paths", ctypes.POINTER(ctypes.c_char_p)), ("n_mask_paths", ctypes.c_uint),
        ("mask_data", ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8))),
        ("mask_widths", ctypes.POINTER(ctypes.c_uint)), ("mask_heights", ctypes.POINTER(ctypes.c_uint)),
        ("n_mask_data", ctypes.c_uint),
        ("image_path", ctypes.c_char_p),
        ("image_data", ctypes.POINTER(ctypes.c_uint16)),
        ("image_channels", ctypes.c_uint), ("image_depth", ctypes.c_uint),
        ("protocol", ctypes.c_char_p), ("upsample", ctypes.c_char_p),
        ("eval_size", ctypes.c_uint), ("threshold", ctypes.c_double),
        ("baselines", ctypes.c_int), ("seed", ctypes.c_uint32),
        ("thresholds", ctypes.c_char_p), ("query_class", ctypes.c_char_p),
    ]


def _build_info():
    try:
        from . import _build  # written by meson into build/python/heatscope
        return _build
    except ImportError:
        return None


def library_path():
    """Where the shared module is: $HEATSCOPE_LIBRARY, else beside this file (the meson
    build's build/python/heatscope, or a pip install of it), else the source tree's build/."""
    env = os.environ.get("HEATSCOPE_LIBRARY")
    if env:
        return env
    candidates = [os.path.join(HERE, LIBRARY_NAME),
                  os.path.join(HERE, "..", "..", "build", "python", "heatscope", LIBRARY_NAME)]
    for c in candidates:
        if os.path.exists(c):
            return os.path.abspath(c)
    raise HeatscopeError(
        "libheatscope for Python not found (looked at %s): build Heatscope with meson and use "
        "PYTHONPATH=BUILD/python, or set HEATSCOPE_LIBRARY" % ", ".join(os.path.abspath(c) for c in candidates))


def program_path(name, env_var):
    """A Heatscope program: $env_var, else the build that made this package, else PATH."""
    env = os.environ.get(env_var)
    if env:
        return env
    build = _build_info()
    if build is not None:
        p = {"heatscope-cli": build.CLI, "heatscope": build.APP}.get(name)
        if p and os.path.exists(p):
            return p
    for c in (os.path.join(HERE, "..", "..", "build", "src", "cli" if name == "heatscope-cli" else "app", name),):
        if os.path.exists(c):
            return os.path.abspath(c)
    p = shutil.which(name)
    if p is None:
        raise HeatscopeError("%s not found: build Heatscope, put it on PATH or set %s" % (name, env_var))
    return p


_lock = threading.Lock()
_lib = None

c_char_pp = ctypes.POINTER(ctypes.c_char_p)
GErrorP = ctypes.POINTER(GError)
GErrorPP = ctypes.POINTER(GErrorP)
vp = ctypes.c_void_p
u = ctypes.c_uint
d = ctypes.c_double
s = ctypes.c_char_p
i = ctypes.c_int

# name: (restype, argtypes).  Only the public API of include/heatscope/ and
# the hs_py_* helpers of python/src/hs-python.c.
_SIGNATURES = {
    "g_free": (None, [vp]),
    "g_error_free": (None, [GErrorP]),
    "hs_py_free": (None, [vp]),
    "hs_stop_point_file": (None, [s, s]),
    "hs_py_score": (vp, [ctypes.POINTER(ScoreRequest), c_char_pp]),
    "hs_py_validate": (vp, [s]),
    "hs_py_instance_set_size": (None, [vp, u, u]),
    "hs_py_instance_set_abnormal": (None, [vp, i]),
    "hs_py_map_ref_set_no_attn": (None, [vp, d]),
    "hs_py_image_new": (vp, [u, u, u, u, ctypes.POINTER(ctypes.c_uint16), c_char_pp]),
    "hs_dataset_new": (vp, [s, s]),
    "hs_dataset_unref": (None, [vp]),
    "hs_dataset_save": (i, [vp, GErrorPP]),
    "hs_dataset_writer_begin": (vp, [s, i, GErrorPP]),
    "hs_dataset_writer_get_staging": (s, [vp]),
    "hs_dataset_writer_save_manifest": (i, [vp, vp, GErrorPP]),
    "hs_dataset_writer_commit": (i, [vp, vp, GErrorPP]),
    "hs_dataset_writer_free": (None, [vp]),
    "hs_dataset_set_description": (None, [vp, s]),
    "hs_dataset_set_model_description": (None, [vp, s, s]),
    "hs_dataset_add_instance": (None, [vp, vp]),
    "hs_instance_new": (vp, [s, s]),
    "hs_instance_free": (None, [vp]),
    "hs_instance_set_metadata": (None, [vp, s, s]),
    "hs_instance_add_region": (None, [vp, vp]),
    "hs_instance_add_sentence": (None, [vp, vp]),
    "hs_instance_add_map": (None, [vp, vp]),
    "hs_instance_add_finding": (None, [vp, vp]),
    "hs_region_new": (vp, [s]),
    "hs_region_free": (None, [vp]),
    "hs_sentence_free": (None, [vp]),
    "hs_region_add_box": (None, [vp, d, d, d, d]),
    "hs_region_set_mask": (None, [vp, s]),
    "hs_region_set_mask_extent": (None, [vp, ctypes.POINTER(ctypes.c_uint8), u, u]),
    "hs_sentence_new": (vp, [s, s]),
    "hs_sentence_add_target": (None, [vp, s]),
    "hs_sentence_add_label": (None, [vp, vp]),
    "hs_sentence_set_kind": (None, [vp, s]),
    "hs_label_new": (vp, [s, s, c_char_pp]),
    "hs_map_ref_new": (vp, [s, s, s]),
    "hs_map_ref_set_tokens": (None, [vp, c_char_pp]),
    "hs_map_ref_set_prompt": (None, [vp, s]),
    "hs_npy_write": (i, [s, i, u, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_double),
                         i, i, GErrorPP]),
    "hs_image_load": (vp, [s, GErrorPP]),
    "hs_image_probe": (i, [s, ctypes.POINTER(u), ctypes.POINTER(u), GErrorPP]),
    "hs_image_save_png": (i, [vp, s, GErrorPP]),
    "hs_image_unref": (None, [vp]),
    "hs_image_get_width": (u, [vp]),
    "hs_image_get_height": (u, [vp]),
    "hs_image_get_channels": (u, [vp]),
    "hs_image_get_bit_depth": (u, [vp]),
    "hs_image_peek_data": (ctypes.POINTER(ctypes.c_uint16), [vp]),
}

HS_DATASET_WRITE_CREATE, HS_DATASET_WRITE_REPLACE = 0, 1   # HsDatasetWriteFlags
HS_DTYPE_FLOAT32 = 10   # HsDType in hs-npy.h: BOOL, INT8..INT64, UINT8..UINT64, FLOAT16, FLOAT32


def lib():
    """The loaded library (loaded once)."""
    global _lib
    with _lock:
        if _lib is None:
            path = library_path()
            try:
                handle = ctypes.CDLL(path)
            except OSError as e:
                raise HeatscopeError("%s: cannot load: %s" % (path, e)) from None
            _lib = _Declared(handle)
        return _lib


class _Declared:
    """The library's functions with their declared C types, and only those: calling an
    undeclared function through ctypes would pass pointers as 32-bit ints."""

    def __init__(self, handle):
        for name, (restype, argtypes) in _SIGNATURES.items():
            f = getattr(handle, name)
            f.restype = restype
            f.argtypes = argtypes
            setattr(self, name, f)

    def __getattr__(self, name):
        raise AttributeError("%s is not declared in heatscope/_lib.py _SIGNATURES" % name)


def check(ok, err, what=None):
    """Raises HeatscopeError with the GError's message (prefixed by `what`) when not ok."""
    if ok:
        return
    message = "unknown error"
    if err:
        message = err.contents.message.decode("utf-8", "replace")
        lib().g_error_free(err)
    raise HeatscopeError("%s: %s" % (what, message) if what and what not in message else message)


def take_string(ptr):
    """A g_malloc'ed C string as str (freed)."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        lib().hs_py_free(ptr)


def enc(text):
    return None if text is None else os.fsencode(text) if isinstance(text, os.PathLike) else str(text).encode("utf-8")


def strv(items):
    """A NULL-terminated char*[] (kept alive by the returned array)."""
    arr = (ctypes.c_char_p * (len(items) + 1))()
    for k, t in enumerate(items):
        arr[k] = enc(t)
    arr[len(items)] = None
    return arr

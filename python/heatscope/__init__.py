"""Heatscope from Python (docs/python.md).

    ds = heatscope.Dataset.create("mydata")
    ds.add_instance("0001", image=img, sentences=["left lower lobe opacity"],
                    regions={"left lower lobe": [10, 20, 60, 90]},
                    targets={"left lower lobe opacity": ["left lower lobe"]})
    ds.add_map("0001", "left lower lobe opacity", "mymodel", attn)   # [h, w] or [T, h, w]
    ds.save()
    heatscope.open(ds)

    heatscope.score(attn, size=(W, H), boxes=[[10, 20, 60, 90]])     # = heatscope-cli score --json
    heatscope.metrics("mydata")                                      # rows of heatscope-cli metrics
    heatscope.serve(fn)                                              # fn as an --backend-exec model

Every number is computed by libheatscope (the C library the app and the CLI use).
"""

from ._lib import HeatscopeError
from .dataset import Dataset
from .scoring import score, metrics, PROTOCOLS
from .serve import serve, load_image
from .app import open

__all__ = ["Dataset", "HeatscopeError", "PROTOCOLS", "load_image", "metrics", "open", "score", "serve"]
__version__ = "0.1.0"

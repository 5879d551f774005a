"""wsarray.fusion, the home of ``wsarray.fuse``: elementwise functions traced once and run in one
pass over cache-sized blocks (CuPy's ``cupy.fuse`` semantics). See api.py; tracing is in trace.py,
dtypes in plan.py, the block evaluation and its exact reductions in blocks.py."""

from .api import FuseWarning, fuse

__all__ = ["FuseWarning", "fuse"]

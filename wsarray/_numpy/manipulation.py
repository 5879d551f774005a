"""Array manipulation routines beyond the standard (NumPy's reference: Array manipulation)."""

import numpy as _np

from .._array_api.manipulation import concat, permute_dims
from ._routing import numpy_function as _F

__all__ = [
    "append", "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "block", "broadcast",
    "column_stack", "concatenate", "copyto", "delete", "dsplit", "dstack", "fliplr", "flipud",
    "hsplit", "hstack", "insert", "ndim", "pad", "ravel", "resize", "rollaxis", "rot90",
    "row_stack", "shape", "size", "split", "swapaxes", "transpose", "trim_zeros", "vsplit",
    "vstack"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
append = _F(_np.append, "append")
array_split = _F(_np.array_split, "array_split")
atleast_1d = _F(_np.atleast_1d, "atleast_1d")
atleast_2d = _F(_np.atleast_2d, "atleast_2d")
atleast_3d = _F(_np.atleast_3d, "atleast_3d")
block = _F(_np.block, "block")
column_stack = _F(_np.column_stack, "column_stack")
copyto = _F(_np.copyto, "copyto")
delete = _F(_np.delete, "delete")
dsplit = _F(_np.dsplit, "dsplit")
dstack = _F(_np.dstack, "dstack")
fliplr = _F(_np.fliplr, "fliplr")
flipud = _F(_np.flipud, "flipud")
hsplit = _F(_np.hsplit, "hsplit")
hstack = _F(_np.hstack, "hstack")
insert = _F(_np.insert, "insert")
ndim = _F(_np.ndim, "ndim")
pad = _F(_np.pad, "pad")
ravel = _F(_np.ravel, "ravel")
resize = _F(_np.resize, "resize")
rollaxis = _F(_np.rollaxis, "rollaxis")
rot90 = _F(_np.rot90, "rot90")
row_stack = _F(_np.row_stack, "row_stack")
shape = _F(_np.shape, "shape")
size = _F(_np.size, "size")
split = _F(_np.split, "split")
swapaxes = _F(_np.swapaxes, "swapaxes")
trim_zeros = _F(_np.trim_zeros, "trim_zeros")
vsplit = _F(_np.vsplit, "vsplit")
vstack = _F(_np.vstack, "vstack")

# NumPy's names of the standard's functions: the same objects, as in NumPy (np.arccos is np.acos).
concatenate = concat
transpose = permute_dims

# NumPy's own objects: they hold no workspace memory.
broadcast = _np.broadcast

"""Shape and arrangement: reshape, concatenate, stack, ..."""

import numpy as _np

from ._core import Function as _F

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "broadcast_shapes",
           "broadcast_to", "column_stack",
           "concat", "concatenate", "copy", "diag", "diagonal", "dstack", "expand_dims", "flip",
           "hstack", "moveaxis", "pad", "permute_dims", "ravel", "repeat", "reshape", "roll",
           "rot90", "split", "squeeze", "stack", "swapaxes", "tile", "transpose", "unstack", "vstack"]

atleast_1d = _F(_np.atleast_1d, "atleast_1d")
atleast_2d = _F(_np.atleast_2d, "atleast_2d")
atleast_3d = _F(_np.atleast_3d, "atleast_3d")
broadcast_arrays = _F(_np.broadcast_arrays, "broadcast_arrays")
broadcast_shapes = _F(_np.broadcast_shapes, "broadcast_shapes")
broadcast_to = _F(_np.broadcast_to, "broadcast_to")
column_stack = _F(_np.column_stack, "column_stack")
concatenate = _F(_np.concatenate, "concatenate")
copy = _F(_np.copy, "copy")
diag = _F(_np.diag, "diag")
diagonal = _F(_np.diagonal, "diagonal")
dstack = _F(_np.dstack, "dstack")
expand_dims = _F(_np.expand_dims, "expand_dims")
flip = _F(_np.flip, "flip")
hstack = _F(_np.hstack, "hstack")
moveaxis = _F(_np.moveaxis, "moveaxis")
pad = _F(_np.pad, "pad")
ravel = _F(_np.ravel, "ravel")
repeat = _F(_np.repeat, "repeat")
reshape = _F(_np.reshape, "reshape")
roll = _F(_np.roll, "roll")
rot90 = _F(_np.rot90, "rot90")
split = _F(_np.split, "split")
squeeze = _F(_np.squeeze, "squeeze")
stack = _F(_np.stack, "stack")
swapaxes = _F(_np.swapaxes, "swapaxes")
tile = _F(_np.tile, "tile")
transpose = _F(_np.transpose, "transpose")
unstack = _F(_np.unstack, "unstack")
vstack = _F(_np.vstack, "vstack")

# NumPy's aliases are the same objects (np.concat is np.concatenate).
concat = concatenate
permute_dims = transpose

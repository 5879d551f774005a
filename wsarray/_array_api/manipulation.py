"""Manipulation functions of the array API standard: shape and arrangement."""

import numpy as _np

from .._annotations import array_function as _F
from .._annotations import numpy_typed as _N

__all__ = [
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
    "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
    "unstack"
]

broadcast_arrays = _N(_np.broadcast_arrays, "broadcast_arrays")
broadcast_shapes = _N(_np.broadcast_shapes, "broadcast_shapes")
broadcast_to = _F(_np.broadcast_to, "broadcast_to")
concat = _F(_np.concatenate, "concatenate")
expand_dims = _F(_np.expand_dims, "expand_dims")
flip = _F(_np.flip, "flip")
moveaxis = _F(_np.moveaxis, "moveaxis")
permute_dims = _F(_np.transpose, "transpose")
repeat = _F(_np.repeat, "repeat")
reshape = _F(_np.reshape, "reshape")
roll = _F(_np.roll, "roll")
squeeze = _F(_np.squeeze, "squeeze")
stack = _F(_np.stack, "stack")
tile = _F(_np.tile, "tile")
unstack = _N(_np.unstack, "unstack")

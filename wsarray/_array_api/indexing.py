"""Indexing functions of the array API standard: ``take`` and ``take_along_axis``."""

import numpy as _np

from .._annotations import array_function as _F

__all__ = ["take", "take_along_axis"]

take = _F(_np.take, "take")
take_along_axis = _F(_np.take_along_axis, "take_along_axis")

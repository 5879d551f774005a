"""Data type functions of the array API: astype, can_cast, finfo, iinfo, isdtype, result_type.

``finfo``/``iinfo`` follow the standard (Python ``float``/``int`` fields, arrays accepted) and still
answer every other attribute of NumPy's finfo/iinfo (``tiny``, ``resolution``, ``precision``, ...).
"""
import numpy as _np

from ._core import Function as _F
from ._impl import data_types as _impl

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]

astype = _F(_impl.astype, "astype")
can_cast = _F(_impl.can_cast, "can_cast")
finfo = _F(_impl.finfo, "finfo")
iinfo = _F(_impl.iinfo, "iinfo")
isdtype = _F(_np.isdtype, "isdtype")
result_type = _F(_impl.result_type, "result_type")

"""Datetime support (NumPy's reference: Datetime support functions)."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "busday_count", "busday_offset", "busdaycalendar", "datetime_as_string", "datetime_data",
    "is_busday"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
busday_count = _F(_np.busday_count, "busday_count")
busday_offset = _F(_np.busday_offset, "busday_offset")
datetime_as_string = _F(_np.datetime_as_string, "datetime_as_string")
is_busday = _F(_np.is_busday, "is_busday")

# NumPy's own objects: they hold no workspace memory.
busdaycalendar = _np.busdaycalendar
datetime_data = _np.datetime_data

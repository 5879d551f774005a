"""``wsarray.lib.format``: NumPy's ``.npy`` format module. Functions that read arrays give wsarray
arrays (in the current workspace); functions that write or describe arrays accept them. The
constants are NumPy's; ``open_memmap`` gives NumPy's ``memmap`` (an ndarray subclass, NumPy's own
memory, as ``wsarray.memmap``)."""

from numpy.lib import format as _format

from .._numpy._routing import numpy_function as _F
from .._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

__all__ = ["ARRAY_ALIGN", "BUFFER_SIZE", "EXPECTED_KEYS", "GROWTH_AXIS_MAX_DIGITS", "MAGIC_LEN",
           "MAGIC_PREFIX", "descr_to_dtype", "drop_metadata", "dtype_to_descr",
           "header_data_from_array_1_0", "isfileobj", "magic", "open_memmap", "read_array",
           "read_array_header_1_0", "read_array_header_2_0", "read_magic", "write_array",
           "write_array_header_1_0", "write_array_header_2_0"]

ARRAY_ALIGN = _format.ARRAY_ALIGN
BUFFER_SIZE = _format.BUFFER_SIZE
EXPECTED_KEYS = _format.EXPECTED_KEYS
GROWTH_AXIS_MAX_DIGITS = _format.GROWTH_AXIS_MAX_DIGITS
MAGIC_LEN = _format.MAGIC_LEN
MAGIC_PREFIX = _format.MAGIC_PREFIX

# Plain helpers on dtypes, files and headers: NumPy's own functions.
descr_to_dtype = _format.descr_to_dtype
drop_metadata = _format.drop_metadata
dtype_to_descr = _format.dtype_to_descr
isfileobj = _format.isfileobj
magic = _format.magic
read_magic = _format.read_magic
read_array_header_1_0 = _format.read_array_header_1_0
read_array_header_2_0 = _format.read_array_header_2_0
write_array_header_1_0 = _format.write_array_header_1_0
write_array_header_2_0 = _format.write_array_header_2_0
open_memmap = _format.open_memmap

# Functions that take or give arrays: through wsarray's engine.
header_data_from_array_1_0 = _F(_format.header_data_from_array_1_0, "lib.format.header_data_from_array_1_0")
read_array = _F(_format.read_array, "lib.format.read_array")
write_array = _F(_format.write_array, "lib.format.write_array")


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).

__getattr__ = _numpy_module_getattr(__name__, "numpy.lib.format")

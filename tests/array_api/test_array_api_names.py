"""wsarray holds every name of the array API standard 2025.12 (main namespace, linalg, fft, the
inspection namespace and the Array object). The lists are the standard's own (array_api_stubs
``_2025_12``); the functions' lists live in wsarray/_array_api/standard_names.py."""
import inspect

import numpy as np
import pytest

import wsarray as wnp
from wsarray._array_api import standard_names as _standard_names

CONSTANTS = ["e", "inf", "nan", "newaxis", "pi"]
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]
# The functions' lists are wsarray's own record of the standard (wsarray/_array_api/standard_names.py, which
# also decides which functions return NumPy scalars); test_counts_match_the_standard pins them.
FUNCTIONS = sorted(_standard_names.MAIN)
LINALG = sorted(_standard_names.LINALG)
FFT = sorted(_standard_names.FFT)
INFO = ["capabilities", "default_device", "default_dtypes", "devices", "dtypes"]
ARRAY_ATTRIBUTES = ["T", "mT", "device", "dtype", "ndim", "shape", "size"]
ARRAY_METHODS = """
__abs__ __add__ __and__ __array_namespace__ __bool__ __complex__ __dlpack__ __dlpack_device__
__eq__ __float__ __floordiv__ __ge__ __getitem__ __gt__ __index__ __int__ __invert__ __le__
__lshift__ __lt__ __matmul__ __mod__ __mul__ __ne__ __neg__ __or__ __pos__ __pow__ __rshift__
__setitem__ __sub__ __truediv__ __xor__ to_device
""".split()
# The standard's prose also requires the in-place and reflected forms of these operators.
OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
             "xor", "lshift", "rshift"]


def test_counts_match_the_standard():
    # 157 names: these plus __array_api_version__, __array_namespace_info__, linalg and fft.
    assert len(set(FUNCTIONS)) + len(CONSTANTS) + len(DTYPES) == 157 - 4
    assert (len(LINALG), len(FFT), len(INFO), len(ARRAY_ATTRIBUTES) + len(ARRAY_METHODS)) == \
        (25, 14, 5, 41)


def test_version():
    assert wnp.__array_api_version__ == "2025.12"
    assert wnp.ones(1).__array_namespace__() is wnp
    assert wnp.ones(1).__array_namespace__(api_version="2025.12") is wnp
    with pytest.raises(ValueError, match="api_version"):
        wnp.ones(1).__array_namespace__(api_version="2019.01")


def test_main_namespace():
    missing = [n for n in CONSTANTS + DTYPES + FUNCTIONS if n not in wnp.__all__ or not hasattr(wnp, n)]
    assert missing == []
    assert [n for n in FUNCTIONS if not callable(getattr(wnp, n))] == []
    assert callable(wnp.__array_namespace_info__)


def test_extensions():
    assert [n for n in LINALG if n not in wnp.linalg.__all__ or not callable(getattr(wnp.linalg, n))] == []
    assert [n for n in FFT if n not in wnp.fft.__all__ or not callable(getattr(wnp.fft, n))] == []
    info = wnp.__array_namespace_info__()
    assert [n for n in INFO if not callable(getattr(info, n, None))] == []


def test_array_attributes_and_methods():
    x = wnp.ones((2, 2))
    for name in ARRAY_ATTRIBUTES:
        getattr(x, name)
    for name in ARRAY_METHODS:
        assert callable(getattr(x, name)), name
    for op in OPERATORS:
        for form in (f"__{op}__", f"__r{op}__", f"__i{op}__"):
            assert callable(getattr(x, form)), form


@pytest.mark.parametrize("name, params", [
    ("clip", ["x", "min", "max", "a_min", "a_max"]),
    ("sort", ["axis", "descending", "stable"]),
    ("argsort", ["axis", "descending", "stable"]),
    ("astype", ["copy", "device"]),
])
def test_standard_parameter_names(name, params):
    """inspect.signature sees the standard's parameters (those of wsarray's implementation)."""
    sig = inspect.signature(getattr(wnp, name))
    names = list(sig.parameters)
    for p in params:
        assert p in names or (p == "x" and names[0] in ("a", "x")), (name, p, names)
    if name == "clip":  # NumPy's signature (libraries bind by it), the standard's names keyword-only
        assert names == list(inspect.signature(np.clip).parameters)


def test_fftfreq_signature():
    assert {"d", "dtype", "device"} <= set(inspect.signature(wnp.fft.fftfreq).parameters)
    assert {"d", "dtype", "device"} <= set(inspect.signature(wnp.fft.rfftfreq).parameters)

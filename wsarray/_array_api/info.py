"""``wsarray.__array_namespace_info__()``: the array API inspection namespace."""
import numpy as _np

from .._device import CPU, check_usable, parse_device

__all__ = ["__array_namespace_info__"]

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def _check_device(fn, device):
    """NumPy's check and message for what is no device (its inspection namespace is the reference
    for NumPy code); a CUDA device that cannot be used gets wsarray.cuda's error saying why."""
    try:
        parsed = parse_device(device, f"__array_namespace_info__().{fn}")
    except (TypeError, ValueError):
        parsed = None
    if parsed is None:
        raise ValueError(f'Device not understood. Only "cpu" is allowed, but received: {device}')
    check_usable(parsed, f"__array_namespace_info__().{fn}")


class __array_namespace_info__:  # noqa: N801 (the name is fixed by the standard)
    """Capabilities, devices and dtypes of wsarray (array API inspection namespace)."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return CPU

    def devices(self):
        # A tuple, as the 2025.12 standard says (NumPy gives a list): the CPU, then the GPUs CuPy
        # can use (probed once, lazily: wsarray.cuda), then fake devices a test enabled.
        from .._devices.engines import usable_devices

        return (CPU, *usable_devices())

    def default_dtypes(self, *, device=None):
        _check_device("default_dtypes", device)
        # dtype objects, as NumPy's: they hash as x.dtype does (consumers key dicts by them).
        return {"real floating": _np.dtype(_np.float64), "complex floating": _np.dtype(_np.complex128),
                "integral": _np.dtype(_np.int64), "indexing": _np.dtype(_np.int64)}

    def dtypes(self, *, device=None, kind=None):
        _check_device("dtypes", device)
        if kind is None:
            names = _KINDS["bool"] + _KINDS["numeric"]
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            names = []
            for k in kinds:
                if k not in _KINDS:
                    raise ValueError(f"unsupported kind: {k!r}")  # NumPy's message
                names += [n for n in _KINDS[k] if n not in names]
        return {n: _np.dtype(n) for n in names}  # dtype objects, as NumPy's (hash as x.dtype)

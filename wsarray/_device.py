"""``wsarray.Device``: the devices arrays live on, as values.

A device is a ``str`` subclass, so ``x.device == "cpu"``, ``device="cpu"`` arguments and NumPy's own
``device=`` keyword (which accepts only ``"cpu"``) all keep working: ``Device("cpu")`` is the host;
``Device("cuda:0")``, ``Device("cuda")`` (= ``cuda:0``) name a device of a registered kind
(wsarray/_devices/kinds.py: ``cuda``, and in tests ``fake``), which decides which indices exist.
Parsing never probes a device: whether one can be used is its kind's question
(``kinds.get(d.kind).require(d, fn)``), asked where it is used.
"""

import re as _re

from ._devices import kinds as _kinds

__all__ = ["CPU", "Device", "check_usable", "parse_device"]

_SPEC = _re.compile(r"^([a-z][a-z0-9_]*)(?::(\d+))?$")


class Device(str):
    """A device: ``Device("cpu")`` or ``Device("cuda:N")``; equal to (and hashed as) its string."""

    __slots__ = ()

    def __new__(cls, spec="cpu", *, fn="Device"):
        if isinstance(spec, Device):
            return spec
        text = spec if isinstance(spec, str) else None
        match = _SPEC.match(text.strip().lower()) if text is not None else None
        kind, index = (match.group(1), int(match.group(2) or 0)) if match else (None, 0)
        if kind == "cpu" and index == 0:
            return super().__new__(cls, "cpu")
        provider = _kinds.get(kind) if kind not in (None, "cpu") else None
        if provider is None or not provider.accepts(index):
            raise ValueError(f"wsarray.{fn}(): unknown device {spec!r}; devices are 'cpu' and "
                             "'cuda:N' (N a GPU number)")
        return super().__new__(cls, f"{kind}:{index}")

    @property
    def kind(self):
        """``"cpu"``, ``"cuda"`` (or another registered kind: ``"fake"`` in tests)."""
        return "cpu" if self == "cpu" else self.split(":")[0]

    @property
    def index(self):
        """The device number of a non-CPU device (a GPU's); ``None`` for the CPU."""
        return None if self == "cpu" else int(self.split(":")[1])

    def __repr__(self):
        return f"Device({str(self)!r})"


CPU = Device("cpu")


def parse_device(device, fn):
    """``device`` (``None``: the default, the CPU) as a Device; ValueError naming ``fn`` otherwise."""
    return CPU if device is None else Device(device, fn=fn)


def check_usable(device, fn):
    """``device`` parsed; one that cannot be used here raises its kind's error naming ``fn`` (CUDA:
    what is missing, CuPy, a driver, a GPU). Imports nothing beyond the kind's probe."""
    d = parse_device(device, fn)
    if d != CPU:
        _kinds.get(d.kind).require(d, fn)
    return d

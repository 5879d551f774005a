"""``wsarray.Device``: the devices arrays live on, in one place.

A device is a ``str`` subclass, so ``x.device == "cpu"``, ``device="cpu"`` arguments and NumPy's own
``device=`` keyword (which accepts only ``"cpu"``) all keep working: ``Device("cpu")`` is the host;
``Device("cuda:0")``, ``Device("cuda")`` (= ``cuda:0``) name a GPU for the CUDA layer (wsarray.cuda),
whose availability that layer checks. Every function that takes ``device=`` parses it here, so an
unknown device gets one clear message naming the function.
"""

import re as _re

__all__ = ["CPU", "Device"]

_SPEC = _re.compile(r"^(cpu|cuda)(?::(\d+))?$")


class Device(str):
    """A device: ``Device("cpu")`` or ``Device("cuda:N")``; equal to (and hashed as) its string."""

    __slots__ = ()

    def __new__(cls, spec="cpu", *, fn="Device"):
        if isinstance(spec, Device):
            return spec
        text = spec if isinstance(spec, str) else None
        match = _SPEC.match(text.strip().lower()) if text is not None else None
        if match is None or (match.group(1) == "cpu" and match.group(2) not in (None, "0")):
            raise ValueError(f"wsarray.{fn}(): unknown device {spec!r}; devices are 'cpu' and "
                             "'cuda:N' (N a GPU number)")
        kind, index = match.group(1), match.group(2)
        return super().__new__(cls, "cpu" if kind == "cpu" else f"cuda:{int(index or 0)}")

    @property
    def kind(self):
        """``"cpu"`` or ``"cuda"``."""
        return "cpu" if self == "cpu" else "cuda"

    @property
    def index(self):
        """The GPU number of a CUDA device; ``None`` for the CPU."""
        return None if self == "cpu" else int(self.split(":")[1])

    def __repr__(self):
        return f"Device({str(self)!r})"


CPU = Device("cpu")


def parse_device(device, fn):
    """``device`` (``None``: the default, the CPU) as a Device; ValueError naming ``fn`` otherwise."""
    return CPU if device is None else Device(device, fn=fn)

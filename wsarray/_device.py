"""``wsarray.Device``: the devices arrays live on, in one place.

A device is a ``str`` subclass, so ``x.device == "cpu"``, ``device="cpu"`` arguments and NumPy's own
``device=`` keyword (which accepts only ``"cpu"``) all keep working: ``Device("cpu")`` is the host;
``Device("cuda:0")``, ``Device("cuda")`` (= ``cuda:0``) name a GPU for the CUDA layer (wsarray.cuda),
whose availability that layer checks; ``"fake:N"``, the test-only fake device
(wsarray._devices.fake), exists only while a test has enabled it. Every function that takes
``device=`` parses it here, so an unknown device gets one clear message naming the function, and a
CUDA device that cannot be used the CUDA layer's message (what is missing: CuPy, a driver or a GPU).
Parsing never imports CuPy.
"""

import re as _re

__all__ = ["CPU", "Device"]

_SPEC = _re.compile(r"^(cpu|cuda|fake)(?::(\d+))?$")
_fake_enabled = set()  # indices of fake devices a test enabled (wsarray._devices.fake.enable)


class Device(str):
    """A device: ``Device("cpu")`` or ``Device("cuda:N")``; equal to (and hashed as) its string."""

    __slots__ = ()

    def __new__(cls, spec="cpu", *, fn="Device"):
        if isinstance(spec, Device):
            return spec
        text = spec if isinstance(spec, str) else None
        match = _SPEC.match(text.strip().lower()) if text is not None else None
        if (match is None or (match.group(1) == "cpu" and match.group(2) not in (None, "0"))
                or (match.group(1) == "fake" and int(match.group(2) or 0) not in _fake_enabled)):
            raise ValueError(f"wsarray.{fn}(): unknown device {spec!r}; devices are 'cpu' and "
                             "'cuda:N' (N a GPU number)")
        kind, index = match.group(1), match.group(2)
        return super().__new__(cls, "cpu" if kind == "cpu" else f"{kind}:{int(index or 0)}")

    @property
    def kind(self):
        """``"cpu"``, ``"cuda"`` (or ``"fake"``, in tests)."""
        return "cpu" if self == "cpu" else self.split(":")[0]

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


def engine_for(device, fn):
    """The engine of ``device`` (None for the CPU); a CUDA device that cannot be used raises
    wsarray.cuda's error naming ``fn``."""
    d = parse_device(device, fn)
    if d == CPU:
        return None
    from ._devices.engines import engine_for as _engine_for

    return _engine_for(d, fn)


def check_usable(device, fn):
    """``device`` parsed; a CUDA device that cannot be used raises wsarray.cuda's error naming ``fn``
    (what is missing: CuPy, a driver, a GPU). Imports nothing beyond the probe."""
    d = parse_device(device, fn)
    if d.kind == "cuda":
        from . import cuda

        cuda.require(d, fn)
    return d


def config_device(device, fn):
    """``WorkspaceConfig(device=...)``: '' for the CPU, else the device's name once it is known to be
    usable (wsarray.cuda's error otherwise)."""
    d = check_usable(device, fn)
    return "" if d == CPU else str(d)


def host_to_device(array, device, fn):
    """``x.to_device(device)`` of a host Array: the Array itself for the CPU, else a copy on that
    device (allocated like the device's other arrays: in its innermost open workspace)."""
    engine = engine_for(device, fn)
    if engine is None:
        return array
    from ._devices.array import to_device_from_host

    return to_device_from_host(array, engine)


def numpy_device_error(message, fn):
    """The error to raise instead of NumPy's ``Device not understood ... received: X`` for a
    ``device=`` argument of ``wsarray.<fn>()`` (None: keep NumPy's). Called by the core on that
    error path only."""
    spec = message.rsplit("received:", 1)[-1].strip()
    try:
        d = Device(spec, fn=fn)
    except ValueError:
        return None  # not a device wsarray knows either: NumPy's message stands
    if d == CPU:
        return None
    try:
        engine_for(d, fn)
    except Exception as e:  # noqa: BLE001 - the error itself is the answer
        return e
    return None

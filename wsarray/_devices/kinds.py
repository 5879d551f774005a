"""The kinds of device other than the CPU, each a provider that registers itself here.

A leaf: it imports nothing of wsarray's, so that ``wsarray.Device`` (which parses ``"kind:N"``
against it), the engines, the device workspaces and ``from_dlpack`` can all ask it without an
import circle. A device kind is one module (``wsarray.cuda`` for CUDA, ``wsarray._devices.fake``
for the test-only fake device) that calls ``register(provider)`` when imported; the provider is any
object with:

``name``                ``"cuda"``: devices are named ``"cuda:N"``
``dlpack_types``        the DLPack device types whose memory is this kind's (``(2, 3, 13)`` for
                        CUDA: device, its pinned host memory, managed memory), for ``from_dlpack``
``accepts(index)``      whether ``"name:index"`` names a device (parsing only: never probes)
``usable()``            the indices usable here (may probe, lazily: CUDA asks CuPy once)
``require(device, fn)`` raise the kind's error (a ValueError) if ``wsarray.<fn>()`` cannot use it
``engine(device)``      the engine doing the math of arrays on ``device`` (wsarray/_devices/engines.py)
``workspace(name, config, device)``  a device workspace of ``device``'s memory
``from_dlpack(obj, index, copy)``    an array on device ``index`` over ``obj``'s memory
"""

import threading

__all__ = ["for_dlpack", "get", "register", "registered"]

_kinds = {}
_lock = threading.RLock()


def register(kind):
    """Add a device kind (its ``name`` must be new, and not ``"cpu"``); returns it."""
    name = getattr(kind, "name", None)
    if not isinstance(name, str) or not name.isidentifier() or name == "cpu":
        raise ValueError(f"wsarray: a device kind needs a name other than 'cpu', not {name!r}")
    with _lock:
        if name in _kinds and _kinds[name] is not kind:
            raise ValueError(f"wsarray: device kind {name!r} is registered already")
        _kinds[name] = kind
    return kind


def get(name):
    """The provider of device kind ``name``, or None."""
    return _kinds.get(name)


def registered():
    """Every registered device kind, in registration order."""
    return tuple(_kinds.values())


def for_dlpack(device_type):
    """The kind whose memory DLPack device type ``device_type`` is, or None (the host's)."""
    for kind in _kinds.values():
        if device_type in kind.dlpack_types:
            return kind
    return None

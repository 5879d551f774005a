"""Device workspaces, device-independent: the layer the CUDA support (``wsarray.cuda``) is built on.

``workspace.DeviceWorkspace`` gives a workspace chunks from a *backend* (CUDA through CuPy, or the
test-only fake device of ``fake``) and enforces the stream rule; ``current_workspace(device)`` picks
the innermost open workspace of a device on this thread. Nothing here imports CuPy or calls CUDA:
the backend is the only device-specific part, so everything here is tested on the CPU with the fake.
"""

from .workspace import DeviceWorkspace, current_workspace

__all__ = ["DeviceWorkspace", "current_workspace"]

"""Devices other than the CPU, device-independent: the layer the CUDA support (``wsarray.cuda``) is built on.

``array.DeviceArray`` is an array on a device over its engine's array (``engines``: CuPy on
``cuda:N``, NumPy on the test-only fake device of ``fake``); ``dispatch`` runs ``wsarray.<fn>`` on
device arrays with the engine's function of the same name (the compiled namespace hands such calls
over); ``workspace.DeviceWorkspace`` gives a workspace chunks from a *backend* and enforces the stream
rule, and ``wsarray.workspace(name, WorkspaceConfig(device=...))`` makes one (``workspace.create``);
``current_workspace(device)`` picks the innermost open workspace of a device on this thread. Nothing
here imports CuPy before a CUDA device is used: everything but CuPy itself is tested on the CPU with
the fake device.
"""

from .workspace import DeviceWorkspace, current_workspace

__all__ = ["DeviceWorkspace", "current_workspace"]

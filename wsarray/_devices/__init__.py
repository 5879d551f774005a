"""Devices other than the CPU, device-independent: the layer the CUDA support (``wsarray.cuda``) is built on.

``kinds`` is the registry each device kind registers itself in (a leaf: ``wsarray.Device`` parses
against it); ``engines`` makes and keeps each device's engine (CuPy's for ``cuda:N``, in
``wsarray/cuda/engine.py``; NumPy over fake memory for the test-only ``fake`` kind, in ``fake``);
``workspace.DeviceWorkspace`` gives a workspace chunks from a *backend* and enforces the stream rule,
and ``workspace.create`` makes one for ``wsarray.workspace(name, WorkspaceConfig(device=...))``;
``array.DeviceArray`` is an array on a device over its engine's array; ``dispatch`` runs
``wsarray.<fn>`` on device arrays with the engine's function of the same name and answers the
core's device questions (``to_device``, ``WorkspaceConfig(device=)``). Nothing here imports CuPy
before a CUDA device is used: everything but CuPy itself is tested on the CPU with the fake device.
The modules import each other only downwards: kinds, then workspace, engines, array, dispatch.
"""

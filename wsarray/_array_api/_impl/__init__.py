"""NumPy-level implementations behind wsarray functions that differ from a plain NumPy call.

Everything here takes and returns NumPy arrays; the public modules wrap these functions in
``wsarray._native.Function``, so they run through the engine (Array arguments unwrapped, every
allocation routed into the current workspace, results wrapped). Keeping them apart from the
modules that hold the Function objects also keeps Function -> function -> module globals ->
Function reference cycles out of the namespace.
"""

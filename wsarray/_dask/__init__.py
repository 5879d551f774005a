"""The Dask integration behind ``wsarray.dask`` (see that module for the public API).

``hooks`` runs from Dask's entry points and imports nothing of Dask itself; ``registry`` tells
``dask.array`` about wsarray arrays (chunk type, dispatch functions, sizeof, tokens, the
``"wsarray"`` creation backend from ``backend``); ``arrays`` holds ``from_array``; ``runner`` runs
task bodies in per-thread workspaces and detaches what they return; ``pool`` (the threaded
scheduler) and ``plugin`` (distributed workers) put every task through a runner.
"""

EXTRA_HINT = 'pip install "wsarray[dask]"'


def require(module, who):
    """Import ``module`` (dask, dask.array, distributed) or raise an ImportError naming the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{who} needs Dask and distributed ({module} could not be imported: "
                          f"{e}); install them with {EXTRA_HINT}") from e

"""wsarray.parallel: use all the hardware, one workspace per worker.

``ParallelInference`` serves a model from several worker threads (NumPy releases the GIL in BLAS
and large kernels), each running its batches in a workspace of its own, in ``"batched"`` or
``"sequential"`` mode; see its docstring and the README. Shared pieces (the batching queue, worker
threads with their workspaces and device assignment, BLAS thread caps, statistics) are in the
private modules. ``ParallelWrapper`` trains data-parallel: a replica of the model per worker
thread, batches from one shared prefetching iterator, parameters averaged every few iterations.
"""

from .inference import ParallelInference
from .wrapper import ParallelWrapper

__all__ = ["ParallelInference", "ParallelWrapper"]

"""wsarray.parallel: use all the hardware, one workspace per worker.

``ParallelInference`` serves a model from several worker threads (NumPy releases the GIL in BLAS
and large kernels), each running its batches in a workspace of its own, in ``"batched"`` or
``"sequential"`` mode, with priorities (``RequestShed``: a request pushed out of a full queue by
one of higher priority), deadlines, asyncio and pad buckets; see its docstring and the README.
Shared pieces (the priority queue and its deadline timer, worker threads with their workspaces and
device assignment, pad buckets, BLAS thread caps, statistics) are in the private modules.
``ParallelWrapper`` trains data-parallel: a replica of the model per worker thread, batches from
one shared prefetching iterator, parameters averaged every few iterations or, with
``training_mode="shared_gradients"``, threshold-encoded updates shared every step
(``AdaptiveThreshold``: Deeplearning4j's adaptive threshold).
"""

from ._requests import RequestShed
from ._sharing import AdaptiveThreshold
from .inference import ParallelInference
from .wrapper import ParallelWrapper

__all__ = ["AdaptiveThreshold", "ParallelInference", "ParallelWrapper", "RequestShed"]

"""wsarray.data: the data pipeline of a training, simulation or ETL loop, on workspaces.

* ``AsyncIterator(source, queue_size=4, use_workspace=True)``: prefetch batches on a background
  thread into a ring of workspace slots (Deeplearning4j's AsyncDataSetIterator); a batch is valid
  until the next one is requested, then any use raises WorkspaceError; ``detach(batch)`` keeps one.
  ``shield(source)`` keeps a source synchronous. ``AsyncIterator(dataset, backend="process",
  workers=4, batch_size=32)``: worker processes build batches straight into shared-memory slots
  (no pickled arrays), in a seeded order, resumable (``state_dict()``); ``worker_info()`` in them.
* ``save_batches(batches, directory)`` / ``BatchDirectory(directory)``: pre-saved minibatches in
  NumPy's own .npy/.npz format with an index, read straight into workspace memory.
* ``PerformanceListener(frequency, report_score)``: time per iteration, samples/s, ETL time,
  workspace memory, page faults and GC collections of any loop, logged, shown and plotted.
* ``WorkspaceMode`` and ``WorkspaceManager``: which workspace each kind of array of a training step
  goes to (NONE, SINGLE, SEPARATE; Deeplearning4j's LayerWorkspaceMgr).
"""

from ._batches import detach
from ._collate import default_collate
from ._process_pipeline import WorkerError
from ._worker import WorkerInfo, worker_info
from .iterator import AsyncIterator, Shielded, shield
from .listener import PerformanceListener
from .modes import KINDS, Kind, WorkspaceManager, WorkspaceMode
from .saved import BatchDirectory, BatchFileError, save_batches

__all__ = ["AsyncIterator", "BatchDirectory", "BatchFileError", "KINDS", "Kind", "PerformanceListener",
           "Shielded", "WorkerError", "WorkerInfo", "WorkspaceManager", "WorkspaceMode", "default_collate",
           "detach", "save_batches", "shield", "worker_info"]

"""PerformanceListener on a real loop: the README's example log lines and plot.

    python -P bench/listener_plot.py [out.png]      # about 15 s

Trains wsarray.data._example's MLP (27648-256-10) on AugmentedImages batches (as
bench/data_pipeline.py) for 3 epochs: the first synchronously (shield: the loop waits for the
ETL), then two with one AsyncIterator(queue_size=4), where the ETL is prefetched. Run it on an idle
machine: the prefetch needs the second core. The listener logs
every 10 iterations and the plot shows throughput, ETL and iteration time, and workspace memory.
"""

import logging
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("WSARRAY_NUM_THREADS", "1")

from wsarray.data import AsyncIterator, PerformanceListener, WorkspaceManager, shield
from wsarray.data._example import AugmentedImages, init_mlp, train_step


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else "performance_listener.png"
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    source = AugmentedImages(batches=40, batch=128, size=104, crop=96)
    params = init_mlp([96 * 96 * 3, 256, 10])
    mgr = WorkspaceManager("single")
    listener = PerformanceListener(frequency=10, report_score=True, progress=False)
    with AsyncIterator(shield(source)) as synchronous:
        for x, y in listener.track(synchronous):
            listener.record(score=train_step(mgr, params, x, y, lr=0.01))
    with AsyncIterator(source, queue_size=4) as prefetching:
        for _ in range(2):  # a for loop over a finished AsyncIterator is its next epoch
            for x, y in listener.track(prefetching):
                listener.record(score=train_step(mgr, params, x, y, lr=0.01))
    listener.plot(path, title="MLP on augmented images: epoch 1 synchronous, epochs 2-3 AsyncIterator")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

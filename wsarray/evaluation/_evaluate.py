"""``evaluate(model, data, *metrics)``: one pass over the data, each batch's forward pass and metric
updates in one cycle of a workspace (Deeplearning4j's ``model.doEvaluation(iterator, evals...)``)."""

from .._workspaces import WorkspaceConfig, workspace
from ._metric import Metric

__all__ = ["evaluate", "predictor", "unpack"]


def predictor(model, who):
    """The callable that gives ``model``'s predictions: its ``output`` (Deeplearning4j), its
    ``predict_proba`` (scikit-learn classifiers: metrics need scores), its ``predict``, or the model
    itself."""
    for name in ("output", "predict_proba", "predict"):
        method = getattr(model, name, None)
        if callable(method):
            return method
    if callable(model):
        return model
    raise TypeError(f"{who}: model must be callable or have an output, predict_proba or predict method, "
                    f"not {type(model).__name__}")


def unpack(batch, number, who):
    """(features, labels, mask) of a batch: a (features, labels) or (features, labels, mask) tuple, or
    a dict with 'features' and 'labels' (and 'mask')."""
    if isinstance(batch, dict):
        if "features" not in batch or "labels" not in batch:
            raise ValueError(f"{who}: batch {number} is a dict without 'features' and 'labels' "
                             f"(keys: {sorted(map(str, batch))})")
        return batch["features"], batch["labels"], batch.get("mask")
    if isinstance(batch, (tuple, list)) and len(batch) in (2, 3):
        return batch[0], batch[1], batch[2] if len(batch) == 3 else None
    raise ValueError(f"{who}: batch {number} must be (features, labels), (features, labels, mask) or a dict "
                     f"with 'features' and 'labels', not {type(batch).__name__}"
                     + (f" of {len(batch)} items" if isinstance(batch, (tuple, list)) else ""))


def check_metrics(metrics, who):
    if not metrics:
        raise ValueError(f"{who}: give at least one metric (Evaluation(), ROC(), ...)")
    for m in metrics:
        if not isinstance(m, Metric):
            raise TypeError(f"{who}: {type(m).__name__} is not a wsarray.evaluation metric")


def evaluate(model, data, *metrics, workspace_name="WSA_EVALUATION", config=None):
    """Run ``model`` over ``data`` once and update every metric with each batch; returns the metric,
    or a tuple of them when several are given.

    ``data``: an iterable of ``(features, labels)`` / ``(features, labels, mask)`` tuples or dicts
    with ``features``, ``labels``, ``mask`` (an ``AsyncIterator``, a ``BatchDirectory``, a list).
    ``model``: see ``predictor``. Each batch runs in one cycle of the thread's workspace
    ``workspace_name`` (``config``: its ``WorkspaceConfig``; by default it learns its size in the first
    cycle): the model's temporaries and every array NumPy makes inside the updates come from it and
    are reused by the next batch; the metrics keep only their own fixed state."""
    who = "wsarray.evaluation.evaluate"
    check_metrics(metrics, who)
    predict = predictor(model, who)
    if config is not None and not isinstance(config, WorkspaceConfig):
        raise TypeError(f"{who}: config must be a wsarray.WorkspaceConfig, not {type(config).__name__}")
    try:
        iterator = iter(data)
    except TypeError:
        raise TypeError(f"{who}: data must be iterable (batches), not {type(data).__name__}") from None
    ws = workspace(workspace_name, config)
    number = 0
    for number, batch in enumerate(iterator, 1):
        features, labels, mask = unpack(batch, number, who)
        with ws:
            predictions = predict(features)
            for metric in metrics:
                metric.update(labels, predictions, mask)
    return metrics[0] if len(metrics) == 1 else metrics

"""Charts of the metrics (matplotlib, the ``[plot]`` extra, imported here only; figures are drawn on
matplotlib's Agg canvas, never through pyplot, so the user's backend is left alone) and
``report_html``: one self-contained page with every metric's report and charts."""

import base64
import html
import io
import os

__all__ = ["plot_confusion", "plot_roc", "plot_calibration", "report_html"]


def _matplotlib(who):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(f'wsarray.evaluation: {who} needs matplotlib: pip install "wsarray[plot]"') from None
    return Figure, FigureCanvasAgg


def _new_axes(who, size=(5.5, 4.5)):
    figure_class, canvas_class = _matplotlib(who)
    fig = figure_class(figsize=size, dpi=100)
    canvas_class(fig)
    return fig.add_subplot(1, 1, 1)


def _axes(ax, who):
    return _new_axes(who) if ax is None else ax


def plot_confusion(ev, ax=None, normalize=None):
    if normalize not in (None, "true", "pred"):
        raise ValueError(f"Evaluation.plot_confusion: normalize must be None, 'true' or 'pred', not {normalize!r}")
    ax = _axes(ax, "Evaluation.plot_confusion()")
    cm = ev.confusion_matrix().astype(float)
    if normalize:
        axis = 1 if normalize == "true" else 0
        sums = cm.sum(axis=axis, keepdims=True)
        cm = cm / (sums + (sums == 0))
    image = ax.imshow(cm, cmap="Blues")
    ax.figure.colorbar(image, ax=ax)
    k = cm.shape[0]
    names = [ev._name(c) for c in range(k)]
    ax.set_xticks(range(k), names, rotation=45 if k > 8 else 0)
    ax.set_yticks(range(k), names)
    if k <= 20:
        limit = cm.max() / 2 if cm.size else 0
        for i in range(k):
            for j in range(k):
                text = f"{cm[i, j]:.2f}" if normalize else f"{int(cm[i, j])}"
                ax.text(j, i, text, ha="center", va="center", fontsize=8,
                        color="white" if cm[i, j] > limit else "black")
    ax.set_xlabel("predicted")
    ax.set_ylabel("actual")
    ax.set_title("Confusion matrix" + (f" (normalized over {normalize})" if normalize else ""))
    return ax


def plot_roc(roc, columns, ax=None, kind="roc"):
    if kind not in ("roc", "pr"):
        raise ValueError(f"{type(roc).__name__}.plot: kind must be 'roc' or 'pr', not {kind!r}")
    ax = _axes(ax, f"{type(roc).__name__}.plot()")
    single = type(roc).__name__ == "ROC"
    for c in columns:
        name = "" if single else f"{roc._kind} {c}: "
        if kind == "roc":
            fpr, tpr, _ = roc.curve() if single else roc.curve(c)
            auc = roc.auc() if single else roc.auc(c)
            ax.plot(fpr, tpr, label=f"{name}AUC {auc:.4f}")
        else:
            precision, recall, _ = roc.pr_curve() if single else roc.pr_curve(c)
            ap = roc.auprc() if single else roc.auprc(c)
            ax.step(recall, precision, where="post", label=f"{name}AP {ap:.4f}")
    if kind == "roc":
        ax.plot([0, 1], [0, 1], linestyle=":", color="grey")
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
    else:
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_title(("ROC" if kind == "roc" else "Precision-recall") + (" (binned)" if not roc.exact else ""))
    ax.legend(loc="lower right" if kind == "roc" else "lower left", fontsize=8)
    ax.grid(True, alpha=0.3)
    return ax


def plot_calibration(cal, classes, ax=None):
    ax = _axes(ax, "EvaluationCalibration.plot()")
    ax.plot([0, 1], [0, 1], linestyle=":", color="grey", label="perfectly calibrated")
    for c in classes:
        fraction, mean, _ = cal.reliability_diagram(c)
        ax.plot(mean, fraction, marker="o", label=f"class {c}")
    ax.set_xlabel("mean predicted probability")
    ax.set_ylabel("fraction of positives")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title("Reliability diagram")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(True, alpha=0.3)
    return ax


def _charts(metric):
    name = type(metric).__name__
    if name == "Evaluation":
        return [lambda ax: metric.plot_confusion(ax=ax)]
    if name in ("ROC", "ROCBinary", "ROCMultiClass"):
        return [lambda ax: metric.plot(ax=ax, kind="roc"), lambda ax: metric.plot(ax=ax, kind="pr")]
    if name == "EvaluationCalibration":
        return [lambda ax: metric.plot(ax=ax)]
    return []


def _png(draw):
    ax = _new_axes("report_html()")
    draw(ax)
    fig = ax.figure
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return base64.b64encode(out.getvalue()).decode("ascii")


def report_html(path, *metrics, title="Evaluation"):
    """Write one self-contained HTML page (charts embedded as PNG) with each metric's ``stats()`` and
    its charts: the confusion matrix, ROC and precision-recall curves, reliability diagrams. Returns
    the path."""
    import warnings

    from ._inputs import EvaluationWarning
    from ._metric import Metric

    if not metrics:
        raise ValueError("wsarray.evaluation.report_html: give at least one metric")
    for m in metrics:
        if not isinstance(m, Metric):
            raise TypeError(f"wsarray.evaluation.report_html: {type(m).__name__} is not a wsarray.evaluation metric")
    _matplotlib("report_html()")
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             "<style>body{font-family:sans-serif;margin:2em}pre{background:#f6f6f6;padding:1em}"
             "img{margin:0.5em}</style></head><body>", f"<h1>{html.escape(title)}</h1>"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        for m in metrics:
            parts.append(f"<h2>{html.escape(repr(m))}</h2><pre>{html.escape(m.stats())}</pre><div>")
            for draw in _charts(m):
                parts.append(f"<img alt='{html.escape(type(m).__name__)}' "
                             f"src='data:image/png;base64,{_png(draw)}'>")
            parts.append("</div>")
    parts.append("</body></html>")
    with open(os.fspath(path), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
    return path

"""The PNG of PerformanceListener.plot(): three panels over the iterations (matplotlib, imported
here only, drawing on its Agg canvas so that the user's pyplot backend is left alone)."""

MIB = 2 ** 20


def plot_history(history, path, title):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError('wsarray.data.PerformanceListener.plot() needs matplotlib: '
                          'pip install "wsarray[plot]"') from None
    x = [h["iteration"] for h in history]
    fig = Figure(figsize=(8, 8.5), dpi=100)
    FigureCanvasAgg(fig)
    top, middle, bottom = fig.subplots(3, 1, sharex=True)
    top.plot(x, [h["samples_per_s"] for h in history], marker=".", color="tab:blue")
    top.set_ylabel("samples/s")
    top.set_title(title)
    middle.plot(x, [h["iteration_s"] * 1e3 for h in history], marker=".", label="iteration time")
    middle.plot(x, [h["etl_s"] * 1e3 for h in history], marker=".", label="ETL (waiting for data)")
    middle.set_ylabel("ms per iteration")
    middle.set_ylim(bottom=0)
    middle.legend(loc="upper right")
    for key, label in (("workspace_capacity", "capacity"), ("workspace_peak_cycle", "peak per cycle"),
                       ("workspace_spilled", "spilled in the interval")):
        bottom.plot(x, [h[key] / MIB for h in history], marker=".", label=label)
    bottom.set_ylabel("workspace MiB")
    bottom.set_xlabel("iteration")
    bottom.set_ylim(bottom=0)
    bottom.legend(loc="upper right")
    for ax in (top, middle, bottom):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, format="png")

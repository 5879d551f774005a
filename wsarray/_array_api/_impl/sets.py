"""``unique_values`` sorted (see its docstring)."""
import numpy as _np

__all__ = ["unique_values"]


def unique_values(x):  # not positional-only: NumPy's takes x=
    """Unique elements of ``x`` (flattened), sorted like the other ``unique_*`` results; NaNs are
    all kept. NumPy >= 2.3 returns them in hash order, which the standard allows but libraries
    written against it (scikit-learn's label handling) do not expect."""
    return _np.unique(x, equal_nan=False)

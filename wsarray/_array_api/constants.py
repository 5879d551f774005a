"""Constants of the array API standard: NumPy's own values."""

from numpy import e, inf, nan, newaxis, pi

__all__ = ["e", "inf", "nan", "newaxis", "pi"]

"""The spec's constants: e, inf, nan, newaxis, pi (plain Python floats and None, as the spec defines them)."""

from __future__ import annotations

import math

__all__ = ["e", "inf", "nan", "newaxis", "pi"]

e = math.e
inf = math.inf
nan = math.nan
newaxis = None
pi = math.pi

"""The closed set of stridex primitives, one module per family; importing this package registers them all."""

from . import (convert, creation, elementwise, fft, indexing, linalg, reductions, searching, sets,  # noqa: F401
               shape, sorting, take, transcendental, views)

"""The closed set of stridex primitives, one module per family; importing this package registers them all."""

from . import (  # noqa: F401
               convert,
               creation,
               elementwise,
               fft,
               indexing,
               linalg,
               reductions,
               searching,
               sets,
               shape,
               sorting,
               take,
               transcendental,
               views,
)

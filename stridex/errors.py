"""The `errors` extension: the errors stridex's transformations raise, under JAX's names where JAX has one.

- `TracerArrayConversionError`: a traced value was converted to a NumPy array (`np.asarray`, `__array__`, a
  NumPy or SciPy function given it), where its value is not known, or, under differentiation, where it carries a
  derivative that the conversion would drop. A subclass of TypeError.
- `ConcretizationTypeError`: likewise for a Python number (`bool`, `int`, `float`, `complex`, `operator.index`),
  DLPack export or pickling. A subclass of TypeError. (`bool()` of a value that carries a derivative is allowed
  where its value is known: a Python branch, differentiated along the branch taken.)
- `ConcretizationError`: the base of the two above.
- `DataDependentShapeError`: an operation whose output shape depends on the data was traced where the data is not
  known. A subclass of ValueError.
- `EscapedTracerError`: a traced value was used after its transformation finished (JAX's
  `UnexpectedTracerError`). A subclass of RuntimeError.
- `TracingError`: the base of the errors that only tracing raises.

>>> import numpy as np, stridex as sx
>>> try:
...     sx.grad(lambda x: sx.asarray(np.sin(np.asarray(x))))(sx.asarray(1.0))
... except sx.errors.TracerArrayConversionError as error:
...     print(type(error).__name__, isinstance(error, TypeError))
TracerArrayConversionError True
"""

from stridex._transforms.tracing import (
    ConcretizationError,
    ConcretizationTypeError,
    DataDependentShapeError,
    EscapedTracerError,
    TracerArrayConversionError,
    TracingError,
)

__all__ = ["ConcretizationError", "ConcretizationTypeError", "DataDependentShapeError", "EscapedTracerError",
           "TracerArrayConversionError", "TracingError"]

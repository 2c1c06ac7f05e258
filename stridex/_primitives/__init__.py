"""The closed set of stridex primitives, one module per family; importing this package registers them all."""

from . import views  # noqa: F401

"""The closed set of stridex primitives, one module per family; importing this package registers them all.

Each family module is named after the chapter of the namespace that binds it (`creation` ↔
`_api/creation_functions.py`, ...); `views` holds the view primitives every chapter shares, and
`array_indexing` the gathers and writes behind `x[key]` and `x[key] = value`; `random` serves
`stridex.random`, `special` `stridex.scipy.special` and `stridex.nn`.
"""

from stridex._lax import (  # noqa: F401
    array_indexing,
    callbacks,
    convolution,
    creation,
    data_type,
    differentiation,
    elementwise,
    fft,
    indexing,
    linalg,
    manipulation,
    parallel,
    random,
    searching,
    selection,
    set,
    sorting,
    special,
    statistical,
    transcendental,
    updates,
    utility,
    views,
    windows,
)

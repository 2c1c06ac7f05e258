"""stridex: an Array API 2025.12 namespace on its own strided tensor core, eager or traced.

>>> import stridex as sx
>>> x = sx.reshape(sx.arange(6), (2, 3))
>>> x.T.shape
(3, 2)
"""

import os as _os

from . import _primitives  # registers every primitive
from . import (_constants, _creation, _data_type, _elementwise, _indexing, _info, _linalg_main, _manipulation,
               _searching, _set, _sorting, _statistical, _transcendental, _utility)
from . import fft, linalg
from ._array import Array, Device
from ._autodiff import grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp
from ._batching import vmap
from ._constants import *
from ._creation import *
from ._data_type import *
from ._dtypes import (
    bool, complex64, complex128, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64)
from ._elementwise import *
from ._indexing import *
from ._info import *
from ._jit import jit, make_ir
from ._linalg_main import *
from ._manipulation import *
from ._searching import *
from ._set import *
from ._sorting import *
from ._statistical import *
from ._transcendental import *
from ._utility import *

__array_api_version__ = "2025.12"
__version__ = "0.1.0"

_CHAPTERS = (_constants, _creation, _data_type, _elementwise, _indexing, _info, _linalg_main, _manipulation,
             _searching, _set, _sorting, _statistical, _transcendental, _utility)
__all__ = sorted({name for chapter in _CHAPTERS for name in chapter.__all__} | {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
    "complex64", "complex128", "fft", "linalg", "Array", "Device", "jit", "make_ir", "grad", "value_and_grad",
    "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap"})

if _os.environ.get("STRIDEX_MODE", "eager") == "jit":
    from ._jit_mode import install as _install_jit_mode

    _install_jit_mode(globals())
elif _os.environ.get("STRIDEX_MODE", "eager") != "eager":
    raise ImportError(f"STRIDEX_MODE must be 'eager' or 'jit', not {_os.environ['STRIDEX_MODE']!r}")

"""stridex: an Array API 2025.12 namespace on its own strided tensor core, eager or traced.

>>> import stridex as sx
>>> x = sx.arange(6).reshape((2, 3))
>>> x.T.shape
(3, 2)
"""

from . import _primitives  # noqa: F401  (registers every primitive)
from ._array import Array, Device
from ._constants import *  # noqa: F403
from ._creation import *  # noqa: F403
from ._data_type import *  # noqa: F403
from ._dtypes import (bool, complex64, complex128, float32, float64, int8, int16, int32, int64,  # noqa: A004
                      uint8, uint16, uint32, uint64)
from ._elementwise import *  # noqa: F403
from ._indexing import *  # noqa: F403
from ._info import *  # noqa: F403
from ._linalg_main import *  # noqa: F403
from ._manipulation import *  # noqa: F403
from ._searching import *  # noqa: F403
from ._set import *  # noqa: F403
from ._sorting import *  # noqa: F403
from ._statistical import *  # noqa: F403
from ._transcendental import *  # noqa: F403
from ._utility import *  # noqa: F403
from ._jit import jit, make_ir  # noqa: E402
from ._autodiff import grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp  # noqa: E402
from ._batching import vmap  # noqa: E402
from . import fft, linalg  # noqa: E402

__array_api_version__ = "2025.12"
__version__ = "0.1.0"

import os as _os

if _os.environ.get("STRIDEX_MODE", "eager") == "jit":
    from ._jit_mode import install as _install_jit_mode

    _install_jit_mode(globals())
elif _os.environ.get("STRIDEX_MODE", "eager") != "eager":
    raise ImportError(f"STRIDEX_MODE must be 'eager' or 'jit', not {_os.environ['STRIDEX_MODE']!r}")
del _os

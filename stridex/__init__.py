"""stridex: an Array API 2025.12 namespace on its own strided tensor core, eager or traced.

>>> import stridex as sx
>>> x = sx.reshape(sx.arange(6), (2, 3))
>>> x.T.shape
(3, 2)
"""

from stridex import _lax as _primitives  # registers every primitive
from stridex._api import array_object as _array_object  # installs the Array's operators
from stridex._api import constants as _constants
from stridex._api import creation_functions as _creation
from stridex._api import data_type_functions as _data_type
from stridex._api import elementwise_functions as _elementwise
from stridex._api import indexing_functions as _indexing
from stridex._api import info as _info
from stridex._api import linear_algebra_functions as _linalg_main
from stridex._api import manipulation_functions as _manipulation
from stridex._api import searching_functions as _searching
from stridex._api import set_functions as _set
from stridex._api import sorting_functions as _sorting
from stridex._api import statistical_functions as _statistical
from stridex._api import transcendental_functions as _transcendental
from stridex._api import utility_functions as _utility
from stridex import fft, linalg
from stridex._core.array import Array
from stridex._core.device import Device
from stridex._lax.device import default_device
from stridex._transforms.autodiff import grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp
from stridex._transforms.batching import vmap
from stridex._transforms.control_flow import cond, fori_loop, scan, switch, while_loop
from stridex._api.constants import *
from stridex._api.creation_functions import *
from stridex._api.data_type_functions import *
from stridex._core.dtypes import bool, complex64, complex128, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64
from stridex._core.dtypes import bfloat16, float16  # half precision, beyond the spec (outside info.dtypes())
from stridex._api.elementwise_functions import *
from stridex._api.indexing_functions import *
from stridex._api.info import *
from stridex._transforms.jit import jit, make_ir
from stridex._lax.precision import get_matmul_precision, matmul_precision, set_matmul_precision  # beyond the spec
from stridex._api.linear_algebra_functions import *
from stridex._api.manipulation_functions import *
from stridex._api.searching_functions import *
from stridex._api.set_functions import *
from stridex._api.sorting_functions import *
from stridex._api.statistical_functions import *
from stridex._api.transcendental_functions import *
from stridex._api.utility_functions import *

__array_api_version__ = "2025.12"
__version__ = "0.1.0"

_CHAPTERS = (_constants, _creation, _data_type, _elementwise, _indexing, _info, _linalg_main, _manipulation,
             _searching, _set, _sorting, _statistical, _transcendental, _utility)
__all__ = sorted({name for chapter in _CHAPTERS for name in chapter.__all__} | {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
    "complex64", "complex128", "float16", "bfloat16", "fft", "linalg", "Array", "Device", "default_device", "jit", "make_ir", "grad", "value_and_grad",
    "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap", "cond", "switch", "while_loop", "fori_loop", "scan"})

"""stridex: an Array API 2025.12 namespace on its own strided tensor core, eager or traced.

>>> import stridex as sx
>>> x = sx.reshape(sx.arange(6), (2, 3))
>>> x.T.shape
(3, 2)
"""

import typing as _typing

from stridex import _lax as _primitives  # registers every primitive
from stridex._api import array_object as _array_object  # installs the Array's operators
from stridex._api import at_updates as _at_updates  # installs `x.at[idx]` (JAX's functional updates)
from stridex._api import constants as _constants
from stridex._api import creation_functions as _creation
from stridex._api import data_type_functions as _data_type
from stridex._api import einsum_functions as _einsum
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
from stridex._core.array import Array
from stridex._core.caches import cache_stats, clear_caches, set_cache_limit  # programs' caches (beyond the spec)
from stridex._core.device import Device
from stridex._core.dtypes import DType
from stridex._exec.placement import default_device
from stridex._exec.fusion import eval, fusion  # eager fusion's switch, inspector and forcing call (beyond the spec)
from stridex._api.constants import *
from stridex._api.creation_functions import *
from stridex._api.data_type_functions import *
from stridex._core.dtypes import bool, complex64, complex128, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64
from stridex._core.dtypes import bfloat16, float16  # half precision, beyond the spec (outside info.dtypes())
from stridex._api.einsum_functions import einsum  # beyond the spec: NumPy's (issue 43)
from stridex._api.elementwise_functions import *
from stridex._api.indexing_functions import *
from stridex._api.info import *
from stridex._exec.precision import get_matmul_precision, matmul_precision, set_matmul_precision  # beyond the spec
from stridex._api.linear_algebra_functions import *
from stridex._api.manipulation_functions import *
from stridex._api.searching_functions import *
from stridex._api.set_functions import *
from stridex._api.sorting_functions import *
from stridex._api.statistical_functions import *
from stridex._api.transcendental_functions import *
from stridex._api.utility_functions import *

from stridex._core.avals import ShapeDtypeStruct  # beyond the spec: JAX's, for eval_shape and pure_callback

if _typing.TYPE_CHECKING:  # (what the lazy names below are, for type checkers)
    from stridex import debug, errors, lax, tree
    from stridex import fft, linalg, random, tree_util
    from stridex._transforms.callbacks import pure_callback
    from stridex._transforms.shapes import eval_shape
    from stridex.lax import stop_gradient
    from stridex import nn, scipy  # JAX's vocabulary: jax.nn and jax.scipy.special (issue 43)
    from stridex._transforms.autodiff import grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp
    from stridex._transforms.batching import vmap
    from stridex._transforms.control_flow import cond, fori_loop, scan, switch, while_loop
    from stridex._transforms.custom import (checkpoint, checkpoint_name, checkpoint_policies, custom_jvp, custom_vjp,
                                            remat)
    from stridex._transforms.from_jax import from_jax
    from stridex._transforms.jit import jit, make_ir
    from stridex._transforms.to_jax import to_jax

# The transformations, control flow, custom rules and the extensions are imported on first use: together
# they are a quarter of the package's source, which `import stridex` no longer pays for (the target is
# 150 ms with NumPy's import included). A name is imported with its module the first time it is looked up,
# and then stays in the namespace like any other.
_LAZY = {
    **dict.fromkeys(("fft", "linalg", "random", "tree_util"), "stridex"),
    **dict.fromkeys(("nn", "scipy"), "stridex"),  # JAX's vocabulary: jax.nn and jax.scipy.special (issue 43)
    "numpy": "stridex",  # jax.numpy's names (`import stridex.numpy as jnp`); not in __all__, so that a star-import
                         # of stridex never shadows NumPy's name
    **dict.fromkeys(("grad", "hessian", "jacfwd", "jacrev", "jvp", "value_and_grad", "vjp"),
                    "stridex._transforms.autodiff"),
    "vmap": "stridex._transforms.batching",
    **dict.fromkeys(("cond", "fori_loop", "scan", "switch", "while_loop"), "stridex._transforms.control_flow"),
    **dict.fromkeys(("checkpoint", "checkpoint_name", "checkpoint_policies", "custom_jvp", "custom_vjp", "remat"),
                    "stridex._transforms.custom"),
    **dict.fromkeys(("jit", "make_ir"), "stridex._transforms.jit"),
    # JAX's extras around the transformations (issue 42): extension modules, and three functions
    **dict.fromkeys(("debug", "errors", "lax", "tree"), "stridex"),
    "eval_shape": "stridex._transforms.shapes", "pure_callback": "stridex._transforms.callbacks",
    "stop_gradient": "stridex.lax",
    "from_jax": "stridex._transforms.from_jax",
    "to_jax": "stridex._transforms.to_jax",
}


if not _typing.TYPE_CHECKING:  # (a type checker reads the imports above, and so still rejects a misspelt name)

    def __getattr__(name: str) -> _typing.Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'stridex' has no attribute {name!r}")
        from importlib import import_module

        value = import_module(f"stridex.{name}") if module == "stridex" else getattr(import_module(module), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(_LAZY))


__array_api_version__ = "2025.12"
__version__ = "0.1.0"

# A literal list, so that a type checker reads the exports (tests/test_typing.py checks that it is every public name
# imported above, that it covers the standard's, and that each function in it is annotated). A new public name is
# imported above and listed here.
__all__ = [
    "Array", "DType", "Device", "__array_namespace_info__", "abs", "acos", "acosh", "add", "all", "any", "arange",
    "argmax", "argmin", "argsort", "asarray", "asin", "asinh", "astype", "atan", "atan2", "atanh", "bfloat16",
    "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "bool", "broadcast_arrays", "broadcast_shapes", "broadcast_to", "cache_stats", "can_cast", "ceil", "checkpoint",
    "checkpoint_name", "checkpoint_policies", "clear_caches", "clip", "complex128", "complex64", "concat", "cond",
    "conj",
    "copysign", "cos", "cosh", "count_nonzero", "cumulative_prod", "cumulative_sum", "custom_jvp", "custom_vjp",
    "default_device", "diff", "divide", "e", "einsum", "empty", "empty_like", "equal", "eval", "exp", "expand_dims", "expm1", "eye",
    "fft", "finfo", "flip", "float16", "float32", "float64", "floor", "floor_divide", "fori_loop", "from_dlpack",
    "from_jax", "full", "full_like", "fusion", "get_matmul_precision", "grad", "greater", "greater_equal", "hessian",
    "hypot", "iinfo", "imag", "inf", "int16", "int32", "int64", "int8", "isdtype", "isfinite", "isin", "isinf", "isnan",
    "jacfwd",
    "jacrev", "jit", "jvp", "less", "less_equal", "linalg", "linspace", "log", "log10", "log1p", "log2",
    "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor", "make_ir", "matmul", "matmul_precision",
    "matrix_transpose", "max", "maximum", "mean", "meshgrid", "min", "minimum", "moveaxis", "multiply", "nan",
    "negative", "newaxis", "nextafter", "nn", "nonzero", "not_equal", "ones", "ones_like", "permute_dims", "pi",
    "positive", "pow", "prod", "random", "real", "reciprocal", "remainder", "remat", "repeat", "reshape", "result_type",
    "roll", "round", "scan", "scipy", "searchsorted", "set_cache_limit", "set_matmul_precision", "sign", "signbit", "sin",
    "sinh", "sort",
    "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "switch", "take", "take_along_axis", "tan",
    "tanh", "tensordot", "tile", "to_jax", "tree_util", "tril", "triu", "trunc", "uint16", "uint32", "uint64", "uint8",
    "unique_all", "unique_counts", "unique_inverse", "unique_values", "unstack", "value_and_grad", "var", "vecdot",
    "vjp", "vmap", "where", "while_loop", "zeros", "zeros_like",
    "ShapeDtypeStruct", "debug", "errors", "eval_shape", "lax", "pure_callback", "stop_gradient", "tree",
]

"""stridex.numpy: jax.numpy's names on stridex. `import stridex.numpy as jnp` gives every function of the stridex
namespace with jax.numpy's signatures (positional `axis`, `where=`, `initial=`, `size=`, dtype-likes such as "float32"
or `np.int8`, array-likes such as Python scalars and NumPy arrays), and jax.numpy's names beyond the standard
(`dot`, `pad`, `concatenate`, `linalg.norm`, `percentile`, `histogram`, `vectorize`, ...), with jax.numpy's
semantics and dtype rules, all composed of stridex's operations: they run eagerly, under `sx.jit`, `sx.grad`
and `sx.vmap`, and on devices.

The documented differences from jax.numpy (docs/from-jax.md): the default dtypes are 64-bit (jax.numpy's with
`jax_enable_x64`), arrays can be written (`x[i] = v`) and the functions NumPy answers with views return views,
and data-dependent shapes (`nonzero` without `size=`) run eagerly and are graph breaks under `jit`.

>>> import stridex.numpy as jnp
>>> x = jnp.array([[1.0, 2.0], [3.0, 4.0]])
>>> jnp.concatenate([x, jnp.ones((1, 2))]).shape, jnp.linalg.norm(x, axis=1), jnp.percentile(x, 50)
((3, 2), Array([2.23606798, 5.        ]), Array(2.5))

stridex itself keeps the standard's functions and the transformations; this module is imported only when asked
(`import stridex.numpy`, or `stridex.numpy` on first use), and imports no JAX.
"""

from stridex._api.constants import e, inf, nan, newaxis, pi
from stridex._api.einsum_functions import einsum, einsum_path
from stridex._api.info import __array_namespace_info__
from stridex._core.array import Array
from stridex._core.device import Device
from stridex._core.dtypes import DType
from stridex._exec.placement import default_device
from stridex._exec.fusion import eval, fusion  # (stridex's eager fusion: the same objects as stridex.eval, .fusion)
from stridex._exec.precision import get_matmul_precision, matmul_precision, set_matmul_precision
from stridex.numpy import fft, linalg
from stridex.numpy._dtypes import *
from stridex.numpy._creation import *
from stridex.numpy._shape import *
from stridex.numpy._indexing import *
from stridex.numpy._ufuncs import *
from stridex.numpy._reductions import *
from stridex.numpy._statistics import *
from stridex.numpy._sorting import *
from stridex.numpy._products import *
from stridex.numpy._signal import *
from stridex.numpy._polynomials import *
from stridex.numpy._functional import *

from stridex.numpy._args import place_all as _place_all

euler_gamma = 0.5772156649015329  # (jax.numpy's constant: the Euler-Mascheroni constant)

# The names stridex.numpy promises: one literal list, by theme (tests/numpy/test_names.py checks it against the
# issue's list, the standard's names, stridex's namespace and jax.numpy's, and each name against jax.numpy).
__all__ = [
    # dtypes and predicates (_dtypes.py)
    "ComplexWarning", "bfloat16", "bool", "bool_", "can_cast", "cdouble", "character", "complex128", "complex64",
    "complex_", "complexfloating", "csingle", "double", "dtype", "finfo", "flexible", "float16", "float32",
    "float64", "float_", "floating", "generic", "iinfo", "inexact", "int16", "int32", "int64", "int8", "int_",
    "integer", "iscomplexobj", "isdtype", "isrealobj", "isscalar", "issubdtype", "iterable", "ndarray", "ndim",
    "number", "promote_types", "result_type", "shape", "signedinteger", "single", "size", "uint", "uint16",
    "uint32", "uint64", "uint8", "unsignedinteger",
    # array creation (_creation.py)
    "arange", "array", "asarray", "c_", "copy", "diag", "diag_indices", "diag_indices_from", "diagflat", "empty",
    "empty_like", "eye", "from_dlpack", "frombuffer", "fromfunction", "fromstring", "full", "full_like",
    "geomspace", "identity", "index_exp", "indices", "ix_", "linspace", "logspace", "mask_indices", "meshgrid",
    "mgrid", "ogrid", "ones", "ones_like", "r_", "s_", "tri", "tril_indices", "tril_indices_from", "triu_indices",
    "triu_indices_from", "vander", "zeros", "zeros_like",
    # shape manipulation (_shape.py)
    "append", "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "block", "broadcast_arrays",
    "broadcast_shapes", "broadcast_to", "column_stack", "concat", "concatenate", "diagonal", "dsplit", "dstack",
    "expand_dims", "flip", "fliplr", "flipud", "hsplit", "hstack", "matrix_transpose", "moveaxis", "pad",
    "permute_dims", "ravel", "repeat", "reshape", "resize", "roll", "rollaxis", "rot90", "split", "squeeze",
    "stack", "swapaxes", "tile", "trace", "transpose", "tril", "triu", "unstack", "vsplit", "vstack",
    # indexing (_indexing.py)
    "argwhere", "choose", "compress", "delete", "extract", "fill_diagonal", "flatnonzero", "insert", "nonzero",
    "piecewise", "place", "put", "put_along_axis", "ravel_multi_index", "searchsorted", "select", "take",
    "take_along_axis", "trim_zeros", "unravel_index", "where",
    # elementwise functions (_ufuncs.py)
    "abs", "absolute", "acos", "acosh", "add", "allclose", "angle", "arccos", "arccosh", "arcsin", "arcsinh",
    "arctan", "arctan2", "arctanh", "around", "array_equal", "array_equiv", "asin", "asinh", "atan", "atan2",
    "atanh", "bitwise_and", "bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "cbrt", "ceil", "clip", "conj", "conjugate", "copysign", "cos", "cosh",
    "deg2rad", "degrees", "divide", "divmod", "equal", "exp", "exp2", "expm1", "fabs", "float_power", "floor",
    "floor_divide", "fmax", "fmin", "fmod", "frexp", "gcd", "greater", "greater_equal", "heaviside", "hypot",
    "imag", "invert", "isclose", "iscomplex", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "lcm",
    "ldexp", "left_shift", "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2",
    "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "mod", "modf", "multiply",
    "nan_to_num", "negative", "nextafter", "not_equal", "packbits", "positive", "pow", "power", "rad2deg",
    "radians", "real", "reciprocal", "remainder", "right_shift", "rint", "round", "sign", "signbit", "sin", "sinc",
    "sinh", "spacing", "sqrt", "square", "subtract", "tan", "tanh", "true_divide", "trunc", "unpackbits",
    # reductions (_reductions.py)
    "all", "amax", "amin", "any", "argmax", "argmin", "average", "count_nonzero", "cumprod", "cumsum",
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "nanargmax", "nanargmin", "nancumprod", "nancumsum",
    "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum", "nanvar", "prod", "ptp", "std", "sum", "var",
    # order statistics and histograms (_statistics.py)
    "bincount", "corrcoef", "cov", "digitize", "histogram", "histogram2d", "histogram_bin_edges", "histogramdd",
    "median", "nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile",
    # sorting and sets (_sorting.py)
    "argpartition", "argsort", "intersect1d", "isin", "lexsort", "partition", "setdiff1d", "setxor1d", "sort",
    "sort_complex", "union1d", "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    # products (_products.py)
    "cross", "dot", "inner", "kron", "matmul", "matvec", "outer", "tensordot", "vdot", "vecdot", "vecmat",
    # signal processing and calculus (_signal.py)
    "bartlett", "blackman", "convolve", "correlate", "diff", "ediff1d", "gradient", "hamming", "hanning", "i0",
    "interp", "kaiser", "trapezoid", "unwrap",
    # polynomials (_polynomials.py)
    "poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul", "polysub", "polyval", "roots",
    # functions of functions, printing, I/O (_functional.py)
    "apply_along_axis", "apply_over_axes", "array_repr", "array_str", "astype", "get_printoptions", "load",
    "printoptions", "save", "savez", "set_printoptions", "vectorize",
    # constants
    "e", "euler_gamma", "inf", "nan", "newaxis", "pi",
    # submodules: stridex.numpy.linalg, stridex.numpy.fft
    "fft", "linalg",
    # stridex's own beyond jax.numpy: the standard's inspection namespace, classes, devices, eager fusion, precision
    "Array", "DType", "Device", "__array_namespace_info__", "default_device", "eval", "fusion", "get_matmul_precision",
    "matmul_precision", "set_matmul_precision",
    # einsum and its contraction order (stridex/_api/einsum_functions.py; einsum is in stridex too)
    "einsum", "einsum_path",
]

# Each function runs where its arrays live: on a JAX device, what it makes on the way is made there too.
_place_all(globals(), __all__)

"""The `lax` extension: JAX's `jax.lax` names, signatures and derivative conventions, over stridex arrays.

One module per family of `jax.lax` (`_parallel`, `_contraction`, `_structured`), each binding the primitives of
its `stridex._lax` family modules: stop_gradient (`stridex._lax.differentiation`) and the collectives over a named
`vmap` axis (`stridex._lax.parallel`), which take a pytree of values, as JAX's do; contraction, convolution and windowed
reductions (`dot_general` of `stridex._lax.linalg`, `stridex._lax.convolution`, `stridex._lax.windows`); dynamic
slicing, `top_k`, scans, cumulative reductions and elementwise names (`stridex._lax.array_indexing`,
`.selection`, `.special`, and compositions).

>>> import stridex as sx
>>> sx.grad(lambda x: x * sx.lax.stop_gradient(x))(sx.asarray(3.0))
Array(3.)
>>> sx.vmap(lambda v: v - sx.lax.pmean(v, "batch"), axis_name="batch")(sx.asarray([1.0, 2.0, 6.0]))
Array([-2., -1.,  3.])
"""

from __future__ import annotations

from stridex.lax._parallel import (  # noqa: F401
    all_gather, axis_index, pmax, pmean, pmin, psum, stop_gradient, AxisName,
)
from stridex.lax._contraction import (  # noqa: F401
    add, conv, conv_general_dilated, conv_transpose, conv_with_general_padding, dot_general, max, min,
    reduce_window, Operand, Padding,
)
from stridex.lax._structured import (  # noqa: F401
    associative_scan, clamp, cond, cumlogsumexp, cummax, cummin, cumprod, cumsum, digamma, dynamic_index_in_dim,
    dynamic_slice, dynamic_slice_in_dim, dynamic_update_index_in_dim, dynamic_update_slice,
    dynamic_update_slice_in_dim, erf, fori_loop, integer_pow, lgamma, logistic, map, rsqrt, scan, select, switch,
    top_k, while_loop,
)

__all__ = [
    # stop_gradient, the collectives
    "all_gather", "axis_index", "pmax", "pmean", "pmin", "psum", "stop_gradient",
    # contraction, convolution and windows
    "add", "conv", "conv_general_dilated", "conv_transpose", "conv_with_general_padding", "dot_general", "max", "min",
    "reduce_window",
    # dynamic slicing, top_k, scans, cumulative reductions, elementwise names, control-flow aliases
    "associative_scan", "clamp", "cond", "cummax", "cummin", "cumlogsumexp", "cumprod", "cumsum", "digamma",
    "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_index_in_dim",
    "dynamic_update_slice", "dynamic_update_slice_in_dim", "erf", "fori_loop", "integer_pow", "lgamma", "logistic",
    "map", "rsqrt", "scan", "select", "switch", "top_k", "while_loop",
]

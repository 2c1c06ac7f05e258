"""Comparison helpers: a client-library call on stridex arrays against the same call on NumPy."""

import math

import numpy as np

import stridex as sx


def to_sx(*arrays):
    """stridex copies of NumPy inputs (anything else is passed through): a copy, so that a function that
    writes into its input (``xpx.at(x)[i].set(v)`` may) cannot change the module's shared test data."""
    out = tuple(sx.asarray(a, copy=True) if isinstance(a, np.ndarray) else a for a in arrays)
    return out if len(out) != 1 else out[0]


def np_copies(arrays):
    """Copies of the NumPy inputs, for the reference call (same reason as ``to_sx``)."""
    return [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]


def is_stridex(obj):
    """A stridex array, whose namespace (as array-api-compat, which the libraries use, resolves it) is stridex."""
    if not isinstance(obj, sx.Array):
        return False
    try:
        import array_api_compat
    except ImportError:  # the libraries vendor their own copy; the protocol is what it reads
        return obj.__array_namespace__() is sx
    return array_api_compat.is_array_api_obj(obj) and array_api_compat.array_namespace(obj) is sx


def _leaves(obj):
    """Flatten tuples, lists and named tuples (SciPy's result objects) into their items."""
    if isinstance(obj, (tuple, list)):
        out = []
        for item in obj:
            out.extend(_leaves(item))
        return out
    return [obj]


def assert_matches_numpy(result, expected, *, namespace=True, dtype=True, rtol=1e-7, atol=1e-12):
    """``result`` (computed on stridex arrays) agrees with ``expected`` (the same call on NumPy).

    namespace: every array in ``result`` must be a stridex array, where the library documents that
    results live in the input's namespace (a Python or NumPy scalar on the NumPy side may be a 0-D
    array on the stridex side). dtype: array dtypes must agree by name.
    """
    got, want = _leaves(result), _leaves(expected)
    assert len(got) == len(want), (len(got), len(want))
    for g, w in zip(got, want):
        if isinstance(w, (np.ndarray, np.generic)) or is_stridex(g):
            if namespace and isinstance(w, np.ndarray):
                assert is_stridex(g), f"expected a stridex array, got {type(g).__module__}.{type(g).__name__}"
            g_np = np.asarray(g)
            w_np = np.asarray(w)
            assert g_np.shape == w_np.shape, (g_np.shape, w_np.shape)
            if dtype and isinstance(w, np.ndarray):
                assert str(g.dtype) == w_np.dtype.name, (str(g.dtype), w_np.dtype.name)
            np.testing.assert_allclose(g_np, w_np, rtol=rtol, atol=atol, equal_nan=True)
        elif isinstance(w, float):
            assert math.isclose(float(g), w, rel_tol=rtol, abs_tol=atol) or (math.isnan(w) and math.isnan(float(g)))
        else:
            assert g == w, (g, w)

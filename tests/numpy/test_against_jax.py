"""Each stridex.numpy name against jax.numpy (64-bit types on) on a few inputs: the same values, dtype and shape,
or the same class of error. Every function of stridex.numpy has at least one case (checked), unless it is listed
in NOT_COMPARED with the reason."""

from __future__ import annotations

import numpy as np
import pytest

import stridex.numpy as snp
from tests.numpy.helpers import compare, jnp

RNG = np.random.default_rng(43)
F = RNG.standard_normal((4, 3))
F32 = RNG.standard_normal((4, 3)).astype(np.float32)
G = RNG.standard_normal((4, 3))
V = RNG.standard_normal(6)
W = np.abs(RNG.standard_normal(6)) + 0.1
N = np.array([1.0, np.nan, 3.0, -2.0, np.nan, 0.5])
NM = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [-1.0, 2.0, 0.0]])
I = RNG.integers(-5, 6, (4, 3))
I32 = RNG.integers(-5, 6, (4, 3)).astype(np.int32)
U8 = RNG.integers(0, 255, (4, 3)).astype(np.uint8)
B = RNG.integers(0, 2, (4, 3)).astype(bool)
C = (RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3)))
SPD = F.T @ F + np.eye(3)
SQ = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
R = RNG.integers(0, 6, 10)
S = np.sort(RNG.standard_normal(5))


def case(name, *args, module="", rtol=None, atol=None, **kwargs):
    return pytest.param(name, module, args, kwargs, rtol, atol, id=f"{module + '.' if module else ''}{name}"
                        f"-{len(CASES)}")


CASES: list = []


def add(name, *args, **kwargs):
    CASES.append(case(name, *args, **kwargs))


# --- dtypes and predicates ---------------------------------------------------------------------------------
for _name in ("bool", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
              "bfloat16", "float32", "float64", "complex64", "complex128", "float_", "int_", "uint", "complex_",
              "double", "single", "cdouble", "csingle"):
    add(_name, F[:, 0] * 3)
    add(_name, 2)
for _args in ((F,), (2.5,), ([[1, 2]],)):
    add("shape", *_args)
    add("ndim", *_args)
    add("size", *_args)
add("size", F, 1)
for _x in (F, C, 1.0, 1j, I):
    add("iscomplexobj", _x)
    add("isrealobj", _x)
for _x in (1.0, np.float32(2), np.asarray(3.0), F, [1]):
    add("isscalar", _x)
add("iterable", [1, 2])
add("iterable", 2.0)
for _a, _b in (("int8", "uint8"), ("int32", "float32"), ("float16", "bfloat16"), ("bool", "int16"), (float, "float32"),
               ("int64", "complex64")):
    add("promote_types", _a, _b)
add("result_type", F32, 2.0)
add("result_type", I32, F32)
add("result_type", "int8", 1.5)
add("can_cast", "int8", "float32")
add("can_cast", "float64", "int64", casting="same_kind")
add("isdtype", "int8", "integral")
add("isdtype", "float32", ("real floating", "complex floating"))
for _a, _b in (("float32", np.floating), ("int8", np.integer), ("int8", np.floating), ("bfloat16", np.inexact),
               ("complex64", np.complexfloating), ("uint8", np.signedinteger), ("float32", "float32"),
               ("float32", "float64"), (np.floating, np.inexact), ("bool", np.number)):
    add("issubdtype", _a, _b)

# --- creation --------------------------------------------------------------------------------------------
add("array", [[1, 2], [3, 4.5]])
add("array", F32, ndmin=3)
add("array", [F32, F32 * 2])
add("array", [1, 2], dtype="float32")
add("asarray", F)
add("asarray", [True, 2])
add("asarray", 3, dtype="int8")
add("copy", F)
add("zeros", (2, 3), "int8")
add("ones", 3)
add("full", (2, 3), 2.5)
add("full", (2, 3), np.array([1.0, 2.0, 3.0]))
add("full", 3, 2.7, "int32")
add("zeros_like", F32)
add("ones_like", I, shape=(2,))
add("full_like", I32, 2.7)
add("full_like", F, 1.0, dtype="complex64")
add("arange", 5)
add("arange", 1, 2, 0.25)
add("arange", 3, dtype="float32")
add("arange", 10, 2, -3)
add("linspace", 0.0, 1.0, 5)
add("linspace", 0, 10, 4, endpoint=False)
add("linspace", np.array([0.0, 1.0]), 5.0, 3, axis=1)
add("linspace", 0, 10, 5, dtype="int32")
add("linspace", 1.0, 2.0, 4, retstep=True)
add("logspace", 0.0, 3.0, 4)
add("logspace", 0.0, 2.0, 3, base=2.0)
add("geomspace", 1.0, 1000.0, 4)
add("geomspace", -1.0, -16.0, 5)
add("geomspace", 1.0, 256.0, 9, endpoint=False)
add("eye", 3, 4, 1)
add("eye", 3, k=-1, dtype="int32")
add("identity", 3, "float32")
add("tri", 3, 4, -1, float)  # (jax.numpy's default dtype for tri is float32 even with 64-bit types; stridex's float64)
add("diag", V)
add("diag", V, 2)
add("diag", V, -1)
add("diag", F)
add("diag", F, -1)
add("diagflat", F[:2, :2], 1)
add("vander", V[:4])
add("vander", np.array([1, 2, 3]), 4, increasing=True)
add("indices", (2, 3))
add("indices", (2, 3), sparse=True)
add("meshgrid", V[:3], V[:2])
add("meshgrid", V[:3], V[:2], indexing="ij", sparse=True)
add("ix_", np.array([0, 1]), np.array([2, 0]))
add("tril_indices", 3)
add("triu_indices", 4, 1, 3)
add("tril_indices_from", F)
add("triu_indices_from", F, -1)
add("diag_indices", 3)
add("diag_indices_from", np.zeros((3, 3)))
add("frombuffer", np.arange(4, dtype=np.int16).tobytes(), dtype="int16")
add("fromstring", "1 2 3", dtype=int, sep=" ")

# --- shape manipulation -----------------------------------------------------------------------------------
add("reshape", F, (3, 4))
add("reshape", F, (2, -1), order="F")
add("ravel", F)
add("ravel", F, order="F")
add("transpose", F)
add("transpose", np.zeros((2, 3, 4)), (2, 0, 1))
add("permute_dims", F, (1, 0))
add("matrix_transpose", np.zeros((2, 3, 4)))
add("swapaxes", np.zeros((2, 3, 4)), 0, 2)
add("moveaxis", np.zeros((2, 3, 4)), 0, -1)
add("moveaxis", np.zeros((2, 3, 4)), [0, 1], [2, 0])
add("rollaxis", np.zeros((2, 3, 4)), 2)
add("rollaxis", np.zeros((2, 3, 4)), 0, 2)
add("squeeze", np.zeros((1, 3, 1)))
add("squeeze", np.zeros((1, 3, 1)), axis=0)
add("expand_dims", V, (0, 2))
add("broadcast_to", V[:3], (2, 3))
add("broadcast_arrays", F, V[:3])
add("broadcast_shapes", (2, 1), (3,))
add("atleast_1d", 1.0)
add("atleast_1d", F, V)
add("atleast_2d", V)
add("atleast_3d", V)
add("atleast_3d", F)
add("concatenate", [F, G])
add("concatenate", [F, I32], axis=1)
add("concatenate", [F, G], axis=None)
add("concatenate", [V, np.array([1, 2])], dtype="float32")
add("concat", [F, G], axis=1)
add("stack", [F, G], axis=1)
add("stack", [V, V])
add("hstack", [V, V[:2]])
add("hstack", [F, G])
add("vstack", [V, V])
add("vstack", [F, G])
add("dstack", [F, G])
add("column_stack", [V, V])
add("column_stack", [F, G])
add("block", [[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), np.full((1, 1), 5.0)]])
add("split", V, 3)
add("split", V, [2, 3])
add("split", F, 3, axis=1)
add("array_split", np.arange(7), 3)
add("array_split", F, [1, 3], axis=0)
add("hsplit", F, 3)
add("vsplit", F, 2)
add("dsplit", np.zeros((2, 2, 4)), [1])
add("unstack", F, axis=1)
add("append", F, G, axis=0)
add("append", V, 2.0)
add("tile", V[:2], 2)
add("tile", F, (2, 1, 2))
add("repeat", V[:3], 2)
add("repeat", F, 2, axis=1)
add("repeat", V[:3], np.array([1, 0, 3]))
add("repeat", V[:3], np.array([1, 0, 3]), total_repeat_length=6)
add("repeat", V[:3], np.array([1, 0, 3]), total_repeat_length=2)
add("roll", V, 2)
add("roll", F, 1, axis=0)
add("roll", F, (1, -1), axis=(0, 1))
add("roll", F, 5)
add("roll", V, np.array(3))
add("rot90", F)
add("rot90", F, 2)
add("rot90", F, -1, axes=(1, 0))
add("flip", F)
add("flip", F, 1)
add("fliplr", F)
add("flipud", F)
add("resize", V[:3], (2, 4))
add("diagonal", F)
add("diagonal", np.arange(24.0).reshape(2, 3, 4), 1, 1, 2)
add("trace", SQ)
add("trace", SQ, 1)
add("tril", F)
add("triu", F, -1)
add("pad", V, 2)
add("pad", F, ((1, 2), (0, 1)), constant_values=((7, 8), (9, 10)))
for _mode in ("edge", "wrap", "reflect", "symmetric", "maximum", "minimum", "mean", "median", "linear_ramp", "empty"):
    add("pad", F, ((2, 5), (1, 3)), mode=_mode)
add("pad", V, 9, mode="reflect")
add("pad", V, 9, mode="symmetric")
add("pad", V, (3, 2), mode="reflect", reflect_type="odd")
add("pad", V, (7, 8), mode="symmetric", reflect_type="odd")
add("pad", I, 2, mode="mean")
add("pad", V, 2, mode="maximum", stat_length=2)
add("pad", V, 3, mode="linear_ramp", end_values=(5, -1))

# --- indexing ---------------------------------------------------------------------------------------------
add("take", V, np.array([0, 5, -1, 7, -8]))
add("take", F, np.array([[0, 2], [1, 1]]), axis=1)
add("take", F, np.array([7, -9]), axis=0, mode="clip")
add("take", V, np.array([7, -1]), mode="wrap")
add("take", I, np.array([20]), fill_value=-1)
add("take_along_axis", F, np.argsort(F, axis=0), axis=0)
add("take_along_axis", F, np.array([[0], [5], [-1], [2]]), axis=1)
add("choose", np.array([0, 1, 0]), [np.array([1, 2, 3]), np.array([10, 20, 30])])
add("choose", np.array([0, 3, -1]), [np.array([1, 2, 3]), np.array([10, 20, 30])], mode="clip")
add("choose", np.array([0, 3, -1]), [np.array([1, 2, 3]), np.array([10, 20, 30])], mode="wrap")
add("where", B, F, G)
add("where", B, 1, 2.5)
add("where", F > 0)
add("where", F > 0, size=8, fill_value=-1)
add("nonzero", I)
add("nonzero", I, size=20)
add("nonzero", I, size=3, fill_value=(-1, -2))
add("argwhere", B)
add("argwhere", B, size=15, fill_value=9)
add("flatnonzero", I)
add("flatnonzero", I, size=4)
add("compress", np.array([True, False, True]), F, axis=1)
add("compress", np.array([1, 0, 1, 1]), F, axis=0, size=4, fill_value=7.0)
add("extract", F > 0, F)
add("extract", F > 0, F, size=10)
add("select", [V < 0, V > 1], [V, V ** 2], default=-1.0)
add("unravel_index", np.array([5, 7, 0]), (2, 4))
add("ravel_multi_index", (np.array([1, 0]), np.array([2, 3])), (2, 4))
add("ravel_multi_index", (np.array([1, 0]), np.array([2, 3])), (2, 4), order="F")
add("ravel_multi_index", (np.array([3, 0]), np.array([2, 5])), (2, 4), mode="clip")
add("ravel_multi_index", (np.array([3, 0]), np.array([2, 5])), (2, 4), mode="wrap")
add("delete", V, np.array([0, 3]))
add("delete", F, 1, axis=1)
add("delete", V, slice(1, 4))
add("insert", V, 1, 9.0)
add("insert", V, np.array([0, 6]), np.array([7.0, 8.0]))
add("insert", F, 1, np.array([1.0, 2.0, 3.0]), axis=0)
add("insert", F, np.array([2]), 5.0, axis=1)
add("trim_zeros", np.array([0, 0, 1, 2, 0]))
add("trim_zeros", np.array([0, 1, 0]), trim="f")
add("put", np.zeros(5), np.array([0, 2]), np.array([5.0, 7.0]), inplace=False)
add("put", np.zeros(5), np.array([1, 9]), np.array([5.0, 7.0]), inplace=False, mode="clip")
add("put_along_axis", np.zeros((2, 3)), np.array([[1], [2]]), 9.0, axis=1, inplace=False)
add("place", np.arange(5.0), np.array([0, 1, 0, 1, 1]), np.array([-1.0, -2.0]), inplace=False)
add("fill_diagonal", np.zeros((3, 4)), 5.0, inplace=False)
add("fill_diagonal", np.zeros((3, 3, 3)), np.array([1.0, 2.0]), inplace=False)

# --- reductions -------------------------------------------------------------------------------------------
for _name in ("sum", "prod", "mean", "max", "min", "amax", "amin", "all", "any", "std", "var", "ptp", "count_nonzero",
              "argmax", "argmin", "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanstd", "nanvar", "nanargmax",
              "nanargmin", "median", "nanmedian", "cumsum", "cumprod", "nancumsum", "nancumprod"):
    add(_name, F)
    add(_name, F32, 1)
    if _name not in ("cumsum", "cumprod", "nancumsum", "nancumprod", "argmax", "argmin", "nanargmax", "nanargmin"):
        add(_name, F, 0, keepdims=True)
    if _name.startswith("nan"):
        add(_name, N)
        add(_name, NM, 1)
for _name in ("sum", "prod", "max", "min", "cumsum", "cumprod", "argmax", "all", "any", "count_nonzero", "ptp"):
    add(_name, I32)
    add(_name, U8, 0)
    add(_name, B)
for _name in ("mean", "var", "std", "median", "average"):
    add(_name, I32)
    add(_name, B)
add("sum", F, (0, 1))
add("sum", F, where=F > 0, initial=10.0)
add("sum", I32, dtype="int8")
add("sum", I32, promote_integers=False)
add("prod", F, 1, where=F > 0)
add("max", F, 1, where=F > 0, initial=-9.0)
add("min", np.zeros((0, 3)), 0, initial=5.0)
add("mean", F, 0, where=F > 0)
add("mean", F, dtype="float32")
add("var", F, 1, ddof=1)
add("var", C, 0)
add("std", F, 0, correction=1)
add("var", F, 0, where=F > -0.5)
add("var", F, 0, mean=np.mean(F, axis=0, keepdims=True))
add("all", F, 0, where=F > 0)
add("any", I, 1)
add("average", F, 0, weights=V[:4])
add("average", F, weights=G ** 2, returned=True)
add("average", F, 1, keepdims=True)
add("cumulative_sum", V, include_initial=True)
add("cumsum", F, dtype="float32")
add("nanmean", NM, 1, where=NM > 0)
add("nanvar", NM, 0, ddof=1)

# --- statistics -------------------------------------------------------------------------------------------
for _method in ("linear", "lower", "higher", "midpoint", "nearest"):
    add("quantile", F, 0.3, axis=0, method=_method)
    add("percentile", V, np.array([10.0, 50.0, 95.0]), method=_method)
    add("nanquantile", NM, np.array([0.25, 0.75]), axis=1, method=_method)
add("quantile", F, np.array([0.1, 0.9]), axis=(0, 1), keepdims=True)
add("quantile", N, 0.5)
add("nanpercentile", N, 40)
add("median", F, 1, keepdims=True)
add("nanmedian", NM, 0)
add("cov", F)
add("cov", F, G, rowvar=False)
add("cov", F, bias=True)
add("cov", F, ddof=2)
add("cov", F.T, fweights=np.array([1, 2, 1, 3]), aweights=W[:4])
add("cov", C)
add("corrcoef", F)
add("corrcoef", V, W)
add("histogram", V)
add("histogram", V, bins=4, range=(-1.0, 1.0))
add("histogram", V, bins=np.array([-2.0, 0.0, 0.5, 3.0]), weights=W, density=True)
add("histogram", I32, bins=3)
add("histogram_bin_edges", V, 5)
add("histogram_bin_edges", np.ones(4), 3)
add("histogramdd", F, bins=3)
add("histogram2d", V, W, bins=(3, 2))
add("bincount", R)
add("bincount", R, minlength=9)
add("bincount", R, W.repeat(2)[:10], length=4)

# --- sorting and sets -------------------------------------------------------------------------------------
add("sort", F)
add("sort", F, axis=None)
add("sort", F, 0, descending=True)
add("sort", N)
add("sort", B)
add("sort", C[0])
add("argsort", F, 0)
add("argsort", np.array([1, 3, 3, 2]), descending=True)
add("argsort", np.array([1, 3, 3, 2]), stable=True)
add("lexsort", (np.array([4, 3, 2, 1]), np.array([1, 0, 1, 0])))
add("lexsort", np.array([[1, 2, 1], [0, 0, 1]]))
add("sort_complex", np.array([1 + 2j, 1 - 1j, 0j]))
add("sort_complex", I32[0])
add("unique", R)
add("unique", R, return_index=True, return_inverse=True, return_counts=True)
add("unique", np.array([1.0, np.nan, 2.0, np.nan]))
add("unique", np.array([1.0, np.nan, 2.0, np.nan]), equal_nan=False)
add("unique", R, size=8, fill_value=-1)
add("unique", R, size=3)
add("unique", np.array([[1, 2], [3, 4], [1, 2]]), axis=0)
add("unique", np.array([[1, 2], [3, 4], [1, 2]]), axis=0, return_counts=True)
add("unique_values", R)
add("unique_counts", R)
add("unique_inverse", R)
add("unique_all", R)
add("unique_values", R, size=8, fill_value=0)
add("union1d", np.array([3, 1]), np.array([1, 2]))
add("union1d", np.array([3, 1]), np.array([1, 2]), size=5, fill_value=0)
add("intersect1d", np.array([1, 3, 4, 3]), np.array([3, 1, 2, 1]))
add("intersect1d", np.array([1, 3, 4, 3]), np.array([3, 1, 2, 1]), return_indices=True)
add("intersect1d", np.array([1, 3, 4, 3]), np.array([3, 1, 2, 1]), size=4, fill_value=0)
add("setdiff1d", np.array([4, 1, 2, 1]), np.array([2, 5]))
add("setdiff1d", np.array([4, 1, 2, 1]), np.array([2, 5]), size=3, fill_value=-1)
add("setxor1d", np.array([1, 2, 3]), np.array([2, 3, 4]))
add("isin", I, np.array([1, 2, -3]))
add("isin", I, np.array([1, 2, -3]), invert=True)

# --- products ---------------------------------------------------------------------------------------------
add("dot", V, W)
add("dot", F, V[:3])
add("dot", F, G.T)
add("dot", np.ones((2, 3, 4)), np.ones((5, 4, 6)))
add("dot", 2.0, F)
add("dot", I32, np.ones((3, 2), np.int32))
add("vdot", C, C.T)
add("vdot", F, G)
add("inner", F, G)
add("inner", V, W)
add("outer", V, W)
add("outer", F, V[:2])
add("matmul", F, G.T)
add("matmul", np.ones((2, 4, 3)), V[:3])
add("matvec", F, V[:3])
add("vecmat", V[:4], F)
add("vecdot", F, G)
add("vecdot", C, C, axis=0)
add("tensordot", np.ones((2, 3, 4)), np.ones((3, 4, 5)))
add("tensordot", F, G, axes=([0], [0]))
add("tensordot", F, G.T, axes=1)
add("einsum", "ij,kj->ik", F, G)
add("einsum", "ij,jk,kl->il", F, G.T, F)
add("einsum", "ii", C)
add("einsum", "...j,j", F, V[:3])
add("einsum", "ij", I32)
add("einsum", "ij,ij->i", F32, G, optimize="optimal")
add("kron", F[:2, :2], np.eye(2))
add("kron", V[:3], W[:2])
add("cross", np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
add("cross", F, G)
add("cross", F[:, :2], G[:, :2])
add("cross", F[:, :2], G)
add("cross", F.T, G.T, axis=0)

# --- signal, calculus -------------------------------------------------------------------------------------
for _mode in ("full", "same", "valid"):
    add("convolve", V, W[:3], mode=_mode)
    add("convolve", W[:2], V, mode=_mode)
    add("correlate", V, W[:3], mode=_mode)
    add("correlate", W[:4], V, mode=_mode)
add("convolve", np.array([1, 2, 3]), np.array([0, 1]))
add("correlate", C[0], C[1], mode="full")
add("interp", np.array([-1.0, 0.5, 1.5, 9.0]), np.array([0.0, 1.0, 2.0]), np.array([0.0, 10.0, 30.0]))
add("interp", V, S, W[:5], left=-7.0, right=7.0)
add("interp", np.array([0.5, 4.5, -0.5]), np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, 1.0, 4.0, 9.0]), period=4.0)
add("diff", V)
add("diff", F, 2, axis=0)
add("diff", V, prepend=0.0, append=np.array([1.0, 2.0]))
add("diff", B)
add("ediff1d", V, to_begin=np.array([-9.0]), to_end=99.0)
add("gradient", V)
add("gradient", V, 2.0)
add("gradient", V, np.cumsum(W))
add("gradient", F)
add("gradient", F, 1.0, 2.0)
add("gradient", F, axis=1)
add("trapezoid", V)
add("trapezoid", F, dx=0.5, axis=0)
add("trapezoid", V, x=np.cumsum(W))
add("unwrap", np.array([0.0, 3.0, -3.0, -0.5, 6.0]))
add("unwrap", F * 4, axis=0)
add("unwrap", np.array([0.0, 3.0, -3.0]), period=4.0)
for _name in ("bartlett", "blackman", "hamming", "hanning"):
    add(_name, 7)
    add(_name, 1)
    add(_name, 0)
add("kaiser", 7, 5.0)
add("kaiser", 1, 5.0)
add("i0", np.array([0.0, 1.0, -3.0, 8.0, 10.0, 50.0]))

# --- polynomials ------------------------------------------------------------------------------------------
add("polyval", np.array([1, -2, 3]), np.array([0, 1, 2]))
add("polyval", W, F)
add("polyadd", np.array([1, 2]), np.array([3, 4, 5]))
add("polysub", V, W[:3])
add("polymul", V[:3], W[:4])
add("polydiv", np.array([1.0, 0.0, -1.0]), np.array([1.0, 1.0]))
add("polydiv", V, W[:3])
add("polyder", V, 2)
add("polyint", V[:3])
add("polyint", V[:3], 2, k=np.array([1.0, 2.0]))
add("polyfit", V, W, 2)
add("polyfit", V, np.stack([W, W ** 2], axis=1), 1)
add("polyfit", V, W, 1, w=W)
add("poly", np.array([1.0, 2.0, -3.0]))
add("poly", SQ)

# --- functions of functions, printing -----------------------------------------------------------------------
add("apply_along_axis", lambda v: v[0] + v[-1], 1, F)
add("apply_along_axis", lambda v: v * 2, 0, F)
add("array_str", F)
add("astype", F, "int32")

# --- linalg -----------------------------------------------------------------------------------------------
L = {"module": "linalg"}
CASES += [
    case("norm", V, **L), case("norm", F, **L), case("norm", F, "nuc", **L), case("norm", F, 2, **L),
    case("norm", F, -np.inf, **L), case("norm", F, axis=1, **L), case("norm", F, 1, axis=0, **L),
    case("norm", V, 0, **L), case("norm", V, 3, **L), case("norm", np.ones((2, 3, 4)), **L),
    case("norm", np.ones((2, 3, 4)), axis=(0, 2), keepdims=True, **L), case("norm", C, **L),
    case("det", SQ, **L), case("det", np.array([[1, 2], [3, 4]]), **L),
    case("slogdet", SQ, **L), case("inv", SQ, **L), case("solve", SQ, V[:3], **L), case("solve", SQ, F.T, **L),
    case("cholesky", SPD, **L), case("cholesky", SPD, upper=True, **L),
    case("eigh", SPD, **L), case("eigvalsh", SPD, **L), case("eigvalsh", SQ, **L),
    case("eigvalsh", SQ, "U", symmetrize_input=False, **L), case("eigvalsh", SQ, "L", symmetrize_input=False, **L),
    case("svd", F, compute_uv=False, **L), case("svdvals", F, **L), case("matrix_rank", F, **L),
    case("matrix_rank", np.array([[1.0, 2.0], [2.0, 4.0]]), **L), case("matrix_rank", F, tol=0.5, **L),
    case("pinv", F, **L), case("matrix_power", SQ, 3, **L), case("matrix_power", SQ, -2, **L),
    case("matrix_power", np.array([[1, 1], [0, 1]]), 5, **L), case("matrix_power", SQ, 0, **L),
    case("cond", SQ, **L), case("cond", SQ, 1, **L), case("cond", SQ, -2, **L), case("cond", SQ, "fro", **L),
    case("multi_dot", [F, G.T, F], **L), case("multi_dot", [V[:4], F, G.T, W[:4]], **L),
    case("tensorinv", np.eye(4).reshape(4, 2, 2), ind=1, **L),
    case("tensorsolve", np.eye(6).reshape(2, 3, 6), np.ones((2, 3)), **L),
    case("vector_norm", F, axis=1, ord=1, **L), case("matrix_norm", F, ord=np.inf, **L),
    case("outer", V, W, **L), case("cross", F, G, **L), case("diagonal", F, offset=1, **L),
    case("trace", SQ, **L), case("matrix_transpose", F, **L), case("matmul", F, G.T, **L),
    case("vecdot", F, G, **L), case("tensordot", F, G.T, axes=1, **L),
    case("lstsq", F, V[:4], **L), case("lstsq", F, np.stack([V[:4], W[:4]], axis=1), **L),
    case("lstsq", np.ones((4, 3)), V[:4], **L),
]
FT = {"module": "fft"}
CASES += [
    case("fft", V, **FT), case("fft", I32, 6, 0, **FT), case("fft", C, norm="ortho", **FT), case("ifft", V, **FT),
    case("rfft", V, **FT), case("rfft", F32, 5, 0, norm="forward", **FT), case("irfft", C[0], **FT),
    case("irfft", C, 6, **FT), case("hfft", C[0], **FT), case("ihfft", V, **FT), case("fftn", F, **FT),
    case("fftn", F, (2, 4), **FT), case("ifftn", C, axes=[0], **FT), case("rfftn", F, **FT),
    case("irfftn", C, **FT), case("fft2", F, **FT), case("ifft2", C, **FT), case("rfft2", F, (4, 4), **FT),
    case("irfft2", C, **FT), case("fftfreq", 5, 0.5, **FT), case("rfftfreq", 6, **FT),
    case("fftshift", V, **FT), case("ifftshift", F, axes=0, **FT),
]

# Names not compared value by value against jax.numpy, and why (each is tested elsewhere in tests/numpy).
NOT_COMPARED = {
    "einsum_path": "NumPy's paths (compared with np.einsum_path in tests/api/test_einsum_functions.py); the report's "
                   "words are stridex's own",
    "empty": "unspecified values (jax.numpy's are zeros): shape and dtype in test_semantics.py",
    "empty_like": "as empty",
    "finfo": "returns NumPy's finfo, as jax.numpy does (compared in test_dtypes.py)",
    "iinfo": "as finfo",
    "from_dlpack": "stridex's own import (test_semantics.py)",
    "fromfunction": "a function argument (test_semantics.py)",
    "mask_indices": "a function argument (test_semantics.py)",
    "piecewise": "function arguments (test_semantics.py)",
    "vectorize": "a function of functions (test_transforms.py)",
    "partition": "the order within the two sides is unspecified (test_semantics.py checks the property)",
    "argpartition": "as partition",
    "roots": "roots come in no particular order (test_semantics.py compares them sorted)",
    "apply_over_axes": "a function argument (test_semantics.py, against NumPy)",
    "array_repr": "jax.numpy's names its array class (ArrayImpl); stridex gives NumPy's repr (test_semantics.py)",
    "load": "I/O (test_semantics.py)", "save": "NumPy's own", "savez": "NumPy's own",
    "printoptions": "NumPy's own", "set_printoptions": "NumPy's own", "get_printoptions": "NumPy's own",
}


def _callables() -> set[str]:
    from tests.numpy.test_names import STRIDEX_OWN

    out = set()
    for name in snp.__all__:
        value = getattr(snp, name)
        if callable(value) and not isinstance(value, type) and name not in STRIDEX_OWN:
            out.add(name)
    return out


def test_every_function_has_a_case():
    from stridex.numpy import _ufuncs

    covered = {p.values[0] for p in CASES if not p.values[1]} | set(_ufuncs.__all__) | set(NOT_COMPARED) | {
        "searchsorted", "digitize", "cumulative_prod"}  # (test_index_dtypes_differ_from_jax_by_design)
    missing = sorted(_callables() - covered)
    assert not missing, f"functions with no case against jax.numpy: {missing}"
    for module in ("linalg", "fft"):
        covered = {p.values[0] for p in CASES if p.values[1] == module}
        assert set(getattr(snp, module).__all__) - covered <= {"EigResult", "EighResult", "QRResult", "SVDResult",
                                                                "SlogdetResult", "eig", "eigvals", "eigh", "svd",
                                                                "qr"}, module


@pytest.mark.parametrize("name,module,args,kwargs,rtol,atol", CASES)
def test_against_jax(name, module, args, kwargs, rtol, atol):
    compare(name, *args, module=module, rtol=rtol, atol=atol, **kwargs)


# Decompositions whose factors are unique only up to signs or phases: compared through what they determine.


def test_decompositions_against_jax():
    from stridex._exec.jax_bridge import x64

    with x64():
        got = snp.linalg.eigh(SPD)
        want = jnp.linalg.eigh(jnp.asarray(SPD))
    np.testing.assert_allclose(np.asarray(got.eigenvalues), np.asarray(want.eigenvalues), rtol=1e-12)
    vectors = np.asarray(got.eigenvectors)
    np.testing.assert_allclose(vectors @ np.diag(np.asarray(got.eigenvalues)) @ vectors.T, SPD, atol=1e-10)
    u, s, vh = (np.asarray(t) for t in snp.linalg.svd(F, full_matrices=False))
    np.testing.assert_allclose(u @ np.diag(s) @ vh, F, atol=1e-12)
    q, r = (np.asarray(t) for t in snp.linalg.qr(F))
    np.testing.assert_allclose(q @ r, F, atol=1e-12)
    np.testing.assert_allclose(np.abs(np.asarray(snp.linalg.qr(F, mode="r"))), np.abs(r), atol=1e-12)
    values, vectors = (np.asarray(t) for t in snp.linalg.eig(SQ))
    np.testing.assert_allclose(SQ @ vectors, vectors * values, atol=1e-10)
    np.testing.assert_allclose(np.sort_complex(np.asarray(snp.linalg.eigvals(SQ))), np.sort_complex(values),
                               atol=1e-10)


# jax.numpy returns int32 positions from searchsorted (and digitize) when the array is shorter than 2**31; stridex
# returns the standard's index dtype, int64. cumulative_prod of int32 is int64 here (the standard's rule) and
# int32 in jax.numpy. Values are compared as they are.


@pytest.mark.parametrize("name,args,kwargs", [
    ("searchsorted", (S, V), {}), ("searchsorted", (S, V), {"side": "right"}), ("searchsorted", (S, 0.1), {}),
    ("digitize", (V, S), {}), ("digitize", (V, S[::-1]), {"right": True}),
    ("cumulative_prod", (I32,), {"axis": 1}),
])
def test_index_dtypes_differ_from_jax_by_design(name, args, kwargs):
    got = compare(name, *args, check_dtype=False, **kwargs)
    assert got.dtype == snp.int64


# Both sides of the size thresholds: aligned outputs from 2048 elements, XLA's reductions from 4096, eager fusion
# from 32768; NaN, infinities and -0.0 among the values where they matter.
THRESHOLD_FUNCTIONS = [
    ("nansum", {}), ("nanmax", {}), ("nanmean", {}), ("nanvar", {"ddof": 1}), ("nancumsum", {}), ("cumprod", {}),
    ("quantile", {"q": 0.3}), ("nanmedian", {}), ("histogram", {"bins": 7, "range": (-40.0, 40.0)}),
    ("sort", {}), ("argsort", {}), ("average", {}), ("ptp", {}), ("diff", {"n": 2}), ("pad", {"pad_width": 3,
                                                                                              "mode": "reflect"}),
    ("nan_to_num", {}), ("isclose", {"b": 0.0}), ("clip", {"min": -1.0, "max": 1.0}),
]


@pytest.mark.parametrize("n", [2047, 2048, 4095, 4096, 32767, 32768, 40000])
@pytest.mark.parametrize("name,kwargs", THRESHOLD_FUNCTIONS, ids=[f[0] for f in THRESHOLD_FUNCTIONS])
def test_both_sides_of_the_size_thresholds(name, kwargs, n):
    x = np.random.default_rng(n).uniform(-50, 50, n)
    special = [-0.0, 0.0, 1.0]
    if name.startswith("nan") or name in ("sort", "argsort", "nan_to_num", "isclose", "clip", "diff", "pad"):
        special = [np.nan, np.inf, -np.inf, -0.0, 0.0]
    x[:len(special)] = special
    if name == "cumprod":
        x = 1.0 + x / 1e4
    kwargs = dict(kwargs)
    q = kwargs.pop("q", None)
    args = (x,) if q is None else (x, q)
    compare(name, *args, rtol=1e-9, **kwargs)

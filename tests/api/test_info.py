"""The inspection namespace and the constants."""

from __future__ import annotations

import itertools
import math

import pytest

import stridex as sx

KINDS = {
    "bool": ["bool"],
    "signed integer": ["int8", "int16", "int32", "int64"],
    "unsigned integer": ["uint8", "uint16", "uint32", "uint64"],
    "real floating": ["float32", "float64"],
    "complex floating": ["complex64", "complex128"],
}
KINDS["integral"] = KINDS["signed integer"] + KINDS["unsigned integer"]
KINDS["numeric"] = KINDS["integral"] + KINDS["real floating"] + KINDS["complex floating"]


def test_capabilities():
    caps = sx.__array_namespace_info__().capabilities()
    assert caps == {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}


def test_devices():
    info = sx.__array_namespace_info__()
    devices = info.devices()
    assert isinstance(devices, tuple) and devices[0] == info.default_device() == "cpu"  # the host comes first
    assert len({d.name for d in devices}) == len(devices)
    assert info.default_device() == sx.asarray(1).device
    assert sx.zeros(2, device=info.devices()[0]).device == info.default_device()


def test_default_dtypes():
    info = sx.__array_namespace_info__()
    want = {"real floating": sx.float64, "complex floating": sx.complex128, "integral": sx.int64, "indexing": sx.int64}
    assert info.default_dtypes() == want
    assert info.default_dtypes(device=info.default_device()) == want
    with pytest.raises(ValueError):
        info.default_dtypes(device="tpu:7")


def test_dtypes_all_and_by_kind():
    info = sx.__array_namespace_info__()
    everything = info.dtypes()
    assert list(everything) == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                "float32", "float64", "complex64", "complex128"]
    assert all(getattr(sx, name) is dtype for name, dtype in everything.items())
    for kind, names in KINDS.items():
        assert sorted(info.dtypes(kind=kind)) == sorted(names)
    for a, b in itertools.combinations(KINDS, 2):
        assert sorted(info.dtypes(kind=(a, b), device=info.default_device())) == sorted(set(KINDS[a] + KINDS[b]))
    with pytest.raises(ValueError):
        info.dtypes(kind="integer")
    with pytest.raises(TypeError):
        info.dtypes(kind=(sx.int8,))


def test_constants():
    assert sx.e == math.e and sx.pi == math.pi
    assert math.isinf(sx.inf) and sx.inf > 0
    assert math.isnan(sx.nan)
    assert sx.newaxis is None
    assert sx.asarray(sx.pi).dtype is sx.float64
    assert sx.ones((2, 3))[sx.newaxis].shape == (1, 2, 3)

"""The small CNN of benchmarks/lax.py (float32: convolutions, relu, max pooling by reduce_window, a dense layer,
log_softmax cross-entropy, SGD with momentum) trained under sx.jit(value_and_grad): its losses and parameters equal
the same program's under jax.jit to float32 tolerance, on the host and on a JAX device (cpu:1), and eagerly."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from benchmarks import lax as cnn
from tests.jax_reference import DEVICE, jax


def _start(size):
    params, (images, labels) = cnn.init_params(), cnn.batch(size=size)
    velocity = {k: tuple(np.zeros_like(a) for a in v) for k, v in params.items()}
    return params, velocity, images, labels


@pytest.mark.parametrize("device", [None, DEVICE])
def test_losses_and_parameters_equal_jaxs(device):
    start = _start(8)
    (*ours, images, labels), (*theirs, jax_images, jax_labels) = (cnn.sx_arrays(start, device),
                                                                   cnn.jax_arrays(start, device))
    step, jax_step = sx.jit(cnn.sx_step()), jax.jit(cnn.jax_step())
    losses, jax_losses = [], []
    for _ in range(4):
        *ours, loss = step(*ours, images, labels)
        *theirs, jax_loss = jax_step(*theirs, jax_images, jax_labels)
        losses.append(float(np.asarray(loss)))
        jax_losses.append(float(jax_loss))
    assert loss.dtype == sx.float32 and (device is None or loss.device == device)
    np.testing.assert_allclose(losses, jax_losses, rtol=1e-5)
    assert losses[-1] < losses[0]  # (it learns)
    for got, want in zip(jax.tree_util.tree_leaves(ours[0]), jax.tree_util.tree_leaves(theirs[0])):
        np.testing.assert_allclose(np.asarray(got.to_device("cpu") if device else got), np.asarray(want),
                                   rtol=1e-4, atol=1e-5)


def test_eager_step_equals_jit():
    start = _start(4)
    eager = cnn.sx_step()(*cnn.sx_arrays(start))
    jitted = sx.jit(cnn.sx_step())(*cnn.sx_arrays(start))
    np.testing.assert_allclose(float(np.asarray(eager[2])), float(np.asarray(jitted[2])), rtol=1e-6)
    for got, want in zip(jax.tree_util.tree_leaves(eager[0]), jax.tree_util.tree_leaves(jitted[0])):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_the_benchmark_page_renders_the_targets():
    row = {"where": "host", "max_loss_difference": 0.0, "steady_sx": 1e-3, "steady_jax": 1e-3, "steady_ratio": 1.05,
           "first_sx": 1.0, "first_jax": 1.0, "first_ratio": 1.3}
    einsum = {"case": "small: (2, 3)", "np": 1e-5, "sx": 1e-5, "sx.jit": 1e-5, "jax.jit": 1e-5, "eager_ratio": 0.9,
              "jit_ratio": 1.0}
    page = cnn.report([row], [einsum], quick=True, seconds=1.0)
    assert "| CNN steady step on host: sx.jit / jax.jit <= 1.1 | 1.05x | met |" in page
    assert "| CNN first call on host: sx.jit / jax.jit <= 1.2 | 1.30x | **not met** |" in page
    assert "| einsum small, jit: sx.jit / jax.jit <= 1.1 | 1.00x | met |" in page

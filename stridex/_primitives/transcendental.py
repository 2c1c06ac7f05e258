"""Transcendental elementwise primitives: exponentials, logarithms, powers and roots, trigonometric and hyperbolic functions."""

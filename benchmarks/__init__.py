"""Benchmarks of stridex against NumPy, array-api-strict and JAX (`python -m benchmarks.report`, `.eager`, `.jit`)."""

"""Benchmarks of stridex against NumPy and array-api-strict (`python -m benchmarks.eager`)."""

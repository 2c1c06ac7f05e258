"""FFT primitives."""

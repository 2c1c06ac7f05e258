"""The `fft` extension (filled in by its implementation)."""

__all__ = []

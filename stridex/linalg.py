"""The `linalg` extension (filled in by its implementation)."""

__all__ = []

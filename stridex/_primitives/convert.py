"""Dtype conversion primitive (astype)."""

"""Sorting primitives: sort, argsort."""

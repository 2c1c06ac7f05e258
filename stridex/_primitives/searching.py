"""Searching primitives: argmax, argmin, nonzero, searchsorted, where (select), count_nonzero."""

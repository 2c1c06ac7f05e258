"""Reduction primitives: sum, prod, max, min, all, any, mean/var/std building blocks, cumulative sums and products."""

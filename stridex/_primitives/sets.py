"""Set primitives: unique_* and isin."""

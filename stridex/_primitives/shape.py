"""Shape primitives that copy data: concatenate, stack, repeat, roll, tile."""

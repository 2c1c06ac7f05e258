"""Linear-algebra primitives: dot_general (matmul, tensordot, vecdot) and the decompositions."""

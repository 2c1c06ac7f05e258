"""Transformations over the primitives: tracing, the IR and its passes, lowering, jit, autodiff, batching."""

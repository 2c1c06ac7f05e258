"""The Array API namespace: one module per chapter of the standard; each validates, then binds primitives."""

"""The strided core: View, Storage, DType, abstract values, Array, pytrees, the current trace."""

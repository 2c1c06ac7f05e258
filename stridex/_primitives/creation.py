"""Creation primitives: iota (arange), full, eye, tril/triu masks, linspace."""

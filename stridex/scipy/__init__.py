"""`stridex.scipy`: JAX's `jax.scipy` names on stridex arrays; `special` is its one module so far.

>>> import stridex.scipy.special
>>> stridex.scipy.special.erf(0.5)
Array(0.52049988)
"""

from stridex.scipy import special

__all__ = ["special"]

"""stridex.numpy: jax.numpy's names on stridex (work in progress)."""
from stridex.numpy._dtypes import *
from stridex.numpy._ufuncs import *
from stridex.numpy._creation import *
from stridex.numpy._shape import *
from stridex.numpy._reductions import *
from stridex._api.constants import e, inf, nan, newaxis, pi
euler_gamma = 0.5772156649015329
from stridex.numpy._indexing import *
from stridex.numpy._sorting import *
from stridex.numpy._statistics import *

"""array-api-extra's own tests (``tests/`` of its source distribution) on stridex.

Those tests take their backend from the ``library`` fixture of ``tests/main/conftest.py``,
parametrised over the members of the ``Backend`` enum (``array_api_extra._lib._backends``); the
``xp`` fixture imports ``library.modname`` and wraps it with ``array_namespace``. This plugin,
loaded before that conftest is imported, adds a member ``STRIDEX = "stridex"`` to the enum, so that
every test parametrised over the backends gets a ``[stridex]`` case (selected with ``-k stridex``;
array-api-strict's cases with ``-k "array_api_strict and not strictest"``). The tests' marks name
backends precisely (``skip_xp_backend(Backend.ARRAY_API_STRICT)``), so none is inherited.

With ``STRIDEX_INTEROP_BACKEND=stridex_jit`` the member is ``STRIDEX_JIT = "stridex.jit_mode"`` instead
(test ids ``[stridex_jit]``, also selected with ``-k stridex``): the same tests on ``stridex.jit_mode``.
"""

from array_api_extra._lib._backends import Backend

from . import backend

NAME, VALUE = ("STRIDEX_JIT", "stridex.jit_mode") if backend() == "stridex_jit" else ("STRIDEX", "stridex")

if NAME not in Backend.__members__:
    member = object.__new__(Backend)
    member._name_ = NAME
    member._value_ = VALUE
    member.__objclass__ = Backend
    member._sort_order_ = len(Backend._member_names_)
    Backend._member_map_[NAME] = member
    Backend._value2member_map_[VALUE] = member
    Backend._member_names_.append(NAME)
    assert Backend(VALUE) is member and member in list(Backend) and member.modname == VALUE

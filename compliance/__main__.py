"""Entry point of ``python -m compliance``."""

from .runner import main

raise SystemExit(main())

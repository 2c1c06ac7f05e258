"""Client libraries' own test suites against stridex (``python -m interop.run_suites``; docs/interop.md)."""

"""The conformance runner: runs data-apis/array-api-tests against stridex and writes compliance/REPORT.md.

Usage: ``python -m compliance --suite DIR [--version V ...] [--max-examples N] [--mode eager] [files...]``.
"""

"""(filled in by its chapter's implementation)"""

__all__ = []

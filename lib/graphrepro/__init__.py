"""graphrepro: re-run published graph-learning evaluation claims and render them as a book."""

__version__ = "0.1.0"

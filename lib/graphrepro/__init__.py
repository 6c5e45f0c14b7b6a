"""graphrepro: re-run published graph-learning evaluation claims and render them as a book."""

import os

# geoopt compiles its manifold maths with TorchScript; the JIT's first (profiling) calls and its later
# optimised calls round differently, so a run's numbers would depend on what ran before it in the same
# process. Eager execution is deterministic; graphrepro.models.poincare refuses to run without it.
os.environ.setdefault("PYTORCH_JIT", "0")

__version__ = "0.1.0"

"""Models: Euclidean and Poincaré-ball encoders with HGCN's decoders for link prediction and node classification."""

from graphrepro.models.hgcn import LinkPredictor, NodeClassifier, build_encoder

__all__ = ["LinkPredictor", "NodeClassifier", "build_encoder"]

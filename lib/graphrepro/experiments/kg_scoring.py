"""Scores of a batch of queries against every entity as one real matrix product, where pykeen's interaction builds a
(batch, entities, dimensions) tensor instead: RotatE's distances and TuckER's last contraction. The models are pykeen's
own with only that step replaced; any other shape (a single triple, a few negatives under sLCWA) stays pykeen's."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import torch

MATMUL = "matmul"  # a config's ``scorer`` when training scores every tail by one matrix product (``tucker_by_matmul``,
# ``rotate_all_entities(training=True)``)


def rotated_distances(anchors: torch.Tensor, candidates: torch.Tensor) -> torch.Tensor:
    """RotatE's score, −‖a − c‖₂, of every rotated anchor (batch, d) against every candidate entity
    (n, d), complex: ‖a‖² + ‖c‖² − 2 Re⟨a, c⟩ as one real matrix product, rather than the (batch, n, d)
    difference pykeen builds (many times faster on WN18RR: ``bench --chapter mrr-variants``). Both round in
    float32, differently: near-ties can swap (tests compare the two). In training, a squared distance is at least
    float32's smallest normal number, whose root (1e-19) has a finite gradient, and below it the gradient is zero,
    as pykeen's norm has it at zero distance."""
    a, c = torch.view_as_real(anchors).flatten(-2), torch.view_as_real(candidates).flatten(-2)
    squared = a.square().sum(-1, keepdim=True) + c.square().sum(-1) - 2 * a @ c.T
    return -squared.clamp_min(torch.finfo(squared.dtype).tiny if squared.requires_grad else 0).sqrt()


def _named(cls: type, name: str) -> None:
    """pykeen's checkpoints carry the md5 of str(model): printed with pykeen's class name, either model resumes the other's."""
    cls._get_name = lambda self: name  # type: ignore[attr-defined]


@lru_cache(maxsize=2)
def rotate_all_entities(training: bool = False) -> type:
    """pykeen's RotatE model that scores a batch of queries against every entity by ``rotated_distances``: in ranking,
    and in training too where ``training`` (LCWA's batches; a config's ``scorer``, ``MATMUL``). Gradients flow through
    it as through pykeen's norm, rounded differently (tests compare the two). Other shapes (a triple, sLCWA's
    negatives) and, without ``training``, every score with gradients on stay pykeen's own."""
    from pykeen.models import RotatE  # heavy (pykeen): only knowledge-graph runs load it
    from pykeen.nn.modules import RotatEInteraction
    from pykeen.utils import ensure_complex

    class AllEntitiesInteraction(RotatEInteraction):
        def forward(self, h: torch.Tensor, r: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            h, r, t = ensure_complex(h, r, t)
            if (torch.is_grad_enabled() and not training) or not h.ndim == r.ndim == t.ndim == 3 or r.shape[1] != 1:
                return super().forward(h, r, t)
            if h.shape[1] == 1 and t.shape[0] == 1:  # (batch, 1, d) heads against (1, n, d) tails
                return rotated_distances((h * r)[:, 0], t[0])
            if t.shape[1] == 1 and h.shape[0] == 1:  # |h∘r − t| = |h − t∘r̄| for unit-modulus r
                return rotated_distances((t * torch.conj(r))[:, 0], h[0])
            return super().forward(h, r, t)

    class RotatEAllEntities(RotatE):  # type: ignore[misc]
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.interaction = AllEntitiesInteraction()

    _named(AllEntitiesInteraction, "RotatEInteraction")
    _named(RotatEAllEntities, "RotatE")
    return RotatEAllEntities


@lru_cache(maxsize=1)
def tucker_by_matmul() -> type:
    """pykeen's TuckER model whose queries (batch, 1, d) are scored against every tail (1, n, d) as one matrix product
    of the contracted head and relation with the tails, in training and ranking alike, instead of pykeen's
    (batch, n, d) product summed (its batch norms and dropouts, in pykeen's order, are unchanged); other shapes stay
    pykeen's. The same sums in another order of float32 additions (tests compare the two)."""
    from pykeen.models import TuckER  # heavy (pykeen): only knowledge-graph runs load it
    from pykeen.nn.modules import TuckERInteraction
    from pykeen.nn.utils import apply_optional_bn
    from pykeen.utils import einsum

    class MatmulInteraction(TuckERInteraction):
        def forward(self, h: torch.Tensor, r: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            if not (h.ndim == r.ndim == t.ndim == 3 and h.shape[1] == r.shape[1] == 1 and t.shape[0] == 1):
                return super().forward(h, r, t)
            h = self.head_dropout(apply_optional_bn(x=h, batch_norm=self.head_batch_norm))
            r = self.relation_dropout(einsum("ijk,...j->...ik", self.core_tensor, r))
            z = self.head_relation_dropout(apply_optional_bn(x=einsum("...ik,...i->...k", r, h), batch_norm=self.head_relation_batch_norm))
            return z[:, 0] @ t[0].T

    class TuckERByMatmul(TuckER):  # type: ignore[misc]
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.interaction.__class__ = MatmulInteraction  # its parameters, initialised as pykeen's, kept

    _named(MatmulInteraction, "TuckERInteraction")
    _named(TuckERByMatmul, "TuckER")
    return TuckERByMatmul

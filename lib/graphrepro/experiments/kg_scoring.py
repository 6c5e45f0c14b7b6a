"""Scores of a batch of queries against every entity without the (batch, entities, dimensions) tensor pykeen's
interaction builds: one real matrix product for RotatE's distances and TuckER's last contraction, and compiled kernels
that sum TransE's L1 distances as they go. The models are pykeen's own with only that step replaced; any other shape (a
single triple, a few negatives under sLCWA) stays pykeen's."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import torch

MATMUL = "matmul"  # a config's ``scorer`` when training scores every tail by one matrix product (``tucker_by_matmul``,
# ``rotate_all_entities(training=True)``)
FUSED = "fused"  # a config's ``scorer`` when TransE scores every entity by compiled L1 kernels (``transe_all_entities``)


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


@lru_cache(maxsize=1)
def _l1_kernels() -> tuple[Callable[..., torch.Tensor], ...]:
    """``l1_distances``'s three loops, compiled (torch.compile, inductor's C++) so that each sums as it goes: the
    scores −‖a − c‖₁ (batch, n), and their gradients for the anchors and for the candidates, given the scores'.
    Refused, with the reason, where no C++ compiler is found."""
    if not any(shutil.which(c) for c in (os.environ.get("CXX", ""), "g++", "c++", "clang++") if c):
        raise RuntimeError("TransE's fast path (scorer 'fused') compiles its kernels with torch.compile, which needs a C++ "
                           "compiler: install g++ (apt-get install g++, or conda's cxx-compiler) or set CXX")

    def scores(a: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return -(a[:, None, :] - c[None, :, :]).abs().sum(-1)

    def anchor_gradient(a: torch.Tensor, c_t: torch.Tensor, g: torch.Tensor) -> torch.Tensor:  # c_t: (d, n), summed along memory
        return (g[:, None, :] * torch.sign(c_t[None, :, :] - a[:, :, None])).sum(-1)

    def candidate_gradient(a: torch.Tensor, c: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return (g[:, :, None] * torch.sign(a[:, None, :] - c[None, :, :])).sum(0)

    return tuple(torch.compile(f, dynamic=True) for f in (scores, anchor_gradient, candidate_gradient))


CHUNK_FLOATS = 2**18  # the candidates ``_L1Scores`` sums over at a time: 1 MB of float32, which a core's cache holds


def _chunks(c: torch.Tensor) -> list[slice]:
    """The cache-sized chunks (``CHUNK_FLOATS``) of candidates ``c`` (n, d), as slices of its rows."""
    step = max(1, CHUNK_FLOATS // c.shape[1])
    return [slice(i, i + step) for i in range(0, len(c), step)]


class _L1Scores(torch.autograd.Function):
    """−‖a − c‖₁ of every anchor against every candidate, forward and backward by ``_l1_kernels``, a cache-sized chunk
    of candidates at a time (``CHUNK_FLOATS``): each chunk is read once for all anchors, not once for each."""

    @staticmethod
    def forward(ctx: Any, a: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(a, c)
        return torch.cat([_l1_kernels()[0](a, c[part]) for part in _chunks(c)], dim=1)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        a, c = ctx.saved_tensors
        _, anchor_gradient, candidate_gradient = _l1_kernels()
        anchors, candidates = torch.zeros_like(a), []
        for part in _chunks(c):
            g_part = g[:, part].contiguous()
            if ctx.needs_input_grad[0]:
                anchors += anchor_gradient(a, c[part].T.contiguous(), g_part)
            if ctx.needs_input_grad[1]:
                candidates.append(candidate_gradient(a, c[part], g_part))
        return (anchors if ctx.needs_input_grad[0] else None, torch.cat(candidates) if ctx.needs_input_grad[1] else None)


def l1_distances(anchors: torch.Tensor, candidates: torch.Tensor) -> torch.Tensor:
    """TransE's score, −‖a − c‖₁, of every anchor (batch, d) against every candidate entity (n, d), by compiled loops
    that never hold the (batch, n, d) difference pykeen builds (an epoch of TransE on WN18RR many times faster:
    ``bench --chapter mrr-variants``). The gradient is pykeen's, sign(a − c) with 0 at 0; float32 sums in another
    order (tests compare the two)."""
    return _L1Scores.apply(anchors.contiguous(), candidates.contiguous())


@lru_cache(maxsize=1)
def transe_all_entities() -> type:
    """pykeen's TransE model whose L1 scores of a batch of queries against every entity, heads or tails, in training
    and ranking alike, come from ``l1_distances``; other shapes, and other norms, stay pykeen's."""
    from pykeen.models import TransE  # heavy (pykeen): only knowledge-graph runs load it
    from pykeen.nn.modules import TransEInteraction

    class FusedInteraction(TransEInteraction):
        def forward(self, h: torch.Tensor, r: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            if self.p != 1 or self.power_norm or not h.ndim == r.ndim == t.ndim == 3 or r.shape[1] != 1:
                return super().forward(h, r, t)
            if h.shape[1] == 1 and t.shape[0] == 1:  # (batch, 1, d) heads against (1, n, d) tails
                return l1_distances((h + r)[:, 0], t[0])
            if t.shape[1] == 1 and h.shape[0] == 1:  # ‖h + r − t‖ = ‖h − (t − r)‖
                return l1_distances((t - r)[:, 0], h[0])
            return super().forward(h, r, t)

    class TransEAllEntities(TransE):  # type: ignore[misc]
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.interaction.__class__ = FusedInteraction  # its norm (p) kept

    _named(FusedInteraction, "TransEInteraction")
    _named(TransEAllEntities, "TransE")
    return TransEAllEntities

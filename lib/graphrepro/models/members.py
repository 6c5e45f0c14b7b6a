"""Several independently seeded runs trained as one stacked model: each member has its own generator."""

from __future__ import annotations

import math

import torch


class Members:
    """The seeds of a batch of runs and one random generator per seed (initialisation, dropout, sampling).

    Every random draw of member s comes from its own generator, so member s behaves exactly as a run
    of seed s trained alone (up to floating-point summation order in the stacked products).
    """

    def __init__(self, seeds: list[int], device: torch.device | str = "cpu") -> None:
        self.seeds = list(seeds)
        self.device = torch.device(device)
        self.generators = [torch.Generator(device=self.device).manual_seed(s) for s in self.seeds]
        self._init_generators = [torch.Generator().manual_seed(s) for s in self.seeds]

    def __len__(self) -> int:
        return len(self.seeds)

    def uniform(self, shape: tuple[int, ...], bound: float) -> torch.Tensor:
        """A [members, *shape] CPU tensor, member s drawn from U(-bound, bound) with its own generator."""
        return torch.stack([torch.empty(shape).uniform_(-bound, bound, generator=g) for g in self._init_generators])

    def linear_init(self, in_dim: int, out_dim: int) -> tuple[torch.Tensor, torch.Tensor]:
        """nn.Linear's default initialisation per member: weight [S, in, out] and bias [S, 1, out]."""
        bound = 1.0 / math.sqrt(in_dim)
        weight = torch.stack([torch.empty(out_dim, in_dim).uniform_(-bound, bound, generator=g).T for g in self._init_generators])
        bias = torch.stack([torch.empty(1, out_dim).uniform_(-bound, bound, generator=g) for g in self._init_generators])
        return weight.contiguous(), bias

    def xavier(self, out_dim: int, in_dim: int, gain: float) -> torch.Tensor:
        """Xavier-uniform [S, out, in] per member."""
        return self.uniform((out_dim, in_dim), gain * math.sqrt(6.0 / (in_dim + out_dim)))

    def dropout(self, x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
        """Inverted dropout on a [S, ...] tensor with each member's mask from its own generator."""
        if not training or p == 0.0:
            return x
        keep = torch.stack([
            torch.empty(x.shape[1:], device=x.device).bernoulli_(1.0 - p, generator=g) for g in self.generators
        ])
        return x * keep / (1.0 - p)

    def randint(self, high: int, n: int) -> torch.Tensor:
        """[S, n] integers in [0, high), member s from its own generator."""
        return torch.stack([torch.randint(high, (n,), generator=g, device=self.device) for g in self.generators])

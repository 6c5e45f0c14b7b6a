"""The manifest: every executed page of the book, its parameters, and their values under each profile."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PROFILES = ("smoke", "standard", "paper")


class ParameterError(ValueError):
    """A chapter name, parameter name or value that the manifest does not allow."""


@dataclass(frozen=True)
class Param:
    """One notebook parameter: its type, what it means, allowed values, and its value under each profile."""

    name: str
    type: type
    help: str
    profiles: dict[str, Any]
    choices: tuple[Any, ...] | None = None
    many: bool = False  # a list of values, each from ``choices``
    minimum: float | None = None
    maximum: float | None = None
    below_maximum: bool = False  # True: ``maximum`` itself is excluded (a dropout rate of 1 drops everything)
    available: Callable[[Any], str | None] | None = None  # why an allowed value cannot be used on this machine

    @property
    def default(self) -> Any:
        """The value the book is built with (the ``standard`` profile)."""
        return self.profiles["standard"]

    def type_name(self) -> str:
        """The type as shown to users."""
        return f"list[{self.type.__name__}]" if self.many else self.type.__name__

    def parse(self, text: str) -> Any:
        """Convert a command-line string (lists comma-separated) to this parameter's type, then check it."""
        items = [t.strip() for t in text.split(",") if t.strip()] if self.many else [text]
        try:
            values = [_convert(self.type, t) for t in items]
        except ValueError:
            raise ParameterError(f"parameter {self.name!r} expects {self.type_name()}, got {text!r}") from None
        return self.check(values if self.many else values[0])

    def check(self, value: Any) -> Any:
        """Return ``value`` if it has the right type and is allowed, else raise ``ParameterError``."""
        values = value if self.many else [value]
        if self.many and (not isinstance(value, (list, tuple)) or not value):
            raise ParameterError(f"parameter {self.name!r} expects a non-empty {self.type_name()}, got {value!r}")
        for v in values:
            ok = isinstance(v, self.type) and not (self.type is int and isinstance(v, bool))
            if self.type is float and isinstance(v, int) and not isinstance(v, bool):
                ok = True
            if not ok:
                raise ParameterError(f"parameter {self.name!r} expects {self.type_name()}, got {v!r}")
            if self.choices is not None and v not in self.choices:
                allowed = ", ".join(map(str, self.choices))
                raise ParameterError(f"parameter {self.name!r} does not allow {v!r}; allowed: {allowed}")
            if self.type in (int, float) and not (math.isfinite(v) and self.in_range(v)):
                raise ParameterError(f"parameter {self.name!r} must be {self.range_text()}, got {v!r}")
            problem = self.available(v) if self.available else None
            if problem:
                raise ParameterError(f"parameter {self.name!r} = {v!r}: {problem}")
        return list(value) if self.many else value

    def in_range(self, value: float) -> bool:
        """True when ``value`` lies in this parameter's range."""
        if self.minimum is not None and value < self.minimum:
            return False
        if self.maximum is not None and (value >= self.maximum if self.below_maximum else value > self.maximum):
            return False
        return True

    def range_text(self) -> str:
        """The allowed values as shown to users: a choice list, or a finite range."""
        if self.choices is not None:
            return ", ".join(map(str, self.choices))
        upper = "<" if self.below_maximum else "<="
        return f"finite, >= {_number(self.minimum)} and {upper} {_number(self.maximum)}"

    def __post_init__(self) -> None:
        if self.type in (int, float) and self.choices is None and (self.minimum is None or self.maximum is None):
            raise TypeError(f"numeric parameter {self.name!r} needs a finite range (minimum and maximum)")


def _number(value: float | None) -> str:
    """A bound as shown to users: 100,000 rather than 1e+05."""
    return f"{int(value):,}" if value is not None and float(value).is_integer() else f"{value:g}"


def _convert(kind: type, text: str) -> Any:
    if kind is bool:
        if text.lower() in ("1", "true", "yes"):
            return True
        if text.lower() in ("0", "false", "no"):
            return False
        raise ValueError(text)
    return kind(text)


def _same(value: Any) -> dict[str, Any]:
    return dict.fromkeys(PROFILES, value)


def _device_available(device: str) -> str | None:
    """Why ``device`` cannot train here (None when it can)."""
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        return "torch sees no CUDA device on this machine; use -p device cpu (or auto)"
    return None


DEVICE = Param("device", str, "where to train: auto takes CUDA when present", _same("auto"), ("auto", "cpu", "cuda"),
               available=_device_available)


@dataclass(frozen=True)
class Page:
    """An executed page: a jupytext notebook under ``notebooks/`` and the parameters it takes."""

    slug: str
    notebook: str
    title: str
    params: tuple[Param, ...] = field(default_factory=tuple)
    chapter: bool = True  # False for the book's computed pages (verdicts, reproducibility)

    def param(self, name: str) -> Param:
        """The parameter called ``name``."""
        for p in self.params:
            if p.name == name:
                return p
        raise ParameterError(
            f"page {self.slug!r} has no parameter {name!r}; its parameters: profile, "
            + ", ".join(p.name for p in self.params)
        )


HGCN_TASKS = ("disease_lp/lp", "disease_nc/nc", "airport/lp", "airport/nc")
GAMMAS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.4, 0.6, 0.8, 1.0)

PAGES: tuple[Page, ...] = (
    Page(
        "hgcn-mlp-bug",
        "notebooks/01_hgcn_mlp_bug.py",
        "Shedding light on hyperbolic graph learning",
        (
            DEVICE,
            Param("seeds", int, "training seeds per configuration (seeds 0 .. n-1)", {"smoke": 1, "standard": 5, "paper": 5}, minimum=1, maximum=100),
            Param("max_epochs", int, "epoch cap (HGCN: 5000, with patience 100 after 100 epochs)", {"smoke": 25, "standard": 5000, "paper": 5000}, minimum=1, maximum=100_000),
            Param("tasks", str, "dataset/task pairs of Table 1", _same(list(HGCN_TASKS)), HGCN_TASKS, many=True),
            Param("tolerance", float, "largest |ours - paper| in points that still counts as reproduced", _same(2.0), minimum=0, maximum=100),
            Param("gammas", float, "γ values of the Tree1111_γ sweep (Figure 2)",
                  {"smoke": [0.0, 0.4], "standard": list(GAMMAS), "paper": list(GAMMAS)}, minimum=0, maximum=1, many=True),
            Param("delta_samples", int, "random quadruples for Gromov δ of graphs too large for the exact count",
                  {"smoke": 20_000, "standard": 500_000, "paper": 2_000_000}, minimum=1, maximum=100_000_000),
            Param("ricci_edges", int, "edges per graph for the Ollivier–Ricci histograms (0: every edge)",
                  {"smoke": 200, "standard": 0, "paper": 0}, minimum=0, maximum=10_000_000),
            Param("search_layers", int, "model selection grid: layer counts (HGCN's counting)",
                  {"smoke": [2], "standard": [2], "paper": [2, 3]}, (2, 3), many=True),
            Param("search_act", str, "model selection grid: activations",
                  {"smoke": ["relu"], "standard": ["relu"], "paper": ["relu", "none"]}, ("relu", "none"), many=True),
            Param("search_dropout", float, "model selection grid: dropout rates",
                  {"smoke": [0.0, 0.5], "standard": [0.0, 0.5], "paper": [0.0, 0.2, 0.5]}, minimum=0, maximum=1, below_maximum=True, many=True),
            Param("search_weight_decay", float, "model selection grid: weight decays",
                  {"smoke": [0.0], "standard": [0.0, 1e-3], "paper": [0.0, 5e-4, 1e-3]}, minimum=0, maximum=1, many=True),
            Param("search_curvature", str, "model selection grid for HNN and HGCN: curvature fixed at 1 or trainable",
                  _same(["fixed", "trainable"]), ("fixed", "trainable"), many=True),
        ),
    ),
    Page("verdicts", "notebooks/verdicts.py", "Verdicts", chapter=False),
    Page("reproducibility", "notebooks/reproducibility.py", "Reproducibility", chapter=False),
)


def page(slug: str) -> Page:
    """The page called ``slug``; an unknown name lists the known ones."""
    for p in PAGES:
        if p.slug == slug:
            return p
    raise ParameterError(f"unknown chapter {slug!r}; chapters: {', '.join(p.slug for p in PAGES)}")


def resolve(slug: str, profile: str = "standard", **overrides: Any) -> dict[str, Any]:
    """Every parameter of a page: the profile's values, overridden by those given (None means 'the profile's')."""
    if profile not in PROFILES:
        raise ParameterError(f"unknown profile {profile!r}; profiles: {', '.join(PROFILES)}")
    target = page(slug)
    values: dict[str, Any] = {"profile": profile}
    for name in overrides:
        target.param(name)  # unknown names raise
    for p in target.params:
        given = overrides.get(p.name)
        values[p.name] = p.check(p.profiles[profile] if given is None else given)
    return values

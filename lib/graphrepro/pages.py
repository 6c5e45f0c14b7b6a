"""Pages, parameters and profiles: the generic machinery. Which pages exist is the manifest's business
(``graphrepro.manifest``); each chapter declares its own page and parameters in its module."""

from __future__ import annotations

import importlib
import math
import os
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from graphrepro import paths, precision

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

    def text(self, value: Any) -> str:
        """The command-line string that ``parse`` turns back into ``value``."""
        items = value if self.many else [value]
        return ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in items)

    def check(self, value: Any) -> Any:
        """Return ``value`` if it has the right type and is allowed, else raise ``ParameterError``."""
        values = value if self.many else [value]
        if self.many and (not isinstance(value, (list, tuple)) or not value):
            raise ParameterError(f"parameter {self.name!r} expects a non-empty {self.type_name()}, got {value!r}")
        if self.many and (twice := sorted({str(v) for v in values if values.count(v) > 1})):
            raise ParameterError(f"parameter {self.name!r} lists {', '.join(twice)} more than once, got {value!r}")
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
        if self.type is bool:
            return "true, false"
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


def same(value: Any) -> dict[str, Any]:
    return dict.fromkeys(PROFILES, value)


def _device_available(device: str) -> str | None:
    """Why ``device`` cannot train here (None when it can)."""
    if device != "cuda":
        return None
    import torch  # heavy: loaded only to ask about CUDA; declaring parameters and answering the CLI never load it

    if not torch.cuda.is_available():
        return "torch sees no CUDA device on this machine; use -p device cpu (or auto)"
    return None


DEVICE = Param("device", str, "where to train: auto takes CUDA when present", same("auto"), ("auto", "cpu", "cuda"),
               available=_device_available)
PRECISION = Param("precision", str, "float32, or bfloat16 mixed precision (matmuls and attention in bf16, weights, "
                  "losses and metrics in fp32); part of a run's key when not float32", same(precision.FLOAT32),
                  precision.CHOICES, available=precision.unavailable)


@dataclass(frozen=True)
class Page:
    """An executed page: a jupytext notebook and the parameters it takes."""

    slug: str
    notebook: str
    title: str
    params: tuple[Param, ...] = field(default_factory=tuple)
    module: str | None = None  # the chapter's module; None for the book's computed pages

    @property
    def chapter(self) -> bool:
        """True for a chapter (runs, records, claims); False for the book's computed pages."""
        return self.module is not None

    @property
    def source(self) -> Path:
        """The jupytext file (``notebook`` is relative to the repository unless absolute)."""
        return paths.REPO_ROOT / self.notebook

    def param(self, name: str) -> Param:
        """The parameter called ``name``."""
        for p in self.params:
            if p.name == name:
                return p
        raise ParameterError(
            f"page {self.slug!r} has no parameter {name!r}; its parameters: profile, "
            + ", ".join(p.name for p in self.params)
        )


def chapter_page(slug: str, notebook: str, title: str, *params: Param, module: str, precision: Param = PRECISION) -> Page:
    """A chapter's page: the device and precision every chapter of the book takes, then its own parameters."""
    return Page(slug, notebook, title, (DEVICE, precision, *params), module=module)


MANIFEST = "GRAPHREPRO_MANIFEST"  # names another manifest module (a test's throwaway chapter, a fork's book)


def manifest() -> ModuleType:
    """The manifest module: ``graphrepro.manifest`` unless ``GRAPHREPRO_MANIFEST`` names another."""
    return importlib.import_module(os.environ.get(MANIFEST, "graphrepro.manifest"))


def pages() -> tuple[Page, ...]:
    """Every executed page of the book in order: each chapter's ``PAGE``, then the book's own pages."""
    book = manifest()
    return tuple(importlib.import_module(m).PAGE for m in book.CHAPTERS) + tuple(book.BOOK_PAGES)


def chapter_pages() -> tuple[Page, ...]:
    """The pages that are chapters (with runs, records and claims)."""
    return tuple(p for p in pages() if p.chapter)


def chapter_module(slug: str, part: str | None = None) -> ModuleType:
    """A chapter's package (its ``PAGE`` and the modules of its ``EXPERIMENTS``), or one of its modules that the book calls:
    ``configs`` (``chapter_keys``, ``chapter_records``, ``recorded_runs``, ``training_plan``), ``tables``
    (``Tables``), ``claims`` (``claims``, ``paper_cells``, ``headline``, each of a ``Tables``) or ``benchmarks``
    (``bench``)."""
    target = page(slug)
    if target.module is None:
        raise ParameterError(f"{slug!r} is a page of computed tables, not a chapter with records")
    return importlib.import_module(target.module if part is None else f"{target.module}.{part}")


def experiments(slug: str) -> tuple[Any, ...]:
    """A chapter's experiments (``graphrepro.experiments.Experiment``): its package names the modules that define
    them, so that declaring a page never imports torch."""
    return tuple(importlib.import_module(name).EXPERIMENT for name in chapter_module(slug).EXPERIMENTS)


def page(slug: str) -> Page:
    """The page called ``slug``; an unknown name lists the known ones."""
    known = pages()
    for p in known:
        if p.slug == slug:
            return p
    raise ParameterError(f"unknown chapter {slug!r}; chapters: {', '.join(p.slug for p in known)}")


def run_command(slug: str, params: dict[str, Any]) -> str:
    """The command line that executes the page with ``params``: its profile, and each parameter that differs
    from that profile's value."""
    target, defaults = page(slug), resolve(slug, params["profile"])
    changed = "".join(f" -p {p.name} {shlex.quote(p.text(params[p.name]))}" for p in target.params
                      if params[p.name] != defaults[p.name])
    return f"python -m graphrepro run {slug} --profile {params['profile']}{changed}"


def parse_overrides(slug: str, pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Parameter values given as text (``-p name value`` on the command line), each parsed by its parameter."""
    chosen, given, parsed = page(slug), {}, {}
    for name, value in pairs:
        if name in given:
            raise ParameterError(f"parameter {name!r} is given twice ({given[name]!r} and {value!r}); give it once")
        given[name], parsed[name] = value, chosen.param(name).parse(value)
    return parsed


def notebook_params(slug: str, namespace: Mapping[str, Any]) -> dict[str, Any]:
    """A page's parameters as its notebook holds them after papermill's parameters cell: ``profile`` and each of
    the page's parameters read by name from ``namespace`` (the notebook's ``globals()``), then ``resolve``d."""
    return resolve(slug, namespace.get("profile", "standard"), **{p.name: namespace.get(p.name) for p in page(slug).params})


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

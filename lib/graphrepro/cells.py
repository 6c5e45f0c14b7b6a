"""A chapter's cells from its records: the plan (one row per run the chapter shows, with the labels that place
it in a table and its store key, each config built once) joined with the records and grouped by those labels."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd

from graphrepro.report import mean_std


def plan(rows: Iterable[tuple[dict[str, Any], dict[str, Any]]], key: Callable[[dict[str, Any]], str],
         labels: list[str]) -> pd.DataFrame:
    """(labels, config) pairs as a frame: a row per planned run, its ``labels`` and its key."""
    return pd.DataFrame([{**where, "key": key(config)} for where, config in rows], columns=[*labels, "key"])


def stats(plan: pd.DataFrame, runs: pd.DataFrame, by: list[str], metric: str, scale: float = 100.0) -> pd.DataFrame:
    """Per cell (the distinct values of ``by`` in ``plan``, in plan order): ``metric``'s mean, sample std (0 for
    one run) and count over the recorded runs (``report.mean_std``), and how many runs are recorded at all
    (``runs``; one that diverged has a record but no number)."""
    known = runs.drop_duplicates("key").set_index("key") if len(runs) else pd.DataFrame()
    values = plan.key.map(known[metric]) if metric in known else pd.Series(float("nan"), index=plan.index)
    frame = plan.assign(_value=values.astype(float), _recorded=plan.key.isin(known.index))
    rows = [{**dict(zip(by, cell if isinstance(cell, tuple) else (cell,))),
             **dict(zip(("mean", "std", "n"), mean_std(group._value, scale))), "runs": int(group._recorded.sum())}
            for cell, group in frame.groupby(by, sort=False, dropna=False)]
    return pd.DataFrame(rows, columns=[*by, "mean", "std", "n", "runs"]).set_index(by)


def recorded(plan: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The records of the planned runs, each with the plan's labels (a run planned twice, once per row)."""
    if "key" not in runs:
        return plan.iloc[:0].copy()
    return plan.merge(runs.drop(columns=[c for c in plan.columns if c != "key" and c in runs]), on="key")


def table(doc: str, build: Callable[[Any], Any]) -> functools.cached_property:
    """A table of a chapter's ``Tables``: ``build(tables)``, computed once, when first read."""
    prop = functools.cached_property(build)
    prop.__doc__ = doc
    return prop


class Tables:
    """A chapter's tables over one frame of records, each built once, when first read (the subclass's cached
    properties); a page passes the ones it has already shown as keywords. A chapter whose tables read a plan
    names its builder in the class statement: ``class Tables(cells.Tables, plan=configs.plan)``."""

    _plan: Callable[[dict[str, Any]], pd.DataFrame] | None = None

    def __init_subclass__(cls, plan: Callable[[dict[str, Any]], pd.DataFrame] | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if plan is not None:
            cls._plan = staticmethod(plan)

    def __init__(self, params: dict[str, Any], runs: pd.DataFrame, **shown: pd.DataFrame) -> None:
        known = {n for base in type(self).__mro__ for n, v in vars(base).items() if isinstance(v, functools.cached_property)}
        if set(shown) - known:
            raise TypeError(f"{type(self).__name__} has no table {sorted(set(shown) - known)}; it has {sorted(known)}")
        self.params, self.runs = params, runs
        self.__dict__.update(shown)

    @functools.cached_property
    def plan(self) -> pd.DataFrame:
        """The chapter's plan: every run its tables read, with the labels that place it."""
        if self._plan is None:
            raise TypeError(f"{type(self).__name__} names no plan: class Tables(cells.Tables, plan=...)")
        return self._plan(self.params)

"""Hyperparameter search on validation, for any experiment: a grid or an ask/tell study (Optuna),
the choice of the best setting by the experiment's selection metric, and the choice recorded in the
run store beside the runs it was made from. Test metrics never enter a choice."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from graphrepro import catalog, experiments, progress, store
from graphrepro.metrics import Metric


def grid(space: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the values in ``space``, in the order the values are listed."""
    names = list(space)
    return [dict(zip(names, values)) for values in itertools.product(*(space[n] for n in names))]


def best(scores: list[float], higher_is_better: bool = True) -> int | None:
    """The index of the best validation score; a tie goes to the earlier setting, NaN never wins,
    and None when no score is a number (every trial failed)."""
    sign = 1.0 if higher_is_better else -1.0
    finite = [(sign * s, -i) for i, s in enumerate(scores) if not math.isnan(s)]
    return -max(finite)[1] if finite else None


@dataclass(frozen=True)
class Choice:
    """A selection: the chosen setting (None while the search is incomplete), how it was chosen in words,
    and the trials (store keys) and validation scores it was chosen from."""

    setting: dict[str, Any] | None
    how: str
    trial_keys: tuple[str, ...] = ()
    scores: tuple[float | None, ...] = ()


def choose(settings: list[dict[str, Any]], trial_keys: list[str], runs: pd.DataFrame, spec: Metric,
           fallback: dict[str, Any], label: Callable[[dict[str, Any]], str] = str) -> Choice:
    """The setting whose trial scores best on ``spec`` (validation); ``fallback`` when every trial
    failed; no setting until every trial is recorded."""
    by_key = runs.drop_duplicates("key").set_index("key") if len(runs) else pd.DataFrame()
    if not all(k in by_key.index for k in trial_keys):
        return Choice(None, "search not complete", tuple(trial_keys))
    scores = [spec.value(by_key.loc[k], "val_") for k in trial_keys]
    kept = tuple(None if math.isnan(s) else s for s in scores)
    index = best(scores, spec.higher_is_better)
    if index is None:
        return Choice(fallback, f"every trial diverged; README settings ({label(fallback)})", tuple(trial_keys), kept)
    return Choice(settings[index], label(settings[index]), tuple(trial_keys), kept)


CHOICES = "choices"  # subfolder of a chapter's records


def choice_key(experiment: experiments.Experiment, trial_keys: tuple[str, ...]) -> str:
    """The store key of a choice: the experiment and the exact trials it chose among."""
    return store.config_key(f"{experiment.name}:choice", experiment.version, {"trials": list(trial_keys)})


def record_choice(chapter: str, experiment: experiments.Experiment, choice: Choice) -> None:
    """Write a complete search's choice beside the runs (``results/<chapter>/choices/``), atomically;
    rewritten only when it changed."""
    if choice.setting is None:
        return
    key = choice_key(experiment, choice.trial_keys)
    record = {"key": key, "experiment": f"{experiment.name}:choice", "version": experiment.version,
              "config": {"trials": list(choice.trial_keys)}, "metrics": {},
              "choice": json.loads(json.dumps(asdict(choice)))}  # as it reads back: lists, not tuples
    path = store.record_path(f"{chapter}/{CHOICES}", key)
    if path.exists() and store.read_record(path).get("choice") == record["choice"]:
        return
    store.write_record(f"{chapter}/{CHOICES}", record)


def recorded_choice(chapter: str, experiment: experiments.Experiment, trial_keys: tuple[str, ...]) -> Choice | None:
    """The recorded choice among these trials, if any."""
    path = store.record_path(f"{chapter}/{CHOICES}", choice_key(experiment, tuple(trial_keys)))
    if not path.exists():
        return None
    fields = store.read_record(path)["choice"]
    return Choice(fields["setting"], fields["how"], tuple(fields["trial_keys"]), tuple(fields["scores"]))


@contextlib.contextmanager
def _quiet_optuna() -> Iterator[None]:
    import optuna  # heavy, and only a search needs it

    before = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(before)


def study(chapter: str, experiment_name: str, base: dict[str, Any], distributions: dict[str, Any], n_trials: int,
          sampler_seed: int, device: str = "auto", desc: str = "study", generation: int = 1,
          train: bool = True, show: bool = True) -> tuple[Any, pd.DataFrame]:
    """An Optuna ask/tell study replayed from the run store, asking until ``n_trials`` distinct settings have
    been asked (a setting asked again is told its record's value and does not count): each asked setting is a
    run config; a recorded one is told from its record, only the others train. With a seeded sampler a resumed
    study asks the same settings in the same order, so the store stays the single source of truth.
    ``generation`` 1: TPE, one trial at a time; more: a genetic algorithm (NSGA-II) whose whole
    generation is asked before any is told, so the generation trains as one grid (and one batch where
    the experiment stacks its settings). ``train=False`` replays what is recorded and stops at the first
    generation with a trial not recorded (nothing trains). A study that trains draws its progress bar
    unless ``show`` is off. Returns the study and the trials' records."""
    import optuna  # heavy, and only a search needs it

    from graphrepro.grid import run_grid  # grid trains; the module above it imports this one

    experiment = catalog.experiment(experiment_name)
    sizes = [len(getattr(d, "choices", ())) for d in distributions.values()]
    n_trials = min(n_trials, math.prod(sizes)) if all(sizes) else n_trials  # a small grid has fewer distinct settings
    spec = experiment.selection_spec(base)
    direction = "maximize" if spec.higher_is_better else "minimize"
    frames = []
    with _quiet_optuna():
        sampler = (optuna.samplers.TPESampler(seed=sampler_seed) if generation == 1
                   else optuna.samplers.NSGAIISampler(population_size=generation, seed=sampler_seed))
        trials = optuna.create_study(direction=direction, sampler=sampler)
        bar = progress.grid_bar(f"{desc}: study", n_trials, 0) if train and show else contextlib.nullcontext(lambda n: None)
        with bar as update:
            distinct: set[str] = set()
            while len(distinct) < n_trials:
                asked = [trials.ask(distributions) for _ in range(generation)]
                configs = [{**base, **t.params} for t in asked]
                if not train and not all(store.record_path(chapter, experiment.key(c)).exists()
                                         for c in configs):
                    break
                frame = run_grid(chapter, experiment_name, configs, device, show=False)
                for trial, (_, row) in zip(asked, frame.iterrows()):
                    value = spec.value(row, "val_")
                    if math.isnan(value):
                        trials.tell(trial, state=optuna.trial.TrialState.FAIL)
                    else:
                        trials.tell(trial, value)
                frames.append(frame)
                new = {experiment.key(c) for c in configs} - distinct
                update(min(len(new), n_trials - len(distinct)))
                distinct |= new
    return trials, pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

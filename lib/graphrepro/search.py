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
from pathlib import Path
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


STUDIES = "studies"  # subfolder of a chapter's records: each study's asked settings and told values, in order


@dataclass(frozen=True)
class Trial:
    """One setting a study asked, and the validation value it was told (None: it failed, or was not told)."""

    params: dict[str, Any]
    value: float | None
    told: bool = True


Told = tuple[tuple[Any, ...], float | None]  # a told trial as a transcript keeps it: its setting's values, in order, and its value


def study(chapter: str, experiment_name: str, base: dict[str, Any], distributions: dict[str, Any], n_trials: int,
          sampler_seed: int, device: str = "auto", desc: str = "study", generation: int = 1,
          train: bool = True, show: bool = True, recorded_asks: bool = True) -> tuple[list[Trial], pd.DataFrame]:
    """An Optuna ask/tell study replayed from the run store, asking until ``n_trials`` distinct settings have
    been asked (a setting asked again is told its record's value and does not count): each asked setting is a
    run config; a recorded one is told from its record, only the others train. With a seeded sampler a resumed
    study asks the same settings in the same order, so the store stays the single source of truth.
    ``generation`` 1: TPE, one trial at a time; more: a genetic algorithm (NSGA-II) whose whole
    generation is asked before any is told, so the generation trains as one grid (and one batch where
    the experiment stacks its settings). ``train=False`` replays what is recorded and stops at the first
    generation with a trial not recorded (nothing trains; that generation's trials come back not told). A
    study that trains draws its progress bar unless ``show`` is off. The sampler's asks are recorded
    (``STUDIES``): a later replay whose records still tell the recorded values reads them instead of asking the
    sampler again (unless ``recorded_asks`` is off). Returns the trials in the order asked, and their records."""
    import optuna  # heavy, and only a search needs it

    experiment = catalog.experiment(experiment_name)
    sizes = [len(getattr(d, "choices", ())) for d in distributions.values()]
    n_trials = min(n_trials, math.prod(sizes)) if all(sizes) else n_trials  # a small grid has fewer distinct settings
    identity = {"base": base, "space": {n: optuna.distributions.distribution_to_json(d) for n, d in distributions.items()},
                "sampler_seed": sampler_seed, "generation": generation, "optuna": optuna.__version__}
    path = store.record_path(f"{chapter}/{STUDIES}", store.config_key(f"{experiment_name}:study", experiment.version, identity))
    transcript = _read_transcript(path)
    replayed = _from_transcript(chapter, experiment, base, list(distributions), n_trials, generation, transcript) if recorded_asks else None
    if replayed is not None:
        with progress.grid_bar(f"{desc}: study", n_trials, 0) if train and show else contextlib.nullcontext(lambda n: None) as update:
            update(n_trials)  # as the sampler's replay of a complete study draws it
        return replayed
    trials, frame = _ask_and_tell(chapter, experiment, base, distributions, n_trials, sampler_seed, generation, device, desc, train, show)
    told = [(tuple(t.params[n] for n in distributions), t.value) for t in trials if t.told]
    if told and (transcript is None or _asks(transcript)[:len(told)] != told):
        store.write_record(f"{chapter}/{STUDIES}", {"key": path.stem, "experiment": f"{experiment_name}:study", "version": experiment.version,
                                                    "config": identity, "metrics": {}, **_transcript(told)})
    return trials, frame


def _ask_and_tell(chapter: str, experiment: experiments.Experiment, base: dict[str, Any], distributions: dict[str, Any], n_trials: int,
                  sampler_seed: int, generation: int, device: str, desc: str, train: bool, show: bool) -> tuple[list[Trial], pd.DataFrame]:
    """``study`` with the sampler: ask a generation, train what is not recorded, tell the values."""
    import optuna  # heavy, and only a search needs it

    from graphrepro.grid import run_grid  # grid trains; the module above it imports this one

    spec, frames = experiment.selection_spec(base), []
    with _quiet_optuna():
        sampler = (optuna.samplers.TPESampler(seed=sampler_seed) if generation == 1
                   else optuna.samplers.NSGAIISampler(population_size=generation, seed=sampler_seed))
        trials = optuna.create_study(direction="maximize" if spec.higher_is_better else "minimize", sampler=sampler)
        bar = progress.grid_bar(f"{desc}: study", n_trials, 0) if train and show else contextlib.nullcontext(lambda n: None)
        with bar as update:
            distinct: set[str] = set()
            while len(distinct) < n_trials:
                asked = [trials.ask(distributions) for _ in range(generation)]
                configs = [{**base, **t.params} for t in asked]
                if not train and not all(store.record_path(chapter, experiment.key(c)).exists() for c in configs):
                    break
                frame = run_grid(chapter, experiment.name, configs, device, show=False)
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
    found = [Trial(t.params, t.value, t.state.is_finished()) for t in trials.get_trials(deepcopy=False)]
    return found, pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _transcript(told: list[Told]) -> dict[str, Any]:
    """A study's told trials as recorded: the distinct settings in the order first asked, the value each was told
    (None: failed), and the order of the asks as indices into them."""
    first: dict[tuple[Any, ...], int] = {}
    for setting, _ in told:
        first.setdefault(setting, len(first))
    values = dict(told)
    return {"settings": [list(s) for s in first], "told": [values[s] for s in first], "order": " ".join(str(first[s]) for s, _ in told)}


def _order(transcript: dict[str, Any]) -> list[int]:
    """A transcript's asks as indices into its settings, in the order asked."""
    return [int(i) for i in transcript["order"].split()]


def _asks(transcript: dict[str, Any]) -> list[Told]:
    """A transcript's told trials, in the order asked."""
    return [(tuple(transcript["settings"][i]), transcript["told"][i]) for i in _order(transcript)]


def _read_transcript(path: Path) -> dict[str, Any] | None:
    """A study's recorded asks, or None where there is none, or it does not match its digest or ``_transcript``'s
    fields (the sampler asks again)."""
    if not path.exists():
        return None
    record = store.read_record(path)
    return record if store.digest_matches(record) and {"settings", "told", "order"} <= set(record) else None


def _from_transcript(chapter: str, experiment: experiments.Experiment, base: dict[str, Any], names: list[str], n_trials: int,
                     generation: int, transcript: dict[str, Any] | None) -> tuple[list[Trial], pd.DataFrame] | None:
    """``study``'s result read from its transcript, without the sampler: None unless the transcript reaches
    ``n_trials`` distinct settings and every setting's record tells the value it told then (the sampler's asks
    depend on nothing else)."""
    if transcript is None:
        return None
    order = _order(transcript)
    keys = [experiment.key({**base, **dict(zip(names, setting))}) for setting in transcript["settings"]]
    used, distinct = 0, set()
    while len(distinct) < n_trials:
        if used + generation > len(order):
            return None
        distinct |= {keys[i] for i in order[used:used + generation]}
        used += generation
    wanted = sorted(set(order[:used]))
    if not all(store.record_path(chapter, keys[i]).exists() for i in wanted):
        return None
    records = {i: store.read_record(store.record_path(chapter, keys[i])) for i in wanted}
    spec = experiment.selection_spec(base)
    for i, row in zip(wanted, store.to_frame([records[i] for i in wanted]).to_dict("records")):
        value = spec.value(pd.Series(row), "val_")
        if (None if math.isnan(value) else value) != transcript["told"][i]:
            return None
    trials = [Trial(dict(zip(names, transcript["settings"][i])), transcript["told"][i]) for i in order[:used]]
    return trials, store.to_frame([records[i] for i in order[:used]])

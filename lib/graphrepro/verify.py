"""Re-run recorded runs and check that their metrics come out as recorded."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterator
from typing import Any

from graphrepro import catalog, pages, paths, sources, store
from graphrepro.environment import cpu, measured_on, package_versions
from graphrepro.grid import run_batch
from graphrepro.metrics import spec_of


def environment_differences(record: dict[str, Any]) -> list[str]:
    """What differs between the record's environment and this one (empty: identical numbers expected).

    The re-run reproduces the record's thread count; the device, the CPU and the packages can differ (a
    record written before CPUs were recorded counts as another CPU); the record's digest vouches that these
    fields are the ones written at training time."""
    differences, here_cpu = [], cpu()
    if record.get("device") != "cpu":
        differences.append(f"recorded on {record.get('device')}, re-run on cpu")
    elif "cpu" not in record:
        differences.append("its CPU was not recorded")
    elif record["cpu"] != here_cpu:
        differences.append(f"recorded on {record['cpu']}, re-run on {here_cpu}")
    here = package_versions()
    for name, version in sorted((record.get("packages") or {}).items()):
        if here.get(name) != version:
            differences.append(f"{name} {version} recorded, {here.get(name)} here")
    return differences


def metric_differences(recorded: dict[str, Any], rerun: dict[str, Any]) -> list[tuple[str, Any, Any, float]]:
    """Every metric as (name, recorded, re-run, |difference|), the largest first; a metric on one side
    only counts as an infinite difference."""
    rows = []
    for name in sorted(set(recorded) | set(rerun)):
        a, b = recorded.get(name), rerun.get(name)
        if a is None or b is None:
            gap = 0.0 if a is b else math.inf
        else:
            gap = abs(float(a) - float(b))
        rows.append((name, a, b, gap))
    return sorted(rows, key=lambda row: -row[3])


def recorded_batch(record: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """The configs trained together with ``record``, in training order, and why that batch is not the
    record's own (None when it is): a batch's shapes can move a member's numbers in the last bits."""
    config = record["config"]
    members = [{**config, "seed": s} for s in record.get("members", [config["seed"]])]
    if "batch" in record:
        partners = {key: stored_record(key) for key in record["batch"] if key != record["key"]}
        missing = [key for key, partner in partners.items() if partner is None]
        if missing:  # its own seeds at least
            return members, f"batch partner(s) {', '.join(missing)} not in the store"
        return [config if key == record["key"] else partners[key]["config"] for key in record["batch"]], None
    wall = record.get("wall_s") or 0
    size = round(record.get("batch_wall_s", 0) / wall) if wall else len(members)
    if size > len(members):  # written before batches were recorded: the other settings are not named
        return members, f"trained beside {size - len(members)} other setting(s) the record does not name"
    return members, None


def stored_record(key: str, chapter: str | None = None) -> dict[str, Any] | None:
    """The record with this key (in any chapter unless one is named), or None."""
    for slug in chapter_slugs(chapter):
        path = store.record_path(slug, key)
        if path.exists():
            return store.read_record(path)
    return None


def retrain(record: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """Re-train one record's batch on the CPU with the record's thread count: the batch's new records (not
    written; their artefacts still in their metrics), and why the batch is not the record's own (None when it is)."""
    experiment = catalog.experiment(record["experiment"])
    batch, unknown = recorded_batch(record)
    threads = int(record.get("threads") or 1)
    return run_batch(experiment, batch, experiment.prepare(record["config"]), device="cpu", threads=threads), unknown


def check(record: dict[str, Any], tolerance: float | None = None) -> dict[str, Any]:
    """Re-train one record's batch of seeds (``retrain``) and compare (``compare``)."""
    reruns, unknown = retrain(record)
    return compare(record, next(r for r in reruns if r["key"] == record["key"]), unknown, tolerance)


def compare(record: dict[str, Any], rerun: dict[str, Any], unknown: str | None = None,
            tolerance: float | None = None) -> dict[str, Any]:
    """A record against its re-run: identical values expected in the record's environment; otherwise each score
    within its metric's ``verify`` tolerance (or ``tolerance``, when given) and other fields (epochs) are not
    compared. ``unknown`` says why the re-run's batch is not the record's own."""
    config = record["config"]
    rerun = {**rerun, "metrics": {k: v for k, v in rerun["metrics"].items() if k != "artefacts"}}  # kept beside a record
    differences = environment_differences(record) + ([unknown] if unknown else [])
    problems = []
    if "digest" not in record:
        problems.append("no content digest (written before digests existed)")
    elif not store.digest_matches(record):
        problems.append("edited by hand: its content no longer matches its digest")
    compared = metric_differences(record["metrics"], rerun["metrics"])
    if differences:  # other packages or device: each score within its spec's tolerance, epochs may move
        compared = [row for row in compared if spec_of(row[0]) is not None]
    beyond = []
    for name, a, b, gap in compared:
        allowed = tolerance if tolerance is not None else spec_of(name).tolerance if differences else 0.0
        if gap > allowed:
            beyond.append(f"{name}: recorded {a}, re-run {b}, difference {gap:.3g} > {allowed:g}")
    problems += beyond
    epochs = record["metrics"].get("best_epoch"), rerun["metrics"].get("best_epoch")
    if differences and beyond and None not in epochs and epochs[0] != epochs[1]:
        problems.append(f"its best epoch moved ({epochs[0]} recorded, {epochs[1]} re-run): in another environment, "
                        "last-bit float differences can move early stopping to another model")
    scores = [row for row in compared if spec_of(row[0]) is not None] or compared
    bound = "each metric's tolerance" if tolerance is None else f"{tolerance:g}"
    return {
        "key": record["key"],
        "run": run_label(config),
        "mode": f"within {bound} ({'; '.join(differences)})" if differences else "exact",
        "metric": scores[0][0] if scores else "–",
        "largest difference": scores[0][3] if scores else 0.0,
        "ok": not problems,
        "problem": "; ".join(problems),
    }


REPORT = "verify.json"  # under results/: what the last `verify --sample` or `verify KEY` re-trained, and found


def save_report(rows: list[dict[str, Any]], tolerance: float | None = None) -> None:
    """Keep a check's rows, each with its chapter, and the commit, CPU and packages it ran with, as
    ``results/verify.json``: committed, it is the verify result the Reproducibility page shows."""
    report = {**measured_on(), "tolerance": "each metric's" if tolerance is None else tolerance,
              "checks": [{"chapter": chapter_of(row["key"]), **row} for row in rows]}
    paths.write_atomically(paths.results_dir() / REPORT, lambda tmp: tmp.write_text(json.dumps(report, indent=1) + "\n"))


def last_report() -> dict[str, Any] | None:
    """The report ``save_report`` kept last, or None."""
    path = paths.results_dir() / REPORT
    return json.loads(path.read_text()) if path.exists() else None


def chapter_of(key: str) -> str | None:
    """The chapter whose store holds the record ``key``."""
    return next((slug for slug in chapter_slugs() if store.record_path(slug, key).exists()), None)


UNCOMMITTED = "uncommitted.json"  # under results/: the records made from uncommitted code that stay, and why


def is_uncommitted(record: dict[str, Any]) -> bool:
    """True for a record made while lib/, notebooks/ or pyproject.toml differed from its commit (``+dirty``)."""
    return str(record.get("git_commit", "")).endswith("+dirty")


def uncommitted_reasons() -> dict[str, str]:
    """Why each record made from uncommitted code that ``replace_uncommitted`` could not replace stays, by key."""
    path = paths.results_dir() / UNCOMMITTED
    return json.loads(path.read_text()) if path.exists() else {}


def replace_uncommitted(chapter: str | None = None, max_minutes: float | None = None, tolerance: float | None = None,
                        starting: Callable[[str, dict[str, Any]], None] | None = None) -> Iterator[dict[str, Any]]:
    """Re-train every current record made from uncommitted code (with ``max_minutes``, those whose batch trained
    in at most that long), the quickest first, from the committed code; a record whose re-run matches it (``compare``) is replaced by
    the re-run, one that does not stays, its reason kept in ``results/uncommitted.json``. One row per record;
    ``starting(chapter, record)`` is told before each batch trains (a batch can take an hour)."""
    sources.refuse_uncommitted("re-training records from committed code")
    reasons, known = uncommitted_reasons(), catalog.experiments()
    for slug in chapter_slugs(chapter):
        todo = [r for r in store.records(slug) if is_uncommitted(r) and catalog.is_current(r, known)]
        for key in [r["key"] for r in sorted(todo, key=_training_seconds)]:  # the cheapest first: a stop loses least
            record = _current(slug, key)
            if record is None or key in reasons:  # replaced with a partner of its batch; or tried before, and kept
                continue
            if max_minutes is not None and _training_seconds(record) > 60 * max_minutes:
                continue
            if starting is not None:
                starting(slug, record)
            reruns, unknown = retrain(record)
            for rerun in reruns:
                old = _current(slug, rerun["key"])
                if old is None:
                    continue
                row = steering_kept(old, rerun, compare(old, rerun, unknown, tolerance))
                if row["ok"]:
                    store.write_trained(slug, rerun)
                    changed = reasons.pop(rerun["key"], None) is not None  # a partner kept before now matches
                else:
                    reasons[rerun["key"]], changed = f"its re-run from {rerun['git_commit'][:12]} differs: {row['problem']}", True
                if changed:
                    paths.write_atomically(paths.results_dir() / UNCOMMITTED,
                                           lambda tmp: tmp.write_text(json.dumps(reasons, sort_keys=True, indent=1) + "\n"))
                yield {"chapter": slug, **row, "replaced": row["ok"]}


def _training_seconds(record: dict[str, Any]) -> float:
    """How long a record's batch trained (its own time where it has no batch's)."""
    return float(record.get("batch_wall_s", record.get("wall_s")) or 0)


def steering_kept(record: dict[str, Any], rerun: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """``compare``'s row, refused where the re-run matches only within tolerance in the validation score its
    experiment selects on: the chapters' searches read that score to choose the runs they ask next (NSGA-II's
    trials, the tuned seeds), so a replaced record would change the plan and leave its new runs unrecorded."""
    moved = [name for name in _steering_scores(record) if not _identical(record["metrics"][name], rerun["metrics"].get(name))]
    if not row["ok"] or not moved:
        return row
    return {**row, "ok": False, "problem": f"its validation scores moved within tolerance ({', '.join(moved)}), "
            "and the searches read them: a replaced record would change the runs they ask next"}


def _steering_scores(record: dict[str, Any]) -> list[str]:
    """The validation scores a search may read from a record: its experiment's selection metric where the record
    holds it, else (a derived or no selection metric) every validation score."""
    experiment = catalog.experiment(record["experiment"])
    if experiment.selection is not None:
        name = f"val_{experiment.selection_spec(record['config']).name}"
        if name in record["metrics"]:
            return [name]
    return [name for name in record["metrics"] if name.startswith("val_")]


def _identical(a: Any, b: Any) -> bool:
    """Equal values, NaN equal to NaN."""
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def _current(slug: str, key: str) -> dict[str, Any] | None:
    """The stored record with this key while it is one made from uncommitted code, else None."""
    path = store.record_path(slug, key)
    record = store.read_record(path) if path.exists() else None
    return record if record is not None and is_uncommitted(record) else None


def integrity(chapter: str | None = None) -> tuple[int, list[dict[str, str]]]:
    """Every record file's integrity without re-training (what ``verify --digests`` reports): it parses,
    its key is its file name, its content matches its digest, and each artefact matches its sha256.
    Returns how many records were read and one row per problem."""
    checked, problems = 0, []
    for slug in chapter_slugs(chapter):
        for path in store.record_files(slug):
            checked += 1
            try:
                record = store.read_record(path)
            except ValueError as error:
                problems.append({"chapter": slug, "key": path.stem, "problem": str(error)})
                continue
            found = []
            if record["key"] != path.stem:
                found.append(f"its key {record['key']} is not its file name")
            if "digest" not in record:
                found.append("no content digest (written before digests existed)")
            elif not store.digest_matches(record):
                found.append("edited by hand: its content no longer matches its digest")
            for name in record.get("artefacts", {}):
                try:
                    store.load_artefact(slug, record, name)
                except (OSError, ValueError) as error:
                    found.append(f"artefact {name}: {error}")
            problems += [{"chapter": slug, "key": path.stem, "problem": p} for p in found]
    return checked, problems


def run_label(config: dict[str, Any]) -> str:
    """A run in a few words: its dataset, task, model, variant or meta-path, and seed."""
    words = [str(config[k]) for k in ("dataset", "task", "model", "variant", "metapath") if config.get(k) not in (None, "", "none")]
    return " ".join(words + [f"seed {config.get('seed')}"])


def chapter_slugs(chapter: str | None = None) -> list[str]:
    """The chapter named (refusing unknown names) or every chapter."""
    if chapter is None:
        return [p.slug for p in pages.chapter_pages()]
    pages.chapter_module(chapter)  # refuses unknown names and the book's computed pages
    return [chapter]


def candidate_records(chapter: str | None = None, local: bool = False) -> list[dict[str, Any]]:
    """The records ``verify --sample`` draws from: current, committed records of the standard profile's
    runs; with ``local``, every current record in the store."""
    picked, known = [], catalog.experiments()
    for slug in chapter_slugs(chapter):
        recs = [r for r in store.records(slug) if catalog.is_current(r, known)]
        if not local:
            committed = store.committed_keys(slug) or set()
            standard = pages.chapter_module(slug, "configs").chapter_keys(pages.resolve(slug, "standard"))
            recs = [r for r in recs if r["key"] in committed and r["key"] in standard]
        picked += recs
    return picked


def sample_records(n: int, chapter: str | None = None, seed: int | None = None, local: bool = False,
                   max_minutes: float | None = None) -> list[dict[str, Any]]:
    """``n`` records drawn at random (reproducibly when ``seed`` is given) from ``candidate_records``, those made
    from uncommitted code (``+dirty``) first, since only a re-run shows that they follow the committed code; with
    ``max_minutes``, only those whose recorded training (their batch's wall time) took no longer."""
    if n < 1:
        raise pages.ParameterError(f"--sample must be at least 1, got {n}")
    if max_minutes is not None and max_minutes <= 0:
        raise pages.ParameterError(f"--max-minutes must be positive, got {max_minutes:g}")
    recs = candidate_records(chapter, local)
    if max_minutes is not None:
        recs = [r for r in recs if r.get("batch_wall_s", math.inf) <= 60 * max_minutes]
    rng, dirty = random.Random(seed), [r for r in recs if str(r.get("git_commit", "")).endswith("+dirty")]
    first = rng.sample(dirty, min(n, len(dirty)))
    rest = [r for r in recs if not str(r.get("git_commit", "")).endswith("+dirty")]
    return first + rng.sample(rest, min(n - len(first), len(rest)))


def named_records(keys: list[str], chapter: str | None = None) -> list[dict[str, Any]]:
    """The records with these keys (any chapter unless one is named); an unknown key is refused."""
    found = {key: stored_record(key, chapter) for key in keys}
    missing = [k for k, record in found.items() if record is None]
    if missing:
        raise pages.ParameterError(f"no record with key {', '.join(missing)} under {store.record_path('<chapter>', '<key>').parent.parent}")
    return [found[k] for k in keys]

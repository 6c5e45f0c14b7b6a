"""Command line: ``python -m graphrepro {list,run,train,book,data,verify,bench}``."""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphrepro import pages, sources
from graphrepro.paths import NotWritable

if TYPE_CHECKING:
    import pandas as pd


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m graphrepro", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="every chapter and its parameters")
    run = sub.add_parser("run", help="execute one chapter (or page) into the book")
    run.add_argument("chapter")
    run.add_argument("--profile", default="standard", help=f"one of {', '.join(pages.PROFILES)}")
    run.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                     help="override a parameter (lists comma-separated); repeatable")
    run.add_argument("--log-output", action="store_true", help="stream the notebook's output")
    _training_options(run)
    train = sub.add_parser("train", help="train a chapter's runs without executing its page (background grids)")
    train.add_argument("chapter")
    train.add_argument("--profile", default="standard", help=f"one of {', '.join(pages.PROFILES)}")
    train.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                       help="override a parameter (lists comma-separated); repeatable")
    _training_options(train)
    book = sub.add_parser("book", help="execute every page of _toc.yml, then build the HTML book")
    book.add_argument("--profile", default="standard")
    book.add_argument("--no-execute", action="store_true", help="only build from executed notebooks")
    _training_options(book)
    sub.add_parser("data", help="every dataset: available (and where) or unavailable (and why)")
    verify = sub.add_parser("verify", help="re-run recorded runs and compare with their records (a check of committed "
                                           "records is kept in results/verify.json, which Reproducibility shows)")
    verify.add_argument("keys", nargs="*", help="keys of the records to check (default: a random sample)")
    verify.add_argument("--sample", type=int, default=3, help="how many records to draw at random")
    verify.add_argument("--local", action="store_true",
                        help="draw from every current record here, not only committed standard-profile ones")
    verify.add_argument("--chapter", default=None)
    verify.add_argument("--seed", type=int, default=None, help="seed of the random choice of records")
    verify.add_argument("--max-minutes", type=float, default=None,
                        help="draw only records whose recorded training took at most this long (chapter 4's runs take hours)")
    verify.add_argument("--digests", action="store_true",
                        help="instead: check every record's digest and artefacts, without re-training (seconds)")
    verify.add_argument("--uncommitted", action="store_true",
                        help="instead: re-train the records made from uncommitted code (+dirty) from the committed code; "
                             "each whose re-run matches it is replaced by the re-run, the others stay with their reason "
                             "in results/uncommitted.json (with --chapter, --max-minutes; a rerun resumes)")
    verify.add_argument("--tolerance", type=float, default=None, help="absolute, when not exact (default: each metric's own)")
    underway = sub.add_parser("underway", help="a chapter's unfinished runs (as `train` names them), epochs "
                                               "checkpointed of planned; keeps results/underway/<chapter>.json for its page "
                                               "and their checkpoints in results/underway/checkpoints/ (git-ignored), which "
                                               "`train` resumes from on any machine they are copied to")
    underway.add_argument("chapter")
    underway.add_argument("--profile", default="paper", help=f"one of {', '.join(pages.PROFILES)} (default paper: the long runs)")
    underway.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                          help="as given to `train`")
    underway.add_argument("--no-carry", action="store_true", help="keep the snapshot only, not the checkpoints")
    bench = sub.add_parser("bench", help="seconds per run and each chapter's wall time")
    bench.add_argument("--seeds", type=int, default=5)
    bench.add_argument("--chapter", default=None, help="one chapter (default: every chapter)")
    bench.add_argument("--estimate", default=None, choices=pages.PROFILES,
                       help="instead: hours the profile's runs would take here, from a few probe epochs of each kind of run")
    bench.add_argument("--device", default="auto", help="with --estimate: where the probes train (auto, cpu, cuda)")
    bench.add_argument("--from-records", action="store_true",
                       help="with --estimate: probe nothing; scale the committed records' seconds per epoch (each "
                            "kind's own runs in the profile where recorded, else its standard runs; the machine that "
                            "recorded them) to the profile's runs and epochs; a kind with no record, from a kept "
                            "bench's epoch where one timed it")
    bench.add_argument("--whole-book", action="store_true",
                       help="instead: time make install and make book on a fresh clone (--with-tests: make test too)")
    bench.add_argument("--with-tests", action="store_true")
    bench.add_argument("--recorded", action="store_true",
                       help="instead: each chapter's standard runs, how many are recorded, their summed training time, "
                            "and the page's execution time from the records (nothing is trained)")
    bench.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                       help="with --estimate and --chapter: as given to `train`, to estimate the runs it trains")
    bench.add_argument("--probe-epochs", type=int, default=3)
    bench.add_argument("--budget", type=float, default=120.0, help="with --estimate: seconds of probes per chapter")
    return parser


def _training_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--workers", type=int, default=None, help="processes that train independent runs (default: one per core)")
    command.add_argument("--scheduler", default=None, metavar="ADDRESS",
                         help="a Dask scheduler (tcp://host:8786): runs fan out over its cluster's workers")
    command.add_argument("--allow-dirty", action="store_true",
                         help="train beyond smoke although lib/, notebooks/ or pyproject.toml differ from HEAD; each record "
                              "then keeps the diff (results/diffs/<sha256>.patch)")


def _print(table: pd.DataFrame | list[dict], **options: object) -> None:
    """A table as aligned text, wide enough for its columns."""
    import pandas as pd  # heavy (half a second): `--help` and the refusal of a bad value answer without it

    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(pd.DataFrame(table).to_string(**{"index": False, **options}))


def _show(value: object) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _list() -> int:
    rows = []
    for page in pages.pages():
        rows.append({"chapter": page.slug, "parameter": "profile", "type": "str", "default": "standard",
                     "allowed": ", ".join(pages.PROFILES), "smoke": "", "standard": "", "paper": ""})
        for p in page.params:
            allowed = p.range_text()
            rows.append({
                "chapter": page.slug, "parameter": p.name, "type": p.type_name(), "default": _show(p.default),
                "allowed": allowed, **{k: _show(p.profiles[k]) for k in pages.PROFILES},
            })
    print("Chapters and pages:")
    for page in pages.pages():
        print(f"  {page.slug:18s} {page.notebook:32s} {page.title}")
    print()
    _print(rows)
    return 0


def _workers(args: argparse.Namespace) -> int | None:
    """The worker count from the command line (at least one); ``--scheduler`` points the grids at a cluster."""
    if args.workers is not None and args.workers < 1:
        raise pages.ParameterError(f"--workers must be at least 1, got {args.workers}")
    if args.scheduler:
        from graphrepro import grid  # heavy (torch): only training needs it

        if not re.fullmatch(r"(tcp|tls|ucx)://[^\s/]+:\d+", args.scheduler):
            raise pages.ParameterError(f"--scheduler must be a Dask scheduler address such as tcp://host:8786, got {args.scheduler!r}")
        if importlib.util.find_spec("distributed") is None:
            raise pages.ParameterError("--scheduler needs Dask: pip install -e '.[cluster]'")
        from dask.distributed import Client  # optional: only with a Dask scheduler

        try:  # reachable now, not an hour into the page
            Client(args.scheduler, timeout=10).close()
        except OSError as error:
            raise pages.ParameterError(f"cannot reach the Dask scheduler at {args.scheduler}: {error}") from None
        os.environ[grid.SCHEDULER] = args.scheduler
    return args.workers


def _committed_or_allowed(args: argparse.Namespace, what: str) -> None:
    """Beyond smoke, training needs committed code (``environment.refuse_uncommitted``) unless ``--allow-dirty``."""
    if args.profile != "smoke" and not args.allow_dirty:
        sources.refuse_uncommitted(what)


def _refuse_unfit(slug: str, params: dict, listed: list | None = None) -> None:
    """Before anything trains: refuse parameters that plan an unrecorded run (``listed``, by default the chapter's
    ``chapter_records``, or ``pending``) this machine's memory cannot hold, as its experiment's ``least_mb`` says,
    naming the runs."""
    candidates = tuple(e for e in pages.experiments(slug) if e.least_mb)
    if not candidates:
        return
    from graphrepro import bench, grid, store  # heavy (torch): only chapters whose runs may not fit get here

    planned = []
    listed = pages.chapter_module(slug, "configs").chapter_records(params)[0] if listed is None else listed
    for config in listed + [c for cs in bench.pending(slug, params).values() for c in cs]:
        try:
            experiment = bench.experiment_of(config, candidates)
        except ValueError:  # a run of an experiment that needs no more than any machine has
            continue
        if not store.record_path(slug, experiment.key(config)).exists():
            planned.append((experiment, config))
    unfit = grid.beyond_memory(planned)
    if unfit:
        named = {f"{c.get('model')} on {c.get('dataset')} (at least {mb / 2**10:.0f} GB)": None for c, mb in unfit}
        raise pages.ParameterError(
            f"{slug}: {len(unfit)} run(s) need more memory than this machine's {grid.machine_mb() / 2**10:.0f} GB: {', '.join(named)}. "
            "Choose parameters that leave them out (`python -m graphrepro list` shows them), or train on a machine with more "
            "memory. Nothing was trained.")


def _say_what_trains(slug: str, params: dict, args: argparse.Namespace) -> None:
    """Before a chapter executes: refuse to train from uncommitted code or runs this machine cannot hold, then say
    how many of its runs are not recorded and will train first."""
    if not pages.page(slug).chapter:
        return
    configs, runs = pages.chapter_module(slug, "configs").chapter_records(params)
    missing = len(configs) - len(runs)
    _refuse_unfit(slug, params, configs)  # pending runs train too, even where every listed one is recorded
    if missing:
        _committed_or_allowed(args, f"{missing} runs of {slug} ({args.profile})")
        print(f"{slug}: {missing} of {len(configs)} runs are not recorded yet and train first (Ctrl-C stops; "
              f"a rerun resumes; `python -m graphrepro train {slug}` trains them without the page)", flush=True)


def _run(args: argparse.Namespace) -> int:
    overrides = pages.parse_overrides(args.chapter, args.parameter)
    params = pages.resolve(args.chapter, args.profile, **overrides)
    workers = _workers(args)
    from graphrepro import runner  # Jupyter: only executing pages needs it, after the parameters are checked

    _say_what_trains(args.chapter, params, args)
    print(f"executing {args.chapter} ({args.profile}) ...", flush=True)
    out = runner.execute(args.chapter, args.profile, overrides, log_output=args.log_output, workers=workers)
    print(f"executed {args.chapter} ({args.profile}) -> {out}")
    return 0


def _train(args: argparse.Namespace) -> int:
    params = pages.resolve(args.chapter, args.profile, **pages.parse_overrides(args.chapter, args.parameter))
    workers = _workers(args)
    plan = pages.chapter_module(args.chapter, "configs").training_plan  # refuses the book's computed pages
    from graphrepro import grid, underway  # heavy (torch): only training needs them, after the parameters are checked

    _committed_or_allowed(args, f"{args.chapter} ({args.profile})")
    _refuse_unfit(args.chapter, params)
    if workers:
        os.environ[grid.WORKERS] = str(workers)
    resuming = underway.checkpointed(args.chapter, params)
    if resuming:
        print(f"{args.chapter}: {len(resuming)} unfinished run(s) resume from their checkpoints (this machine's or "
              "carried): " + ", ".join(f"{k[:10]} ({r['model']} seed {r['seed']}) at {r['epochs']} of {r['planned']} epochs"
                                       for k, r in resuming.items()), flush=True)
    for desc, step in plan(params):
        print(f"{args.chapter}: {desc} ...", flush=True)
        step()
    print(f"{args.chapter} ({args.profile}): every run is recorded; `python -m graphrepro run {args.chapter}` renders it")
    return 0


def _book(args: argparse.Namespace) -> int:
    pages.resolve(pages.pages()[0].slug, args.profile)  # an unknown profile exits before anything runs
    workers = _workers(args)
    from graphrepro import build, runner  # Jupyter Book: only building needs it, after the options are checked

    for page in pages.pages():
        if not args.no_execute:
            _say_what_trains(page.slug, pages.resolve(page.slug, args.profile), args)
            print(f"executing {page.slug} ({args.profile}) ...", flush=True)
        elif runner.executed_parameters(page.slug) is None:
            _say_what_trains(page.slug, pages.resolve(page.slug, args.profile), args)
            print(f"{page.slug} has not been executed yet: executing it ({args.profile}) ...", flush=True)
        else:
            continue
        runner.execute(page.slug, args.profile, workers=workers)
    index = build.build_book()
    for page in pages.pages():
        profile = (runner.executed_parameters(page.slug) or {}).get("profile")
        if profile != "standard":
            print(f"note: {page.slug} shows the {profile} profile, not the published one; `make book` executes it under standard")
    print(f"\nThe book is at {index}")
    return 0


def _data() -> int:
    from graphrepro.data import DATASETS, Availability, dataset_status  # the registry: only `data` needs it

    statuses = [dataset_status(name) for name in DATASETS]
    _print([{**s, "reason": s["reason"].splitlines()[0] if s["reason"] else ""} for s in statuses])
    refused = [s for s in statuses if s["status"] is Availability.REFUSED]
    for status in refused:
        print(f"\n{status['dataset']}: {status['reason']}")
    return 1 if refused else 0


def _underway(args: argparse.Namespace) -> int:
    params = pages.resolve(args.chapter, args.profile, **pages.parse_overrides(args.chapter, args.parameter))
    from graphrepro import underway  # heavy (torch) once a chapter has checkpointed runs

    runs = underway.checkpointed(args.chapter, params)
    path = underway.save(args.chapter, runs)
    written, dropped = ([], []) if args.no_carry else underway.carry(args.chapter, runs)
    if dropped:
        print(f"dropped the carried checkpoints of {len(dropped)} run(s) recorded since: {', '.join(dropped)}")
    if not runs:
        print(f"{args.chapter} ({args.profile}): no unfinished run is checkpointed here or carried")
        return 0
    print(f"{args.chapter} ({args.profile}): {len(runs)} unfinished run(s) checkpointed here or carried; kept in {path} "
          "(commit it: the page reads it)")
    if written:
        megabytes = sum(p.stat().st_size for p in written) / 2**20
        print(f"carried {len(written)} checkpoint(s), {megabytes:.1f} MB, in {written[0].parents[2]}: copy them to "
              "another machine's clone, and `train` resumes those runs there")
    blank = {f for f in next(iter(runs.values())) if all(r[f] == "" for r in runs.values())}  # chapter 4's runs name no dataset
    _print([{"key": k, **{f: v for f, v in r.items() if f not in {"epochs", "planned", *blank}}, "epochs": f"{r['epochs']} of {r['planned']}"}
            for k, r in runs.items()])
    return 0


def _verify(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm  # only `verify` draws progress

    from graphrepro import verify  # heavy (torch): only `verify` needs it

    if args.digests:
        checked, problems = verify.integrity(args.chapter)
        if problems:
            _print(problems)
        print(f"{checked} records read; {len(problems)} problems" + (" (nothing re-trained)" if checked else ""))
        return 1 if problems or not checked else 0
    if args.uncommitted:
        rows = []
        def starting(chapter: str, record: dict) -> None:
            took = record.get("batch_wall_s") or record.get("wall_s") or 0
            print(f"{chapter} {record['key']} {verify.run_label(record['config'])}: re-training (its record took {took:.0f} s) ...",
                  flush=True)

        for row in verify.replace_uncommitted(args.chapter, args.max_minutes, args.tolerance, starting):
            rows.append(row)
            print(f"{row['chapter']} {row['key']} {row['run']}: " + ("replaced" if row["replaced"] else f"kept ({row['problem']})"), flush=True)
        kept = sum(not r["replaced"] for r in rows)
        print(f"\n{len(rows) - kept} of {len(rows)} records re-trained from committed code match and were replaced; {kept} kept")
        return 1 if kept else 0
    if args.keys:
        picked = verify.named_records(args.keys, args.chapter)
    else:
        picked = verify.sample_records(args.sample, args.chapter, args.seed, local=args.local, max_minutes=args.max_minutes)
    if not picked:
        print("no records to verify" + ("" if args.local else " (committed standard-profile records; --local for others)"))
        return 1
    results = [verify.check(r, args.tolerance) for r in tqdm(picked, desc="verify", unit="run")]
    if not args.local:  # a check of committed records: the result Reproducibility shows
        verify.save_report(results, args.tolerance)
    _print(results)
    bad = sum(not r["ok"] for r in results)
    print(f"\n{len(results) - bad} of {len(results)} re-runs match their records")
    return 1 if bad else 0


def _bench(args: argparse.Namespace) -> int:
    import pandas as pd  # heavy: only the commands that print tables need it
    import torch  # heavy: declaring parameters and answering the CLI never load torch

    from graphrepro import bench  # heavy (torch): only `bench` needs it

    slugs = [pages.chapter_module(args.chapter).PAGE.slug] if args.chapter else [p.slug for p in pages.chapter_pages()]
    if args.parameter and not (args.estimate and args.chapter):
        raise pages.ParameterError("-p NAME VALUE goes with --estimate and --chapter: a parameter belongs to one chapter's profile")
    overrides = pages.parse_overrides(slugs[0], args.parameter) if args.parameter else {}
    given = " with " + ", ".join(f"{name} {_show(value)}" for name, value in overrides.items()) if overrides else ""
    print(f"machine: {platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads, torch {torch.__version__}")
    if args.whole_book:
        print("a fresh clone of the committed tree, an empty data cache, the data from the mirror:")
        for target, value in bench.whole_book(("install", "book", "test") if args.with_tests else ("install", "book")).items():
            print(f"  {target}: {value:.0f} s" if isinstance(value, float) else f"  {target}: {value}")
        return 0
    if args.estimate and args.from_records:
        for slug in slugs:
            table = bench.recorded_estimate(slug, args.estimate, overrides)
            benched = int(table.get("from", pd.Series()).eq("bench").sum())
            print(f"\n{slug}, {args.estimate} profile{given} from the records: {table.get('hours', pd.Series()).sum():.1f} "
                  f"hours ({table.get('hours left', pd.Series()).sum():.1f} left) for the "
                  f"{int(table.get('records', pd.Series()).notna().sum())} of {len(table)} kinds of run recorded"
                  + (f" and {benched} priced from a kept bench" if benched else ""))
            _print(table.drop(columns="chapter").round(4), na_rep="")
        return 0
    if args.estimate:
        for slug in slugs:
            table = bench.profile_estimate(slug, args.estimate, args.device, args.probe_epochs, args.budget, overrides=overrides)
            print(f"\n{slug}, {args.estimate} profile{given} on {args.device}: {table.get('hours (upper bound)', pd.Series()).sum():.2f} hours "
                  f"(upper bound) for the probed kinds of run")
            _print(table.drop(columns="chapter").round(4))
        return 0
    for slug in slugs:
        if not args.recorded:
            print(f"\n{slug}: seconds per training run, one at a time and batched (standard settings):")
            table = bench.chapter_bench(slug, args.seeds)
            _print(table.round(3), na_rep="")
            print(f"kept in {bench.save_chapter_bench(slug, table, args.seeds)} (commit it: the Cost page reads it)")
        print(f"\n{slug}, standard profile:")
        for k, v in bench.chapter_wall_time(slug).items():
            print(f"  {k}: {v:.1f}" if isinstance(v, float) else f"  {k}: {v}")
    return 0


def _store_sizes() -> dict[str, int]:
    """How many records each chapter's folder holds now."""
    from graphrepro import store  # numpy and pandas: only the commands that train need it

    return {p.slug: len(store.record_files(p.slug)) for p in pages.chapter_pages()}


def _parse(argv: list[str]) -> argparse.Namespace:
    """The command line parsed; each ``-p NAME VALUE`` is taken before argparse sees it, so that a value that
    starts with '-' (``-p tolerance -inf``) is read as a value, not as an option."""
    pairs, rest, i = [], [], 0
    while i < len(argv):
        if argv[i] in ("-p", "--parameter") and i + 2 < len(argv):  # else argparse says two are expected
            pairs.append(argv[i + 1:i + 3])
            i += 3
        else:
            rest.append(argv[i])
            i += 1
    args = _parser().parse_args(rest)
    if pairs and not hasattr(args, "parameter"):
        _parser().error(f"{args.command} takes no -p NAME VALUE")
    if pairs:
        args.parameter = pairs
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (2 for bad input, 130 when interrupted)."""
    args = _parse(list(sys.argv[1:] if argv is None else argv))
    commands = {"list": lambda: _list(), "run": lambda: _run(args), "train": lambda: _train(args), "book": lambda: _book(args),
                "data": lambda: _data(), "verify": lambda: _verify(args), "bench": lambda: _bench(args),
                "underway": lambda: _underway(args)}
    before = _store_sizes() if args.command in ("run", "train", "book") else {}
    try:
        return commands[args.command]()
    except (pages.ParameterError, NotWritable, sources.UncommittedCode) as err:
        print(f"graphrepro: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        added = {k: n - before.get(k, 0) for k, n in _store_sizes().items() if n > before.get(k, 0)}
        kept = ", ".join(f"{n} new in results/{k}" for k, n in added.items()) or "no new records"
        print(f"\ngraphrepro: interrupted; every finished run is kept ({kept}); run the same command again to resume",
              file=sys.stderr)
        return 130
    except Exception as err:  # a failing notebook cell or book build: one line, the details are on disk
        name = type(err).__name__
        if name == "PapermillExecutionError":
            print(f"graphrepro: a cell failed: {err.ename}: {err.evalue}", file=sys.stderr)
            return 1
        if name == "CalledProcessError":
            print("graphrepro: the book build failed; jupyter-book's messages are above", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())

"""Tables for the reproducibility page: this build's environment, the runs' environments, the data files."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import pandas as pd
import torch

from graphrepro import catalog, pages, paths, store, verify
from graphrepro.data.registry import DATASETS, ChecksumMismatch, DataUnavailable, resolve
from graphrepro.environment import package_versions
from graphrepro.sources import git_commit


def build_environment() -> pd.DataFrame:
    """Python, packages, machine and commit of the process building the book."""
    facts = {
        "python": platform.python_version(),
        **package_versions(),
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads",
        "CUDA available": str(torch.cuda.is_available()),
        "git commit": git_commit(),
    }
    return pd.DataFrame({"value": facts}).rename_axis("")


def record_counts() -> pd.DataFrame:
    """Per chapter: records committed to git, how many of those the standard profile reads (the count its page
    gives; the rest are runs of other parameters), records made here and not committed, and stale records."""
    rows, known = [], catalog.experiments()
    for page in pages.chapter_pages():
        recs = store.records(page.slug)
        committed = store.committed_keys(page.slug) or set()
        current = [r for r in recs if catalog.is_current(r, known)]
        standard = pages.chapter_module(page.slug, "configs").chapter_keys(pages.resolve(page.slug, "standard"))
        rows.append({
            "chapter": page.slug,
            "committed": sum(r["key"] in committed for r in current),
            "standard reads": sum(r["key"] in committed and r["key"] in standard for r in current),
            "local only": sum(r["key"] not in committed for r in current),
            "stale": len(recs) - len(current),
        })
    return pd.DataFrame(rows).set_index("chapter")


def uncommitted_records() -> pd.DataFrame:
    """Per chapter and reason: the current records made from uncommitted code (``+dirty``), which no commit can
    re-create exactly, and the CPU-hours their training took (what re-training them would cost). The reason is
    ``verify --uncommitted``'s where it re-trained one and kept it, else that it has not been re-trained."""
    rows, known, reasons = [], catalog.experiments(), verify.uncommitted_reasons()
    for page in pages.chapter_pages():
        for r in store.records(page.slug):
            if verify.is_uncommitted(r) and catalog.is_current(r, known):
                rows.append({"chapter": page.slug, "why it stays": _why_kept(reasons.get(r["key"])),
                             "hours": float(r.get("wall_s") or 0) / 3600})
    if not rows:
        return pd.DataFrame({"note": ["every record was made from committed code"]})
    grouped = pd.DataFrame(rows).groupby(["chapter", "why it stays"], sort=False)
    table = grouped.agg(records=("hours", "size"), hours=("hours", "sum")).reset_index().set_index("chapter")
    return table.rename(columns={"hours": "CPU-hours they took"}).round({"CPU-hours they took": 1})


def _why_kept(reason: str | None) -> str:
    """``verify --uncommitted``'s reason for keeping a record, as one of three kinds."""
    if reason is None:
        return "not re-trained from committed code yet"
    if "searches read them" in reason:
        return "re-trained: its validation scores moved within tolerance, and a search reads them"
    return "re-trained: its re-run differs beyond tolerance (results/uncommitted.json says by how much)"


def verify_result() -> tuple[str, pd.DataFrame]:
    """The committed ``verify`` report (``results/verify.json``): where and when it ran, in words, and per chapter
    how many records it re-trained, how many came out identical, within tolerance, or different."""
    report = verify.last_report()
    if report is None:
        return "nowhere yet (no verify result is committed)", pd.DataFrame()
    where = (f"{report['date']}, commit {report['commit'][:12]}, on {report['cpu']} with torch {report['torch']} "
             f"and PyG {report['torch_geometric']}; tolerance: {report['tolerance']}")
    rows = [{"chapter": c["chapter"], "re-trained": 1, "identical": int(c["ok"] and c["mode"] == "exact"),
             "within tolerance": int(c["ok"] and c["mode"] != "exact"), "differ": int(not c["ok"])} for c in report["checks"]]
    return where, pd.DataFrame(rows).groupby("chapter", sort=False).sum()


def run_environments() -> pd.DataFrame:
    """Per chapter, device, CPU and the versions of torch and PyG: how many current records, from how many
    commits (one row per environment, so the table stays short whatever the number of records)."""
    rows, known = [], catalog.experiments()
    for page in pages.chapter_pages():
        for r in store.records(page.slug):
            if catalog.is_current(r, known):
                packages = r.get("packages", {})
                rows.append({"chapter": page.slug, "device": r.get("device", "–"), "cpu": r.get("cpu", "not recorded"),
                             "torch": packages.get("torch", "–"), "PyG": packages.get("torch-geometric", "–"),
                             "commit": str(r.get("git_commit", ""))})
    if not rows:
        return pd.DataFrame({"note": ["no records yet"]})
    grouped = pd.DataFrame(rows).groupby(["chapter", "device", "cpu", "torch", "PyG"], sort=False, dropna=False)
    return grouped.agg(runs=("commit", "size"), commits=("commit", "nunique")).reset_index().set_index("chapter")


def shown(path: Path) -> str:
    """A folder as a reader of the book may name it: inside the project relative to it, beside it as ``../…``,
    under the home folder as ``~/…``, else only its last two parts (no build machine's path on a page)."""
    path, root, home = (Path(os.path.abspath(p)) for p in (path, paths.REPO_ROOT, Path.home()))  # links kept as named
    for base, prefix in ((root, ""), (root.parent, "../"), (home, "~/")):
        if path.is_relative_to(base):
            return prefix + str(path.relative_to(base))
    return "…/" + "/".join(path.parts[-2:])


def data_folders() -> pd.DataFrame:
    """The folders the registry looks in, in order (the cache, then the mirrors), and the setting that names each."""
    rows = [{"looked in": "cache", "setting": "GRAPHREPRO_DATA", "folder": shown(paths.cache_dir())}]
    rows += [{"looked in": f"mirror {i}", "setting": "GRAPHREPRO_MIRROR", "folder": shown(m)}
             for i, m in enumerate(paths.mirror_dirs(), 1)]
    return pd.DataFrame(rows).set_index("looked in")


def data_files() -> pd.DataFrame:
    """Every registered file: dataset, path, pinned checksum, and where it was found (or why not)."""
    folders = {str(paths.cache_dir()): "cache", **{str(m): f"mirror {i}" for i, m in enumerate(paths.mirror_dirs(), 1)}}
    rows = []
    for name, spec in DATASETS.items():
        for f in spec.files:
            try:
                found = resolve(f, allow_download=False)
                where = folders.get(str(found)[: -len(f.path) - 1], shown(found.parent))
            except (DataUnavailable, ChecksumMismatch) as err:
                where = f"unavailable: {f.missing}" if f.missing else str(err).splitlines()[0]
            rows.append({"dataset": name, "file": f.path, "checksum": f.checksum_label(), "found in": where})
    return pd.DataFrame(rows).set_index("dataset")

"""Executing pages from the command line: concurrency, unwritable folders, Ctrl-C, progress."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import nbformat
import pytest

from graphrepro import catalog, experiments, grid, paths, progress, store
from graphrepro.__main__ import main

CLI = [sys.executable, "-m", "graphrepro"]


def _env(tmp_path, **extra: str) -> dict[str, str]:
    return {**os.environ, "GRAPHREPRO_RESULTS": str(tmp_path / "results"),
            "GRAPHREPRO_EXECUTED": str(tmp_path / "executed"), "GRAPHREPRO_PROGRESS": "0", **extra}


def test_unwritable_results_are_refused_before_anything_runs(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("GRAPHREPRO_RESULTS", str(blocker / "results"))
    monkeypatch.setenv("GRAPHREPRO_EXECUTED", str(tmp_path / "executed"))
    assert main(["run", "hgcn-mlp-bug", "--profile", "smoke"]) == 2
    err = capsys.readouterr().err
    assert f"cannot write to {blocker / 'results' / 'hgcn-mlp-bug'}" in err and "Nothing was trained" in err
    assert err.count("\n") == 1 and ".tmp" not in err


def test_unwritable_executed_folder_is_refused(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GRAPHREPRO_EXECUTED", str(blocker / "executed"))
    assert main(["run", "verdicts"]) == 2
    assert f"cannot write to {blocker / 'executed'}" in capsys.readouterr().err


def test_a_grid_checks_its_folder_before_training(tmp_path, monkeypatch):
    calls: list[int] = []

    def train(data, configs, device):
        calls.extend(c["seed"] for c in configs)
        return [{"test_acc": 0.5} for _ in configs]

    monkeypatch.setattr(catalog, "experiments", lambda: {"e": experiments.Experiment("e", 1, dict, lambda c: 0, lambda c: None, train)})
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path / "a-file"))
    with pytest.raises(paths.NotWritable, match="cannot write to"):
        grid.run_grid("ch", "e", [{"seed": 0}], device="cpu")
    assert calls == []


@pytest.mark.parametrize("peak_mb, expected", [(None, 2), (1.0, 2), (10**9, 1)])
def test_a_grid_runs_no_more_workers_than_its_largest_run_fits_in_memory(tmp_path, monkeypatch, peak_mb, expected):
    def train(data, configs, device):
        return [{"test_acc": 0.5} for _ in configs]

    declared = None if peak_mb is None else (lambda config: peak_mb)
    experiment = experiments.Experiment("e", 1, dict, lambda c: 0, lambda c: None, train, batch_key=lambda c: str(c), peak_mb=declared)
    monkeypatch.setattr(catalog, "experiments", lambda: {"e": experiment})
    monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path))
    seen: list[int] = []
    monkeypatch.setattr(grid, "fan_out", lambda calls, workers: seen.append(workers) or [call() for call in calls])
    grid.run_grid("ch", "e", [{"seed": 0, "x": 1}, {"seed": 0, "x": 2}], device="cpu", workers=2, show=False)
    assert seen == [expected]


def test_progress_events_reach_the_terminal(tmp_path, monkeypatch, capsys):
    events = tmp_path / "events.jsonl"
    monkeypatch.setenv(progress.EVENTS, str(events))
    with progress.grid_bar("Table 1", total=3, reused=5) as update:
        update(2)
        update(1)
    with progress.grid_bar("searches", total=0, reused=28, unit="cell"):
        pass
    progress.TerminalProgress(events).close()
    shown = capsys.readouterr()
    assert "Table 1: 5 runs reused from results/, 3 to train" in shown.out and "3/3" in shown.err
    assert "searches: 28 cells reused from results/, 0 to train" in shown.out


@pytest.mark.slow
def test_concurrent_writers_leave_valid_records(tmp_path):
    """Two processes train overlapping grids into one store: every record is whole and unedited."""
    script = textwrap.dedent("""
        import sys
        from graphrepro.experiments import hgcn
        from graphrepro.grid import run_grid
        seeds = [int(s) for s in sys.argv[1].split(",")]
        base = hgcn.make_config("disease_lp", "lp", "MLP", 0, "debugged", normalize_feats=False, max_epochs=15)
        run_grid("hgcn-mlp-bug", hgcn.EXPERIMENT.name, [{**base, "seed": s} for s in seeds], device="cpu", max_members=1)
    """)
    env = _env(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", script, seeds], env=env, stderr=subprocess.PIPE, text=True)
             for seeds in ("0,1,2,3,4,5", "5,4,3,2,1,0")]
    for p in procs:
        _, err = p.communicate(timeout=900)  # generous: on a loaded machine two trainings share the cores
        if "unavailable" in err:
            pytest.skip("disease_lp is not in the mirror")
        assert p.returncode == 0, err
    folder = tmp_path / "results" / "hgcn-mlp-bug"
    files = sorted(folder.iterdir())
    assert len(files) == 6 and all(f.suffix == ".json" for f in files)  # no temporary file left
    for f in files:
        record = store.read_record(f)
        assert store.digest_matches(record) and 0 <= record["metrics"]["test_roc"] <= 1


@pytest.mark.integration
def test_a_second_execution_of_a_page_says_who_holds_it_waits_and_then_executes(tmp_path):
    """While one execution holds a page's lock (here the test holds it, so no timing decides the order), another
    names the holder, waits, and executes the page once the lock is free."""
    env, executed = _env(tmp_path), tmp_path / "executed"
    executed.mkdir(parents=True, exist_ok=True)
    with open(executed / ".reproducibility.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        proc = subprocess.Popen([*CLI, "run", "reproducibility", "--profile", "smoke"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said = ""
        while f"is being executed by pid {os.getpid()}" not in said and proc.poll() is None:
            said += proc.stderr.readline()
        assert proc.poll() is None, said  # waiting, not finished
        fh.truncate(0)
        fcntl.flock(fh, fcntl.LOCK_UN)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, said + err
    assert sorted(p.name for p in executed.iterdir() if not p.name.endswith(".lock")) == ["reproducibility.ipynb"]
    assert nbformat.read(executed / "reproducibility.ipynb", as_version=4).metadata.papermill.parameters["profile"] == "smoke"


@pytest.mark.integration
def test_ctrl_c_keeps_finished_runs_and_says_how_to_resume(tmp_path):
    proc = subprocess.Popen([*CLI, "run", "hgcn-mlp-bug", "--profile", "smoke"], env=_env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    folder = tmp_path / "results" / "hgcn-mlp-bug"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and len(records_in(folder)) < 3:
        time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    kept = len(records_in(folder))
    assert proc.returncode == 130, err
    assert err.strip() == f"graphrepro: interrupted; every finished run is kept ({kept} new in results/hgcn-mlp-bug); " \
                          "run the same command again to resume"
    assert "Traceback" not in out + err and not list(folder.glob(".tmp-*"))
    assert not (tmp_path / "executed" / "hgcn-mlp-bug.ipynb").exists()
    assert all(json.loads(p.read_text())["key"] == p.stem for p in records_in(folder))


KERNEL_LOGS_AN_ERROR = textwrap.dedent("""
    import asyncio, sys
    from jupyter_client import AsyncKernelManager
    from graphrepro.runner import LocalSocketKernelManager

    async def main(manager):
        await manager.start_kernel()
        client = manager.client()
        client.start_channels()
        await client.wait_for_ready(timeout=60)
        reply = await client.execute_interactive("get_ipython().kernel.log.error('caught in kernel')", timeout=60)
        print(reply["content"]["status"])
        client.stop_channels()
        await manager.shutdown_kernel()

    asyncio.run(main(LocalSocketKernelManager() if sys.argv[1] == "ours" else AsyncKernelManager(transport="ipc")))
""")


@pytest.mark.parametrize("manager", ["ours", "jupyter_client's"])
@pytest.mark.slow
def test_the_kernels_own_log_stays_off_our_stderr(manager):
    """What ipykernel logs below CRITICAL (such as "KeyboardInterrupt caught in kernel", when a Ctrl-C lands
    between cells) reaches the stderr of a process that runs pages with jupyter_client's manager, not ours."""
    done = subprocess.run([sys.executable, "-c", KERNEL_LOGS_AN_ERROR, manager.split("'")[0]],
                          capture_output=True, text=True, timeout=180)
    assert done.stdout.split() == ["ok"], done.stderr
    assert ("caught in kernel" in done.stderr) == (manager != "ours")


@pytest.mark.slow
def test_two_kernels_started_at_once_from_one_folder_keep_their_own_sockets(tmp_path, monkeypatch):
    """jupyter_client's IPC sockets default to "kernel-ipc-1".."-5" in the working folder: two pages executed at once
    from one folder then spoke to each other's kernel ("Invalid Signature"). Each kernel answers with its own pid,
    and leaves nothing behind after shutdown."""
    import asyncio

    from graphrepro.runner import LocalSocketKernelManager

    monkeypatch.chdir(tmp_path)

    async def pid_of(manager: LocalSocketKernelManager) -> int:
        client, printed = manager.client(), []
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            await client.execute_interactive("import os; print(os.getpid())", timeout=60,
                                             output_hook=lambda m: printed.append(m["content"].get("text", "")))
            return int("".join(printed))
        finally:
            client.stop_channels()

    async def both() -> tuple[list[int], list[LocalSocketKernelManager]]:
        managers = [LocalSocketKernelManager(kernel_name="python3") for _ in range(2)]
        await asyncio.gather(*(m.start_kernel() for m in managers))
        try:
            return await asyncio.gather(*(pid_of(m) for m in managers)), managers
        finally:
            await asyncio.gather(*(m.shutdown_kernel(now=True) for m in managers))

    pids, managers = asyncio.run(both())
    assert pids == [m.provisioner.pid for m in managers] and len(set(pids)) == 2
    assert not any(os.path.exists(m._sockets) for m in managers) and not list(tmp_path.iterdir())


# chapter: smoke-profile parameters that keep its grid small. Chapter 1's Ctrl-C is tested above; chapter 4
# would spend minutes building Peptides-func in a fresh cache before its first record, so its interrupted
# run is tested where it matters, continuing from its checkpoint (tests/test_lrgb_chapter.py).
KILL_DRILL = {
    "han-vs-gat": ["-p", "datasets", "IMDB"],
    "gmnn-fair-eval": ["-p", "datasets", "cora", "-p", "kinds", "sparse_balanced", "-p", "budget_study", "false"],
    "mrr-variants": ["-p", "graphs", "cora", "-p", "encoders", "GCN", "-p", "kg_models", "TransE,RotatE"],
}


def records_in(folder) -> list:
    """The finished records in a store folder (pathlib's ``*`` also matches the ``.tmp-*`` files being written)."""
    return [p for p in folder.glob("*.json") if not p.name.startswith(".")]


@pytest.mark.integration
@pytest.mark.parametrize("slug", KILL_DRILL)
def test_a_killed_grid_loses_no_record_and_the_rerun_trains_only_the_rest(slug, tmp_path):
    """SIGKILL a chapter's training once its first record is written: every record on disk is whole (its
    digest holds), and the same command then trains only what is missing, leaving the kept records as they were."""
    command = [*CLI, "train", slug, "--profile", "smoke", *KILL_DRILL[slug]]
    env, folder = _env(tmp_path, GRAPHREPRO_WORKERS="1"), tmp_path / "results" / slug
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None and not records_in(folder):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    kept = {p.stem: p.read_bytes() for p in records_in(folder)}
    assert kept, "no record was written before the kill"
    assert all(store.digest_matches(json.loads(data)) for data in kept.values())
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    from graphrepro import __main__, pages, runner

    given = __main__._parser().parse_args(command[3:]).parameter  # the command's own -p pairs, as the CLI reads them
    params = pages.resolve(slug, "smoke", **pages.parse_overrides(slug, given))
    with runner.temporary_environment(GRAPHREPRO_RESULTS=str(tmp_path / "results")):
        expected = pages.chapter_module(slug, "configs").chapter_keys(params)
    assert {p.stem for p in records_in(folder)} == expected and len(kept) < len(expected)
    assert not list(folder.rglob(".tmp-*"))  # what the kill left half-written is gone
    assert all((folder / f"{key}.json").read_bytes() == data for key, data in kept.items())  # not retrained

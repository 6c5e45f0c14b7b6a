"""Execute a page's jupytext notebook with papermill into the folder the book is built from (``build`` makes the HTML)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import papermill
from jupyter_client.manager import AsyncKernelManager

from graphrepro import pages, paths, progress
from graphrepro.grid import WORKERS

HIDDEN_CELL_TAGS = ("parameters", "injected-parameters")


class LocalSocketKernelManager(AsyncKernelManager):
    """Talks to the kernel over local (IPC) sockets, not unencrypted TCP, about which the kernel warns; the
    kernel's own log stays off our stderr below CRITICAL (a Ctrl-C that reaches it between cells logged
    "KeyboardInterrupt caught in kernel" there; errors in cells still reach the notebook)."""

    def __init__(self, **kwargs: Any):
        super().__init__(transport="ipc", **kwargs)
        # jupyter_client names IPC sockets "kernel-ipc-1" .. "-5" in the working folder, so two kernels started at
        # once from one folder shared sockets (and failed with "Invalid Signature"); each gets a folder of its own
        self._sockets = tempfile.mkdtemp(prefix="graphrepro-kernel-")
        self.ip = os.path.join(self._sockets, "kernel")

    def cleanup_ipc_files(self) -> None:
        super().cleanup_ipc_files()
        with contextlib.suppress(OSError):
            os.rmdir(self._sockets)

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        return super().format_kernel_cmd([*(extra_arguments or []), "--IPKernelApp.log_level=CRITICAL"])


@contextlib.contextmanager
def forward_interrupts() -> Iterator[type[AsyncKernelManager]]:
    """A kernel manager class whose kernels receive this process's Ctrl-C. The kernel runs in a session
    of its own, so without this Ctrl-C would leave it training; with it, the running cell stops at once
    (finished runs are already recorded) and papermill reports the interrupt."""
    started: list[AsyncKernelManager] = []

    class Manager(LocalSocketKernelManager):
        interrupted = False  # set once Ctrl-C was forwarded: whatever the cell then reports, it was interrupted

        def __init__(self, **kwargs: Any):
            super().__init__(**kwargs)
            started.append(self)

    def interrupt(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGINT, previous)  # a second Ctrl-C stops this process at once
        Manager.interrupted = True
        for manager in started:
            process = getattr(manager.provisioner, "process", None)
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGINT)

    if threading.current_thread() is not threading.main_thread():
        yield LocalSocketKernelManager
        return
    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield Manager
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def temporary_environment(**values: str) -> Iterator[None]:
    """Set environment variables for the kernel papermill starts, restoring them afterwards."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def page_lock(slug: str, folder: Path) -> Iterator[None]:
    """Hold the page's lock (``<folder>/.<slug>.lock``); a second execution of the page waits for it."""
    with open(folder / f".{slug}.lock", "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            print(f"graphrepro: {slug} is being executed by {holder}; waiting for it to finish ...", file=sys.stderr, flush=True)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.truncate(0)
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:
            fh.truncate(0)
            fcntl.flock(fh, fcntl.LOCK_UN)


@contextlib.contextmanager
def terminal_progress(events: Path, show: bool) -> Iterator[progress.TerminalProgress]:
    """Show the kernel's grid progress in this terminal while the page executes."""
    shown = progress.TerminalProgress(events)
    stop = threading.Event()

    def follow() -> None:
        while not stop.wait(0.5):
            shown.poll()

    thread = threading.Thread(target=follow, daemon=True)
    if show:
        thread.start()
    try:
        yield shown
    finally:
        stop.set()
        if show:
            thread.join()
            shown.close()


def _tidy(notebook_path: Path, source: Path) -> None:
    """Point the papermill metadata at the .py source and hide the raw parameter cells in the book."""
    nb = nbformat.read(notebook_path, as_version=4)
    inside = source.resolve().is_relative_to(paths.REPO_ROOT.resolve())
    nb.metadata.setdefault("papermill", {})["input_path"] = str(source.relative_to(paths.REPO_ROOT) if inside else source)
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if any(t in tags for t in HIDDEN_CELL_TAGS) and "remove-cell" not in tags:
            tags.append("remove-cell")
    nbformat.write(nb, notebook_path)


def execute(slug: str, profile: str = "standard", overrides: dict[str, Any] | None = None,
            output_dir: Path | None = None, log_output: bool = False, workers: int | None = None) -> Path:
    """Validate the parameters, execute the page and atomically write ``<output_dir>/<slug>.ipynb``.

    Each execution writes its own temporary notebook and holds the page's lock, so two executions of
    one page never mix; the folders it writes are checked before the kernel starts. ``workers`` sets
    how many processes the page's grids train on (``GRAPHREPRO_WORKERS``; default one per core)."""
    params = pages.resolve(slug, profile, **(overrides or {}))  # raises before anything runs
    page = pages.page(slug)
    source = page.source
    output_dir = paths.require_writable(paths.executed_dir() if output_dir is None else output_dir)
    if page.chapter:
        paths.require_writable(paths.results_dir() / slug)
    final = output_dir / f"{slug}.ipynb"
    notebook = jupytext.read(source)
    with page_lock(slug, output_dir), tempfile.TemporaryDirectory(dir=output_dir, prefix=f".{slug}.") as work:
        partial, events = Path(work) / f"{slug}.ipynb", Path(work) / "progress.jsonl"
        show = progress.show_progress() and not log_output
        manager = None
        try:
            with terminal_progress(events, show), forward_interrupts() as manager, temporary_environment(
                **{progress.EVENTS: str(events), "PYDEVD_DISABLE_FILE_VALIDATION": "1"},
                **({WORKERS: str(workers)} if workers else {}),
            ):
                papermill.execute_notebook(
                    notebook, str(partial), parameters=params, kernel_name="python3", language="python",
                    cwd=str(source.parent), progress_bar=False, log_output=log_output,
                    kernel_manager_class=manager,
                )
        except BaseException as err:
            # IPython may fail to format an interrupt raised deep in torch, and report no KeyboardInterrupt
            if isinstance(err, KeyboardInterrupt) or getattr(err, "ename", None) == "KeyboardInterrupt" \
                    or getattr(manager, "interrupted", False):
                raise KeyboardInterrupt from None  # Ctrl-C reaches the kernel too; the caller says what was kept
            if partial.exists():
                failed = paths.REPO_ROOT / "_build" / "failed" / f"{slug}.ipynb"
                failed.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(partial, failed)
                print(f"graphrepro: the partly executed notebook of {slug} is at {failed}", file=sys.stderr)
            raise
        _tidy(partial, source)
        os.replace(partial, final)
    return final


def executed_parameters(slug: str, output_dir: Path | None = None) -> dict[str, Any] | None:
    """The parameters a page's executed notebook was run with (None when it has not been executed)."""
    path = (paths.executed_dir() if output_dir is None else output_dir) / f"{slug}.ipynb"
    if not path.exists():
        return None
    return dict(nbformat.read(path, as_version=4).metadata.get("papermill", {}).get("parameters", {})) or None


def execution_times(output_dir: Path | None = None) -> list[dict[str, Any]]:
    """Each executed page's papermill record: when its last execution ended, how long it took, its profile."""
    rows = []
    for page in pages.pages():
        path = (paths.executed_dir() if output_dir is None else output_dir) / f"{page.slug}.ipynb"
        if path.exists():
            meta = nbformat.read(path, as_version=4).metadata.get("papermill", {})
            rows.append({"page": page.slug, "profile": meta.get("parameters", {}).get("profile", "–"),
                         "ended": str(meta.get("end_time", "–"))[:19].replace("T", " "), "seconds": meta.get("duration")})
    return rows

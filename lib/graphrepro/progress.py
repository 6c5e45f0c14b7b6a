"""Progress of grids of runs: a tqdm bar here, or events for the terminal that executes the page.

Inside a kernel started by ``graphrepro run`` (``GRAPHREPRO_PROGRESS_FILE`` set), each grid appends
JSON lines to that file, and the runner draws the bars in its own terminal; the executed notebook
stays free of progress output."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from tqdm.auto import tqdm

EVENTS = "GRAPHREPRO_PROGRESS_FILE"


def show_progress() -> bool:
    """Progress bars are on unless ``GRAPHREPRO_PROGRESS=0``."""
    return os.environ.get("GRAPHREPRO_PROGRESS", "1") != "0"


def _emit(path: str, **event: object) -> None:
    with open(path, "a") as fh:
        fh.write(json.dumps(event) + "\n")


@contextlib.contextmanager
def grid_bar(desc: str, total: int, reused: int, unit: str = "run") -> Iterator[Callable[[int], None]]:
    """A progress bar over the ``total`` runs (or other ``unit``) a grid trains (``reused`` were found in
    the store); yields ``update(n)``."""
    events = os.environ.get(EVENTS)
    if events:
        _emit(events, event="grid", desc=desc, total=total, reused=reused, unit=unit)
        try:
            yield lambda n: _emit(events, event="update", n=n)
        finally:
            _emit(events, event="done")
        return
    with tqdm(total=total, desc=desc, unit=unit, disable=not show_progress() or not total) as bar:
        yield bar.update


class TerminalProgress:
    """Reads a kernel's progress events and shows them: one line per grid (reused and to train) and a
    bar while it trains."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0
        self.bar: tqdm | None = None

    def poll(self) -> None:
        """Show the events written since the last poll (whole lines only)."""
        if not self.path.exists():
            return
        with self.path.open() as fh:
            fh.seek(self.offset)
            chunk = fh.read()
        complete = chunk[: chunk.rfind("\n") + 1]
        self.offset += len(complete.encode())
        for line in complete.splitlines():
            self._show(json.loads(line))

    def _show(self, event: dict) -> None:
        if event["event"] == "grid":
            unit = event.get("unit", "run")
            tqdm.write(f"  {event['desc']}: {event['reused']} {unit}s reused from results/, {event['total']} to train")
            if event["total"]:
                self.bar = tqdm(total=event["total"], desc=f"  {event['desc']}", unit=unit, leave=True)
        elif event["event"] == "update":
            if self.bar is not None:
                self.bar.update(event["n"])
        elif self.bar is not None:
            self.bar.close()
            self.bar = None

    def close(self) -> None:
        """Read what is left and close any open bar."""
        self.poll()
        if self.bar is not None:
            self.bar.close()
            self.bar = None

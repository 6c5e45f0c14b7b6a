"""Execute a page's jupytext notebook with papermill into the folder the book is built from."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import papermill

from graphrepro import chapters, paths

HIDDEN_CELL_TAGS = ("parameters", "injected-parameters")


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


def _tidy(notebook_path: Path, source: Path) -> None:
    """Point the papermill metadata at the .py source and hide the raw parameter cells in the book."""
    nb = nbformat.read(notebook_path, as_version=4)
    nb.metadata.setdefault("papermill", {})["input_path"] = str(source.relative_to(paths.REPO_ROOT))
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if any(t in tags for t in HIDDEN_CELL_TAGS) and "remove-cell" not in tags:
            tags.append("remove-cell")
    nbformat.write(nb, notebook_path)


def execute(slug: str, profile: str = "standard", overrides: dict[str, Any] | None = None,
            output_dir: Path | None = None, log_output: bool = False) -> Path:
    """Validate the parameters, execute the page and atomically write ``<output_dir>/<slug>.ipynb``."""
    params = chapters.resolve(slug, profile, **(overrides or {}))  # raises before anything runs
    page = chapters.page(slug)
    source = paths.REPO_ROOT / page.notebook
    output_dir = paths.executed_dir() if output_dir is None else output_dir
    output_dir.mkdir(parents=True, exist_ok=True)
    final = output_dir / f"{slug}.ipynb"
    partial = output_dir / f".{slug}.partial.ipynb"
    notebook = jupytext.read(source)
    try:
        with temporary_environment(GRAPHREPRO_PROGRESS="0", PYDEVD_DISABLE_FILE_VALIDATION="1"):
            papermill.execute_notebook(
                notebook, str(partial), parameters=params, kernel_name="python3",
                cwd=str(source.parent), progress_bar=False, log_output=log_output,
            )
    except BaseException:
        failed = paths.REPO_ROOT / "_build" / "failed" / f"{slug}.ipynb"
        if partial.exists():
            failed.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(partial, failed)
            print(f"graphrepro: {slug} failed; the partly executed notebook is at {failed}", file=sys.stderr)
        raise
    _tidy(partial, source)
    os.replace(partial, final)
    return final


def build_book(root: Path | None = None) -> Path:
    """Build the HTML book from the executed notebooks, failing on any warning; return its index page."""
    root = paths.REPO_ROOT if root is None else root
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    command = [str(jupyter_book), "build", str(root), "--all", "-W", "-n", "--keep-going"]
    subprocess.run(command, check=True, cwd=root)
    return root / "_build" / "html" / "index.html"

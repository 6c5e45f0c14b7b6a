"""Building the HTML book from the executed pages: MathJax vendored for offline reading, ``_toc.yml`` written
from the manifest, then Jupyter Book with every warning an error."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from graphrepro import pages, paths

MATHJAX_VERSION = "3.2.2"


def ensure_mathjax(root: Path | None = None) -> Path:
    """MathJax 3 from the npm registry into ``_vendor/mathjax``, once, so the book renders offline."""
    root = paths.REPO_ROOT if root is None else root
    target = root / "_vendor" / "mathjax"
    if (target / "tex-chtml.js").exists():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("the book needs MathJax, fetched from the npm registry, and npm is not installed "
                           "(Debian: apt-get install npm)")
    print(f"fetching mathjax@{MATHJAX_VERSION} from the npm registry (once) ...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([npm, "pack", "--silent", f"mathjax@{MATHJAX_VERSION}"], cwd=tmp, check=True, capture_output=True)
        with tarfile.open(Path(tmp) / f"mathjax-{MATHJAX_VERSION}.tgz") as archive:
            archive.extractall(tmp, members=[m for m in archive.getmembers() if m.name.startswith("package/es5/")],
                               filter="data")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(target, ignore_errors=True)
        shutil.move(Path(tmp) / "package" / "es5", target)
    return target


BIBLIOGRAPHY = "book/bibliography"  # a written page (book/references.bib, all entries), last in the book


def toc_text() -> str:
    """``_toc.yml`` for the manifest's pages: the chapters, then the book's computed pages and the bibliography."""
    def entries(listed: tuple[pages.Page, ...]) -> str:
        return "".join(f"      - file: book/executed/{p.slug}\n" for p in listed)

    book_pages = tuple(p for p in pages.pages() if not p.chapter)
    return (
        "# The book's pages, written from graphrepro.manifest by the book build (edit the manifest, not this file).\n"
        "format: jb-book\nroot: book/intro\nparts:\n"
        f"  - caption: Chapters\n    chapters:\n{entries(pages.chapter_pages())}"
        f"  - caption: Across the book\n    chapters:\n{entries(book_pages)}"
        f"      - file: {BIBLIOGRAPHY}\n"
    )


def build_book(root: Path | None = None) -> Path:
    """Build the HTML book from the executed notebooks, failing on any warning; return its index page.
    ``_toc.yml`` is written from the manifest first, so a new chapter needs no other edit."""
    root = paths.REPO_ROOT if root is None else root
    toc = root / "_toc.yml"
    if not toc.exists() or toc.read_text() != toc_text():
        toc.write_text(toc_text())
    ensure_mathjax(root)
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    command = [str(jupyter_book), "build", str(root), "--all", "-W", "-n", "--keep-going"]
    subprocess.run(command, check=True, cwd=root)
    return root / "_build" / "html" / "index.html"

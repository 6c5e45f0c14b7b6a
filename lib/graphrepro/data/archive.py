"""Reading members of upstream archives safely: no absolute paths, no ``..``, no macOS junk."""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import PurePosixPath


class UnsafeArchive(ValueError):
    """An archive member whose path could escape the folder it is read into."""


def _is_junk(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return "__MACOSX" in parts or parts[-1] in (".DS_Store", "._.DS_Store") or parts[-1].startswith("._")


def member_names(names: list[str]) -> dict[str, str]:
    """Map each member's file name to its path in the archive; refuse unsafe paths, skip junk and folders."""
    found = {}
    for name in names:
        path = PurePosixPath(name)
        if path.is_absolute() or ".." in path.parts or name.startswith("\\") or ":" in path.parts[0]:
            raise UnsafeArchive(f"archive member {name!r} has an absolute path or '..'; the archive is refused")
        if name.endswith("/") or _is_junk(name):
            continue
        found[path.name] = name
    return found


def read_zip_members(path, wanted: tuple[str, ...]) -> dict[str, bytes]:
    """The bytes of the named files (by file name, in any folder) of a zip archive."""
    with zipfile.ZipFile(path) as archive:
        names = member_names(archive.namelist())
        missing = [w for w in wanted if w not in names]
        if missing:
            raise ValueError(f"{path} lacks {', '.join(missing)}")
        return {w: archive.read(names[w]) for w in wanted}


def read_tar_members(path, wanted: tuple[str, ...]) -> dict[str, bytes]:
    """The bytes of the named regular files (by file name) of a (gzipped) tar archive."""
    with tarfile.open(path) as archive:
        members = {m.name: m for m in archive.getmembers() if m.isfile()}
        names = member_names(list(members))
        missing = [w for w in wanted if w not in names]
        if missing:
            raise ValueError(f"{path} lacks {', '.join(missing)}")
        return {w: archive.extractfile(members[names[w]]).read() for w in wanted}

"""The data registry: checksums enforced, lookup order, clear messages for missing files."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from graphrepro import paths
from graphrepro.data import hgb, kg, lrgb, registry
from graphrepro.data.availability import Availability, dataset_status
from graphrepro.data.registry import ChecksumMismatch, DataUnavailable, RemoteFile, resolve


def _spec(content: bytes, **kw) -> RemoteFile:
    return RemoteFile("demo/file.bin", "https://example.invalid/file.bin", hashlib.sha256(content).hexdigest(), **kw)


def test_found_in_mirror_when_not_cached(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "demo").mkdir(parents=True)
    (mirror / "demo" / "file.bin").write_bytes(b"payload")
    found = resolve(_spec(b"payload"), cache=tmp_path / "cache", mirrors=[mirror], allow_download=False)
    assert found == mirror / "demo" / "file.bin"


def test_cache_is_looked_at_before_mirrors(tmp_path):
    for folder in ("cache", "mirror"):
        (tmp_path / folder / "demo").mkdir(parents=True)
        (tmp_path / folder / "demo" / "file.bin").write_bytes(b"payload")
    found = resolve(_spec(b"payload"), cache=tmp_path / "cache", mirrors=[tmp_path / "mirror"], allow_download=False)
    assert found.parent.parent == tmp_path / "cache"


def test_checksum_mismatch_is_refused(tmp_path):
    (tmp_path / "mirror" / "demo").mkdir(parents=True)
    (tmp_path / "mirror" / "demo" / "file.bin").write_bytes(b"tampered")
    with pytest.raises(ChecksumMismatch, match="refused") as err:
        resolve(_spec(b"payload"), cache=tmp_path / "cache", mirrors=[tmp_path / "mirror"], allow_download=False)
    assert hashlib.sha256(b"payload").hexdigest() in str(err.value)


def test_missing_file_message_names_file_checksum_url_and_place(tmp_path):
    spec = _spec(b"payload")
    with pytest.raises(DataUnavailable) as err:
        resolve(spec, cache=tmp_path / "cache", mirrors=[tmp_path / "mirror"], allow_download=False)
    message = str(err.value)
    for needle in ("demo/file.bin", spec.sha256, spec.url, str(tmp_path / "cache" / "demo" / "file.bin")):
        assert needle in message


def test_failed_download_is_reported_and_leaves_no_partial_file(tmp_path):
    spec = RemoteFile("demo/file.bin", "file:///nonexistent/graphrepro/file.bin", hashlib.sha256(b"x").hexdigest())
    with pytest.raises(DataUnavailable, match="download failed"):
        resolve(spec, cache=tmp_path / "cache", mirrors=[], allow_download=True)
    assert not list((tmp_path / "cache").rglob("*")) or not any(p.is_file() for p in (tmp_path / "cache").rglob("*"))


def test_download_with_wrong_bytes_is_refused(tmp_path):
    source = tmp_path / "upstream.bin"
    source.write_bytes(b"not the pinned bytes")
    spec = RemoteFile("demo/file.bin", source.as_uri(), hashlib.sha256(b"payload").hexdigest())
    with pytest.raises(ChecksumMismatch):
        resolve(spec, cache=tmp_path / "cache", mirrors=[], allow_download=True)
    assert not (tmp_path / "cache" / "demo" / "file.bin").exists()


def test_download_into_cache(tmp_path):
    source = tmp_path / "upstream.bin"
    source.write_bytes(b"payload")
    spec = RemoteFile("demo/file.bin", source.as_uri(), hashlib.sha256(b"payload").hexdigest())
    found = resolve(spec, cache=tmp_path / "cache", mirrors=[], allow_download=True)
    assert found == tmp_path / "cache" / "demo" / "file.bin" and found.read_bytes() == b"payload"


def test_git_blob_checksum_matches_git(tmp_path):
    path = tmp_path / "blob.bin"
    path.write_bytes(b"some bytes\n")
    expected = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True, check=True).stdout.strip()
    assert registry.file_digest(path, "git-blob") == expected


def test_known_unobtainable_file_gives_its_reason(tmp_path):
    status = dataset_status("disease_nc")
    if status["status"] is Availability.AVAILABLE:
        pytest.skip("disease_nc features are present on this machine")
    assert status["status"] is Availability.UNAVAILABLE and "feats.npz" in status["reason"]


def test_every_registered_file_is_pinned():
    for spec in registry.DATASETS.values():
        for f in spec.files:
            assert f.sha256 or f.git_blob_sha1 or f.missing, f.path
            assert f.url.startswith("https://") and f.path.split("/")[-1] in f.url


@pytest.mark.skipif(not registry.DATASETS or not __import__("graphrepro.paths").paths.mirror_dirs(), reason="no data mirror")
def test_mirror_files_match_their_pins():
    """Every file the mirror holds verifies against the registry (this is the check CI relies on)."""
    statuses = [dataset_status(name) for name in registry.DATASETS]
    assert not [s for s in statuses if s["status"] is Availability.REFUSED]
    assert {s["dataset"] for s in statuses if s["status"] is Availability.AVAILABLE} >= {"disease_lp", "airport"}


def test_corrupt_cache_copy_falls_back_to_mirror_and_is_replaced(tmp_path):
    for folder, content in (("cache", b"corrupt"), ("mirror", b"payload")):
        (tmp_path / folder / "demo").mkdir(parents=True)
        (tmp_path / folder / "demo" / "file.bin").write_bytes(content)
    found = resolve(_spec(b"payload"), cache=tmp_path / "cache", mirrors=[tmp_path / "mirror"], allow_download=False)
    assert found == tmp_path / "cache" / "demo" / "file.bin" and found.read_bytes() == b"payload"
    assert [p.name for p in (tmp_path / "cache" / "demo").iterdir()] == ["file.bin"]  # no temporary left


def test_corrupt_copies_everywhere_are_refused_with_both_checksums(tmp_path):
    for folder in ("cache", "mirror"):
        (tmp_path / folder / "demo").mkdir(parents=True)
        (tmp_path / folder / "demo" / "file.bin").write_bytes(b"corrupt")
    with pytest.raises(ChecksumMismatch) as err:
        resolve(_spec(b"payload"), cache=tmp_path / "cache", mirrors=[tmp_path / "mirror"], allow_download=False)
    message = str(err.value)
    assert hashlib.sha256(b"payload").hexdigest() in message and hashlib.sha256(b"corrupt").hexdigest() in message
    assert "Delete it" in message


def test_data_command_shows_a_refused_file_in_full_and_fails(tmp_path, monkeypatch, capsys):
    from graphrepro.__main__ import main

    spec = registry.DATASETS["disease_lp"].files[0]
    mirror = tmp_path / "mirror"
    (mirror / spec.path).parent.mkdir(parents=True)
    (mirror / spec.path).write_bytes(b"not the edges")
    monkeypatch.setenv("GRAPHREPRO_MIRROR", str(mirror))
    assert main(["data"]) == 1
    out = capsys.readouterr().out
    assert "refused" in out and spec.sha256 in out and hashlib.sha256(b"not the edges").hexdigest() in out
    assert "Delete it" in out


FAMILIES = {  # one file of each dataset family, and the loader that reads it
    "hgb/IMDB.zip": lambda: hgb.load_hgb("IMDB"),
    "lrgb/peptides-functional/splits_random_stratified_peptide.pickle": lambda: lrgb.load_peptides_func(progress=False),
    "kg/WN18RR.tar.gz": lambda: kg.load_kg("wn18rr"),
}


@pytest.mark.parametrize("member", FAMILIES)
def test_each_familys_loader_refuses_a_corrupted_mirror_file(member, tmp_path, monkeypatch):
    """One flipped byte in a mirror file (HGB zip, Peptides split pickle, KG tarball): the chapter's loader
    refuses it, naming the file, before parsing or unpickling anything; the mirror copy is left as it was."""
    family = Path(member).parts[0]
    source = next((m / family for m in paths.mirror_dirs() if (m / member).exists()), None)
    if source is None:
        pytest.skip(f"{member} is not in the mirror here")
    mirror = tmp_path / "mirror"
    shutil.copytree(source, mirror / family)  # the family's whole folder: a loader may read the file's siblings
    damaged = bytearray((mirror / member).read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    (mirror / member).write_bytes(bytes(damaged))
    monkeypatch.setenv("GRAPHREPRO_MIRROR", str(mirror))
    monkeypatch.setenv("GRAPHREPRO_OFFLINE", "1")
    with pytest.raises(ChecksumMismatch, match=Path(member).name):
        FAMILIES[member]()
    assert (mirror / member).read_bytes() == bytes(damaged)

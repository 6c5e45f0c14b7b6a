"""The data registry: every upstream file with its checksum and URL, found in cache, mirror or upstream."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tqdm.auto import tqdm

from graphrepro import paths

HGCN = "https://raw.githubusercontent.com/HazyResearch/hgcn/a526385744da25fc880f3da346e17d0fe33817f8/data"
GCN = "https://raw.githubusercontent.com/tkipf/gcn/39a4089fe72ad9f055ed6fdb9746abdcfebc4d81/gcn/data"
HGB = "https://raw.githubusercontent.com/Gcjh/HP-HGCL/d11a4abb1caf72a90ffa819d8a2569a02bcddcab/data"
LRGB = (
    "https://raw.githubusercontent.com/benfinkelshtein/CoGNN/2494bd77a0eab6328af36b860aa2d61854f6f9e8"
    "/datasets/peptides-functional"
)
CONVE = "https://raw.githubusercontent.com/TimDettmers/ConvE"
WIKIVITALS = (
    "https://raw.githubusercontent.com/ToineSayan/wikivitals-lvl5-04-2022/e88115f6bfe211c9bfae4c291a2eff713297e07f"
    "/dataset/txt"
)


class DataUnavailable(RuntimeError):
    """A file (or a whole dataset) cannot be had: not cached, not mirrored, not downloadable."""


class ChecksumMismatch(RuntimeError):
    """A file was found but its bytes are not the pinned ones; it is refused."""


@dataclass(frozen=True)
class RemoteFile:
    """One upstream file: its path in cache and mirror, its URL and its pinned checksum."""

    path: str
    url: str
    sha256: str | None = None
    git_blob_sha1: str | None = None  # when only the upstream git blob id is known
    missing: str | None = None  # why the mirror lacks it (known unobtainable here)

    def checksum_label(self) -> str:
        """The checksum as shown in messages and on the reproducibility page."""
        if self.sha256:
            return f"sha256 {self.sha256}"
        if self.git_blob_sha1:
            return f"git blob sha1 {self.git_blob_sha1}"
        return "no checksum pinned (upstream file never seen)"


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset: its files, a one-line description and the paper or repository it comes from."""

    name: str
    description: str
    files: tuple[RemoteFile, ...]
    source: str

    @property
    def unavailable_reason(self) -> str | None:
        """The reason a file is known to be missing, if any."""
        reasons = [f"{Path(f.path).name}: {f.missing}" for f in self.files if f.missing]
        return "; ".join(reasons) or None


def _hgcn(rel: str, sha256: str | None = None, **kw: str) -> RemoteFile:
    return RemoteFile(f"hgcn/{rel}", f"{HGCN}/{rel}", sha256, **kw)


def _planetoid(name: str, hashes: dict[str, str], base: str, missing: dict[str, str] | None = None,
               blobs: dict[str, str] | None = None) -> tuple[RemoteFile, ...]:
    files = [
        RemoteFile(f"planetoid/ind.{name}.{ext}", f"{base}/ind.{name}.{ext}", sha)
        for ext, sha in hashes.items()
    ]
    files += [
        RemoteFile(f"planetoid/ind.{name}.{ext}", f"{base}/ind.{name}.{ext}", git_blob_sha1=(blobs or {}).get(ext), missing=why)
        for ext, why in (missing or {}).items()
    ]
    return tuple(files)


DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in [
        DatasetSpec(
            "disease_lp",
            "HGCN Disease, link prediction: 2,665 nodes, a tree, 11 features",
            (
                _hgcn("disease_lp/disease_lp.edges.csv", "b5b7e41bbfd28fc7f61590e5587622103ee9c3aa1b59911c74873a6f328dca07"),
                _hgcn("disease_lp/disease_lp.feats.npz", "b4a726b13598c036a75e1b49f08e92820553b972966ad950b8d4d5416eb339f8"),
                _hgcn("disease_lp/disease_lp.labels.npy", "8f2b26602764fbb785b93775d9f71194f1f36920e185af8bc5c31aea07dde858"),
            ),
            "Chami et al. 2019 (HazyResearch/hgcn)",
        ),
        DatasetSpec(
            "disease_nc",
            "HGCN Disease, node classification: 1,044 nodes, a tree, 1,000 features",
            (
                _hgcn("disease_nc/disease_nc.edges.csv", "08b2dcf00db1e6a8f491af5294dee98197f1251a63bc9190d05fb4e77507782e"),
                _hgcn(
                    "disease_nc/disease_nc.feats.npz",
                    git_blob_sha1="a80617c2b4ccf3f96b3adc936cf3d784451e459d",
                    missing="the 1,044 x 1,000 feature file (about 8 MB) is in no mirror or snapshot reachable here",
                ),
                _hgcn("disease_nc/disease_nc.labels.npy", "70be7f91a854d924f3b7ac423615d75b1f9ee2506261c44113de27cc2caadd51"),
            ),
            "Chami et al. 2019 (HazyResearch/hgcn)",
        ),
        DatasetSpec(
            "airport",
            "HGCN Airport: 3,188 airports, 18,631 routes, a pickled networkx graph",
            (_hgcn("airport/airport.p", "ab16b04cea3666e87dbd8a5bff3de68da61330f4604fa21082f7a17e806e64d8"),),
            "Chami et al. 2019 (HazyResearch/hgcn)",
        ),
        DatasetSpec(
            "cora",
            "Cora, Planetoid format",
            _planetoid(
                "cora",
                {
                    "x": "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab",
                    "y": "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1",
                    "tx": "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a",
                    "ty": "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad",
                    "allx": "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543",
                    "ally": "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71",
                    "graph": "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d",
                    "test.index": "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875",
                },
                f"{HGCN}/cora",
            ),
            "Sen et al. 2008; Yang et al. 2016 (Planetoid)",
        ),
        DatasetSpec(
            "citeseer",
            "Citeseer, Planetoid format",
            _planetoid(
                "citeseer",
                {
                    "x": "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6",
                    "y": "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924",
                    "tx": "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21",
                    "ty": "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce",
                    "allx": "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668",
                    "ally": "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95",
                    "graph": "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7",
                    "test.index": "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4",
                },
                GCN,
            ),
            "Giles et al. 1998; Yang et al. 2016 (Planetoid)",
        ),
        DatasetSpec(
            "pubmed",
            "Pubmed, Planetoid format",
            _planetoid(
                "pubmed",
                {
                    "x": "fbe9cb5c47200d1b7769a26e579be3b7130b556831f9d850e77c4c74f2599b33",
                    "y": "e6c807633307a07ed659249006536a147c7999c797f11a2560752990181b41b3",
                    "tx": "4eb5f5d0f30f26497eb0ac6ac9719d09c67e284f1ed0385c93f3ef27a671da3d",
                    "ty": "ee2e0d4819d9fbcc403689c3bf2e49face401b605932f093bc58ab6461130fdd",
                    "ally": "0c37bbe3b5014ec365e9d393cf4791925e5ed94fb194305d74f064a8d7b50f0e",
                    "graph": "5b89f0036ca22909471f1e6558eb42fa06e0c730a577bde5b058b40638f81dc9",
                    "test.index": "b101d421688bbaecbd82e8a18f1e282378d6830f3a37666f28ebc47f844341b5",
                },
                f"{HGCN}/pubmed",
                missing={"allx": "the features of 18,657 nodes are in no mirror or snapshot reachable here"},
                blobs={"allx": "3b86bccf08111c37c632a9dd8ab63db25ea76361"},
            ),
            "Namata et al. 2012; Yang et al. 2016 (Planetoid)",
        ),
        *[
            DatasetSpec(
                f"hgb_{name.lower()}",
                f"HGB {name}, node classification (original release, real test labels)",
                (RemoteFile(f"hgb/{name}.zip", f"{HGB}/{name}.zip", sha),),
                "Lv et al. 2021 (THUDM/HGB)",
            )
            for name, sha in [
                ("ACM", "787766fef7526310321b8ac94eb220209c0876a536f6603640d812220ca62134"),
                ("DBLP", "0d3ea4a74399f9cd3e83af206e8e0b67e1844fe2c8463b424189884dd58ad7c8"),
                ("IMDB", "dc98438c28f738ab1e7ba07aaeca4fc2e035d837b7bb3955fdd4f61f14dd81e1"),
            ]
        ],
        DatasetSpec(
            "peptides_func",
            "LRGB Peptides-func: 15,535 peptides as SMILES with 10 labels, and the official split",
            (
                RemoteFile(
                    "lrgb/peptides-functional/raw/peptide_multi_class_dataset.csv.gz",
                    f"{LRGB}/raw/peptide_multi_class_dataset.csv.gz",
                    "e314f7dfb1ac46ef83fe5f5aa4fe502ad4527da633b64e6b997cb0c452511de3",
                ),
                RemoteFile(
                    "lrgb/peptides-functional/splits_random_stratified_peptide.pickle",
                    f"{LRGB}/splits_random_stratified_peptide.pickle",
                    "4573079852cce8867ad2d734c5dd22d77538bbe9f628223a8d4b3b531f6fffd0",
                ),
            ),
            "Dwivedi et al. 2022 (LRGB)",
        ),
        DatasetSpec(
            "wikivitals",
            "WikiVitals: 48,512 vital Wikipedia articles, 2.3M links, 4,000 binary features, 32 classes",
            (
                RemoteFile(
                    "wikivitals/classes1.txt", f"{WIKIVITALS}/classes1.txt",
                    "71be75b89477fd98b5bb6a8d92078e90bcb1094540a892cfaca727171f9523c6",
                ),
                RemoteFile(
                    "wikivitals/features_vocabulary.txt", f"{WIKIVITALS}/features_vocabulary.txt",
                    "48f8218bc362d4450045839b9baa129ad447758484c45461d95bc0637d8413b9",
                ),
                RemoteFile(
                    "wikivitals/features.txt", f"{WIKIVITALS}/features.txt",
                    missing="the article features (a file over 4 MiB) are in no mirror or snapshot reachable here",
                ),
                RemoteFile(
                    "wikivitals/links_filtered.txt", f"{WIKIVITALS}/links_filtered.txt",
                    missing="the 2.3M links (a file over 4 MiB) are in no mirror or snapshot reachable here",
                ),
            ),
            "Fair Evaluation of Graph Markov Neural Networks (ToineSayan/wikivitals-lvl5-04-2022)",
        ),
        DatasetSpec(
            "wn18rr",
            "WN18RR knowledge graph: 40,943 entities, 11 relations",
            (
                RemoteFile(
                    "kg/WN18RR.tar.gz",
                    f"{CONVE}/bc288dd3ae305a9ebd4a216b7629d5f3531aab45/WN18RR.tar.gz",
                    "1eb9152f804c140d163462c0d49f65e5a0b30ab5fbb375c5e3353c11a6249060",
                ),
            ),
            "Dettmers et al. 2018 (ConvE)",
        ),
        DatasetSpec(
            "fb15k237",
            "FB15k-237 knowledge graph: 14,541 entities, 237 relations",
            (
                RemoteFile(
                    "kg/FB15k-237.tar.gz",
                    f"{CONVE}/9e3ad48b3f7bdf1f512dca1723b77bce500508e1/FB15k-237.tar.gz",
                    "311df7930f842a02979eaa7a802484a6afe62303c07f915f1e6edbc30cbe05e8",
                ),
            ),
            "Toutanova & Chen 2015 (via ConvE)",
        ),
        *[
            DatasetSpec(name, f"{title} knowledge graph, shipped inside the pykeen package", (), "pykeen, Ali et al. 2021")
            for name, title in [("nations", "Nations"), ("kinships", "Kinships"), ("umls", "UMLS")]
        ],
    ]
}


def file_digest(path: Path, algorithm: str) -> str:
    """The hex digest of a file: ``sha256``, or ``git-blob`` (sha1 of git's blob header and bytes).
    Computed once per file version (path, size and modification time), however often it is asked for."""
    stat = Path(path).stat()
    return _digest(str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns, algorithm)


@lru_cache(maxsize=512)
def _digest(path: str, size: int, mtime_ns: int, algorithm: str) -> str:
    if algorithm == "git-blob":
        h = hashlib.sha1(f"blob {size}\0".encode())
    else:
        h = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def verify(path: Path, spec: RemoteFile) -> Path:
    """Return ``path`` if its bytes match the pinned checksum, else raise ``ChecksumMismatch``."""
    if spec.sha256:
        expected, got = spec.sha256, file_digest(path, "sha256")
    elif not spec.git_blob_sha1:
        raise ChecksumMismatch(f"{path} has no pinned checksum in the registry and is refused; pin its sha256 first")
    else:
        expected, got = spec.git_blob_sha1, file_digest(path, "git-blob")
    if got != expected:
        raise ChecksumMismatch(
            f"{path} does not match the pinned checksum and is refused.\n"
            f"  expected {spec.checksum_label()}\n  found    {got}\n"
            f"Delete it (or replace it with the upstream file from {spec.url}) and retry."
        )
    return path


def _download(spec: RemoteFile, dest: Path, timeout: float = 20.0) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=dest.parent, prefix=".part-", delete=False) as tmp:
        tmp_path = Path(tmp.name)
        try:
            with urllib.request.urlopen(spec.url, timeout=timeout) as response:
                total = int(response.headers.get("Content-Length") or 0) or None
                with tqdm(total=total, unit="B", unit_scale=True, desc=Path(spec.path).name) as bar:
                    for chunk in iter(lambda: response.read(1 << 16), b""):
                        tmp.write(chunk)
                        bar.update(len(chunk))
        except BaseException:
            tmp_path.unlink(missing_ok=True)
            raise
    try:
        verify(tmp_path, spec)
    except ChecksumMismatch:
        tmp_path.unlink(missing_ok=True)
        raise
    tmp_path.replace(dest)
    return dest


def _replace(bad: Path, good: Path) -> None:
    """Overwrite ``bad`` with a copy of ``good``, atomically."""
    with tempfile.NamedTemporaryFile(dir=bad.parent, prefix=".part-", delete=False) as tmp:
        shutil.copyfileobj(good.open("rb"), tmp)
    Path(tmp.name).replace(bad)


def resolve(
    spec: RemoteFile,
    cache: Path | None = None,
    mirrors: list[Path] | None = None,
    allow_download: bool | None = None,
) -> Path:
    """Find a file in the cache, then the mirrors, then download it; always checksum-verified. A copy
    that fails its checksum is passed over; a bad cache copy is replaced by a good mirror copy."""
    cache = paths.cache_dir() if cache is None else cache
    mirrors = paths.mirror_dirs() if mirrors is None else mirrors
    allow_download = (not paths.offline()) if allow_download is None else allow_download
    refused: list[ChecksumMismatch] = []
    for folder in [cache, *mirrors]:
        candidate = folder / spec.path
        if not candidate.is_file():
            continue
        try:
            verify(candidate, spec)
        except ChecksumMismatch as err:
            refused.append(err)
            continue
        if refused and (cache / spec.path).is_file():  # a bad cache copy: replace it with the good one
            _replace(cache / spec.path, candidate)
            return cache / spec.path
        return candidate
    if refused:
        raise refused[0]
    where = ", ".join(str(m) for m in [cache, *mirrors])
    problem = spec.missing or "not in the cache or any mirror folder"
    if allow_download and not spec.missing:
        try:
            return _download(spec, cache / spec.path)
        except (OSError, ValueError) as err:  # URLError is an OSError
            problem = f"not cached or mirrored, and the download failed ({err})"
    raise DataUnavailable(
        f"{spec.path} is unavailable: {problem}.\n"
        f"  {spec.checksum_label()}\n  upstream: {spec.url}\n"
        f"  put it at {cache / spec.path} (or under a folder named in GRAPHREPRO_MIRROR); looked in: {where}"
    )


def resolve_dataset(name: str, **kwargs) -> dict[str, Path]:
    """Resolve every file of a dataset; a mapping from file name to verified local path."""
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(sorted(DATASETS))}")
    return {Path(f.path).name: resolve(f, **kwargs) for f in DATASETS[name].files}

"""Loaders for chapters 2-5 (HGB, Peptides-func, knowledge graphs) and the assessment splits: on small
fixtures written here in the upstream formats, and on the mirror's real files where present."""

from __future__ import annotations

import gzip
import hashlib
import io
import pickle
import tarfile
import zipfile

import numpy as np
import pytest

from graphrepro.data import hgb, kg, lrgb, splits
from graphrepro.data.archive import UnsafeArchive, member_names
from graphrepro.data.availability import Availability, dataset_status
from graphrepro.data.registry import (
    ChecksumMismatch,
    DataUnavailable,
    RemoteFile,
)

from fixtures import write_fixture

TOY = hgb.HGBSpec("TOY", ("paper", "author", "term"), nodes=18, edges=24, classes=3)
TOY_MULTI = hgb.HGBSpec("TOYM", ("movie", "actor", "keyword"), nodes=18, edges=24, classes=3, multilabel=True)


@pytest.mark.parametrize("spec", [TOY, TOY_MULTI], ids=["single", "multi"])
def test_hgb_fixture_becomes_heterodata(tmp_path, spec):
    path = tmp_path / f"{spec.name}.zip"
    write_fixture(path, spec, np.random.default_rng(0))
    data = hgb.load_zip(path, spec, cache=tmp_path / "cache")
    target = data[spec.node_types[0]]
    assert data[spec.node_types[0]].x.shape == (6, 4) and "x" not in data[spec.node_types[-1]]  # featureless type
    assert len(data.edge_types) == 4 and sum(data[e].edge_index.shape[1] for e in data.edge_types) == spec.edges
    assert (spec.node_types[0], "rel0", spec.node_types[1]) in data.edge_types
    assert (spec.node_types[1], "rel1", spec.node_types[0]) in data.edge_types  # the reverse is its own type
    assert int(target.train_mask.sum()) == 3 and int(target.test_mask.sum()) == 3
    assert not (target.train_mask & target.test_mask).any()
    if spec.multilabel:
        assert target.y.shape == (6, 3) and (target.y.sum(1) == 2).all()
    else:
        assert target.y.tolist() == [0, 1, 2, 0, 1, 2]
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 1  # parsed once
    again = hgb.load_zip(path, spec, cache=tmp_path / "cache")
    assert (again[spec.node_types[0]].x == target.x).all()


def test_hgb_counts_are_checked(tmp_path):
    path = tmp_path / "toy.zip"
    write_fixture(path, TOY, np.random.default_rng(0))
    with pytest.raises(ValueError, match="19 nodes expected|18 nodes, expected 19"):
        hgb.load_zip(path, hgb.HGBSpec("TOY", TOY.node_types, 19, 24, 3), cache=tmp_path / "c")


@pytest.mark.parametrize("name", ["../evil/node.dat", "/etc/node.dat", "TOY/../../node.dat"])
def test_unsafe_archive_members_are_refused(tmp_path, name):
    with pytest.raises(UnsafeArchive, match="refused"):
        member_names(["TOY/link.dat", name])
    path = tmp_path / "evil.zip"
    write_fixture(path, TOY, np.random.default_rng(0))
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(name, "x")
    with pytest.raises(UnsafeArchive):
        hgb.load_zip(path, TOY, cache=tmp_path / "c")


def test_macos_junk_is_ignored():
    assert member_names(["A/node.dat", "__MACOSX/A/._node.dat", "A/.DS_Store", "A/"]) == {"node.dat": "A/node.dat"}


@pytest.mark.parametrize("name", ["DBLP", "ACM", "IMDB"])
@pytest.mark.slow
def test_real_hgb_matches_the_paper(name):
    try:
        data = hgb.load_hgb(name)
    except DataUnavailable as err:
        pytest.skip(str(err))
    spec = hgb.SPECS[name]
    assert sum(data[t].num_nodes for t in data.node_types) == spec.nodes
    assert sum(data[e].edge_index.shape[1] for e in data.edge_types) == spec.edges
    target = data[spec.node_types[0]]
    labelled = int(target.train_mask.sum() + target.test_mask.sum())
    assert labelled == {"DBLP": 4057, "ACM": 3025, "IMDB": 4573}[name]
    assert (target.y.shape[1] == 5) if spec.multilabel else (target.y.max() == spec.classes - 1)


SMILES = ["CCO", "C1=CC=CC=C1", "CC(=O)N"]  # ethanol, benzene, acetamide: 3, 6, 4 heavy atoms


def _peptide_fixture(tmp_path, split=None):
    frame = "smiles,labels\n" + "".join(f'{s},"[{i % 2}, 1, 0]"\n' for i, s in enumerate(SMILES))
    csv = tmp_path / "peptides.csv.gz"
    csv.write_bytes(gzip.compress(frame.encode()))
    split_path = tmp_path / "split.pickle"
    split_path.write_bytes(pickle.dumps(split or {"train": np.array([0, 2]), "val": np.array([1]), "test": np.array([], dtype=np.int64)}))
    spec = RemoteFile("split.pickle", "file:///none", hashlib.sha256(split_path.read_bytes()).hexdigest())
    return csv, split_path, spec


def test_peptides_fixture_through_smiles2graph(tmp_path):
    csv, split_path, spec = _peptide_fixture(tmp_path)
    stats = lrgb.PeptideStats(graphs=3, nodes=13, edges=2 * (2 + 6 + 3), split=(2, 1, 0), tasks=3)
    arrays = lrgb.process(csv, split_path, spec, stats, cache=tmp_path / "cache", progress=False)
    graphs = lrgb.graphs(arrays)
    assert [g.num_nodes for g in graphs["train"]] == [3, 4] and graphs["val"][0].num_nodes == 6
    assert graphs["train"][0].x.shape == (3, 9) and graphs["train"][0].edge_attr.shape == (4, 3)
    assert graphs["val"][0].y.tolist() == [[1.0, 1.0, 0.0]]
    with pytest.raises(ValueError, match="not the expected release"):
        lrgb.process(csv, split_path, spec, lrgb.PeptideStats(graphs=3, nodes=14, edges=22, split=(2, 1, 0), tasks=3),
                     cache=tmp_path / "other", progress=False)


def test_split_pickle_is_never_unpickled_unverified(tmp_path):
    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    csv, split_path, spec = _peptide_fixture(tmp_path)
    split_path.write_bytes(pickle.dumps(Exploit()))  # swapped after the checksum was pinned
    with pytest.raises(ChecksumMismatch):
        lrgb.process(csv, split_path, spec, cache=tmp_path / "cache", progress=False)
    assert not marker.exists()


def test_label_cells_are_parsed_not_evaluated():
    assert lrgb.parse_label_list("[0, 1, 0.0]") == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError):
        lrgb.parse_label_list("__import__('os')")


def _kg_tarball(tmp_path, crlf: bool):
    end = "\r\n" if crlf else "\n"
    parts = {"train": [("a", "r1", "b"), ("b", "r2", "c")], "valid": [("a", "r2", "c")], "test": [("c", "r1", "d")]}
    path = tmp_path / "kg.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for part, rows in parts.items():
            data = end.join("\t".join(r) for r in rows).encode() + end.encode()
            info = tarfile.TarInfo(f"{part}.txt")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_kg_parts_share_one_map_and_keep_unseen_entities(tmp_path, monkeypatch, crlf):
    monkeypatch.setenv("GRAPHREPRO_DATA", str(tmp_path / "cache"))
    parts = kg.factories(kg.triples_from_tarball(_kg_tarball(tmp_path, crlf)))
    assert parts["train"].entity_to_id == parts["test"].entity_to_id == {"a": 0, "b": 1, "c": 2, "d": 3}
    assert parts["test"].num_triples == 1  # 'd' appears only in test and is kept
    assert all(not e.endswith("\r") for e in parts["train"].entity_to_id)
    kg.check(parts, kg.KGStats(2, 1, 1, 4, 2), "toy")
    with pytest.raises(ValueError, match="not the expected release"):
        kg.check(parts, kg.KGStats(2, 1, 1, 5, 2), "toy")
    assert str(kg.use_project_cache()).startswith(str(tmp_path / "cache"))


@pytest.mark.parametrize("name", ["wn18rr", "fb15k237"])
@pytest.mark.slow
def test_real_kg_counts(name):
    try:
        parts = kg.load_kg(name)
    except DataUnavailable as err:
        pytest.skip(str(err))
    stats = kg.STATS[name]
    assert parts["train"].num_entities == stats.entities and parts["valid"].num_triples == stats.valid


def test_pykeen_shipped_graphs_load_offline():
    parts = kg.load_kg("nations")
    assert parts["train"].num_entities == 14 and parts["train"].num_relations == 55


def test_data_lists_every_chapters_datasets():
    for name in ("hgb_dblp", "hgb_acm", "hgb_imdb", "peptides_func", "wn18rr", "fb15k237", "nations", "kinships", "umls"):
        assert dataset_status(name)["status"] in (Availability.AVAILABLE, Availability.UNAVAILABLE)


LABELS = np.repeat(np.arange(4), [50, 30, 15, 5])


def test_folds_are_disjoint_stratified_and_deterministic():
    folds = splits.stratified_folds(LABELS, k=5, seed=0)
    tests = np.concatenate([f.test for f in folds])
    assert np.array_equal(np.sort(tests), np.arange(len(LABELS)))  # every node tested exactly once
    for fold in folds:
        assert not set(fold.train) & set(fold.valid) and not (set(fold.train) | set(fold.valid)) & set(fold.test)
        assert len(fold.train) + len(fold.valid) + len(fold.test) == len(LABELS)
        assert np.bincount(LABELS[fold.test], minlength=4).tolist() == [10, 6, 3, 1]  # stratified
    again = splits.stratified_folds(LABELS, k=5, seed=0)
    assert all(np.array_equal(a.train, b.train) and np.array_equal(a.valid, b.valid) for a, b in zip(folds, again))
    other = splits.stratified_folds(LABELS, k=5, seed=1)
    assert not all(np.array_equal(a.test, b.test) for a, b in zip(folds, other))


def test_sparse_train_sets():
    fold = splits.stratified_folds(LABELS, k=5, seed=0)[0]
    balanced = splits.sparse_balanced(fold.train, LABELS, per_class=10, seed=0)
    assert set(balanced) <= set(fold.train)
    assert np.bincount(LABELS[balanced]).tolist() == [10, 10, 10, min(10, int((LABELS[fold.train] == 3).sum()))]
    stratified = splits.sparse_stratified(fold.train, LABELS, per_class=5, seed=0)
    assert len(stratified) == 20 and set(stratified) <= set(fold.train)
    counts = np.bincount(LABELS[stratified], minlength=4)
    assert counts[0] > counts[1] > counts[2]  # in proportion to the classes
    assert np.array_equal(stratified, splits.sparse_stratified(fold.train, LABELS, per_class=5, seed=0))


def test_holdout_valid_is_a_partition():
    train, valid = splits.holdout_valid(np.arange(100, 150), 0.2, seed=3)
    assert len(valid) == 10 and not set(train) & set(valid) and set(train) | set(valid) == set(range(100, 150))



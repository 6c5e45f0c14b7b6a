"""Loaders for datasets that are (partly) unobtainable here, on fixtures in the upstream formats."""

from __future__ import annotations

import pickle
from collections import defaultdict

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from graphrepro.data import DataUnavailable
from graphrepro.data.planetoid import PARTS, planetoid_data
from graphrepro.data.availability import dataset_status
from graphrepro.data.wikivitals import wikivitals_data


def _write_planetoid(folder, name="pubmed", n=512):
    """Planetoid's layout: 2 labelled training nodes, the rest of allx (PyG takes 500 of it for
    validation), and 2 test nodes whose rows are listed out of order in test.index."""
    rng = np.random.default_rng(0)
    feats = sp.csr_matrix(rng.integers(0, 2, (n, 5)).astype(np.float32))
    onehot = np.eye(3)[np.arange(n) % 3]
    chain = {i: [j for j in (i - 1, i + 1) if 0 <= j < n] for i in range(n)}
    objects = {
        "x": feats[:2], "y": onehot[:2], "allx": feats[: n - 2], "ally": onehot[: n - 2],
        "tx": feats[n - 2 :], "ty": onehot[n - 2 :], "graph": defaultdict(list, chain),
    }
    folder.mkdir(parents=True, exist_ok=True)
    for part, obj in objects.items():
        (folder / f"ind.{name}.{part}").write_bytes(pickle.dumps(obj))
    (folder / f"ind.{name}.test.index").write_text(f"{n - 1}\n{n - 2}\n")
    return {f"ind.{name}.{p}": folder / f"ind.{name}.{p}" for p in PARTS}, feats.toarray(), onehot


def test_planetoid_loader_on_a_fixture(tmp_path):
    files, feats, onehot = _write_planetoid(tmp_path)
    data = planetoid_data("pubmed", files)
    assert data.num_nodes == 512 and data.edge_index.shape[1] == 2 * 511
    # test.index lists node 511 first: the first row of tx belongs to node 511
    torch.testing.assert_close(data.x[511], torch.tensor(feats[510]))
    assert data.y[510] == onehot[511].argmax() and data.y[:3].tolist() == [0, 1, 2]
    assert int(data.train_mask.sum()) == 2 and int(data.val_mask.sum()) == 500 and data.test_mask[[510, 511]].all()


def test_pubmed_rows_read_unavailable():
    status = dataset_status("pubmed")
    if status["status"] == "available":
        pytest.skip("ind.pubmed.allx is present here")
    assert status["status"] == "unavailable" and "ind.pubmed.allx" in status["reason"]
    with pytest.raises(DataUnavailable, match="ind.pubmed.allx"):
        planetoid_data("pubmed")


def test_real_cora_through_pyg_reader():
    try:
        data = planetoid_data("cora")
    except DataUnavailable as err:
        pytest.skip(str(err))
    assert (data.num_nodes, data.num_features, int(data.y.max()) + 1) == (2708, 1433, 7)
    assert int(data.train_mask.sum()) == 140


def test_wikivitals_loader_on_a_fixture(tmp_path):
    (tmp_path / "classes1.txt").write_text("10\tArts ->- Arts\n20\tPeople ->- Writers\n30\tArts ->- Arts\n")
    (tmp_path / "features_vocabulary.txt").write_text("abs_a\nhea_b\ntit_c\n")
    (tmp_path / "features.txt").write_text("20\tabs_a tit_c:2\n10\thea_b\n99\tabs_a\n")
    (tmp_path / "links_filtered.txt").write_text("10\t20\n20\t30\n30\t99\n")
    files = {p.name: p for p in tmp_path.iterdir()}
    data = wikivitals_data(files)
    assert data.y.tolist() == [0, 1, 0] and data.class_names == ["Arts ->- Arts", "People ->- Writers"]
    assert data.x.tolist() == [[0, 1, 0], [1, 0, 1], [0, 0, 0]]
    assert data.edge_index.shape[1] == 4  # two links, both directions; the link to an unknown id is dropped
    (tmp_path / "links_filtered.txt").write_text("10 20\n")
    with pytest.raises(ValueError, match="links_filtered.txt:1"):
        wikivitals_data(files)


def test_wikivitals_rows_read_unavailable():
    status = dataset_status("wikivitals")
    if status["status"] == "available":
        pytest.skip("the WikiVitals links and features are present here")
    assert status["status"] == "unavailable" and "links" in status["reason"]
    with pytest.raises(DataUnavailable, match="wikivitals/.* is unavailable"):
        wikivitals_data()

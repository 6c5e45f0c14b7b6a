"""Small files in the upstream formats, written by the tests that read them (the library ships no test data)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from graphrepro.data.hgb import HGBSpec


def write_fixture(path: Path, spec: HGBSpec, rng: np.random.Generator, per_type: int = 6, dims: int = 4,
                  junk: bool = True, member_prefix: str = "") -> None:
    """A small HGB-format zip: ``per_type`` nodes per type, types but the last with features,
    one relation and its reverse between the target type and every other, labels on the target type."""
    n_types = len(spec.node_types)
    node_lines, links = [], []
    for t in range(n_types):
        for i in range(per_type):
            gid = t * per_type + i
            feats = "\t" + ",".join(f"{v:.2f}" for v in rng.random(dims)) if t < n_types - 1 else ""
            node_lines.append(f"{gid}\tn{gid}\t{t}{feats}")
    for t in range(1, n_types):
        for i in range(per_type):
            a, b = i, t * per_type + (i + t) % per_type
            links += [f"{a}\t{b}\t{2 * (t - 1)}\t1.0", f"{b}\t{a}\t{2 * (t - 1) + 1}\t1.0"]
    labels = [(i, sorted({i % spec.classes, (i + 1) % spec.classes}) if spec.multilabel else [i % spec.classes])
              for i in range(per_type)]
    line = lambda i, c: f"{i}\tn{i}\t0\t{','.join(map(str, c))}"  # noqa: E731
    cut = per_type // 2
    files = {"node.dat": node_lines, "link.dat": links, "label.dat": [line(i, c) for i, c in labels[:cut]],
             "label.dat.test": [line(i, c) for i, c in labels[cut:]]}
    with zipfile.ZipFile(path, "w") as archive:
        for name, rows in files.items():
            archive.writestr(f"{member_prefix}{spec.name}/{name}", "\n".join(rows) + "\n")
        if junk:
            archive.writestr(f"__MACOSX/{spec.name}/._node.dat", b"\x00junk")
            archive.writestr(f"{spec.name}/.DS_Store", b"\x00junk")

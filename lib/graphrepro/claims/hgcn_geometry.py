"""Chapter 1, geometry: Gromov δ and Ollivier–Ricci curvature of the datasets, and the tripod (Figure 1)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import scipy.sparse as sp
import seaborn as sns

from graphrepro import geometry
from graphrepro.data.hgcn import raw_graph, read_disease
from graphrepro.data.registry import DATASETS, resolve
from graphrepro.data.synthetic import tree_graph

PAPER_DELTA = {"disease_lp": 0, "disease_nc": 0, "airport": 1, "tree1111": 0}  # Katsman & Gilbert, Table 1 header and §5
CURVATURES = (0.0, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64)  # |K| for the tripod figure


def graph(name: str) -> sp.csr_matrix:
    """The adjacency of a chapter-1 graph (only edges: disease_nc needs no feature file here)."""
    if name == "tree1111":
        return tree_graph(10, 3)[0]
    if name == "disease_nc":
        files = {f.path.split("/")[-1]: f for f in DATASETS[name].files}
        return read_disease(resolve(files["disease_nc.edges.csv"]), resolve(files["disease_nc.labels.npy"]), None)[0]
    return raw_graph(name)[0]


def delta_table(params: dict[str, Any]) -> pd.DataFrame:
    """Gromov δ (four-point condition) of each graph beside the paper's value."""
    rows = []
    for name, paper in PAPER_DELTA.items():
        result = geometry.gromov_delta(graph(name), samples=params["delta_samples"])
        rows.append({
            "graph": name, "nodes": result["nodes"], "δ (paper)": paper, "δ (ours)": result["delta"],
            "how": "exact" if result["exact"] else f"max over {result['quadruples']:,} random quadruples",
        })
    return pd.DataFrame(rows).set_index("graph")


def curvature_frame(params: dict[str, Any], names: tuple[str, ...] = ("disease_lp", "tree1111", "airport")) -> pd.DataFrame:
    """Ollivier–Ricci curvature of every edge (or a random sample of ``ricci_edges``) of each graph."""
    rows = []
    rng = np.random.default_rng(0)
    for name in names:
        adj = graph(name)
        edges = np.stack(sp.triu(adj, k=1).nonzero(), axis=1)
        if params["ricci_edges"] and params["ricci_edges"] < len(edges):
            edges = edges[rng.choice(len(edges), params["ricci_edges"], replace=False)]
        kappa = geometry.ollivier_ricci(adj, edges)
        rows.append(pd.DataFrame({"graph": name, "curvature": kappa}))
    return pd.concat(rows, ignore_index=True)


def curvature_figure(frame: pd.DataFrame) -> plt.Figure:
    """Overlaid histograms of edge curvature, one colour per graph (density, so sizes compare)."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    sns.histplot(frame, x="curvature", hue="graph", stat="density", common_norm=False, element="step",
                 bins=np.linspace(-2, 1, 61), ax=ax)
    ax.set_xlabel("Ollivier–Ricci curvature of an edge")
    fig.tight_layout()
    return fig


def curvature_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Edges, mean and quartiles of the curvature per graph."""
    summary = frame.groupby("graph", sort=False).curvature.describe()[["count", "mean", "25%", "50%", "75%"]]
    return summary.astype({"count": int}).round(3)


def tripod_frame(curvatures: tuple[float, ...] = CURVATURES) -> pd.DataFrame:
    """Leaf-to-leaf distance of the tripod against |K|: geoopt's Lorentz distance and the closed form."""
    return pd.DataFrame([
        {"|K|": k, "geoopt": geometry.tripod_leaf_distance(k), "closed form": geometry.tripod_leaf_distance_closed_form(k)}
        for k in curvatures
    ])


def tripod_figure(frame: pd.DataFrame) -> plt.Figure:
    """Figure 1: the leaf-to-leaf distance approaches the graph's 2 as |K| grows; Euclidean space keeps √3."""
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(frame["|K|"], frame["closed form"], label="closed form", linewidth=2)
    ax.plot(frame["|K|"], frame["geoopt"], "o", label="geoopt Lorentz.dist")
    ax.axhline(2.0, color="grey", linestyle="--", label="graph distance (2)")
    ax.axhline(np.sqrt(3), color="grey", linestyle=":", label="Euclidean (√3)")
    ax.set_xscale("symlog", linthresh=0.25)
    ax.set_xlim(left=0)
    ax.set_xlabel("|K| (curvature magnitude)")
    ax.set_ylabel("leaf-to-leaf distance")
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig

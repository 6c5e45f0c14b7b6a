"""Peptides-func graph classification (LRGB): GCN, GINE and GatedGCN under LRGB's original configurations
and Tönshoff et al.'s tuned ones, mini-batch AdamW, test AP at the epoch of best validation AP. A run
checkpoints every epoch (sha256-pinned), so an interrupted run continues where it stopped."""

from __future__ import annotations

import io
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader
from torch_geometric.transforms import AddRandomWalkPE
from tqdm.auto import tqdm

from graphrepro import checkpoints, paths, precision, vocabulary
from graphrepro.data import lrgb as lrgb_data
from graphrepro.experiments import Experiment
from graphrepro.metrics import multilabel_ap
from graphrepro.models.lrgb import Architecture, PeptideModel, parameter_count
from graphrepro.train import release_freed_memory, seed_everything

MODELS = vocabulary.LRGB_MODELS
GPS = "GPS"  # the graph transformer of the reference line; tuned base only
RWSE_STEPS = 20
LAPPE_FREQUENCIES, LAPPE_DIM = 10, 16
# LRGB's original configs (vijaydwivedi75/lrgb configs/{GCN,GINE,GatedGCN}/peptides-func-*.yaml)
ORIGINAL: dict[str, dict[str, Any]] = {
    "GCN": {"layers": 5, "hidden": 300, "residual": False, "batchnorm": True, "l2norm": True},
    "GINE": {"layers": 5, "hidden": 208, "residual": True, "batchnorm": False, "l2norm": False},
    "GatedGCN": {"layers": 5, "hidden": 138, "residual": True, "batchnorm": False, "l2norm": False},
}
# Tönshoff et al.'s tuned configs (toenshoff/LRGB configs/LRGB-tuned/peptides-func-*.yaml)
TUNED: dict[str, dict[str, Any]] = {
    "GCN": {"layers": 6, "hidden": 235},
    "GINE": {"layers": 8, "hidden": 160},
    "GatedGCN": {"layers": 10, "hidden": 95},
    # toenshoff/LRGB configs/LRGB-tuned/peptides-func-GPS.yaml: GatedGCN + Transformer, LapPE, a 2-layer head
    GPS: {"layers": 6, "hidden": 76, "rwse": False, "lappe": True, "heads": 4, "attention_dropout": 0.5, "head_layers": 2},
}
BASES: dict[str, dict[str, Any]] = {
    "lrgb": {"head_layers": 1, "head_norm": True, "activation": "relu", "dropout": 0.0, "rwse": False, "batch_size": 128, "lr": 1e-3,
             "epochs": 500, "schedule": "plateau", "warmup_epochs": 0.0, "schedule_per_batch": False, "clip": False},
    "tuned": {"head_layers": 3, "head_norm": False, "l2norm": False, "activation": "gelu", "dropout": 0.1, "rwse": True, "batch_size": 200, "lr": 1e-3,
              "epochs": 250, "schedule": "cosine", "warmup_epochs": 5.0, "schedule_per_batch": False, "clip": True,
              "residual": True, "batchnorm": False},
}
STEPS = ("reference", "fast")  # today's step (its records), and the fast one (models.lrgb.FAST says what changes)
MATMULS = ("aten", "onednn")  # fp32 linear products on a CPU: torch's own (MKL; the records'), or oneDNN's (models.onednn)
PLATEAU = {"factor": 0.5, "patience": 20, "min_lr": 1e-5}  # GraphGym's reduce_on_plateau, stepped on val loss
STOP_AT_MIN_LR = 20  # issue 30's rule: a plateau run may stop at the minimum rate after this many epochs without a better val AP
EVAL_BATCH = 128  # evaluation batches do not change the scores (BatchNorm uses its running statistics); larger were slower


def make_config(model: str, base: str, seed: int, **overrides: Any) -> dict[str, Any]:
    """A run: the base configuration of ``model`` with ``overrides`` (``head_layers``, ``rwse``, ``epochs``,
    ``train_graphs``/``eval_graphs`` to take the first graphs of each split, 0 for all; ``precision``; ``step``,
    ``fast`` for the fast step (``FAST``) in fp32, which bf16 always takes; ``matmul``, ``onednn`` for oneDNN's fp32
    linear products). The defaults, float32, today's step and torch's products, stay out of the key, so records
    made before any existed keep theirs."""
    if model not in MODELS + (GPS,):
        raise ValueError(f"unknown model {model!r}; choose from {MODELS + (GPS,)}")
    if model == GPS and base != "tuned":
        raise ValueError("GPS runs only under the tuned configuration (toenshoff/LRGB's)")
    if base not in BASES:
        raise ValueError(f"unknown base configuration {base!r}; choose from {tuple(BASES)}")
    shape = TUNED[model] if base == "tuned" else ORIGINAL[model]
    config = {"model": model, "base": base, **BASES[base], **shape, "train_graphs": 0, "eval_graphs": 0,
              "seed": seed}
    unknown = set(overrides) - set(config) - {"precision", "step", "matmul", "stop_at_min_lr"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)} for a Peptides-func run")
    if overrides.get("stop_at_min_lr") and config["schedule"] != "plateau":
        raise ValueError("stop_at_min_lr applies to the plateau schedule (LRGB's configurations) only")
    if overrides.get("step", "reference") not in STEPS:
        raise ValueError(f"unknown step {overrides['step']!r}; choose from {STEPS}")
    if overrides.get("step") == "reference" or precision.of(overrides) != precision.FLOAT32:  # today's step and bf16's
        overrides.pop("step", None)  # implied one stay out of the key, as float32 does
    if overrides.get("matmul", MATMULS[0]) not in MATMULS:
        raise ValueError(f"unknown matmul {overrides['matmul']!r}; choose from {MATMULS}")
    if overrides.get("matmul") == MATMULS[0]:
        overrides.pop("matmul")
    return precision.keyed({**config, **overrides})


def fast_step(config: dict[str, Any]) -> bool:
    """Whether a run takes the fast step (bf16 always; fp32 when its config asks)."""
    return precision.of(config) != precision.FLOAT32 or config.get("step") == "fast"


def architecture(config: dict[str, Any]) -> Architecture:
    """The model a config builds."""
    return Architecture(config["model"], config["layers"], config["hidden"], config["head_layers"],
                        config["activation"], config["dropout"], config["residual"], config["batchnorm"],
                        l2norm=config["l2norm"], head_norm=config["head_norm"],
                        rwse_steps=RWSE_STEPS if config["rwse"] else 0, lappe_dim=LAPPE_DIM if config.get("lappe") else 0,
                        heads=config.get("heads", 4), attention_dropout=config.get("attention_dropout", 0.5),
                        fast=fast_step(config), matmul=config.get("matmul", MATMULS[0]))


def build(config: dict[str, Any]) -> PeptideModel:
    """The seeded, initialised model of a config."""
    return PeptideModel(architecture(config), tuned=config["base"] == "tuned")


def data_key(config: dict[str, Any]) -> tuple:
    """Runs with the same encodings and subsets share prepared data."""
    return (config["rwse"], config.get("lappe", False), config["train_graphs"], config["eval_graphs"])


def random_walk_se(graphs: list[Data], progress: bool = True) -> list[torch.Tensor]:
    """PyG's ``AddRandomWalkPE``: each node's probability of being back after 1..20 random-walk steps."""
    add = AddRandomWalkPE(walk_length=RWSE_STEPS, attr_name="rwse")
    with torch.no_grad():
        return [add(g.clone()).rwse for g in tqdm(graphs, desc="Peptides-func: RWSE", unit="graph", disable=not progress)]


def laplacian_pe(graphs: list[Data], progress: bool = True) -> list[torch.Tensor]:
    """GraphGPS's LapPE inputs per node: the 10 eigenvectors of the unnormalised Laplacian D - A with the
    smallest eigenvalues, and those eigenvalues (clamped at 0), NaN-padded for graphs of fewer nodes;
    one [nodes, 20] tensor per graph (vectors, then values)."""
    out = []
    for g in tqdm(graphs, desc="Peptides-func: LapPE", unit="graph", disable=not progress):
        n = g.num_nodes
        adj = np.zeros((n, n))
        adj[g.edge_index[0].numpy(), g.edge_index[1].numpy()] = 1.0
        adj = np.maximum(adj, adj.T)
        values, vectors = np.linalg.eigh(np.diag(adj.sum(1)) - adj)
        k = min(n, LAPPE_FREQUENCIES)
        vecs, vals = np.full((n, LAPPE_FREQUENCIES), np.nan), np.full((n, LAPPE_FREQUENCIES), np.nan)
        vecs[:, :k] = vectors[:, :k] / np.maximum(np.linalg.norm(vectors[:, :k], axis=0), 1e-12)
        vals[:, :k] = np.clip(values[:k], 0.0, None)
        out.append(torch.from_numpy(np.concatenate([vecs, vals], 1)).float())
    return out


def _cached(name: str, graphs: list[Data], encode) -> torch.Tensor:
    """An encoding of every peptide (in dataset order), computed once and cached as a plain ``.npy``."""
    cached = paths.cache_dir() / "processed" / f"peptides_func_{name}_{len(graphs)}.npy"
    if cached.exists():
        return torch.from_numpy(np.load(cached, allow_pickle=False))
    values = torch.cat(encode(graphs)).numpy()
    paths.write_atomically(cached, lambda tmp: np.save(tmp, values))
    return torch.from_numpy(values)


def _attach(graphs: list[Data], name: str, values: torch.Tensor) -> None:
    """Give each graph its rows of a node-level encoding (graphs in the order the rows were computed)."""
    offset = 0
    for graph in graphs:
        rows, offset = values[offset : offset + graph.num_nodes], offset + graph.num_nodes
        if name == "lappe":
            graph.eigvecs, graph.eigvals = rows[:, :LAPPE_FREQUENCIES], rows[:, LAPPE_FREQUENCIES:]
        else:
            graph.rwse = rows


def prepare(config: dict[str, Any]) -> dict[str, list[Data]]:
    """The splits (their first ``train_graphs``/``eval_graphs`` graphs when set), with RWSE when the config uses it."""
    split = lrgb_data.load_peptides_func(progress=False)  # a page shows grid progress, not data processing
    limits = {"train": config["train_graphs"], "val": config["eval_graphs"], "test": config["eval_graphs"]}
    chosen = {k: graphs[: limits[k]] if limits[k] else graphs for k, graphs in split.items()}
    encodings = {"rwse": (f"rwse{RWSE_STEPS}", random_walk_se), "lappe": (f"lappe{LAPPE_FREQUENCIES}", laplacian_pe)}
    for field, (name, encode) in encodings.items():
        if not config.get(field):
            continue
        if not any(limits.values()):  # the whole dataset: cached
            every = [g for k in lrgb_data.SPLITS for g in split[k]]
            _attach(every, field, _cached(name, every, lambda graphs: encode(graphs, progress=False)))
        else:
            for graphs in chosen.values():
                _attach(graphs, field, torch.cat(encode(graphs, progress=False)))
    return chosen


def lr_factor(t: float, config: dict[str, Any]) -> float:
    """GraphGPS's cosine schedule with linear warm-up at (fractional) epoch ``t``: at least 1e-6 during warm-up."""
    warmup, total = config["warmup_epochs"], config["epochs"]
    if t < warmup:
        return max(1e-6, t / warmup)
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * (t - warmup) / max(1e-9, total - warmup))))


def release_every(model: str) -> int:
    """Batches between returning freed heap pages: every batch for GPS, whose process otherwise grew by about a
    gigabyte a batch between releases (most likely its attention chunks: blocks of 1-32 MB, which glibc serves from its heap) in a step
    of about 11 s (returning it every batch costs about 10%); every tenth for the others, whose steps are far
    shorter (no measurable cost at 10)."""
    return 1 if model == GPS else 10


def checkpoint_dir(key: str) -> Path:
    """Where a run's checkpoint lives while it trains (the cache; ``checkpoints.carry`` copies it to the run store)."""
    return checkpoints.folder("peptides-func", key)


def save_checkpoint(folder: Path, state: dict[str, Any]) -> None:
    """Write the state atomically, then its sha256 and epochs beside it (a checkpoint without a matching digest is ignored)."""
    checkpoints.write_pinned(folder / "state.pt", lambda path: torch.save(state, path), epochs=len(state["curve"]["val_ap"]))


def load_checkpoint(folder: Path, repair: bool = True) -> dict[str, Any] | None:
    """The saved state, only if its bytes match their pinned sha256, and then without unpickling code
    (``repair``: as ``checkpoints.read_verified``)."""
    data = checkpoints.read_verified(folder / "state.pt", repair)
    if data is None:
        return None  # none, torn or edited: start over rather than trust it
    return torch.load(io.BytesIO(data), weights_only=True)


def epochs_checkpointed(key: str) -> int:
    """Epochs a run not yet recorded has finished in the checkpoint it would resume from (this machine's or the
    carried one; 0 when it has none); it only looks, so a run training meanwhile loses nothing."""
    state = load_checkpoint(checkpoint_dir(key), repair=False)
    return 0 if state is None else len(state["curve"]["val_ap"])


def at_rest(curve: dict[str, list[float]], patience: int) -> bool:
    """Whether a plateau run may stop (``patience`` 0: never): its rate at the minimum and its best validation AP
    ``patience`` or more epochs behind."""
    if not patience or not curve["val_ap"] or curve["lr"][-1] > PLATEAU["min_lr"] * (1 + 1e-6):
        return False
    return len(curve["val_ap"]) - 1 - int(np.argmax(curve["val_ap"])) >= patience


def _evaluate(model: PeptideModel, graphs: list[Data], device: torch.device,
              mixed: str = precision.FLOAT32) -> tuple[float, float]:
    """(AP, mean BCE loss) on a split; the scores in fp32 whatever the precision of the forward pass."""
    model.eval()
    scores, labels = [], []
    with torch.no_grad(), precision.autocast(mixed, device):
        for batch in DataLoader(graphs, batch_size=EVAL_BATCH):
            batch = batch.to(device)
            scores.append(model(batch).float().cpu())
            labels.append(batch.y.cpu())
    s, y = torch.cat(scores), torch.cat(labels)
    return multilabel_ap(y.numpy(), s.numpy()), float(F.binary_cross_entropy_with_logits(s, y))


def train_run(data: dict[str, list[Data]], config: dict[str, Any], device: torch.device, key: str,
              stop_after: int | None = None) -> dict[str, Any] | None:
    """Train one config from its checkpoint (or from scratch), checkpointing after every epoch; the
    metrics and the per-epoch curve when it finishes, None when ``stop_after`` epochs ended it early."""
    seed_everything(config["seed"])
    mixed = config.get("precision", precision.FLOAT32)
    model = build(config).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=0.0)
    plateau = (torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", **PLATEAU)
               if config["schedule"] == "plateau" else None)
    shuffle = torch.Generator().manual_seed(config["seed"])
    loader = DataLoader(data["train"], batch_size=config["batch_size"], shuffle=True, generator=shuffle)
    folder = checkpoint_dir(key)
    curve: dict[str, list[float]] = {k: [] for k in ("train_loss", "val_ap", "test_ap", "val_loss", "lr", "train_s", "eval_s")}
    resumed_s = 0.0
    state = load_checkpoint(folder)
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimiser"])
        if plateau is not None:
            plateau.load_state_dict(state["plateau"])
        shuffle.set_state(state["shuffle"])
        torch.set_rng_state(state["torch_rng"])
        curve = state["curve"]
        resumed_s = float(np.sum(curve["train_s"]) + np.sum(curve["eval_s"]))  # the epochs earlier processes trained
    for epoch in range(len(curve["val_ap"]), config["epochs"]):
        if at_rest(curve, config.get("stop_at_min_lr", 0)):  # the stated rule (issue 30), in the config and key
            break
        if stop_after is not None and epoch >= stop_after:
            return None
        model.train()
        start, losses, steps, every = time.perf_counter(), [], len(loader), release_every(config["model"])
        for i, batch in enumerate(loader):
            if config["schedule"] == "cosine":
                t = epoch + i / steps if config["schedule_per_batch"] else epoch
                for group in opt.param_groups:
                    group["lr"] = config["lr"] * lr_factor(t, config)
            batch = batch.to(device)
            opt.zero_grad()
            with precision.autocast(mixed, device):
                logits = model(batch)
            loss = F.binary_cross_entropy_with_logits(logits.float(), batch.y)
            loss.backward()
            if config["clip"]:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(float(loss.detach()))
            if i % every == every - 1:  # batches vary in size and fragment the heap: 13 GB unreleased
                release_freed_memory()
        train_s = time.perf_counter() - start
        start = time.perf_counter()
        val_ap, val_loss = _evaluate(model, data["val"], device, mixed)
        test_ap, _ = _evaluate(model, data["test"], device, mixed)
        if plateau is not None:
            plateau.step(val_loss)
        for name, value in (("train_loss", float(np.mean(losses))), ("val_ap", val_ap), ("test_ap", test_ap),
                            ("val_loss", val_loss), ("lr", opt.param_groups[0]["lr"]), ("train_s", train_s),
                            ("eval_s", time.perf_counter() - start)):
            curve[name].append(value)
        save_checkpoint(folder, {"model": model.state_dict(), "optimiser": opt.state_dict(), "curve": curve,
                                 "plateau": plateau.state_dict() if plateau is not None else {},
                                 "shuffle": shuffle.get_state(), "torch_rng": torch.get_rng_state()})
    best = int(np.argmax(curve["val_ap"]))
    train_graphs, eval_graphs = len(data["train"]), len(data["val"]) + len(data["test"])
    metrics = {
        "val_ap": curve["val_ap"][best], "test_ap": curve["test_ap"][best], "val_loss": curve["val_loss"][best],
        "best_epoch": best, "epochs_run": len(curve["val_ap"]), "parameters": parameter_count(model), "resumed_s": resumed_s,
        **({"stopped_early": len(curve["val_ap"]) < config["epochs"]} if config.get("stop_at_min_lr") else {}),
        "artefacts": {"curve": {k: np.asarray(v, dtype=np.float64) for k, v in curve.items()}
                      | {"train_graphs_per_s": np.asarray(train_graphs / np.asarray(curve["train_s"])),
                         "eval_graphs_per_s": np.asarray(eval_graphs / np.asarray(curve["eval_s"]))}},
    }
    checkpoints.discard(folder)
    return metrics


def train(data: dict[str, list[Data]], configs: list[dict[str, Any]], device: torch.device) -> list[dict[str, Any]]:
    """Train configs one at a time (each continues from its checkpoint when one exists)."""
    return [train_run(data, c, device, EXPERIMENT.key(c)) for c in configs]


EXPERIMENT = Experiment("peptides-func", 1, make_config, data_key, prepare, train, stacks=False, threads=1,
                        metrics=("ap", "loss"), selection=lambda c: "ap",
                        checkpointed=lambda c: epochs_checkpointed(EXPERIMENT.key(c)), speed_fields=("step", "matmul"),
                        kind_fields=("base",))

"""Knowledge-graph link prediction with pykeen (Hoyt et al. 2022's setting): TransE, RotatE, ComplEx and
TuckER on Nations, Kinships, UMLS, WN18RR and FB15k-237, filtered evaluation of both sides of every
test triple. A run keeps its per-query ranks (optimistic, realistic, pessimistic, head and tail) and
candidate counts as an artefact, so every metric on the page is recomputed from them by
``graphrepro.metrics.ranking``; pykeen's own values are recorded beside them as a cross-check."""

from __future__ import annotations

import contextlib
import logging
import time
import warnings
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import torch

from graphrepro import checkpoints, vocabulary
from graphrepro.data import kg as kg_data
from graphrepro.experiments import Experiment, kg_hoyt, kg_scoring
from graphrepro.metrics import METRICS

DATASETS, MODELS = vocabulary.KG_DATASETS, vocabulary.KG_MODELS
DEFAULTS = "pykeen defaults"  # no published configuration: pykeen 1.11.1's defaults, sLCWA training
DEFAULT_EPOCHS = 100  # what a run under pykeen's defaults trains unless told otherwise
HOYT = "hoyt2022"  # the configuration Hoyt et al. trained for the dataset and model (``kg_hoyt``)
# pykeen's own values recorded beside our recomputation (both sides, realistic ranks)
PYKEEN_METRICS = {"mrr": "mrr", "mr": "mr", "hits_at_10": "hits_at_k", "amri": "amri", "z_mrr": "z_mrr"}  # record name: metric
PYKEEN_KEYS = {name: METRICS[metric].pykeen_key(k=10) for name, metric in PYKEEN_METRICS.items()}  # record name: pykeen's key
SIDES, TIES = ("head", "tail"), ("optimistic", "realistic", "pessimistic")
# How LCWA's cross-entropy reads a query's true entities: pykeen 1.11 (like <= 1.6 and >= 1.9) normalises them to a
# distribution; pykeen 1.7 and 1.8, and the tree between them where Hoyt et al. trained, passed the multi-hot vector as it is
MULTI_HOT = "multi-hot"
# The basic negative sampler of pykeen's development tree from PR #417 (2022-03-04) to #817 (2022-03-16), the first
# half of the window Hoyt et al.'s records point to (their z-scored metrics are those of #814 to #835, 03-08 to
# 03-22): each negative draws one of two sides, but only the head is ever replaced, so about half of a positive's
# negatives stay the positive itself and no tail is corrupted
HALF_UNCHANGED = "half unchanged"
# A run's ``denormals`` when it reads subnormal floats as zero (``torch.set_flush_denormal``): LCWA's softmax over every
# entity of a large graph yields many, and each costs an x86 core far more than a normal float (``bench``)
FLUSH = "flush"
FAST_FIELDS = ("denormals", "scorer")  # the config fields of the fast path (``fast_fields``)
# the models a run may score by one matrix product (``kg_scoring.MATMUL``): TuckER in training and ranking, RotatE in
# training under LCWA only (it always ranks so, and sLCWA's few negatives per triple leave no all-entities product)
MATMUL_MODELS, MATMUL_UNDER_LCWA = ("TuckER",), ("RotatE",)
# the models a run may score by compiled L1 kernels (``kg_scoring.FUSED``) where they train LCWA with the L1 norm
FUSED_UNDER_LCWA = ("TransE",)


def make_config(dataset: str, model: str, seed: int, **overrides: Any) -> dict[str, Any]:
    """A run: the dataset, the model, the configuration it follows (Hoyt et al.'s where they trained one; ``setting``,
    only when given: that of another dataset, which a small graph trains for the fast path's check),
    the epochs (``None``: the configuration's own) and evaluation batch size; ``negatives`` (only when
    given) caps the negatives per positive triple below the configuration's own; ``ce_targets`` (only when given:
    ``MULTI_HOT``) trains LCWA's cross-entropy as pykeen 1.8 did; ``sampler`` (only when given: ``HALF_UNCHANGED``)
    draws sLCWA's negatives as pykeen's tree did in March 2022; ``denormals`` (only when given: ``FLUSH``) trains and
    ranks with subnormal floats read as zero; ``scorer`` (only when given: the one ``fast_scorer`` names) scores
    every entity without the (batch, entities, dimensions) tensor pykeen builds."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown knowledge graph {dataset!r}; choose from {DATASETS}")
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose from {MODELS}")
    setting = overrides.get("setting", dataset)
    if setting != dataset and (setting not in DATASETS or (setting, model) not in kg_hoyt.CONFIGS):
        raise ValueError(f"setting {setting!r}: no configuration of {model} on it to borrow; "
                         f"one of {sorted(d for d, m in kg_hoyt.CONFIGS if m == model and d != dataset)}")
    config = {"dataset": dataset, "model": model, "seed": seed, "source": HOYT if (setting, model) in kg_hoyt.CONFIGS else DEFAULTS,
              "epochs": None, "eval_batch": 32}
    unknown = set(overrides) - set(config) - {"setting", "negatives", "ce_targets", "sampler", *FAST_FIELDS}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)} for a knowledge-graph run")
    config = {**config, **{k: v for k, v in overrides.items() if k != "setting" or v != dataset}}
    if "ce_targets" in config and (config["ce_targets"] != MULTI_HOT or not lcwa_cross_entropy(config)):
        raise ValueError(f"ce_targets {config['ce_targets']!r}: only {MULTI_HOT!r}, and only for a published configuration "
                         "that trains LCWA with the cross-entropy loss")
    if "scorer" in config and config["scorer"] != (scorer := fast_scorer(config)):
        raise ValueError(f"scorer {config['scorer']!r}: {kg_scoring.MATMUL!r} only for {', '.join(MATMUL_MODELS)}, and for "
                         f"{', '.join(MATMUL_UNDER_LCWA)} where it trains LCWA; {kg_scoring.FUSED!r} only for "
                         f"{', '.join(FUSED_UNDER_LCWA)} where it trains LCWA with the L1 norm; here "
                         f"{scorer or 'none'}")
    if config.get("denormals", FLUSH) != FLUSH:
        raise ValueError(f"denormals {config['denormals']!r}: only {FLUSH!r}")
    if "sampler" in config and (config["sampler"] != HALF_UNCHANGED or not basic_sampler(config)):
        raise ValueError(f"sampler {config['sampler']!r}: only {HALF_UNCHANGED!r}, and only for a published configuration "
                         "that trains sLCWA with the basic negative sampler")
    return config


def by_matmul(config: dict[str, Any]) -> bool:
    """Whether one matrix product can score a config's queries where pykeen does otherwise (``MATMUL_MODELS``,
    ``MATMUL_UNDER_LCWA``)."""
    return config["model"] in MATMUL_MODELS or (config["model"] in MATMUL_UNDER_LCWA and trains_lcwa(config))


def fast_scorer(config: dict[str, Any]) -> str | None:
    """How a config's run on the fast path scores every entity where pykeen builds a (batch, entities, dimensions)
    tensor: ``kg_scoring.MATMUL`` (``by_matmul``), ``kg_scoring.FUSED`` (``FUSED_UNDER_LCWA`` with the L1 norm), or
    None where pykeen's own scoring stays."""
    if by_matmul(config):
        return kg_scoring.MATMUL
    l1 = pipeline_arguments(config).get("model_kwargs", {}).get("scoring_fct_norm") == 1
    return kg_scoring.FUSED if config["model"] in FUSED_UNDER_LCWA and trains_lcwa(config) and l1 else None


def trains_lcwa(config: dict[str, Any]) -> bool:
    """Whether a config trains LCWA (each query scored against every entity), not sLCWA (a few negatives a triple)."""
    return pipeline_arguments(config).get("training_loop", "sLCWA").lower() == "lcwa"


def fast_fields(config: dict[str, Any]) -> dict[str, str]:
    """The fields of a config's run on the fast path: subnormal floats read as zero (``FLUSH``), and every entity scored
    without pykeen's (batch, entities, dimensions) tensor where that changes anything (``fast_scorer``)."""
    scorer = fast_scorer(config)
    return {"denormals": FLUSH, **({"scorer": scorer} if scorer else {})}


def pykeens_path(config: dict[str, Any]) -> dict[str, Any]:
    """A config without the fields of the fast path (``fast_fields``)."""
    return {k: v for k, v in config.items() if k not in FAST_FIELDS}


def lcwa_cross_entropy(config: dict[str, Any]) -> bool:
    """Whether a config follows a published configuration that trains LCWA with the cross-entropy loss (the
    runs whose loss changed between pykeen versions: ``MULTI_HOT``)."""
    if config["source"] != HOYT:
        return False
    setting = published(config)
    return setting["loss"] == "crossentropy" and setting["training_loop"] == "lcwa"


def basic_sampler(config: dict[str, Any]) -> bool:
    """Whether a config follows a published configuration that trains sLCWA with pykeen's basic negative sampler
    (the runs whose negatives changed in pykeen's tree in March 2022: ``HALF_UNCHANGED``)."""
    if config["source"] != HOYT:
        return False
    setting = published(config)
    return setting["training_loop"] == "slcwa" and setting.get("negative_sampler") == "basic"


def published(config: dict[str, Any]) -> dict[str, Any]:
    """The pipeline arguments of the configuration Hoyt et al. trained for a config's dataset and model."""
    cell = (config.get("setting", config["dataset"]), config["model"])
    if config["source"] != HOYT or cell not in kg_hoyt.CONFIGS:
        raise ValueError(f"no configuration {config['source']!r} for {config['model']} on {cell[0]}")
    return kg_hoyt.CONFIGS[cell]


def pipeline_arguments(config: dict[str, Any]) -> dict[str, Any]:
    """What ``pykeen.pipeline`` gets for a config: Hoyt et al.'s arguments (minus the dataset's), or the model
    with pykeen's defaults; the config's epochs and negatives replace the published numbers when set."""
    if config["source"] == DEFAULTS:
        arguments: dict[str, Any] = {"model": config["model"], "training_loop": "sLCWA", "training_kwargs": {"num_epochs": DEFAULT_EPOCHS}}
    else:
        arguments = {k: v for k, v in published(config).items() if k != "dataset_kwargs"}
    if config.get("ce_targets") == MULTI_HOT:
        arguments["loss"] = multi_hot_cross_entropy()
    if config.get("sampler") == HALF_UNCHANGED:
        arguments["negative_sampler"] = half_unchanged_sampler()
    if config.get("negatives"):
        arguments["negative_sampler_kwargs"] = {**arguments.get("negative_sampler_kwargs", {}), "num_negs_per_pos": config["negatives"]}
    training = dict(arguments.get("training_kwargs", {}))
    if config["epochs"] is not None:
        training["num_epochs"] = config["epochs"]
    arguments["training_kwargs"] = training
    return arguments


def training_arguments(config: dict[str, Any]) -> dict[str, Any]:
    """``pipeline_arguments`` with the model class a run trains: RotatE ranking by ``kg_scoring.rotated_distances``
    (and training so where the config says so, ``kg_scoring.MATMUL``), TuckER scoring by one matrix product and
    TransE by ``kg_scoring.l1_distances`` where the config says so."""
    arguments = pipeline_arguments(config)
    if config["model"] == "RotatE":
        arguments["model"] = kg_scoring.rotate_all_entities(training=config.get("scorer") == kg_scoring.MATMUL)
    elif config.get("scorer") == kg_scoring.MATMUL:
        arguments["model"] = kg_scoring.tucker_by_matmul()
    elif config.get("scorer") == kg_scoring.FUSED:
        arguments["model"] = kg_scoring.transe_all_entities()
    return arguments


def own_epochs(config: dict[str, Any]) -> int:
    """The epochs of the configuration a run follows (Hoyt et al.'s, or pykeen's default)."""
    return pipeline_arguments({**config, "epochs": None})["training_kwargs"]["num_epochs"]


def data_key(config: dict[str, Any]) -> tuple:
    """Runs on one dataset share its triples (inverse triples for configurations that train on them)."""
    inverse = config["source"] != DEFAULTS and published(config)["dataset_kwargs"]["create_inverse_triples"]
    return (config["dataset"], bool(inverse))


def prepare(config: dict[str, Any]) -> dict[str, Any]:
    """The dataset's train, valid and test factories (one entity map over all three)."""
    with quiet_pykeen():  # pykeen logs each cached file it reads
        parts = kg_data.load_kg(config["dataset"])
    if data_key(config)[1]:
        from pykeen.triples import TriplesFactory  # heavy (pykeen): only knowledge-graph runs load it

        parts = {k: TriplesFactory(v.mapped_triples, v.entity_to_id, v.relation_to_id, create_inverse_triples=k == "train")
                 for k, v in parts.items()}
    return parts


@contextlib.contextmanager
def quiet_pykeen() -> Iterator[None]:
    """pykeen's INFO logs, torch_max_mem's CPU notice, the DataLoader's pin-memory warning and pykeen's
    notice that training instances are always shuffled kept out of the book's outputs (a page fails on
    stray warnings); anything else still shows."""
    import pykeen  # noqa: F401  (its import sets its logger to INFO: first, so that the levels below hold)

    loggers = [logging.getLogger(n) for n in ("pykeen", "torch_max_mem")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*pin_memory.*")
            warnings.filterwarnings("ignore", message="Training instances are always shuffled", category=DeprecationWarning)
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


@contextlib.contextmanager
def flushed(on: bool) -> Iterator[None]:
    """Subnormal floats read as zero inside (``FLUSH``) when ``on``, refused with the reason where the CPU cannot."""
    if on and not torch.set_flush_denormal(True):
        raise RuntimeError(f"denormals {FLUSH!r}: this CPU cannot flush subnormal floats to zero (x86 with SSE3 can)")
    try:
        yield
    finally:
        if on:
            torch.set_flush_denormal(False)


CHECKPOINT_MINUTES = 10  # a long run (RotatE's published WN18RR setting: over an hour here) saves its state this often
CHECKPOINT = "checkpoint.pt"


def epochs_checkpointed(key: str) -> int:
    """Epochs a run not yet recorded has finished in the pykeen checkpoint it would resume from (0 when none), as the
    count beside it says; it only looks, never unpickles, so a run training meanwhile loses nothing."""
    return int(checkpoints.count(checkpoints.folder(EXPERIMENT_NAME, key) / CHECKPOINT, "epochs", repair=False))


def pinned_loop(name: str, started: float) -> type:
    """pykeen's training loop ``name`` whose checkpoints are written atomically and pinned by their sha256
    (``graphrepro.checkpoints``): pykeen unpickles a checkpoint, so only a verified one may stay on disk.
    Each carries the seconds since ``started`` (a ``time.perf_counter`` reading, earlier processes included) and
    the epochs it holds."""
    from pykeen.training import training_loop_resolver  # heavy (pykeen): only knowledge-graph runs load it

    base = training_loop_resolver.lookup(name)

    class PinnedLoop(base):  # type: ignore[valid-type, misc]
        def _save_state(self, path: Any, *args: Any, **kwargs: Any) -> None:
            checkpoints.write_pinned(Path(path), lambda tmp: base._save_state(self, tmp, *args, **kwargs),
                                     seconds=time.perf_counter() - started, epochs=self._epoch)

    PinnedLoop.__name__ = PinnedLoop.__qualname__ = f"Pinned{base.__name__}"
    return PinnedLoop


@lru_cache(maxsize=1)
def multi_hot_cross_entropy() -> type:
    """pykeen's cross-entropy loss as pykeen 1.7 and 1.8 computed it under LCWA (``MULTI_HOT``): the (smoothed)
    multi-hot vector of a query's true entities as the target, not normalised to sum to one, so a query with k
    true entities weighs about k times as much."""
    from pykeen.losses import CrossEntropyLoss  # heavy (pykeen): only knowledge-graph runs load it

    class MultiHotCrossEntropyLoss(CrossEntropyLoss):  # type: ignore[misc]
        def process_lcwa_scores(self, predictions: torch.Tensor, labels: torch.Tensor, label_smoothing: float | None = None,
                                num_entities: int | None = None, weights: torch.Tensor | None = None) -> torch.Tensor:
            if weights is not None:
                raise ValueError("weighted LCWA targets are not part of pykeen 1.8's cross-entropy")
            return torch.nn.functional.cross_entropy(predictions, labels, label_smoothing=label_smoothing or 0.0,
                                                     reduction=self.reduction)

    return MultiHotCrossEntropyLoss


def half_unchanged_negatives(positives: torch.Tensor, negatives_per_positive: int, entities: int) -> torch.Tensor:
    """Negatives as ``HALF_UNCHANGED`` draws them, shaped (*positives' batch, negatives_per_positive, 3): each one
    keeps its positive triple or, with probability one half, has its head replaced by another entity, uniformly."""
    negatives = positives.unsqueeze(-2).repeat_interleave(negatives_per_positive, dim=-2)
    heads = negatives[..., 0]  # a view: writing it writes the negatives
    replaced = torch.randint(2, heads.shape, device=positives.device) == 0
    drawn = torch.randint(entities - 1, (int(replaced.sum()),), device=positives.device)
    heads[replaced] = drawn + (drawn >= heads[replaced]).long()  # skip the positive's own head
    return negatives


@lru_cache(maxsize=1)
def half_unchanged_sampler() -> type:
    """pykeen's basic negative sampler drawing as ``half_unchanged_negatives`` does."""
    from pykeen.sampling import BasicNegativeSampler  # heavy (pykeen): only knowledge-graph runs load it

    class HalfUnchangedSampler(BasicNegativeSampler):  # type: ignore[misc]
        def corrupt_batch(self, positive_batch: torch.Tensor) -> torch.Tensor:
            return half_unchanged_negatives(positive_batch, self.num_negs_per_pos, self.num_entities)

    return HalfUnchangedSampler


def train_run(data: dict[str, Any], config: dict[str, Any], device: torch.device, key: str,
              stop_after: int | None = None) -> dict[str, Any] | None:
    """Train one config with pykeen's pipeline, continuing from its checkpoint when a verified one exists,
    and evaluate the test triples, filtered, both sides. ``stop_after`` (tests) trains that many epochs,
    keeps the checkpoint and returns None, as an interrupted run would."""
    from pykeen.evaluation import RankBasedEvaluator  # heavy (pykeen): only knowledge-graph runs load it
    from pykeen.pipeline import pipeline

    folder = checkpoints.folder(EXPERIMENT_NAME, key)
    resumed_s = checkpoints.seconds(folder / CHECKPOINT)  # also removes a torn or edited one before pykeen could unpickle it
    evaluator = RankBasedEvaluator(filtered=True, clear_on_finalize=False)
    arguments = training_arguments(config)
    arguments["training_kwargs"] = {**arguments["training_kwargs"], "use_tqdm": False, "checkpoint_directory": folder,
                                    "checkpoint_name": CHECKPOINT, "checkpoint_frequency": CHECKPOINT_MINUTES}
    if stop_after is not None:
        arguments["training_kwargs"]["num_epochs"] = stop_after
    arguments["training_loop"] = pinned_loop(arguments.get("training_loop", "sLCWA"), time.perf_counter() - resumed_s)
    with quiet_pykeen(), flushed(config.get("denormals") == FLUSH):
        result = pipeline(training=data["train"], validation=data["valid"], testing=data["test"], random_seed=config["seed"],
                          device=device, evaluator=evaluator,
                          evaluation_kwargs={"batch_size": config["eval_batch"], "use_tqdm": False}, **arguments)
    if stop_after is not None:
        return None
    arrays: dict[str, np.ndarray] = {}
    for side in SIDES:
        for tie in TIES:
            arrays[f"{side}_{tie}"] = np.concatenate(evaluator.ranks[side, tie]).astype(np.float64)
        arrays[f"{side}_candidates"] = np.concatenate(evaluator.num_candidates[side]).astype(np.int64)
    metrics = {f"pykeen_{name}": float(result.metric_results.get_metric(f"both.realistic.{pykeen_name}"))
               for name, pykeen_name in PYKEEN_KEYS.items()}
    metrics["test_mrr"] = metrics["pykeen_mrr"]
    metrics["epochs_run"] = len(result.losses)
    metrics["final_loss"] = float(result.losses[-1]) if result.losses else float("nan")
    metrics["artefacts"] = {"ranks": arrays}
    metrics["resumed_s"] = resumed_s
    checkpoints.discard(folder)
    return metrics


def train(data: dict[str, Any], configs: list[dict[str, Any]], device: torch.device) -> list[dict[str, Any]]:
    """Train each config (``train_run``), one at a time."""
    return [train_run(data, config, device, EXPERIMENT.key(config)) for config in configs]


COMPLEX_MODELS = ("RotatE", "ComplEx")  # two real numbers per embedding dimension
BASE_MB = 2_000  # the interpreter, torch, pykeen, a graph and its embeddings: 0.5–1.1 GB in the records, and a margin
# calibrated here: RotatE's published WN18RR setting grew one process past 12 GB in training, ComplEx's
# evaluation on WN18RR to 6.1 GB (its record's peak)
TRAINING_COPIES, EVALUATION_COPIES = 6, 3
PARAMETER_COPIES = 4  # entity embeddings, their gradient and Adam's two moments
# heap growth of hours-long runs on a large graph: RotatE's two WN18RR runs at 32 negatives, side by side,
# peaked at 4.4 and 2.0 GB for the same working set (2026-12-01)
LARGE_GRAPH_ENTITIES, HEAP_GROWTH_MB = 10_000, 2_500


def _negatives(arguments: dict[str, Any]) -> int:
    """Negatives per positive triple in pykeen pipeline arguments (pykeen's default: 1)."""
    return arguments.get("negative_sampler_kwargs", {}).get("num_negs_per_pos", 1)


def own_negatives(config: dict[str, Any]) -> int:
    """Negatives per positive triple of the configuration a run follows."""
    return _negatives(published(config)) if config["source"] != DEFAULTS else 1


def peak_mb(config: dict[str, Any]) -> float:
    """A run's expected peak memory (MB): a base plus the larger working set of training (one batch's scored
    embeddings, batch × (1 + negatives) × real dimensions, every entity a negative under LCWA, kept about six
    times over by autograd; one score each where a fast ``scorer`` scores them) and evaluation (one batch of
    queries against every entity, each candidate's embedding about three times over, a score only for RotatE and
    a fast ``scorer``), plus the entity embeddings with their gradient and Adam's moments, in float32,
    and a margin for the heap's growth over a long run on a large graph."""
    arguments = pipeline_arguments(config)
    batch = arguments["training_kwargs"].get("batch_size", 256)
    entities = kg_data.STATS[config["dataset"]].entities if config["dataset"] in kg_data.STATS else 0
    negatives = entities if trains_lcwa(config) else _negatives(arguments)
    dims = arguments.get("model_kwargs", {}).get("embedding_dim", 200) * (2 if config["model"] in COMPLEX_MODELS else 1)
    trained = 1 if "scorer" in config else dims
    per_candidate = 1 if config["model"] == "RotatE" else trained  # RotatE's ranking: one score each (rotated_distances)
    floats = max(TRAINING_COPIES * batch * (1 + negatives) * trained, EVALUATION_COPIES * config["eval_batch"] * entities * per_candidate)
    parameters = PARAMETER_COPIES * entities * dims
    growth = HEAP_GROWTH_MB if entities > LARGE_GRAPH_ENTITIES else 0
    return BASE_MB + growth + 4 * (floats + parameters) / 2**20


DIFFERENCE_MODELS = ("TransE", "RotatE")  # pykeen scores every entity by a (batch, entities, dimensions) difference


def least_mb(config: dict[str, Any]) -> float:
    """The memory (MB) a run cannot train without: the one float32 (batch, entities, real dimensions) difference
    pykeen's TransE and RotatE build to score a training batch against every entity under LCWA (autograd keeps
    more); 0 for the other models, for sLCWA, for a batch scored by a fast ``scorer`` (``fast_scorer``) and for
    the small graphs (a few hundred entities at most, no ``kg_data.STATS``)."""
    arguments = pipeline_arguments(config)
    if (config["model"] not in DIFFERENCE_MODELS or not trains_lcwa(config) or "scorer" in config
            or config["dataset"] not in kg_data.STATS):
        return 0.0
    dims = arguments["model_kwargs"]["embedding_dim"] * (2 if config["model"] in COMPLEX_MODELS else 1)
    return 4 * arguments["training_kwargs"]["batch_size"] * kg_data.STATS[config["dataset"]].entities * dims / 2**20


EXPERIMENT_NAME = "kg-rank"
EXPERIMENT = Experiment(EXPERIMENT_NAME, 1, make_config, data_key, prepare, train, stacks=False, threads=1,
                        metrics=("mrr", "mr", "hits_at_k", "amri", "z_mrr"),
                        epochs=lambda config: pipeline_arguments(config)["training_kwargs"]["num_epochs"], peak_mb=peak_mb, least_mb=least_mb,
                        checkpointed=lambda c: epochs_checkpointed(EXPERIMENT.key(c)), speed_fields=FAST_FIELDS)

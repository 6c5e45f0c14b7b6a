"""The knowledge-graph configurations Hoyt et al. (2022) trained: Ali et al. (2020)'s best settings per model and
dataset, as their supplement keeps them (``SOURCE``: ``models/<dataset>/<model>/configuration_copied.json``), in
pykeen's pipeline arguments. Two entries are left out because they change nothing: ``regularizer: no`` (pykeen
1.11 passes it to models that refuse it) and Adam's or Adadelta's ``weight_decay: 0``."""

from __future__ import annotations

from typing import Any

REPOSITORY, COMMIT = "pykeen/ranking-metrics-manuscript", "026979a775903322518f0f4856c5769c8cfb093a"
SOURCE = f"{REPOSITORY} @ {COMMIT}"


def _setting(model: str, dim: int, loss: str, optimizer: str, lr: float, loop: str, batch: int, epochs: int,
             inverse: bool = True, smoothing: float | None = None, **extra: Any) -> dict[str, Any]:
    """One configuration as pykeen pipeline arguments (``extra``: more model, loss or sampler arguments)."""
    training: dict[str, Any] = {"batch_size": batch, "num_epochs": epochs}
    if smoothing is not None:
        training["label_smoothing"] = smoothing
    model_kwargs = {"embedding_dim": dim, **extra.pop("model_kwargs", {})}
    return {"dataset_kwargs": {"create_inverse_triples": inverse}, "model": model, "model_kwargs": model_kwargs, "loss": loss,
            "optimizer": optimizer, "optimizer_kwargs": {"lr": lr}, "training_loop": loop, "training_kwargs": training, **extra}


def _tucker(dim: int, relation_dim: int, dropouts: tuple[float, float, float]) -> dict[str, Any]:
    """TuckER's model arguments: the two dimensions, three dropouts and batch normalisation."""
    return {"embedding_dim": dim, "relation_dim": relation_dim, "apply_batch_normalization": True,
            **{f"dropout_{i}": p for i, p in enumerate(dropouts)}}


def _rotate_slcwa(dim: int, lr: float, negatives: int, temperature: float, margin: float, epochs: int,
                  inverse: bool) -> dict[str, Any]:
    """RotatE with self-adversarial negative sampling (sLCWA)."""
    return _setting("rotate", dim, "nssa", "adam", lr, "slcwa", 512, epochs, inverse=inverse,
                    loss_kwargs={"adversarial_temperature": temperature, "margin": margin},
                    negative_sampler="basic", negative_sampler_kwargs={"num_negs_per_pos": negatives})


# Nations used Kinships' settings, model by model (the two files are equal)
_SMALL = {
    "ComplEx": _setting("complex", 256, "crossentropy", "adam", 0.022302102484576144, "lcwa", 128, 151, smoothing=0.026875993128439003),
    "RotatE": _rotate_slcwa(256, 0.005964663608265774, 53, 0.5589803151266545, 20.011676336932865, 251, inverse=True),
    "TransE": _setting("transe", 256, "crossentropy", "adadelta", 1.0, "lcwa", 128, 501, smoothing=0.9313987044579384,
                       model_kwargs={"scoring_fct_norm": 1}),
    "TuckER": _setting("tucker", 64, "softplus", "adam", 0.0015610329825690296, "lcwa", 128, 351, smoothing=0.0022863392922473228,
                       model_kwargs=_tucker(64, 64, (0.48662787765630866, 0.28808916125753253, 0.14643187227813925))),
}

CONFIGS: dict[tuple[str, str], dict[str, Any]] = {
    **{("nations", model): setting for model, setting in _SMALL.items()},
    **{("kinships", model): setting for model, setting in _SMALL.items()},
    ("wn18rr", "ComplEx"): _setting("complex", 128, "crossentropy", "adam", 0.0018284636926060019, "lcwa", 512, 201,
                                    inverse=False, smoothing=0.6628146051390186),
    ("wn18rr", "RotatE"): _setting("rotate", 256, "bceaftersigmoid", "adam", 0.01647225519956407, "lcwa", 512, 401,
                                   smoothing=0.6213555093572438),
    ("wn18rr", "TransE"): _setting("transe", 256, "softplus", "adam", 0.0011049153751436596, "lcwa", 512, 501, inverse=False,
                                   smoothing=0.00200051768009458, model_kwargs={"scoring_fct_norm": 1}),
    ("wn18rr", "TuckER"): _setting("tucker", 64, "crossentropy", "adam", 0.019495747047464235, "lcwa", 128, 301,
                                   smoothing=0.0014355813466683364,
                                   model_kwargs=_tucker(64, 128, (0.4482944548454483, 0.4358766437293924, 0.17205788384518664))),
    ("fb15k237", "ComplEx"): _setting("complex", 256, "crossentropy", "adam", 0.007525067744232913, "lcwa", 256, 151,
                                      smoothing=0.08094657004944494),
    ("fb15k237", "RotatE"): _rotate_slcwa(128, 0.002750349821235516, 79, 0.9053291478133825, 27.868096306273824, 301, inverse=False),
    ("fb15k237", "TransE"): _setting("transe", 64, "crossentropy", "adam", 0.0016608460884079603, "lcwa", 256, 201,
                                     smoothing=0.717650072390557, model_kwargs={"scoring_fct_norm": 1}),
    ("fb15k237", "TuckER"): _setting("tucker", 64, "bceaftersigmoid", "adam", 0.001498951705932826, "lcwa", 128, 551,
                                     smoothing=0.010169224054211943,
                                     model_kwargs=_tucker(64, 256, (0.21501337762529343, 0.37894293381386945, 0.2408907781654925))),
}

"""Chapter 1: HGCN's Euclidean baselines, debugged, against the hyperbolic models; Tree1111_γ; δ-hyperbolicity."""

from graphrepro.chapters.hgcn_mlp_bug.paper import GAMMAS, HGCN_TASKS
from graphrepro.pages import Param, chapter_page, same

PAGE = chapter_page(
    "hgcn-mlp-bug",
    "notebooks/01_hgcn_mlp_bug.py",
    "Shedding light on hyperbolic graph learning",
    Param("seeds", int, "training seeds per configuration (seeds 0 .. n-1)", {"smoke": 1, "standard": 5, "paper": 5}, minimum=1, maximum=100),
    Param("max_epochs", int, "epoch cap (HGCN: 5000, with patience 100 after 100 epochs)", {"smoke": 25, "standard": 5000, "paper": 5000}, minimum=1, maximum=100_000),
    Param("tasks", str, "dataset/task pairs of Table 1", same(list(HGCN_TASKS)), HGCN_TASKS, many=True),
    Param("tolerance", float, "largest |ours - paper| in points that still counts as reproduced", same(2.0), minimum=0, maximum=100),
    Param("gammas", float, "γ values of the Tree1111_γ sweep (Figure 2)",
          {"smoke": [0.0, 0.4], "standard": list(GAMMAS), "paper": list(GAMMAS)}, minimum=0, maximum=1, many=True),
    Param("delta_samples", int, "random quadruples for Gromov δ of graphs too large for the exact count",
          {"smoke": 20_000, "standard": 500_000, "paper": 2_000_000}, minimum=1, maximum=100_000_000),
    Param("ricci_edges", int, "edges per graph for the Ollivier–Ricci histograms (0: every edge)",
          {"smoke": 200, "standard": 0, "paper": 0}, minimum=0, maximum=10_000_000),
    Param("search_layers", int, "model selection grid: layer counts (HGCN's counting)",
          {"smoke": [2], "standard": [2], "paper": [2, 3]}, (2, 3), many=True),
    Param("search_act", str, "model selection grid: activations",
          {"smoke": ["relu"], "standard": ["relu"], "paper": ["relu", "none"]}, ("relu", "none"), many=True),
    Param("search_dropout", float, "model selection grid: dropout rates",
          {"smoke": [0.0, 0.5], "standard": [0.0, 0.5], "paper": [0.0, 0.2, 0.5]}, minimum=0, maximum=1, below_maximum=True, many=True),
    Param("search_weight_decay", float, "model selection grid: weight decays",
          {"smoke": [0.0], "standard": [0.0, 1e-3], "paper": [0.0, 5e-4, 1e-3]}, minimum=0, maximum=1, many=True),
    Param("search_curvature", str, "model selection grid for HNN and HGCN: curvature fixed at 1 or trainable",
          same(["fixed", "trainable"]), ("fixed", "trainable"), many=True),
    module=__name__,
)


EXPERIMENTS = ("graphrepro.experiments.hgcn",)  # modules defining EXPERIMENT, imported when a run trains or a record is read

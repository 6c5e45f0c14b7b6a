"""mrr-variants: the paper's numbers and protocol, as data."""

from __future__ import annotations

CHAPTER = "mrr-variants"


LARGE_KGS = ("wn18rr", "fb15k237")


KG_LABELS = {"nations": "Nations", "kinships": "Kinships", "umls": "UMLS", "wn18rr": "WN18RR", "fb15k237": "FB15k-237"}


VARIANT_LABELS = {"raw": "raw", "filtered": "filtered", "extended": "extended-filtered"}


# Tönshoff et al., PCQM-Contact test MRR of tuned GPS (mean ± std over 4 runs)
PAPER_PCQM = {"raw": (0.3498, 0.0005), "extended": (0.4703, 0.0014)}


PAPER_SHIFT_ROW = "PCQM-Contact, GPS (paper)"  # the paper's row of ``shift_table``


# The worked example of the reading note on Tönshoff et al.: scores of one head's candidates, its true tails
EXAMPLE_SCORES = {"the head itself": 0.95, "t1": 0.90, "t2": 0.80, "x1": 0.60, "x2": 0.40}


EXAMPLE_TRUE = ("t1", "t2")


EXAMPLE_PAPER = {"raw": 0.417, "filtered": 0.5, "extended": 1.0}


# How popular code bases break ties (read in their code, versions as installed here or as cited)
TIE_CONVENTIONS = [
    {"code": "pykeen 1.11.1 (RankBasedEvaluator)", "ranks": "optimistic, realistic and pessimistic; reports realistic by default"},
    {"code": "OGB 1.3.6 (linkproppred Evaluator._eval_mrr)", "ranks": "realistic: half of (#greater + #greater-or-equal) + 1"},
    {"code": "LRGB / GraphGPS (inductive_edge head, _eval_mrr)", "ranks": "torch.argsort of [positive, negatives]: ties fall where the unstable sort puts them"},
    {"code": "PyG 2.8 (torch_geometric.metrics.LinkPredMRR)", "ranks": "position in the model's top-k list: ties in the order top-k returns them"},
]


KG_METRICS = ("mr", "mrr", "hits_at_k", "amr", "amri", "amrr", "ahk", "z_mr", "z_mrr", "z_hk")


KG_SHORT = {"candidates": "C", "mr": "MR", "mrr": "MRR", "hits_at_k": "H@10", "amr": "AMR", "amri": "AMRI", "amrr": "AMRR",
            "ahk": "AH@10", "z_mr": "zMR", "z_mrr": "zMRR", "z_hk": "zH@10"}


KG_GROUPS = {"base": ("candidates", "mr", "mrr", "hits_at_k"), "adjusted": ("amr", "amri", "amrr", "ahk"),
             "z-scored": ("z_mr", "z_mrr", "z_hk")}


# Hoyt et al.'s test MRR of each model they trained (filtered, both sides, realistic ranks: "inverse harmonic mean
# rank"), one run per cell, as their supplement collates them for the paper's Figure 1
PAPER_KG_SOURCE = "pykeen/ranking-metrics-manuscript @ 026979a, collated/collated.tsv"
PAPER_KG_MRR = {
    ("nations", "ComplEx"): 0.4304, ("nations", "RotatE"): 0.5116, ("nations", "TransE"): 0.4027, ("nations", "TuckER"): 0.7556,
    ("kinships", "ComplEx"): 0.6618, ("kinships", "RotatE"): 0.7686, ("kinships", "TransE"): 0.4385, ("kinships", "TuckER"): 0.8635,
    ("wn18rr", "ComplEx"): 0.4527, ("wn18rr", "RotatE"): 0.4615, ("wn18rr", "TransE"): 0.2535, ("wn18rr", "TuckER"): 0.4597,
    ("fb15k237", "ComplEx"): 0.2646, ("fb15k237", "RotatE"): 0.1452, ("fb15k237", "TransE"): 0.3137, ("fb15k237", "TuckER"): 0.3472,
}


QUALITY_TOLERANCE = 0.10  # a model counts in the size analysis when its MRR is at least (1 - this) × the paper's

"""Chapter 5: raw, filtered and extended-filtered MRR, tie handling, and adjusted and z-scored rank metrics."""

import dataclasses

from graphrepro import vocabulary
from graphrepro.chapters.mrr_variants.paper import CHAPTER
from graphrepro.pages import PRECISION, Param, chapter_page, same

PAGE = chapter_page(
    CHAPTER,
    "notebooks/05_mrr_variants.py",
    "Which MRR? Filtering, ties and adjusted rank metrics",
    Param("graphs", str, "graphs for within-graph link prediction", same(list(vocabulary.LINKPRED_DATASETS)), vocabulary.LINKPRED_DATASETS, many=True),
    Param("encoders", str, "encoders with a dot-product decoder", same(list(vocabulary.LINKPRED_MODELS)), vocabulary.LINKPRED_MODELS, many=True),
    Param("seeds", int, "seeds per encoder and graph", {"smoke": 1, "standard": 5, "paper": 5}, minimum=1, maximum=50),
    Param("lp_epochs", int, "epoch cap of the link-prediction runs (early stopping on validation filtered MRR)",
          {"smoke": 3, "standard": 300, "paper": 300}, minimum=1, maximum=10_000),
    Param("kgs", str, "knowledge graphs", {"smoke": ["nations"], "standard": ["nations", "kinships", "umls"],
          "paper": list(vocabulary.KG_DATASETS)}, vocabulary.KG_DATASETS, many=True),
    Param("kg_models", str, "knowledge-graph embedding models", same(list(vocabulary.KG_MODELS)), vocabulary.KG_MODELS, many=True),
    Param("kg_seeds", int, "seeds per knowledge graph and model (Hoyt et al. trained one)", same(1), minimum=1, maximum=20),
    Param("kg_epochs", int, "training epochs on Nations, Kinships and UMLS (0: each configuration's own, Hoyt et al.'s "
          "or pykeen's default 100)", {"smoke": 2, "standard": 0, "paper": 0}, minimum=0, maximum=10_000),
    Param("tucker_epochs", int, "TuckER's training epochs where it follows pykeen's defaults (UMLS; 0: kg_epochs); "
          "it costs 10-40 times the others' epoch there", {"smoke": 0, "standard": 20, "paper": 0}, minimum=0, maximum=10_000),
    Param("large_kg_models", str, "which of kg_models also train on WN18RR and FB15k-237 (Hoyt et al.'s setting there costs "
          "about a day a run on one core for ComplEx and TuckER on the fast path, days for TransE and RotatE: `bench`)",
          {"smoke": list(vocabulary.KG_MODELS), "standard": ["ComplEx", "TuckER"], "paper": list(vocabulary.KG_MODELS)},
          vocabulary.KG_MODELS, many=True),
    Param("large_kg_epochs", int, "training epochs on WN18RR and FB15k-237 (0: the configuration's own)",
          {"smoke": 1, "standard": 0, "paper": 0}, minimum=0, maximum=10_000),
    Param("negatives_cap", int, "most negatives per positive triple on WN18RR and FB15k-237 (0: the configuration's own)",
          {"smoke": 32, "standard": 0, "paper": 0}, minimum=0, maximum=100_000),
    Param("fast_check", bool, "train the small graphs' runs again on the fast path (subnormal floats read as zero, TuckER's "
          "and RotatE's tails scored by one matrix product, TransE's by compiled L1 kernels), the check that lets WN18RR "
          "and FB15k-237 take it (about 2 CPU-hours under standard)", same(True)),
    Param("tolerance", float, "largest |difference| in MRR points (x 100) counted as 'no change' in a verdict",
          same(1.0), minimum=0, maximum=100),
    module=__name__,
    precision=dataclasses.replace(PRECISION, help=PRECISION.help + " (the GNN link-prediction runs; pykeen's "
                                  "knowledge-graph runs stay float32, since its pipeline trains and ranks in one call)"),
)


EXPERIMENTS = ("graphrepro.experiments.linkpred", "graphrepro.experiments.kg")  # modules defining EXPERIMENT, imported when a run trains or a record is read

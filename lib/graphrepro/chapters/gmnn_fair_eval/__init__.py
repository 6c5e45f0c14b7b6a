"""Chapter 3: k-fold model selection and assessment of MLP, GCN, FAGCN and GMNN."""

from graphrepro import vocabulary
from graphrepro.chapters.gmnn_fair_eval.paper import ASSESSED, CHAPTER, PAPER_RUNS_PER_FOLD
from graphrepro.pages import Param, chapter_page, same

PAGE = chapter_page(
    CHAPTER,
    "notebooks/03_gmnn_fair_eval.py",
    "Fair evaluation of GMNN",
    Param("datasets", str, "Planetoid graphs (Pubmed and WikiVitals are not obtainable here)",
          same(["cora", "citeseer"]), vocabulary.FAIR_EVAL_DATASETS, many=True),
    Param("kinds", str, "training sets: dense (81/9/10) and the two sparse ones (20 per class, or 20·K stratified)",
          same(list(ASSESSED)), ASSESSED, many=True),
    Param("folds", int, "assessment folds run (of k = 10)", {"smoke": 2, "standard": 10, "paper": 10}, minimum=1, maximum=10),
    Param("trials", int, "distinct settings searched per fold and model (a setting asked again does not count; the "
          "paper: population 100, 10 generations)",
          {"smoke": 4, "standard": 24, "paper": 1000}, minimum=1, maximum=100_000),
    Param("generation", int, "trials per generation of the genetic search (NSGA-II)",
          {"smoke": 4, "standard": 8, "paper": 100}, minimum=2, maximum=1000),
    Param("budget_study", bool, "run the budget study: Cora sparse balanced and Citeseer sparse stratified GCN searched "
          "with each of `budgets`", same(True)),
    Param("budgets", int, "the budget study's search budgets, distinct settings per fold", {"smoke": [4, 8], "standard": [24, 100, 400],
          "paper": [24, 100, 400]}, many=True, minimum=1, maximum=100_000),
    Param("budget_runs", int, "the budget study's runs per fold with each budget's choice", {"smoke": 1, "standard": 10, "paper": 10},
          minimum=1, maximum=100),
    Param("runs", int, "runs per fold with the selected setting (paper 20)", {"smoke": 1, "standard": 3, "paper": PAPER_RUNS_PER_FOLD},
          minimum=1, maximum=100),
    Param("max_epochs", int, "epoch cap (paper 1000)", {"smoke": 6, "standard": 1000, "paper": 1000}, minimum=1, maximum=100_000),
    Param("patience", int, "early-stopping patience on validation loss (paper 200)", {"smoke": 3, "standard": 200, "paper": 200},
          minimum=1, maximum=100_000),
    Param("gmnn_loops", int, "GMNN's EM loops (paper 10)", {"smoke": 1, "standard": 10, "paper": 10}, minimum=1, maximum=100),
    Param("gmnn_epochs", int, "epochs per GMNN M- or E-step (paper 100)", {"smoke": 2, "standard": 100, "paper": 100},
          minimum=1, maximum=10_000),
    Param("public_seeds", int, "seeds on the one public Planetoid split (GMNN's own evaluation used 100)",
          {"smoke": 1, "standard": 10, "paper": 100}, minimum=1, maximum=1000),
    Param("tolerance", float, "largest |ours - paper| in accuracy points that still counts as reproduced", same(2.0),
          minimum=0, maximum=100),
    module=__name__,
)


EXPERIMENTS = ("graphrepro.experiments.fair_eval",)  # modules defining EXPERIMENT, imported when a run trains or a record is read

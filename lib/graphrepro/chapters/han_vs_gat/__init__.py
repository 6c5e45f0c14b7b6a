"""Chapter 2: GAT with proper inputs against HAN and Simple-HGN on HGB's node classification."""

from graphrepro.chapters.han_vs_gat.paper import CHAPTER, DATASETS
from graphrepro.pages import Param, chapter_page, same

PAGE = chapter_page(
    CHAPTER,
    "notebooks/02_han_vs_gat.py",
    "Are we really making much progress? HAN vs GAT",
    Param("datasets", str, "HGB datasets (Freebase is not obtainable here)", {"smoke": ["ACM", "IMDB"], "standard": list(DATASETS),
          "paper": list(DATASETS)}, DATASETS, many=True),
    Param("seeds", int, "training seeds of the main table (seeds 0 .. n-1)", {"smoke": 1, "standard": 5, "paper": 5},
          minimum=1, maximum=50),
    Param("ablation_seeds", int, "seeds of the feature-mode, meta-path and Simple-HGN ablation runs",
          {"smoke": 1, "standard": 3, "paper": 5}, minimum=1, maximum=50),
    Param("max_epochs", int, "epoch cap (HGB: 300, HAN 200, with early stopping on validation loss)",
          {"smoke": 2, "standard": 300, "paper": 300}, minimum=1, maximum=10_000),
    Param("width", str, "paper: HGB's widths (hidden 64, 8 heads; HAN 8 x 8); tiny: hidden 4, 2 heads (smoke)",
          {"smoke": "tiny", "standard": "paper", "paper": "paper"}, ("paper", "tiny")),
    Param("metapath_neighbours", int, "sampled meta-path neighbours per node for HAN and the meta-path GAT on the "
          "large meta-path graphs (0: all neighbours everywhere)", {"smoke": 5, "standard": 100, "paper": 0},
          minimum=0, maximum=1_000_000),
    Param("metapath_edge_limit", int, "a meta-path graph with more edges than this is sampled (DBLP's APTPA and "
          "APVPA, ACM's PTP, PSP, PPSP and P-PSP hold 1.4-9.1 M)", {"smoke": 0, "standard": 1_000_000, "paper": 1_000_000},
          minimum=0, maximum=10**9),
    Param("tolerance", float, "largest |ours - paper| in points that still counts as reproduced, and the margin of "
          "'matches or beats'", same(2.0), minimum=0, maximum=100),
    module=__name__,
)


EXPERIMENTS = ("graphrepro.experiments.hgb",)  # modules defining EXPERIMENT, imported when a run trains or a record is read

"""Chapter 4: LRGB's baselines with a deeper head, and Tönshoff et al.'s tuned GNNs, against GPS on Peptides-func."""

from graphrepro.chapters.lrgb_head.paper import CHAPTER, MODELS
from graphrepro.pages import Param, chapter_page, same

PAGE = chapter_page(
    CHAPTER,
    "notebooks/04_lrgb_head.py",
    "Where did the gap go? A deeper head on Peptides-func",
    Param("models", str, "message-passing GNNs of the head ablation", same(list(MODELS)), MODELS, many=True),
    Param("gps", bool, "train GPS (tuned, with its 2-layer head and with a linear head) as the reference line",
          same(True)),
    Param("seeds", int, "training seeds per configuration (seeds 0 .. n-1)", {"smoke": 1, "standard": 2, "paper": 4},
          minimum=1, maximum=20),
    Param("epochs", int, "training epochs of every run (0: each configuration's own, LRGB 500 and tuned 250); "
          "fewer compress the tuned warm-up and cosine schedule to fit", {"smoke": 2, "standard": 8, "paper": 0},
          minimum=0, maximum=1000),
    Param("long_epochs", int, "epochs of the GCN pair trained longer to check the order of the stages (0: none)",
          {"smoke": 3, "standard": 30, "paper": 0}, minimum=0, maximum=1000),
    Param("train_graphs", int, "training graphs used (0: all 10,873)", {"smoke": 32, "standard": 0, "paper": 0},
          minimum=0, maximum=10_873),
    Param("eval_graphs", int, "validation and test graphs used each (0: all 2,331)", {"smoke": 32, "standard": 0, "paper": 0},
          minimum=0, maximum=2_331),
    Param("tolerance", float, "largest |ours - paper| in AP points (AP x 100) that still counts as reproduced, and "
          "the margin of 'improves', 'matches or beats' and 'insensitive'", same(1.0), minimum=0, maximum=100),
    module=__name__,
)


EXPERIMENTS = ("graphrepro.experiments.lrgb",)  # modules defining EXPERIMENT, imported when a run trains or a record is read

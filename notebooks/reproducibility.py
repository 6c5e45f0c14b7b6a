# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Reproducibility
#
# What the numbers in this book were computed with: the package versions and hardware recorded with
# every run, the commits the runs came from, and the checksum of every data file. Any run can be
# repeated with `python -m graphrepro verify --sample N`, which re-trains randomly chosen committed
# records on the CPU and compares their metrics (exactly, when the packages and device match the
# record; otherwise within each metric's tolerance), or `python -m graphrepro verify KEY` for a named
# record.

# %% tags=["parameters"]
profile = "standard"

# %% tags=["hide-input"]
from IPython.display import display
from myst_nb import glue

from graphrepro import pages, provenance, report

report.set_style()
params = pages.resolve("reproducibility", profile)
display(report.profile_banner("reproducibility", params))
report.parameters_table(params)

# %% [markdown]
# ## This build

# %% tags=["hide-input"]
provenance.build_environment()

# %% [markdown]
# ## The recorded runs
#
# How many records each chapter has: *committed* to the repository; of those, how many the *standard*
# profile *reads* (the count its chapter page gives; the others are runs of other parameters, such as a
# longer budget); made on this machine and not committed (*local only*); and *stale* (made by an older
# version of their experiment, and ignored).

# %% tags=["hide-input"]
report.plain_table(provenance.record_counts())

# %% [markdown]
# ## The last verify
#
# `python -m graphrepro verify --sample N` re-trains N committed records drawn at random (those made from
# uncommitted code first) and keeps what it found in `results/verify.json`, committed beside the records.
# The committed one ran {glue:text}`repro_verify_where`. *Identical*: every metric equal to the last bit
# (same packages, device and CPU as the record); *within tolerance*: another environment, each score within
# its metric's tolerance.

# %% tags=["hide-input"]
where, checked = provenance.verify_result()
glue("repro_verify_where", where, display=False)
if len(checked):
    display(report.plain_table(checked))

# %% [markdown]
# ## Where the records were made
#
# The environments that produced the records: per chapter, device, CPU (records made before the CPU was
# recorded say so) and the versions of torch and PyG, how many runs and from how many commits. Every
# record names its full package set and commit; `python -m graphrepro verify --digests` checks them all.

# %% tags=["hide-input"]
report.plain_table(provenance.run_environments())

# %% [markdown]
# ### Made from uncommitted code
#
# Records whose code differed from its commit when they trained (their `git_commit` ends in `+dirty`):
# no commit re-creates them exactly. `python -m graphrepro verify --uncommitted` re-trains them from
# the committed code and replaces each whose re-run matches it; those that stay, and why, are listed
# here (`git grep -l +dirty results/` names them).

# %% tags=["hide-input"]
report.plain_table(provenance.uncommitted_records())

# %% [markdown]
# ## Data files
#
# Every file the registry knows, its pinned checksum and where this build found it. The registry looks
# in these folders, in this order, before it downloads anything:

# %% tags=["hide-input"]
provenance.data_folders()

# %% tags=["hide-input"]
provenance.data_files()

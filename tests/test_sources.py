"""Records from committed code: a dirty tree is told, refused for training beyond smoke, and a record made
from it anyway keeps a diff that replays on HEAD."""

from __future__ import annotations

import subprocess

import pytest
import torch

from graphrepro import environment, paths, sources
from graphrepro.__main__ import main


def _git(root, *args):
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git checkout with lib/ and notebooks/, committed, as the repository the provenance reads."""
    root = tmp_path / "repo"
    (root / "lib").mkdir(parents=True)
    (root / "notebooks").mkdir()
    (root / "lib" / "model.py").write_text("WIDTH = 64\n")
    (root / "notebooks" / "page.py").write_text("# a page\n")
    (root / "README.md").write_text("words\n")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
    monkeypatch.setattr(paths, "REPO_ROOT", root)
    return root


def test_a_clean_tree_records_its_commit_and_no_diff(repo):
    (repo / "README.md").write_text("other words\n")  # not a file that decides a run
    env = environment.run_environment(torch.device("cpu"))
    assert env["git_commit"] == _git(repo, "rev-parse", "HEAD").strip() and "git_diff_sha256" not in env
    assert sources.uncommitted_sources() == []


def test_a_record_from_uncommitted_code_keeps_a_diff_that_replays_on_head(repo, tmp_path):
    (repo / "lib" / "model.py").write_text("WIDTH = 128\n")
    (repo / "lib" / "new_layer.py").write_text("DEPTH = 3\n")
    assert sorted(sources.uncommitted_sources()) == ["lib/model.py", "lib/new_layer.py"]
    env = environment.run_environment(torch.device("cpu"))
    assert env["git_commit"].endswith("+dirty")
    patch = paths.results_dir() / sources.DIFFS / f"{env['git_diff_sha256']}.patch"
    assert patch.exists()
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(repo), str(clone))
    _git(clone, "apply", str(patch))
    assert (clone / "lib" / "model.py").read_text() == "WIDTH = 128\n" and (clone / "lib" / "new_layer.py").read_text() == "DEPTH = 3\n"
    assert environment.run_environment(torch.device("cpu"))["git_diff_sha256"] == env["git_diff_sha256"]  # kept once


@pytest.mark.parametrize("argv", [["train", "hgcn-mlp-bug", "--profile", "standard"],
                                  ["run", "hgcn-mlp-bug", "--profile", "standard"]])
def test_training_beyond_smoke_from_uncommitted_code_is_refused(argv, repo, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHREPRO_EXECUTED", str(tmp_path / "executed"))
    (repo / "notebooks" / "page.py").write_text("# an edited page\n")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "refusing to train" in err and "notebooks/page.py" in err and "--allow-dirty" in err
    assert not (tmp_path / "executed").exists() and not (tmp_path / "results").exists()

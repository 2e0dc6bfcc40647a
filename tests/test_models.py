"""Model fingerprints: content hashes for local models, id and cached revision for hub ids."""

from __future__ import annotations

from harness.models import hub_revision, model_fingerprint


def fake_hub_cache(root, model_id: str, commit: str):
    """The layout huggingface_hub keeps: models--org--name/{refs/main, snapshots/<commit>/}."""
    folder = root / f"models--{model_id.replace('/', '--')}"
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text(commit)
    (folder / "snapshots" / commit).mkdir(parents=True)
    (folder / "snapshots" / commit / "config.json").write_text("{}")


def test_hub_id_is_keyed_by_its_cached_revision(tmp_path):
    fake_hub_cache(tmp_path, "org/tiny-model", "a" * 40)
    assert hub_revision("org/tiny-model", str(tmp_path)) == "a" * 40
    assert model_fingerprint("org/tiny-model", str(tmp_path)) == f"hub:org/tiny-model@{'a' * 40}"


def test_uncached_hub_id_is_keyed_by_its_id(tmp_path):
    assert hub_revision("org/not-downloaded", str(tmp_path)) is None
    assert model_fingerprint("org/not-downloaded", str(tmp_path)) == "hub:org/not-downloaded"


def test_local_files_are_keyed_by_content(tmp_path):
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"weights v1")
    first = model_fingerprint(str(weights))
    assert first.startswith("sha256:")
    model_fingerprint.cache_clear()
    weights.write_bytes(b"weights v2")
    assert model_fingerprint(str(weights)) != first

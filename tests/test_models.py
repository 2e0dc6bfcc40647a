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


def test_auto_dtype_is_bfloat16_only_where_the_cpu_has_bfloat16_units(monkeypatch):
    import torch

    from harness.models import resolve_dtype

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for avx512_bf16, amx, expected in [(True, False, "bfloat16"), (False, True, "bfloat16"), (False, False, "float32")]:
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda v=avx512_bf16: v)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda v=amx: v)
        assert resolve_dtype("auto", "auto") == expected
        assert resolve_dtype("auto", "cpu") == expected
    assert resolve_dtype("float16", "cpu") == "float16"  # a named dtype passes through, supported or not


def test_the_judges_cache_key_names_the_resolved_dtype_not_auto(compose, monkeypatch):
    import torch
    from hydra.utils import instantiate

    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    judge = instantiate(compose(["judge=local", "judge.device=cpu"]).judge)
    assert judge.dtype == "float32" and judge.fingerprint()["dtype"] == "float32"
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True)
    judge = instantiate(compose(["judge=local", "judge.device=cpu"]).judge)
    assert judge.dtype == "bfloat16" and judge.fingerprint()["dtype"] == "bfloat16"

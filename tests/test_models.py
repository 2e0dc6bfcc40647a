"""Model fingerprints: content hashes for local models, id and cached revision for hub ids."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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

    from harness import models
    from harness.models import resolve_dtype

    monkeypatch.setattr(models, "_cpu_flags", lambda: None)  # torch's own checks decide (not Linux)
    monkeypatch.setattr(models, "_linux_without_nvidia", lambda: False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for avx512_bf16, amx, expected in [(True, False, "bfloat16"), (False, True, "bfloat16"), (False, False, "float32")]:
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda v=avx512_bf16: v)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda v=amx: v)
        assert resolve_dtype("auto", "auto") == expected
        assert resolve_dtype("auto", "cpu") == expected
    assert resolve_dtype("float16", "cpu") == "float16"  # a named dtype passes through, supported or not


def test_on_linux_the_cpus_flags_give_torchs_answer_and_torch_is_imported_only_for_amx(monkeypatch):
    import torch

    from harness import models

    for flags, expected in [({"avx512_bf16", "avx2"}, "bfloat16"), ({"avx2"}, "float32"), (set(), "float32")]:
        monkeypatch.setattr(models, "_cpu_flags", lambda f=flags: f)
        assert models.resolve_dtype("auto", "cpu") == expected
    monkeypatch.setattr(models, "_cpu_flags", lambda: {"amx_tile"})
    for permitted in (True, False):  # AMX alone: torch asks the kernel for leave to use it
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda v=permitted: v)
        assert models.resolve_dtype("auto", "cpu") == ("bfloat16" if permitted else "float32")


def test_this_machines_device_and_dtype_equal_torchs_own_answers():
    # In a new interpreter: what the harness answers, whether that imported torch, then torch's answers.
    script = ("import sys; from harness.models import resolve_device, resolve_dtype; "
              "print(resolve_device('auto'), resolve_dtype('auto', 'auto'), 'torch' in sys.modules); "
              "import torch; bf16 = torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported(); "
              "print('cuda' if torch.cuda.is_available() else 'cpu', 'bfloat16' if bf16 else 'float32')")
    ours, torchs = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                  check=True).stdout.split("\n")[:2]
    device, dtype, imported = ours.split()
    assert device == torchs.split()[0]
    if device == "cpu":  # on a GPU the dtype is the GPU's
        assert dtype == torchs.split()[1]
    if sys.platform.startswith("linux") and device == "cpu" and "amx_tile" not in Path("/proc/cpuinfo").read_text():
        assert imported == "False"


def test_the_judges_cache_key_names_the_resolved_dtype_not_auto(compose, monkeypatch):
    import torch
    from hydra.utils import instantiate

    from harness import models

    monkeypatch.setattr(models, "_cpu_flags", lambda: None)
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    judge = instantiate(compose(["judge=local", "judge.device=cpu"]).judge)
    assert judge.dtype == "float32" and judge.fingerprint()["dtype"] == "float32"
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True)
    judge = instantiate(compose(["judge=local", "judge.device=cpu"]).judge)
    assert judge.dtype == "bfloat16" and judge.fingerprint()["dtype"] == "bfloat16"

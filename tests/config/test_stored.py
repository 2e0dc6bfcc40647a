"""Compositions kept on disk between runs (harness.config.stored): equal to Hydra's own, read back
in another process, and composed again whenever an input changed or an entry does not verify."""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hydra.types import RunMode
from omegaconf import OmegaConf

from harness.config import register, stored
from harness.config.resolvers import PROJECT_ROOT


class CountingLoader:
    """A Hydra config loader of ``folder`` that counts its compositions."""

    def __init__(self, folder: Path) -> None:
        from hydra._internal.hydra import Hydra
        from hydra._internal.utils import create_automatic_config_search_path

        import harness.cli.sweep  # noqa: F401 - hydra.main's version_base, as in a harness command

        register()
        search_path = create_automatic_config_search_path(None, None, str(folder))
        from hydra.core.global_hydra import GlobalHydra

        self.loader = Hydra.create_main_hydra2(task_name="harness", config_search_path=search_path).config_loader
        GlobalHydra.instance().clear()  # the loader is what the tests use; leave no Hydra initialised
        self.composed = 0

    def load_configuration(self, **kwargs):
        self.composed += 1
        return self.loader.load_configuration(**kwargs)

    def get_search_path(self):
        return self.loader.get_search_path()

    def __call__(self, overrides: list[str], run_mode=RunMode.RUN):
        return stored.load_configuration(self, "config", overrides, run_mode)


@pytest.fixture
def store(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "store"
    monkeypatch.setenv(stored.ENV, str(folder))
    return folder


@pytest.fixture
def conf(tmp_path) -> Path:
    """A small config folder of the same shape as conf/ (a root config with a retriever group and a
    ``hydra`` node), which a test may change: the same keys and checks at a tenth of a composition
    of the real one (equality with Hydra's own and the read in another process use conf/ itself)."""
    folder = tmp_path / "conf"
    (folder / "retriever").mkdir(parents=True)
    (folder / "config.yaml").write_text(
        "defaults:\n  - retriever: bm25\n  - _self_\nseed: 0\nhydra:\n  job:\n    chdir: false\n")
    (folder / "retriever" / "bm25.yaml").write_text("_target_: harness.retrievers.bm25.BM25Retriever\ntop_k: 5\n")
    (folder / "retriever" / "dense.yaml").write_text("_target_: harness.retrievers.dense.DenseRetriever\ntop_k: 5\n")
    return folder


def yaml_of(cfg) -> str:
    return OmegaConf.to_yaml(cfg)


@pytest.mark.parametrize("overrides, run_mode", [
    ([], RunMode.RUN),
    (["experiment=demo_sweep"], RunMode.MULTIRUN),
    (["generator=local", "judge=local", "retriever.top_k=3", "+dataset.extra=1"], RunMode.RUN),
    (["chunker=fixed_tokens,recursive", "retriever=bm25"], RunMode.MULTIRUN),
])
def test_a_kept_composition_equals_hydras_own_and_composes_nothing(store, overrides, run_mode):
    load = CountingLoader(PROJECT_ROOT / "conf")
    first = load(overrides, run_mode)
    second = load(overrides, run_mode)
    expected = load.loader.load_configuration(config_name="config", overrides=overrides, run_mode=run_mode)

    assert load.composed == 1
    assert yaml_of(first) == yaml_of(second) == yaml_of(expected)
    assert OmegaConf.is_struct(second) and not OmegaConf.is_readonly(second.hydra)
    with pytest.raises(Exception, match="Value 'many' of type 'str' could not be converted to Integer"):
        second.retriever.top_k = "many"  # the schemas' types, kept with the config


def test_another_process_reads_what_this_one_kept(store):
    """The key (the ConfigStore's pickled nodes included) is the same in a new interpreter."""
    CountingLoader(PROJECT_ROOT / "conf")(["retriever=dense", "retriever.top_k=4"])
    script = textwrap.dedent(f"""
        from tests.config.test_stored import CountingLoader
        from pathlib import Path
        load = CountingLoader(Path({str(PROJECT_ROOT / "conf")!r}))
        cfg = load(["retriever=dense", "retriever.top_k=4"])
        print(load.composed, cfg.retriever.top_k)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=PROJECT_ROOT,
                          env={**os.environ, stored.ENV: str(store)}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "4"]


def test_a_changed_added_or_removed_config_file_is_composed_again(store, conf):
    load = CountingLoader(conf)
    assert load(["retriever=bm25"]).retriever.top_k == 5

    bm25 = conf / "retriever" / "bm25.yaml"
    bm25.write_text(bm25.read_text().replace("top_k: 5", "top_k: 11"))
    assert load(["retriever=bm25"]).retriever.top_k == 11
    assert load.composed == 2

    (conf / "retriever" / "bm25_wide.yaml").write_text("defaults:\n  - bm25\n  - _self_\ntop_k: 50\n")
    assert load(["retriever=bm25"]).retriever.top_k == 11  # another file in a group read: composed again
    assert load.composed == 3
    assert load(["retriever=bm25_wide"]).retriever.top_k == 50

    (conf / "retriever" / "bm25_wide.yaml").unlink()
    assert load(["retriever=bm25"]).retriever.top_k == 11
    assert load.composed == 4  # the files are again those of the second composition: its entry is read
    with pytest.raises(Exception, match="bm25_wide"):
        load(["retriever=bm25_wide"])  # not answered from the entry made while it existed


def test_a_changed_config_store_is_composed_again(store, conf, monkeypatch):
    from dataclasses import dataclass

    from hydra.core.config_store import ConfigStore

    load = CountingLoader(conf)
    load(["retriever=bm25"])
    repository = ConfigStore.instance().repo
    monkeypatch.setattr(ConfigStore.instance(), "repo", {**repository, "extra_group": {}})

    @dataclass
    class Extra:
        size: int = 3

    ConfigStore.instance().store(group="extra_group", name="extra", node={"size": 3})
    load(["retriever=bm25"])
    assert load.composed == 2
    load(["retriever=bm25"])
    assert load.composed == 2


def test_the_working_folder_and_copied_environment_are_this_process(store, conf, tmp_path, monkeypatch):
    load = CountingLoader(conf)
    overrides = ["hydra.job.env_copy=[HARNESS_TEST_COPIED]"]
    monkeypatch.setenv("HARNESS_TEST_COPIED", "first")
    load(overrides)
    monkeypatch.setenv("HARNESS_TEST_COPIED", "second")
    monkeypatch.chdir(tmp_path)
    cfg = load(overrides)

    assert load.composed == 1
    assert cfg.hydra.job.env_set.HARNESS_TEST_COPIED == "second"
    assert cfg.hydra.runtime.cwd == str(tmp_path)


class NeverLoads:
    """pickle, but a test fails if anything is unpickled."""

    dumps = staticmethod(pickle.dumps)
    PicklingError = pickle.PicklingError

    @staticmethod
    def loads(data: bytes):
        raise AssertionError("an entry that does not verify was unpickled")


def test_an_entry_that_does_not_verify_is_said_and_composed_again_and_never_unpickled(store, conf, caplog, monkeypatch):
    load = CountingLoader(conf)
    load(["retriever=bm25"])
    [entry] = store.glob("*.composition")

    data = bytearray(entry.read_bytes())
    data[-40] ^= 1  # a changed byte of the pickle
    entry.write_bytes(bytes(data))
    monkeypatch.setattr(stored, "pickle", NeverLoads)
    with caplog.at_level(logging.WARNING, logger="harness.config.stored"):
        cfg = load(["retriever=bm25"])
    assert load.composed == 2 and cfg.retriever.top_k == 5
    assert f"the kept composition {entry} does not match its signature" in caplog.text

    (store / "key").write_bytes(os.urandom(32))  # entries signed by someone else's key
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="harness.config.stored"):
        load(["retriever=bm25"])
    assert load.composed == 3 and "does not match its signature" in caplog.text

    entry.write_bytes(b"not an entry")
    load(["retriever=bm25"])
    assert load.composed == 4
    monkeypatch.undo()
    monkeypatch.setenv(stored.ENV, str(store))
    load(["retriever=bm25"])
    assert load.composed == 4  # replaced by an entry that verifies


def test_a_source_the_primary_config_adds_is_checked_when_read(store, conf, tmp_path):
    extra = tmp_path / "extra"
    (extra / "retriever").mkdir(parents=True)
    (extra / "retriever" / "wide.yaml").write_text("defaults:\n  - bm25\n  - _self_\ntop_k: 40\n")
    config = conf / "config.yaml"
    config.write_text(config.read_text().replace("\nhydra:\n", f"\nhydra:\n  searchpath: [file://{extra}]\n"))
    assert f"searchpath: [file://{extra}]" in config.read_text()
    load = CountingLoader(conf)
    assert load(["retriever=wide"]).retriever.top_k == 40
    assert load(["retriever=wide"]).retriever.top_k == 40
    assert load.composed == 1

    (extra / "retriever" / "wide.yaml").write_text("defaults:\n  - bm25\n  - _self_\ntop_k: 41\n")
    assert load(["retriever=wide"]).retriever.top_k == 41
    assert load.composed == 2


def test_a_failed_composition_is_not_kept_and_off_keeps_nothing(store, conf, monkeypatch):
    load = CountingLoader(conf)
    for _ in range(2):
        with pytest.raises(Exception, match="no_such_retriever"):
            load(["retriever=no_such_retriever"])
    assert load.composed == 2 and not list(store.glob("*.composition"))

    monkeypatch.setenv(stored.ENV, "off")
    load(["retriever=bm25"])
    load(["retriever=bm25"])
    assert load.composed == 4 and not list(store.glob("*.composition"))


def test_the_key_is_private_and_a_folder_others_may_write_is_not_used(store, conf, caplog):
    load = CountingLoader(conf)
    load([])
    assert (store / "key").stat().st_mode & 0o077 == 0
    assert len((store / "key").read_bytes()) == 32

    store.chmod(0o777)  # anyone could replace the key and sign entries of their own
    with caplog.at_level(logging.WARNING, logger="harness.config.stored"):
        load([])
        load([])
    assert load.composed == 3
    assert f"compositions are not kept in {store}: the folder is not this user's own, or others may write" \
        in caplog.text

    store.chmod(0o700)
    (store / "key").chmod(0o644)
    load([])
    assert load.composed == 4


def test_a_signed_entry_of_classes_this_code_lacks_is_said_and_composed_again(store, conf, caplog):
    import hashlib
    import hmac

    load = CountingLoader(conf)
    load([])
    [entry] = store.glob("*.composition")
    payload = b"cno_such_module_of_the_harness\nGone\n."  # a pickle naming a class no module holds
    signature = hmac.new((store / "key").read_bytes(), payload, hashlib.sha256).digest()
    entry.write_bytes(stored.LAYOUT + signature + payload)
    with caplog.at_level(logging.WARNING, logger="harness.config.stored"):
        assert load([]).retriever.top_k == 5
    assert load.composed == 2
    assert f"the kept composition {entry} could not be read (ModuleNotFoundError" in caplog.text

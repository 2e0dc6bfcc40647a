"""The `_target_` allowlist on real composed configs: harness code passes, anything else is refused."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from harness.config.allowlist import TargetNotAllowed, check_targets, is_allowed

HOSTILE = ["shutil.copyfile", "builtins.open", "os.makedirs", "tarfile.open", "zipfile.ZipFile", "sqlite3.connect"]


def test_every_shipped_option_is_allowed(compose):
    cfg = compose(["generator=openai", "judge=local", "rubric=[answer_score,retrieval_grade,likert]",
                   "retriever=hybrid", "router=embedding", "routes=kpi_rag"], return_hydra_config=True)
    check_targets(cfg)  # hydra's launcher, sweeper and the tracking callback included


@pytest.mark.parametrize("target", HOSTILE)
def test_a_foreign_target_from_the_command_line_is_refused_naming_key_and_target(compose, target):
    cfg = compose(["chunker=none", f"++chunker._target_={target}"])
    with pytest.raises(TargetNotAllowed, match=rf"config key 'chunker._target_' names '{target}'"):
        check_targets(cfg)


def test_nested_listed_and_interpolated_targets_are_checked_too():
    cfg = OmegaConf.create({"metrics": {"retrieval": {"inner": [{"_target_": "os.makedirs", "name": "x"}]}},
                            "made": "${oc.create:{_target_: tarfile.open}}",
                            "hydra_like": {"_target_": "${plugin}"}, "plugin": "shutil.copyfile"})
    with pytest.raises(TargetNotAllowed) as refused:
        check_targets(cfg)
    assert "'metrics.retrieval.inner.0._target_' names 'os.makedirs'" in str(refused.value)
    assert "'made._target_' names 'tarfile.open'" in str(refused.value)
    assert "'hydra_like._target_' names 'shutil.copyfile'" in str(refused.value)


def test_a_reference_is_checked_where_it_points_and_a_literal_inside_an_interpolation_is_built():
    # `${a}` is not resolved (a's own node is walked); a dict or list literal, a quoted text or a
    # nested interpolation may build a node with a target, so those are resolved and checked.
    cfg = OmegaConf.create({"a": {"_target_": "shutil.copyfile"}, "b": "${a}", "c": "${oc.select:missing,null}",
                            "listed": "${oc.create:[{_target_: os.makedirs}]}",
                            "nested": "${oc.create:${oc.select:spec,null}}", "spec": {"_target_": "builtins.open"}})
    with pytest.raises(TargetNotAllowed) as refused:
        check_targets(cfg)
    assert "'a._target_' names 'shutil.copyfile'" in str(refused.value) and "'b." not in str(refused.value)
    assert "'listed.0._target_' names 'os.makedirs'" in str(refused.value)
    assert "'nested._target_' names 'builtins.open'" in str(refused.value)


def test_a_foreign_object_reached_through_a_harness_module_is_refused():
    # harness.cache imports modules of its own; the path starts with `harness.` but the object is not ours.
    import harness.cache

    foreign = next(f"harness.cache.{name}" for name in ("os", "json", "hashlib", "shutil", "Path")
                   if hasattr(harness.cache, name))
    assert not is_allowed(foreign, ("harness.",), ())
    assert not is_allowed("harness.no_such_module.Thing", ("harness.",), ())
    assert is_allowed("harness.chunkers.recursive.RecursiveChunker", ("harness.",), ())


def test_hydra_internals_are_allowed_only_in_hydra_s_own_node():
    launcher = "hydra._internal.core_plugins.basic_launcher.BasicLauncher"
    check_targets(OmegaConf.create({"hydra": {"launcher": {"_target_": launcher}}}))
    with pytest.raises(TargetNotAllowed, match="'chunker._target_'"):
        check_targets(OmegaConf.create({"chunker": {"_target_": launcher}}))
    with pytest.raises(TargetNotAllowed, match="'hydra.callbacks.x._target_' names 'shutil.copyfile'"):
        check_targets(OmegaConf.create({"hydra": {"callbacks": {"x": {"_target_": "shutil.copyfile"}}}}))


def test_declared_plugins_are_allowed_by_name_or_package_prefix(compose):
    cfg = compose(["chunker=none", "++chunker._target_=shutil.copyfile",
                   "plugins.allowed_targets=[shutil.copyfile]"])
    check_targets(cfg)
    assert is_allowed("json.decoder.JSONDecoder", ("harness.",), ("json.",))
    assert not is_allowed("json.decoder.re.compile", ("harness.",), ("json.",))


def test_logging_factories_and_classes_must_be_the_logging_package_s_or_ours():
    from harness.config.allowlist import check_logging_targets

    logging_cfg = {"formatters": {"plain": {"format": "%(message)s"}},
                   "filters": {"own": {"()": "harness.log_filters.OwnOrWarning"}},
                   "handlers": {"console": {"class": "logging.StreamHandler"},
                                "file": {"class": "logging.handlers.RotatingFileHandler", "filename": "x.log"}}}
    cfg = OmegaConf.create({"hydra": {"job_logging": logging_cfg}, "plugins": {"allowed_targets": []}})
    check_targets(cfg)
    check_logging_targets(cfg.hydra.job_logging)
    cfg.hydra.job_logging.handlers.evil = {"()": "shutil.copyfile", "src": "a", "dst": "b"}
    cfg.hydra.job_logging.handlers.console["class"] = "logging.os.system"  # reached through logging, not logging's
    for check, node in ((check_targets, cfg), (check_logging_targets, cfg.hydra.job_logging)):
        with pytest.raises(TargetNotAllowed) as refused:
            check(node)
        assert "config key 'hydra.job_logging.handlers.evil.()' names 'shutil.copyfile'" in str(refused.value)
        assert "'hydra.job_logging.handlers.console.class' names 'logging.os.system'" in str(refused.value)
    cfg.hydra.job_logging.handlers.console["class"] = "logging.StreamHandler"
    cfg.plugins.allowed_targets = ["shutil.copyfile"]
    check_logging_targets(cfg.hydra.job_logging)  # declared plugins, read from the node's root config
    # outside a logging config, `class` is an ordinary key
    check_targets(OmegaConf.create({"dataset": {"class": "shutil.copyfile"}}))

"""Issue 15.1: a config cannot make the harness call code outside it, from the command line or a
shared --config-dir; a plugin declared in YAML runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.forkserver import run as forked

pytestmark = pytest.mark.slow

# Each target with the arguments that would make it write `made` (a file or folder).
HOSTILE = {
    "shutil.copyfile": {"src": "{src}", "dst": "{made}"},
    "builtins.open": {"file": "{made}", "mode": "w"},
    "os.makedirs": {"name": "{made}"},
    "tarfile.open": {"name": "{made}", "mode": "w"},
    "zipfile.ZipFile": {"file": "{made}", "mode": "w"},
    "sqlite3.connect": {"database": "{made}"},
}


def harness(tmp_path: Path, *args: str, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "harness", *args, "tracking=none", f"cache.dir={tmp_path / 'cache'}",
               f"hydra.run.dir={tmp_path / 'run'}", f"hydra.sweep.dir={tmp_path / 'sweep'}"]
    return forked(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("target", HOSTILE)
def test_a_foreign_target_on_the_command_line_is_refused_and_writes_nothing(tmp_path, target):
    (tmp_path / "src.txt").write_text("import os  # would run at every Python start\n")
    made = tmp_path / "zz.pth"
    arguments = [f"++chunker.{k}={v.format(src=tmp_path / 'src.txt', made=made)}" for k, v in HOSTILE[target].items()]
    done = harness(tmp_path, "chunker=none", f"++chunker._target_={target}", *arguments)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"config key 'chunker._target_' names '{target}'" in done.stderr
    assert not made.exists() and not (tmp_path / "run").exists()


def test_a_swept_foreign_target_is_refused_before_the_sweep_starts(tmp_path):
    done = harness(tmp_path, "-m", "chunker=none", "++chunker._target_=os.makedirs",
                   f"++chunker.name={tmp_path / 'made'}", "retriever=bm25,dense")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "config key 'chunker._target_' names 'os.makedirs'" in done.stderr
    assert not (tmp_path / "made").exists() and not (tmp_path / "sweep").exists()


def shared_config_dir(tmp_path: Path, target: str, plugins: list[str]) -> Path:
    """What a colleague might share: a chunker option and an experiment that picks it."""
    conf = tmp_path / "shared_conf"
    (conf / "chunker").mkdir(parents=True)
    (conf / "experiment").mkdir()
    (conf / "chunker" / "theirs.yaml").write_text(f"_target_: {target}\n")
    (conf / "experiment" / "theirs.yaml").write_text(textwrap.dedent(f"""\
        # @package _global_
        defaults:
          - override /chunker: theirs
        plugins:
          allowed_targets: {json.dumps(plugins)}
        """))
    return conf


def test_a_foreign_target_in_a_shared_config_dir_is_refused(tmp_path):
    conf = shared_config_dir(tmp_path, "os.makedirs", plugins=[])
    (conf / "chunker" / "theirs.yaml").write_text(f"_target_: os.makedirs\nname: {tmp_path / 'made'}\n")
    done = harness(tmp_path, "--config-dir", str(conf), "experiment=theirs", *TINY_DATASET_OVERRIDES)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "config key 'chunker._target_' names 'os.makedirs'" in done.stderr
    assert not (tmp_path / "made").exists()


PLUGIN = '''
from harness.chunkers.base import Chunker, make_chunks


class Paragraphs(Chunker):
    """One chunk per blank-line separated paragraph."""

    def split(self, document):
        spans, start = [], 0
        for part in document.text.split("\\n\\n"):
            spans.append((start, start + len(part)))
            start += len(part) + 2
        return [chunk.__class__(**{**chunk.__dict__, "id": "para:" + chunk.id})
                for chunk in make_chunks(document, spans)]

    def fingerprint(self):
        return {"chunker": "paragraphs-plugin"}
'''


def test_a_declared_plugin_runs(tmp_path):
    package = tmp_path / "plugins_src" / "teamchunkers"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(PLUGIN)
    conf = shared_config_dir(tmp_path, "teamchunkers.Paragraphs", plugins=["teamchunkers.Paragraphs"])
    done = harness(tmp_path, "--config-dir", str(conf), "experiment=theirs", *TINY_DATASET_OVERRIDES,
                   pythonpath=tmp_path / "plugins_src")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "run" / "per_question.jsonl").read_text().splitlines()]
    assert rows and all(chunk_id.startswith("para:") for row in rows for chunk_id in row["retrieved_chunk_ids"])


def test_a_hydra_callback_from_a_shared_experiment_is_refused_before_hydra_creates_it(tmp_path):
    conf = tmp_path / "shared_conf"
    (conf / "experiment").mkdir(parents=True)
    (conf / "experiment" / "theirs.yaml").write_text(textwrap.dedent(f"""\
        # @package _global_
        hydra:
          callbacks:
            theirs:
              _target_: os.makedirs
              name: {tmp_path / 'made'}
        """))
    for mode in ([], ["-m"]):
        done = harness(tmp_path, *mode, "--config-dir", str(conf), "experiment=theirs", *TINY_DATASET_OVERRIDES)
        assert done.returncode == 2, done.stderr[-2000:]
        assert "config key 'hydra.callbacks.theirs._target_' names 'os.makedirs'" in done.stderr
        assert not (tmp_path / "made").exists()


@pytest.mark.parametrize("node", ["job_logging", "hydra_logging"])
def test_a_logging_factory_in_a_shared_config_dir_is_refused_before_logging_is_set_up(tmp_path, node):
    # dictConfig calls a handler's `()` factory with the handler's other keys: shutil.copyfile(src, dst).
    (tmp_path / "src.txt").write_text("import os  # would run at every Python start\n")
    made = tmp_path / "zz.pth"
    conf = tmp_path / "shared_conf"
    (conf / "experiment").mkdir(parents=True)
    (conf / "experiment" / "theirs.yaml").write_text(textwrap.dedent(f"""\
        # @package _global_
        hydra:
          {node}:
            handlers:
              theirs:
                (): shutil.copyfile
                src: {tmp_path / 'src.txt'}
                dst: {made}
        """))
    for mode in ([], ["-m"]):
        done = harness(tmp_path, *mode, "--config-dir", str(conf), "experiment=theirs", *TINY_DATASET_OVERRIDES)
        assert done.returncode == 2, done.stderr[-2000:]
        assert f"config key 'hydra.{node}.handlers.theirs.()' names 'shutil.copyfile'" in done.stderr
        assert not made.exists() and not (tmp_path / "run").exists() and not (tmp_path / "sweep").exists()

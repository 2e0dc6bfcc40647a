"""`harness --help` is the tool's own page; `harness --version` prints the harness version."""

from __future__ import annotations

import subprocess
import sys

from harness import __version__
from harness.cli.subcommands import SUBCOMMANDS
from tests.conftest import PROJECT_ROOT


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=120)


def test_help_page_lists_groups_subcommands_and_examples():
    done = run("--help")
    assert done.returncode == 0, done.stderr
    page = done.stdout
    assert page.startswith(f"harness {__version__}: a declarative benchmark harness")
    assert "schema/" not in page and "hydra/" not in page
    groups = sorted(p.name for p in (PROJECT_ROOT / "conf").iterdir() if p.is_dir() and p.name != "hydra")
    for group in groups:
        options = sorted(f.stem for f in (PROJECT_ROOT / "conf" / group).glob("*.yaml"))
        assert f"{group:<11} {', '.join(options)}" in page
    for name, (_, summary) in SUBCOMMANDS.items():
        assert f"{name:<11} {summary}" in page
    examples = page.split("== Examples ==")[1].split("\n\n")[0].strip().splitlines()
    assert len(examples) == 3 and all(line.strip().startswith("harness ") for line in examples)
    assert 'eval "$(harness -sc install=bash)"' in page  # tab completion
    assert len(page.splitlines()) < 60


def test_version():
    done = run("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"harness {__version__}"


def test_help_page_is_hydras_rendering_of_the_template_without_its_group_listings():
    # Hydra's --help builds both config-group listings whatever the template uses (10-14 s here);
    # the harness's template uses neither, so the page is rendered from the composed template.
    from types import SimpleNamespace

    from hydra import compose, initialize_config_dir
    from hydra._internal.hydra import Hydra

    from harness.cli.help_page import HYDRA_PLACEHOLDERS, help_page
    from harness.cli.subcommands import register_help_resolver
    from harness.cli.sweep import CONFIG_DIR

    register_help_resolver()
    page = help_page(str(CONFIG_DIR), [])
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", return_hydra_config=True)
    unused = SimpleNamespace(format_args_help=lambda parser: "", format_config_groups=lambda predicate: "")
    assert page == Hydra.get_help(unused, cfg.hydra.help, cfg, None, False)
    assert 'eval "$(harness -sc install=bash)"' in page
    for template in ("$APP_CONFIG_GROUPS", "x ${CONFIG}", "$FLAGS_HELP", "$HYDRA_CONFIG_GROUPS"):
        assert HYDRA_PLACEHOLDERS.search(template)  # such a template gets Hydra's own help
    assert not HYDRA_PLACEHOLDERS.search("costs $$CONFIG")

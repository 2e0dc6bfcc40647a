"""The documentation site: the README stays a quick start, and the config reference covers every
option of every group (the strict build itself is `make docs`, which `make test` runs first)."""

from __future__ import annotations

import importlib.util
import re

import yaml

from tests.conftest import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"
README_MAX_LINES = 250


def _hook():
    spec = importlib.util.spec_from_file_location("conf_reference", DOCS / "hooks" / "conf_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [page for value in node.values() for page in _nav_pages(value)]
    return [page for item in node for page in _nav_pages(item)]


def _mkdocs_config() -> dict:
    # mkdocs.yml holds no YAML tags, so the plain loader reads it.
    return yaml.safe_load((PROJECT_ROOT / "mkdocs.yml").read_text())


def test_the_readme_is_a_quick_start_that_links_into_the_site():
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_MAX_LINES
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (PROJECT_ROOT / target).is_file(), f"README links to a missing page {target}"
    assert "make docs" in readme and "mkdocs serve" in readme


def test_every_config_group_has_a_reference_page_in_the_nav():
    hook = _hook()
    nav = set(_nav_pages(_mkdocs_config()["nav"]))
    markers = {}
    for page in (DOCS / "reference" / "config").glob("*.md"):
        for group in hook.MARKER.findall(page.read_text()):
            markers[group] = page.relative_to(DOCS).as_posix()
    for group in hook.groups() + ["config.yaml"]:
        assert group in markers, f"conf/{group} has no page with <!-- conf-options: {group} -->"
        assert markers[group] in nav, f"{markers[group]} is not in mkdocs.yml's nav"


def test_every_option_and_every_key_appears_in_the_generated_reference():
    hook = _hook()
    conf = PROJECT_ROOT / "conf"
    checked = 0
    for group in hook.groups() + ["config.yaml"]:
        text = hook.render_group(group)
        for path in hook.option_files(group):
            assert f"### `{hook.option_name(path, group)}`" in text
            assert path.relative_to(PROJECT_ROOT).as_posix() in text
            for key in hook.option_keys(path, conf):
                assert f"| `{key}` |" in text, f"{key} of {path} is missing"
                checked += 1
    assert checked > 300


def test_the_reference_reads_keys_defaults_and_comments_from_the_yaml():
    hook = _hook()
    text = hook.render_group("retriever")
    # conf/retriever/bm25.yaml: a default, and the comment above a key.
    assert "| `retriever.k1` | `0.9` |" in text
    assert "| `retriever.mmap` | `false` | Search the cached index memory-mapped" in text
    # A package header: the rubric's keys land under rubrics.<name>; _global_ at the root.
    rubric = hook.render_group("rubric")
    assert "| `rubrics.likelihood_correctness.multiplier` | `1` |" in rubric
    experiment = hook.render_group("experiment")
    assert "| `hydra.mode` |" in experiment
    # An inline comment, and a file included by a group's options (routes/shared).
    assert "| `gates.alpha` | `0.05` | significance level of the paired t-test in regression gates |" in \
        hook.render_group("gates")
    assert "### `shared/answer_checks`" in hook.render_group("routes")


def _build(tmp_path, pages: dict[str, str], nav: list[str]):
    """mkdocs build of ``pages`` with the project's own strictness and validation settings."""
    import subprocess
    import sys

    project = _mkdocs_config()
    config = {"site_name": "t", "docs_dir": "docs", "site_dir": "site", "strict": project["strict"],
              "validation": project["validation"], "nav": nav}
    (tmp_path / "docs").mkdir()
    for name, text in pages.items():
        (tmp_path / "docs" / name).write_text(text)
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    return subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def test_the_strict_build_refuses_a_page_left_out_of_the_nav(tmp_path):
    done = _build(tmp_path, {"index.md": "# a\n", "orphan.md": "# b\n"}, ["index.md"])
    assert done.returncode != 0 and "orphan.md" in done.stderr


def test_the_strict_build_refuses_broken_links_and_anchors(tmp_path):
    for number, (link, fails) in enumerate([("[x](other.md#there)", False), ("[x](missing.md)", True),
                                            ("[x](other.md#nowhere)", True)]):
        folder = tmp_path / str(number)
        folder.mkdir()
        done = _build(folder, {"index.md": f"# a\n\n{link}\n", "other.md": "# There\n"}, ["index.md", "other.md"])
        assert (done.returncode != 0) == fails, (link, done.stderr)


def test_make_test_runs_the_strict_build_first_and_loud_enough_to_count_warnings():
    makefile = (PROJECT_ROOT / "Makefile").read_text()
    assert re.search(r"^test: docs\b", makefile, flags=re.M)
    recipe = re.search(r"^docs:.*\n\t(.+)", makefile, flags=re.M).group(1)
    # --quiet hides the warnings --strict counts: the build would then pass with broken links.
    assert "mkdocs build --strict" in recipe and "-q" not in recipe.split()

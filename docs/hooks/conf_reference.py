"""mkdocs hook: the config-group reference pages, generated from ``conf/`` at build time.

A page holding the marker ``<!-- conf-options: GROUP -->`` (``GROUP`` a folder under ``conf/``, e.g.
``retriever`` or ``hydra``, or ``config.yaml`` for the root config) gets, in its place, one section
per option file of that group: the file's header comment, how to pick it, a table of every key
(full dotted name as given on the command line, default value, the comment written beside it) and
the YAML file itself. Nothing is copied by hand, so the pages cannot drift from the configs;
``tests/docs/test_docs.py`` checks that every group and every key appears.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

CONF = Path(__file__).resolve().parents[2] / "conf"
MARKER = re.compile(r"<!--\s*conf-options:\s*(\S+)\s*-->")
PACKAGE = re.compile(r"^#\s*@package\s+(\S+)")
KEY_LINE = re.compile(r"^(\s*)([A-Za-z_][\w\-/]*)\s*:(.*)$")
# Folders whose files are not options but are included by the group's options (``shared/x@_here_``).
INCLUDED = "shared"
CELL_CHARS = 90


def option_files(group: str, conf: Path = CONF) -> list[Path]:
    """The YAML files of ``group`` (sub-folders included), or ``[conf/config.yaml]``."""
    if group == "config.yaml":
        return [conf / "config.yaml"]
    folder = conf / group
    if not folder.is_dir():
        raise FileNotFoundError(f"no config group folder {folder}")
    return sorted(folder.rglob("*.yaml"))


def groups(conf: Path = CONF) -> list[str]:
    """Every config-group folder directly under ``conf/`` (``hydra`` holds Hydra's own groups)."""
    return sorted(p.name for p in conf.iterdir() if p.is_dir() and any(p.rglob("*.yaml")))


def package_of(path: Path, conf: Path = CONF) -> str:
    """Where the file's keys land in the composed config: its ``@package`` header, else its folder."""
    for line in path.read_text().splitlines()[:3]:
        match = PACKAGE.match(line)
        if match:
            return "" if match.group(1) == "_global_" else match.group(1)
    if path == conf / "config.yaml":
        return ""
    parts = list(path.relative_to(conf).parent.parts)
    if parts and parts[-1] == INCLUDED:
        parts = parts[:-1]
    return ".".join(parts)


def flat_keys(node: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted key -> leaf value; lists and empty mappings are leaves."""
    if isinstance(node, dict) and node:
        out: dict[str, Any] = {}
        for key, value in node.items():
            out.update(flat_keys(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: node}


def header_comment(lines: list[str]) -> str:
    """The comment block the file opens with (its ``@package`` line left out), as markdown: prose
    lines joined into paragraphs, indented lines (examples such as ``#   harness ...``) as code."""
    blocks: list[tuple[bool, list[str]]] = []
    for line in lines:
        if not line.startswith("#"):
            break
        if PACKAGE.match(line):
            continue
        body = line[1:].removeprefix(" ")
        code = body.startswith("  ")
        if not body.strip():
            blocks.append((False, []))
        elif blocks and blocks[-1][0] == code and blocks[-1][1]:
            blocks[-1][1].append(body)
        else:
            blocks.append((code, [body]))
    parts = []
    for code, text in blocks:
        if code:
            parts.append("```\n" + textwrap.dedent("\n".join(text)).strip("\n") + "\n```")
        elif text:
            parts.append(_text(" ".join(t.strip() for t in text)))
    return "\n\n".join(parts)


def _inline_comment(rest: str) -> str:
    quote = None
    for i, char in enumerate(rest):
        if char in "\"'" and quote in (None, char):
            quote = None if quote else char
        elif char == "#" and quote is None and (i == 0 or rest[i - 1] in " \t"):
            return rest[i + 1:].strip()
    return ""


def key_comments(lines: list[str]) -> dict[str, str]:
    """Dotted key (relative to the file) -> the comment above it and beside it."""
    comments: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    pending: list[str] = []
    started = False
    for line in lines:
        stripped = line.strip()
        if not stripped:
            pending = []
            continue
        if stripped.startswith("#"):
            if started:
                pending.append(stripped.lstrip("#").strip())
            continue
        started = True
        match = KEY_LINE.match(line)
        if not match:
            pending = []
            continue
        indent = len(match.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, match.group(2)))
        text = " ".join(pending + [_inline_comment(match.group(3))]).strip()
        if text:
            comments[".".join(name for _, name in stack)] = text
        pending = []
    return comments


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    text = text.replace("\n", "\\n")
    if len(text) > CELL_CHARS:
        text = text[:CELL_CHARS] + "…"
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`" if text else '`""`'


def _text(comment: str) -> str:
    """Comment text for markdown: no table breaks, and ``<name>`` shown rather than read as HTML."""
    return comment.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def option_keys(path: Path, conf: Path = CONF) -> dict[str, Any]:
    """Full dotted key -> default value for every key the file sets (``defaults`` left out)."""
    raw = OmegaConf.to_container(OmegaConf.load(path), resolve=False) or {}
    raw.pop("defaults", None)
    package = package_of(path, conf)
    return {f"{package}.{key}" if package else key: value for key, value in flat_keys(raw).items()}


def option_name(path: Path, group: str, conf: Path = CONF) -> str:
    """``bm25`` for ``conf/retriever/bm25.yaml``; ``launcher/ray`` under ``hydra``."""
    if group == "config.yaml":
        return "config"
    return path.relative_to(conf / group).with_suffix("").as_posix()


def render_option(path: Path, group: str, conf: Path = CONF) -> str:
    """The markdown section of one option file."""
    lines = path.read_text().splitlines()
    name = option_name(path, group, conf)
    rel = path.relative_to(conf.parent).as_posix()
    out = [f"### `{name}`", ""]
    header = header_comment(lines)
    if header:
        out += [header, ""]
    if group == "config.yaml":
        out += [f"`{rel}`: the root config every run composes.", ""]
    elif name.split("/")[0] == INCLUDED:
        out += [f"`{rel}`: included by the group's options (not chosen on its own).", ""]
    elif group == "hydra":
        head, _, option = name.rpartition("/")
        out += [f"Pick it: `harness hydra/{head}={option}` · file `{rel}`", ""]
    else:
        out += [f"Pick it: `harness {group}={name}` · file `{rel}`", ""]
    package = package_of(path, conf)
    comments = key_comments(lines)
    keys = option_keys(path, conf)
    if keys:
        out += ["| key | default | note |", "|---|---|---|"]
        for key, value in keys.items():
            local = key[len(package) + 1:] if package else key
            note = comments.get(local, "")
            out.append(f"| `{key}` | {_cell(value)} | {_text(note)} |")
        out.append("")
    out += [f'??? note "{rel}"', "", "    ```yaml"]
    out += [f"    {line}" if line else "" for line in lines]
    out += ["    ```", ""]
    return "\n".join(out)


def render_group(group: str, conf: Path = CONF) -> str:
    """Every option of ``group``, in file order."""
    return "\n".join(render_option(path, group, conf) for path in option_files(group, conf))


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (mkdocs hook API)
    """Replaces each ``<!-- conf-options: GROUP -->`` marker with the group's generated reference."""
    return MARKER.sub(lambda match: render_group(match.group(1)), markdown)

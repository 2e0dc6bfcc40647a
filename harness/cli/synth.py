"""``harness synth``: questions written from your own documents.

    harness synth --kind cloze --questions 50 --out synth.jsonl [OVERRIDE ...]
    harness synth --kind llm --questions 20 --out synth.jsonl generator=openai generator.model=gpt-4o-mini

From the configured dataset's documents (the demo's by default), chunked by the configured chunker,
writes exactly N questions in the questions_jsonl format, with provenance on every line (kind, model,
prompt hash, filter scores) and ``FILE.summary.json`` (what each filter removed). When fewer can be
made (the corpus runs out, too many calls fail) the command says how many and why, keeps them in
FILE.partial and exits 1. Arguments with ``=`` are Hydra overrides of the root config: ``dataset``,
``chunker``, ``retriever`` (the round-trip filter's), ``generator`` (``--kind llm`` uses
generator=local, the embedded SmolLM2, unless one is named), ``prompt`` and ``synth.*``
(conf/synth/: ``synth.filters.roundtrip.enabled=false``, ``synth.writer.multi_hop=0.2``, ``seed=3``).
Score the set like any other, over the corpus it was written from: ``harness -m dataset=synthetic
dataset.questions=FILE`` (or ``dataset=questions_jsonl dataset.questions=FILE dataset.documents=DOCS``).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra.errors import HydraException

from harness.config.resolvers import PROJECT_ROOT
from harness.data.records import DatasetError

_OVERRIDE = re.compile(r"^(~[\w./@-]+(=.*)?|\+{0,2}\w[\w./@-]*=.*)$")  # Hydra overrides: key=value, +key=, ~key
KINDS = tuple(sorted(p.stem for p in (PROJECT_ROOT / "conf" / "synth").glob("*.yaml")))


@dataclass
class SyntheticSet:
    """A written set: the file, its lines and its summary."""

    path: Path
    lines: list[dict[str, Any]]
    summary: dict[str, Any]
    documents: str | None = None  # the dataset's documents folder, to score the set over (questions_jsonl)


class IncompleteSet(RuntimeError):
    """Fewer questions than asked could be made; those made are in :attr:`made` (FILE.partial)."""

    def __init__(self, message: str, made: SyntheticSet) -> None:
        super().__init__(message)
        self.made = made


def synth(kind: str, questions: int, out: str | Path, overrides: list[str] | None = None) -> SyntheticSet:
    """Writes ``questions`` questions of ``kind`` to ``out``, like ``harness synth``.

    Raises:
        IncompleteSet: fewer could be made; they are in ``out.partial`` (the error says why).
        ValueError, DatasetError, HydraException: bad arguments, config or data (nothing written).
    """
    return synth_from_config(compose_synth(kind, overrides or []), questions, out)


def compose_synth(kind: str, overrides: list[str]):
    """The root config with the ``synth`` group's ``kind`` option and ``overrides``; ``llm`` writes
    with generator=local (the embedded SmolLM2) unless the overrides name a generator."""
    from harness.cli.compose import compose

    if kind not in KINDS:
        raise ValueError(f"--kind must be one of {list(KINDS)}, got {kind!r}")
    overrides = list(overrides)
    if kind == "llm" and not any(o.lstrip("+").startswith("generator=") for o in overrides):
        overrides.insert(0, "generator=local")
    return compose([f"+synth={kind}", *overrides])


def synth_from_config(cfg, questions: int, out: str | Path) -> SyntheticSet:
    """:func:`synth` from a composed config (:func:`compose_synth`)."""
    from harness.cache import DiskCache
    from harness.synth.synthesizer import Synthesizer

    if questions < 1:
        raise ValueError(f"--questions must be >= 1, got {questions}")
    settings, dataset, chunker = (_built(cfg, key) for key in ("synth", "dataset", "chunker"))
    cache = DiskCache(cfg.cache.dir, enabled=cfg.cache.enabled)
    tools = _tools(cfg, settings, dataset, chunker, cache)
    synthesizer = Synthesizer(settings, tools)
    try:
        outcome = synthesizer.run(questions)
    except BaseException:  # what was kept before the failure is not lost
        if synthesizer.outcome is not None and synthesizer.outcome.kept:
            synthesizer.outcome.stopped = synthesizer.outcome.stopped or "stopped by an error (see below)"
            _write(synthesizer.outcome, settings, tools, dataset, chunker, Path(out), cfg)
        raise
    made = _write(outcome, settings, tools, dataset, chunker, Path(out), cfg)
    made.documents = cfg.dataset.get("documents")
    if not outcome.complete:
        raise IncompleteSet(f"{outcome.shortfall()}; the {len(made.lines)} made are in {made.path}", made)
    return made


def _built(cfg, key: str):
    """``cfg[key]`` instantiated; a dataset or setting the constructor refuses raises its own error
    (``DatasetError: ... not found``), not Hydra's wrapper around it."""
    from hydra.errors import InstantiationException
    from hydra.utils import instantiate

    try:
        return instantiate(cfg[key])
    except InstantiationException as err:
        if isinstance(err.__cause__, Exception):
            raise err.__cause__ from None
        raise


def _tools(cfg, settings, dataset, chunker, cache):
    from hydra.utils import instantiate

    from harness.synth import corpus
    from harness.synth.records import Tools

    chunks = corpus.passages(dataset, chunker, cache)
    searches = any(f.name == "roundtrip" for f in settings.enabled_filters()) or settings.writer.multi_hop > 0
    retriever = corpus.index(instantiate(cfg.retriever), chunks, cache) if searches else None
    generator = instantiate(cfg.generator)
    return Tools(cache=cache, chunks=chunks, generator=generator if generator.enabled else None,
                 prompt=instantiate(cfg.prompt), retriever=retriever)


def _write(outcome, settings, tools, dataset, chunker, out: Path, cfg) -> SyntheticSet:
    from omegaconf import OmegaConf

    from harness.synth.dataset import corpus_config
    from harness.synth.output import question_line, summary, write_set

    lines = [question_line(number, scored, settings, tools, dataset.name)
             for number, scored in enumerate(outcome.kept, start=1)]
    corpus = corpus_config(OmegaConf.to_container(cfg.dataset, resolve=True))
    facts = summary(outcome, settings, tools, dataset.name, chunker.fingerprint(), corpus)
    return SyntheticSet(path=write_set(out, lines, facts), lines=lines, summary=facts)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness synth", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", required=True, choices=KINDS, help="cloze (no language model) or llm")
    parser.add_argument("--questions", required=True, type=int, help="how many questions to write")
    parser.add_argument("--out", required=True, type=Path, help="the questions_jsonl file to write")
    args, extra = parser.parse_known_args(argv)
    unknown = [a for a in extra if not _OVERRIDE.match(a)]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        made = synth(args.kind, args.questions, args.out, extra)
    except IncompleteSet as err:
        print_summary(err.made)
        print(f"harness synth: {err}", file=sys.stderr)
        return 1
    except (ValueError, DatasetError, HydraException, FileNotFoundError) as err:
        print(f"harness synth: {err}", file=sys.stderr)
        return 2
    print_summary(made)
    print(f"Wrote {len(made.lines)} questions to {made.path} (summary: {made.path}.summary.json)")
    print(f"Score it: harness -m dataset=synthetic dataset.questions={made.path}"
          + (f"  (or dataset=questions_jsonl dataset.questions={made.path} dataset.documents={made.documents})"
             if made.documents else ""))
    return 0


def print_summary(made: SyntheticSet) -> None:
    """What each filter removed, as a table."""
    from rich.console import Console
    from rich.table import Table

    facts = made.summary
    table = Table(title=f"harness synth --kind {facts['kind']}: {facts['made']} of {facts['asked']} questions")
    for column in ("filter", "on", "scored", "removed", "failed", "settings"):
        table.add_column(column)
    for name, row in facts["filters"].items():
        settings = ", ".join(f"{k}={v}" for k, v in row.items() if k not in ("enabled", "scored", "removed", "failed",
                                                                             "reasons"))
        table.add_row(name, "yes" if row["enabled"] else "no", str(row.get("scored", "-")),
                      str(row.get("removed", "-")), str(row.get("failed", "-")), settings)
    Console().print(table)
    writes = facts.get("writes") or {}
    print(f"passages: {facts['passages']}, groups tried: {facts['passage_groups_tried']}, "
          f"nothing to ask: {sum(facts['no_question'].values())}, writes failed: {writes.get('failed', 0)}")


"""docs/how-to/plugin-retriever.md works as written: its package, option and experiment are taken
from the page, composed with the real configs (allowlist included) and retrieve on the tiny corpus."""

from __future__ import annotations

import re
import sys

from hydra.utils import instantiate

from harness.cache import DiskCache
from harness.chunkers.base import Chunk
from harness.config.allowlist import check_targets
from tests.conftest import PROJECT_ROOT

PAGE = PROJECT_ROOT / "docs" / "how-to" / "plugin-retriever.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(), flags=re.S)


def test_the_plugin_retriever_of_the_how_to_composes_and_retrieves(copied_conf, tmp_path, monkeypatch):
    folder, compose = copied_conf
    package = tmp_path / "src" / "teamretrievers"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(_blocks("python")[0])
    for block in _blocks("yaml"):
        first, _, body = block.partition("\n")
        target = folder / first.removeprefix("# myconf/")
        target.write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.delitem(sys.modules, "teamretrievers", raising=False)

    cfg = compose(["experiment=team"])
    check_targets(cfg)  # declared in plugins.allowed_targets, so not refused
    retriever = instantiate(cfg.retriever)
    assert type(retriever).__name__ == "TfidfRetriever" and retriever.ngram_max == 2

    texts = ["tokens expire after 3600 seconds", "the invoice lists revenue by month", "rate limits per key"]
    chunks = [Chunk(id=f"c{i}", doc_id=f"d{i}", text=text, start=0, end=len(text)) for i, text in enumerate(texts)]
    retriever.index(chunks, corpus_key="k", cache=DiskCache(tmp_path / "cache"))
    hits = retriever.search(["when do tokens expire", "monthly revenue"], k=2)
    assert [pairs[0][0] for pairs in hits] == [0, 1]
    assert all(len(pairs) == 2 and pairs[0][1] > pairs[1][1] for pairs in hits)

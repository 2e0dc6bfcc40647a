"""Sentences and salient spans of the cloze writer, on hand-worked examples."""

from __future__ import annotations

from harness.synth.spans import find_spans, plain, sentences


def spans(sentence: str) -> list[tuple[str, str]]:
    return [(span.kind, span.text) for span in find_spans(sentence)]


def test_numbers_with_units_dates_and_names():
    assert spans("PgBouncer keeps a pool of 100 connections per region since March 2024.") == [
        ("name", "PgBouncer"), ("number_unit", "100 connections per region"), ("date", "March 2024")]
    assert spans("Tokens expire after 3,600 seconds and 45% of users in New York renew them.") == [
        ("number_unit", "3,600 seconds"), ("number_unit", "45%"), ("name", "New York")]
    assert spans("Keys are 2048-bit RSA keys, rotated on 2024-01-15, first issued in 1998.") == [
        ("number_unit", "2048-bit"), ("name", "RSA"), ("date", "2024-01-15"), ("date", "1998")]
    assert spans("An endpoint failing for 3 consecutive days is disabled within 1 business day.") == [
        ("number_unit", "3 consecutive days"), ("number_unit", "1 business day")]


def test_what_is_not_a_span():
    # A number followed by a function word has no unit; an ordinary capitalised word opening the
    # sentence names nothing, but a word no dictionary would hold (RS256, PgBouncer) does.
    assert spans("Session entries live 5 to 15 minutes.") == [("number_unit", "15 minutes")]
    assert spans("Each of them holds 10 of the keys.") == []
    assert spans("RS256 signs every token.") == [("name", "RS256")]


def test_sentences_skip_headings_tables_code_and_a_cut_first_sentence():
    passage = ("Counted per key at the edge. The **standard** limit is 100 requests per minute.\n\n## Headers\n\n"
               "| a | b |\n|---|---|\n\n```\ncode 1 line\n```\n\n- See [the guide](guide.md) for 20 more examples here.\n"
               "Short one.\n1. A numbered item of 3 steps here.")
    assert sentences(passage, 4, 60, cut=True) == ["The standard limit is 100 requests per minute.",
                                                   "See the guide for 20 more examples here.",
                                                   "A numbered item of 3 steps here."]
    assert sentences(passage, 4, 60)[0] == "Counted per key at the edge."
    assert sentences(passage, 4, 7) == ["Counted per key at the edge.", "A numbered item of 3 steps here."]
    assert plain("Use `sql.export` or **[the docs](x.md)**.") == "Use sql.export or the docs."

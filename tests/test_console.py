"""Console helpers: run names split outside brackets, shortened to what differs, tables grouped to fit."""

from __future__ import annotations

from harness.console import LOG_WIDTH, column_groups, console, escape, short_names, split_name


def test_split_keeps_lists_and_quoted_commas_whole():
    assert split_name("a=1,metrics=[retrieval,key_facts],b='x,y',c={k: 1, j: 2}") == [
        "a=1", "metrics=[retrieval,key_facts]", "b='x,y'", "c={k: 1, j: 2}"]


def test_short_names_keep_what_differs_and_name_the_shared_parts():
    names = ["chunker=recursive,generator=local,retriever=bm25", "chunker=recursive,generator=local,retriever=dense",
             "chunker=fixed_tokens,generator=local,retriever=bm25"]
    short, common, keys = short_names(names)
    assert common == ["generator=local"] and keys == ["chunker", "retriever"]
    assert [short[n] for n in names] == ["recursive, bm25", "recursive, dense", "fixed_tokens, bm25"]


def test_short_names_with_different_keys_keep_key_value_pairs():
    short, common, keys = short_names(["retriever=bm25", "retriever=dense,retriever.top_k=10"])
    assert keys == [] and common == []
    assert short == {"retriever=bm25": "retriever=bm25", "retriever=dense,retriever.top_k=10":
                     "retriever=dense, retriever.top_k=10"}


def test_a_single_name_is_shown_whole():
    assert short_names(["chunker=recursive,retriever=bm25"]) == ({"chunker=recursive,retriever=bm25":
                                                                   "chunker=recursive,retriever=bm25"}, [], [])


def test_column_groups_fit_the_width_and_keep_order():
    assert column_groups(30, [40, 40, 40, 10], 120) == [[0, 1], [2, 3]]
    assert column_groups(30, [200], 120) == [[0]]  # a column wider than the console still gets a table


def test_escape_keeps_brackets_through_rich():
    from rich.console import Console

    out = Console(width=80, record=True)
    out.print(escape("metrics=[retrieval,key_facts] [bold]x[/bold]"))
    assert "metrics=[retrieval,key_facts] [bold]x[/bold]" in out.export_text()


def test_console_falls_back_to_the_log_width_when_not_a_terminal(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert console().width == LOG_WIDTH  # pytest captures output: not a terminal

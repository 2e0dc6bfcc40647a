"""Bad input stops ``harness synth`` with a clear error, and what was already made is kept in FILE.partial."""

from __future__ import annotations

import json

import pytest
from werkzeug import Response

from harness.cli.synth import IncompleteSet, main, synth
from harness.data.records import DatasetError
from tests.generators.test_openai_chat import stream_response
from tests.synth.conftest import PATH, fake_model


def test_an_empty_corpus_is_refused_before_anything_is_written(settings, tmp_path, capsys):
    empty, blank = tmp_path / "empty", tmp_path / "blank"
    empty.mkdir()
    blank.mkdir()
    (blank / "a.md").write_text("\n\n   \n")
    out = tmp_path / "out.jsonl"
    with pytest.raises(DatasetError, match=f"no documents with extensions .* in {empty}"):
        synth("cloze", 3, out, [*settings, "dataset=documents", f"dataset.documents={empty}"])
    status = main(["--kind", "cloze", "--questions", "3", "--out", str(out), *settings, "dataset=documents",
                   f"dataset.documents={blank}"])
    assert status == 2
    assert "chunk to no passages" in capsys.readouterr().err
    assert list(tmp_path.glob("out.jsonl*")) == []


def test_fewer_passages_than_questions_keeps_the_ones_made(tiny, tmp_path, capsys):
    out = tmp_path / "synth.jsonl"
    out.write_text("an earlier set\n")  # left alone: the new set is incomplete
    assert main(["--kind", "cloze", "--questions", "6", "--out", str(out), *tiny]) == 1
    error = capsys.readouterr().err
    assert "made 4 of 6 questions: every passage group was tried (4 of 4 passages)" in error
    assert f"the 4 made are in {out}.partial" in error
    assert len((tmp_path / "synth.jsonl.partial").read_text().splitlines()) == 4
    summary = json.loads((tmp_path / "synth.jsonl.partial.summary.json").read_text())
    assert (summary["complete"], summary["made"], summary["asked"]) == (False, 4, 6)
    assert summary["stopped"].startswith("made 4 of 6")
    assert out.read_text() == "an earlier set\n"


def test_a_generator_that_returns_garbage_stops_and_keeps_what_it_made(tiny, llm_server, httpserver, tmp_path):
    # The first batch (2 passages) is written well, then every reply is garbage.
    httpserver.clear()
    calls = {"writes": 0}

    def handler(request):
        if json.loads(request.get_data())["messages"][-1]["content"].startswith("Text:"):
            calls["writes"] += 1
            if calls["writes"] > 2:
                return stream_response(["<|im_end|> lorem ipsum"])
        return stream_response([fake_model(request)])

    httpserver.expect_request(PATH, method="POST").respond_with_handler(handler)
    with pytest.raises(IncompleteSet) as raised:
        synth("llm", 4, tmp_path / "g.jsonl", [*tiny, *llm_server, "synth.batch_size=2", "synth.max_failed_fraction=0.3"])
    assert str(raised.value) == (
        "made 2 of 4 questions: stopped: synth writer: 2 of 4 calls failed (50% > max_failed_fraction 0.3); most "
        "common reason (2x): unusable reply: no 'Question: ... Answer: ...' in '<|im_end|> lorem ipsum'; "
        "2 writes failed; roundtrip removed 0, answerability removed 0, context_dependence removed 0; "
        f"the 2 made are in {tmp_path / 'g.jsonl.partial'}")
    assert raised.value.made.path == tmp_path / "g.jsonl.partial"
    assert len(raised.value.made.lines) == 2 and not (tmp_path / "g.jsonl").exists()


def test_a_generator_that_fails_every_call_stops_after_one_batch(tiny, llm_server, httpserver, tmp_path):
    httpserver.clear()
    httpserver.expect_request(PATH, method="POST").respond_with_response(Response("nope", status=500))
    with pytest.raises(IncompleteSet, match=r"made 0 of 4 questions: stopped: synth writer: all 2 calls failed; "
                                            r"most common reason \(2x\): generation failed: InternalServerError"):
        synth("llm", 4, tmp_path / "f.jsonl", [*tiny, *llm_server, "synth.batch_size=2"])
    assert (tmp_path / "f.jsonl.partial").read_text() == ""


def test_bad_arguments_are_usage_errors(tiny, tmp_path, capsys):
    assert main(["--kind", "cloze", "--questions", "0", "--out", str(tmp_path / "x.jsonl"), *tiny]) == 2
    assert "--questions must be >= 1, got 0" in capsys.readouterr().err
    assert main(["--kind", "cloze", "--questions", "2", "--out", str(tmp_path / "x.jsonl"), *tiny,
                 "synth.filters.roundtrip.level=chunk"]) == 2
    assert "synth.filters.roundtrip.level" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--kind", "cloze", "--questions", "2", "--out", str(tmp_path / "x.jsonl"), "--verbose"])

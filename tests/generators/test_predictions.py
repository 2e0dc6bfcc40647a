"""PredictionsGenerator: both file formats, every malformed line named, missing ids handled."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from harness.data.records import DatasetError
from harness.generators.base import GenerationRequest
from harness.generators.predictions import NO_CONTEXT, SKIPPED, PredictionsGenerator


def write_jsonl(path: Path, lines: list) -> Path:
    """Dicts are JSON-encoded, strings written verbatim, one per line."""
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
                    encoding="utf-8")
    return path


def request(qid: str, condition: str = "with_context") -> GenerationRequest:
    return GenerationRequest(question_id=qid, messages=({"role": "user", "content": qid},), condition=condition)


def load_error(path: Path) -> str:
    with pytest.raises(DatasetError) as info:
        PredictionsGenerator(str(path))
    return str(info.value)


FULL = {"question_id": "q1", "answer": "3600 seconds", "contexts": ["Tokens expire after 3600 seconds."],
        "route": "docs", "latency_seconds": 1.5, "ttft_seconds": 0.25, "input_tokens": 812, "output_tokens": 9}


def test_jsonl_fields_become_generations(tmp_path):
    path = write_jsonl(tmp_path / "preds.jsonl", [FULL, {"question_id": "q2", "answer": ""}])
    generator = PredictionsGenerator(str(path))
    first, second = generator.generate([request("q1"), request("q2")])
    assert first.text == "3600 seconds"
    assert first.contexts == ["Tokens expire after 3600 seconds."]
    assert first.route == "docs"
    assert (first.latency_seconds, first.ttft_seconds) == (1.5, 0.25)
    assert (first.input_tokens, first.output_tokens) == (812, 9)
    assert first.error is None and first.extra == {}
    assert second.text == "" and second.error is None  # an empty answer is an answer
    assert second.contexts is None and second.route is None and second.latency_seconds is None


def test_answers_follow_request_order_and_are_fresh_objects(tmp_path):
    path = write_jsonl(tmp_path / "preds.jsonl", [{"question_id": f"q{i}", "answer": f"a{i}"} for i in range(3)])
    generator = PredictionsGenerator(str(path))
    generations = generator.generate([request("q2"), request("q0")])
    assert [g.text for g in generations] == ["a2", "a0"]
    generations[0].extra["cached"] = True
    assert "cached" not in generator.generate([request("q2")])[0].extra


def test_squad_style_object(tmp_path):
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps({"5733be": "Saint Bernadette", "5733bf": ""}, indent=2), encoding="utf-8")
    generator = PredictionsGenerator(str(path))
    assert [g.text for g in generator.generate([request("5733bf"), request("5733be")])] == ["", "Saint Bernadette"]


def test_one_line_jsonl_is_not_mistaken_for_a_squad_object(tmp_path):
    path = write_jsonl(tmp_path / "one.jsonl", [{"question_id": "q1", "answer": "yes"}])
    assert PredictionsGenerator(str(path)).generate([request("q1")])[0].text == "yes"


def test_model_and_fingerprint(tmp_path):
    path = write_jsonl(tmp_path / "my_system.jsonl", [FULL])
    generator = PredictionsGenerator(str(path))
    assert generator.model == "predictions:my_system.jsonl"
    assert generator.fingerprint() == {"generator": "predictions", "model": "predictions:my_system.jsonl",
                                       "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "on_missing": "error"}
    assert PredictionsGenerator(str(path), on_missing="zero").fingerprint() != generator.fingerprint()
    write_jsonl(path, [{**FULL, "answer": "changed"}])
    assert PredictionsGenerator(str(path)).fingerprint() != generator.fingerprint()


def test_every_malformed_line_is_named(tmp_path):
    path = write_jsonl(tmp_path / "bad.jsonl", [
        FULL,
        {"answer": "no id"},
        {"question_id": "q3"},
        "{not json",
        {"question_id": "q5", "answer": 42},
        {"question_id": "q6", "answer": "x", "contexts": "one string"},
        {"question_id": "q7", "answer": "x", "contexts": ["ok", 3]},
        {"question_id": "q8", "answer": "x", "latency_seconds": "fast", "input_tokens": 1.5},
        {"question_id": "q9", "answer": "x", "output_tokens": True, "ttft_seconds": -1},
        {"question_id": "q1", "answer": "again"},
        "[1, 2]",
    ])
    message = load_error(path)
    expected = [
        f"{path}:2: field 'question_id' is missing",
        f"{path}:3: field 'answer' is missing",
        f"{path}:4: not valid JSON",
        f"{path}:5: field 'answer' must be str, got int",
        f"{path}:6: field 'contexts' must be list, got str",
        f"{path}:7: field 'contexts[1]' must be str, got int",
        f"{path}:8: field 'latency_seconds' must be int or float, got str",
        f"{path}:8: field 'input_tokens' must be int, got float",
        f"{path}:9: field 'output_tokens' must be int, got bool",
        f"{path}:9: field 'ttft_seconds' must be >= 0, got -1",
        f"{path}:10: field 'question_id': duplicate id 'q1' (first on line 1)",
        f"{path}:11: expected a JSON object, got list",
    ]
    for line in expected:
        assert line in message
    assert "invalid predictions file (12 problem(s))" in message


def test_bad_squad_object_values_are_named(tmp_path):
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps({"a": "fine", "b": ["not", "a string"]}), encoding="utf-8")
    assert f"{path}: question 'b': answer must be str, got list" in load_error(path)


@pytest.mark.parametrize("content, problem", [
    ("", "no predictions"),
    ("\n\n", "no predictions"),
    ("{}", "no predictions"),
    ('[{"question_id": "q1", "answer": "a"}]', "a JSON array is not a predictions format"),
])
def test_empty_or_unsupported_files(tmp_path, content, problem):
    path = tmp_path / "preds.jsonl"
    path.write_text(content, encoding="utf-8")
    assert problem in load_error(path)


def test_missing_file(tmp_path):
    assert "predictions file not found" in load_error(tmp_path / "nope.jsonl")


def test_missing_ids_raise_listing_first_twenty_and_the_count(tmp_path):
    path = write_jsonl(tmp_path / "preds.jsonl", [{"question_id": "have", "answer": "a"}])
    generator = PredictionsGenerator(str(path))
    wanted = ["have"] + [f"m{i:02d}" for i in range(25)]
    with pytest.raises(DatasetError) as info:
        generator.generate([request(qid) for qid in wanted])
    message = str(info.value)
    assert "no prediction for 25 requested question(s)" in message
    assert "m00, m01" in message and "m19" in message and "m20" not in message
    assert "and 5 more" in message


def test_missing_ids_skipped_are_marked(tmp_path):
    path = write_jsonl(tmp_path / "preds.jsonl", [{"question_id": "have", "answer": "a"}])
    generator = PredictionsGenerator(str(path), on_missing="skip")
    have, missing = generator.generate([request("have"), request("gone")])
    assert have.text == "a" and not have.failed
    assert missing.text == "" and missing.error == SKIPPED
    assert missing.extra == {"skipped": True}


def test_no_context_requests_have_no_answer(tmp_path):
    path = write_jsonl(tmp_path / "preds.jsonl", [{"question_id": "q1", "answer": "a"}])
    generator = PredictionsGenerator(str(path))  # on_missing=error: no_context never counts as missing
    with_context, no_context = generator.generate([request("q1"), request("q1", "no_context")])
    assert with_context.text == "a"
    assert no_context.text == "" and no_context.error == NO_CONTEXT
    assert generator.generate([request("absent", "no_context")])[0].error == NO_CONTEXT


def test_bad_on_missing_is_named(tmp_path):
    path = write_jsonl(tmp_path / "preds.jsonl", [FULL])
    with pytest.raises(ValueError, match="on_missing"):
        PredictionsGenerator(str(path), on_missing="ignore")


def test_a_prediction_without_contexts_is_marked_contexts_unknown(tmp_path):
    from harness.generators.base import GenerationRequest
    from harness.generators.predictions import PredictionsGenerator

    path = tmp_path / "p.jsonl"
    path.write_text('{"question_id": "a", "answer": "x"}\n{"question_id": "b", "answer": "y", "contexts": ["c"]}\n')
    generator = PredictionsGenerator(path=str(path))
    a, b = generator.generate([GenerationRequest("a", ()), GenerationRequest("b", ())])
    assert a.contexts_unknown and a.contexts is None
    assert not b.contexts_unknown and b.contexts == ["c"]


def test_metrics_ride_on_the_generation(tmp_path):
    path = write_jsonl(tmp_path / "preds.jsonl", [{**FULL, "metrics": {"unieval": 0.75, "count": 3}},
                                                  {"question_id": "q2", "answer": "x"}])
    first, second = PredictionsGenerator(str(path)).generate([request("q1"), request("q2")])
    assert first.metrics == {"unieval": 0.75, "count": 3.0}
    assert second.metrics is None


def test_non_numeric_metrics_are_refused_with_file_and_line(tmp_path):
    path = write_jsonl(tmp_path / "preds.jsonl", [
        {"question_id": "q1", "answer": "a", "metrics": {"unieval": "high"}},
        {"question_id": "q2", "answer": "a", "metrics": {"flag": True, "nan": float("nan")}},
        {"question_id": "q3", "answer": "a", "metrics": [0.5]},
        {"question_id": "q4", "answer": "a", "metrics": {"a/b": 1}},
        {"question_id": "q5", "answer": "a", "metrics": {"ok": 1}}])
    message = load_error(path)
    assert f"{path}:1: field 'metrics.unieval' must be a finite number, got 'high'" in message
    assert f"{path}:2: field 'metrics.flag' must be a finite number, got True" in message
    assert f"{path}:2: field 'metrics.nan' must be a finite number, got nan" in message
    assert f"{path}:3: field 'metrics' must be dict, got list" in message
    assert f"{path}:4: field 'metrics': name 'a/b' must be non-empty and hold no '/'" in message
    assert ":5:" not in message


def test_unknown_question_ids_are_reported_with_file_and_line(tmp_path, caplog):
    path = write_jsonl(tmp_path / "p.jsonl", [{"question_id": "q1", "answer": "a"},
                                              {"question_id": "q9", "answer": "b"}])
    generator = PredictionsGenerator(str(path))
    with caplog.at_level("WARNING"):
        generator.check_questions({"q1", "q2"})
    assert f"{path}:2: field 'question_id': unknown id 'q9'" in caplog.text
    generator.check_questions({"q1", "q9"})  # nothing unknown


def test_a_file_whose_ids_are_all_unknown_is_an_error(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"question_id": "x1", "answer": "a"},
                                              {"question_id": "x2", "answer": "b"}])
    with pytest.raises(DatasetError, match="no prediction matches a question of the dataset") as refused:
        PredictionsGenerator(str(path)).check_questions({"q1", "q2"})
    assert f"{path}:1: field 'question_id': unknown id 'x1'; {path}:2:" in str(refused.value)


def test_a_non_utf8_byte_is_named_with_its_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"question_id": "q1", "answer": "a"}\n{"question_id": "q2", "answer": "caf\xe9"}\n')
    assert f"{path}:2: not valid UTF-8 (byte 0xe9" in load_error(path)


def test_answers_read_from_a_file_bypass_the_disk_cache(tmp_path):
    from harness.cache import DiskCache
    from harness.generators.cached import generate_cached

    path = write_jsonl(tmp_path / "preds.jsonl", [{"question_id": f"q{i}", "answer": f"a{i}"} for i in range(3)])
    cache = DiskCache(tmp_path / "cache")
    for _ in range(2):  # nothing is written, so the second call reads the file again
        generations = generate_cached(PredictionsGenerator(str(path)), [request("q2"), request("q0")], cache)
        assert [g.text for g in generations] == ["a2", "a0"]
        assert not any(g.extra.get("cached") for g in generations)
    assert not (tmp_path / "cache").exists() or not any(p.is_file() for p in (tmp_path / "cache").rglob("*"))
    assert dict(cache.stats) == {}

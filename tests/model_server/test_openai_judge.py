"""judge=openai against a real server: rubric replies parsed, a reply that does not parse counted as a
failure with its reason, and which servers honour structured output (transformers serve does not)."""

from __future__ import annotations

import pytest

from harness.judges.items import item_for
from harness.judges.openai_judge import OpenAIJudge
from harness.judges.rubrics.parsing import ParseError
from tests.judges.conftest import make_record, rubric  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow


def judge(server, key_env, **settings) -> OpenAIJudge:
    options = dict(model=server.model, base_url=server.base_url, api_key_env=key_env, max_tokens=8,
                   temperature=0.0, timeout=120, max_retries=0, concurrency=2)
    return OpenAIJudge(**{**options, **settings})


def items():
    return [item_for(make_record(qid="q1"), "with_context"),
            item_for(make_record(qid="q2", answer="Never."), "with_context")]


def test_rubric_replies_are_parsed_or_failures_with_their_reason(model_server, server_key, rubric):
    scored = rubric("answer_score")
    judgements = scored.evaluate(judge(model_server, server_key), items())
    assert len(judgements) == 2
    for judgement in judgements:
        assert judgement.raw is not None  # the server answered: what it wrote is kept
        try:
            value = scored.parse(judgement.raw)[0]["answer_score"]
        except ParseError as err:  # the 135M model's free text: a failure, named, never a score
            assert judgement.failed and judgement.score is None
            assert judgement.missing.startswith("unparsable after one repair: "), judgement.missing
            assert str(err) in judgement.missing
        else:
            assert not judgement.failed and judgement.score == value


def test_transformers_serve_ignores_the_reply_schema(model_server, server_key, rubric):
    graded = rubric("manual_grade")
    structured = judge(model_server, server_key, structured_output=True)
    judgements = graded.evaluate(structured, [item_for(make_record(), "retrieval")])
    assert len(judgements) == 1
    # the request carried response_format; the server says it dropped it, so the reply is free text
    assert "Ignoring unsupported fields in the request" in model_server.log.read_text()
    assert "response_format" in model_server.log.read_text()
    if judgements[0].failed:
        assert "unparsable" in judgements[0].missing

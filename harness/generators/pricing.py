"""What a run's tokens would cost on priced models (seed 003, section 9).

Prices live in YAML, never here: a table maps a model name to dollars per million input and
output tokens, and ``cost = input_tokens * input_price + output_tokens * output_price``.

Example:
    >>> table = PriceTable({"GPT-4o": {"input": 2.5, "output": 10.0}})
    >>> round(table.cost("GPT-4o", input_tokens=1_000, output_tokens=200), 6)
    0.0045
    >>> table.cost("unpriced-model", 1_000, 200) is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping

TOKENS_PER_PRICE_UNIT = 1_000_000
PRICE_KEYS = ("input", "output")


def token_cost(input_tokens: int, output_tokens: int, input_price: float, output_price: float) -> float:
    """Dollars for the tokens at prices given in dollars per million tokens."""
    if input_tokens < 0 or output_tokens < 0:
        raise ValueError(f"token counts must be >= 0, got input_tokens={input_tokens}, "
                         f"output_tokens={output_tokens}")
    return (input_tokens * input_price + output_tokens * output_price) / TOKENS_PER_PRICE_UNIT


class PriceTable:
    """Per-model token prices in dollars per million tokens.

    Args:
        prices: ``{model: {"input": dollars, "output": dollars}}``; both keys are required and
            prices must be non-negative numbers. A local model is priced ``0``/``0``.
    """

    def __init__(self, prices: Mapping[str, Mapping[str, float]]) -> None:
        self.prices: dict[str, dict[str, float]] = {}
        for model, row in prices.items():
            if not isinstance(row, Mapping) or set(row) != set(PRICE_KEYS):
                keys = sorted(row) if isinstance(row, Mapping) else type(row).__name__
                raise ValueError(f"prices['{model}'] must have exactly the keys {list(PRICE_KEYS)}, got {keys}")
            for key in PRICE_KEYS:
                value = row[key]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                    raise ValueError(f"prices['{model}']['{key}'] must be a number >= 0, got {value!r}")
            self.prices[str(model)] = {key: float(row[key]) for key in PRICE_KEYS}

    def __contains__(self, model: object) -> bool:
        return model in self.prices

    @property
    def models(self) -> list[str]:
        return list(self.prices)

    def cost(self, model: str, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """Dollars for one model; ``None`` when the model is unpriced or a token count is unknown."""
        row = self.prices.get(model)
        if row is None or input_tokens is None or output_tokens is None:
            return None
        return token_cost(input_tokens, output_tokens, row["input"], row["output"])

    def projected(self, input_tokens: int, output_tokens: int) -> dict[str, float]:
        """What the same tokens would cost on every priced model, in table order."""
        return {model: token_cost(input_tokens, output_tokens, row["input"], row["output"])
                for model, row in self.prices.items()}

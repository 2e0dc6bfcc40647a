"""Numbers shown to what their confidence interval supports: no digit finer than the uncertainty.

A figure is rounded to the decimal place of its interval's half-width's first significant digit
(the second, when that digit is 1: 0.013 keeps 3 decimals, 0.03 keeps 2); without an interval, to
three significant digits. Shared by the console and the HTML report.

Example:
    >>> with_ci(12.5, 4.5, 20.5), with_ci(0.7234, 0.69, 0.75), with_ci(0.7234, 0.712, 0.735)
    ('12', '0.72', '0.723')
    >>> with_ci(1234.5, None, None), with_ci(0.0012345, None, None), with_ci(None, None, None)
    ('1234', '0.00123', '-')
"""

from __future__ import annotations

import math

# The finest place shown, whatever the interval.
MAX_DECIMALS = 6


def decimals(value: float | None, low: float | None = None, high: float | None = None) -> int:
    """Decimal places for ``value`` given its interval ``[low, high]`` (None: no interval)."""
    if low is not None and high is not None and math.isfinite(low) and math.isfinite(high) and high > low:
        half = (high - low) / 2
        place = math.floor(math.log10(half))
        leading = int(half / 10 ** place)
        return min(MAX_DECIMALS, max(0, -place + (1 if leading == 1 else 0)))
    if value is None or not math.isfinite(value) or value == 0:
        return 0 if value == 0 else 2
    return min(MAX_DECIMALS, max(0, 2 - math.floor(math.log10(abs(value)))))


def with_ci(value: float | None, low: float | None = None, high: float | None = None) -> str:
    """``value`` rounded to what ``[low, high]`` supports; ``-`` for None or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{decimals(value, low, high)}f}"


def column_decimals(figures: list[tuple[float | None, float | None, float | None]]) -> int:
    """One precision for a column of (value, low, high): the finest any of its intervals supports."""
    found = [decimals(*figure) for figure in figures if figure[0] is not None]
    return max(found, default=0)


def fixed(value: float | None, places: int) -> str:
    """``value`` with ``places`` decimals (a column's :func:`column_decimals`); ``-`` for None."""
    return "-" if value is None else f"{value:.{places}f}"

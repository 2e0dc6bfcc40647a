"""The examples in the docstrings run and print what they say."""

import doctest
import importlib
import pkgutil

import pytest

import harness.stats

MODULES = [m.name for m in pkgutil.iter_modules(harness.stats.__path__, "harness.stats.")]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

"""The examples in the human-evaluation docstrings run and print what they say."""

import doctest
import importlib
import pkgutil

import pytest

import harness.human

MODULES = [m.name for m in pkgutil.iter_modules(harness.human.__path__, "harness.human.")]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

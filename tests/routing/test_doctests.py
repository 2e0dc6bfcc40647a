"""The examples in the routing docstrings run and print what they say."""

import doctest
import importlib
import pkgutil

import pytest

import harness.routing

MODULES = [m.name for m in pkgutil.iter_modules(harness.routing.__path__, "harness.routing.")]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

"""Analyses logged as runs of their own: ``harness align``, ``harness meta-eval`` and human evaluation."""

"""Datasets: documents, questions with their gold documents, and the loaders that validate them."""

from harness.data.records import Dataset, DatasetError, Document, Question

__all__ = ["Dataset", "DatasetError", "Document", "Question"]

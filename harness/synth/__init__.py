"""Question sets written from a corpus (``harness synth``): cloze questions without a language model,
or questions a generator writes from one passage or two; filtered by round-trip retrieval,
answerability, dependence on the passage and duplicates; written in the ``questions_jsonl`` format
with their provenance on every line."""

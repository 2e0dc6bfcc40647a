"""Second-stage rerankers: re-score the first stage's top candidates (``conf/reranker/``)."""

"""Your own RAG application as the system under test (``app=python``, ``app=http``).

An app replaces the harness's own search, rerank and generation: each question goes to the app,
whose answer and contexts become the question's record, scored, judged, traced and compared as
the harness's own pipelines are (:class:`harness.stages.app.AppStage`).
"""

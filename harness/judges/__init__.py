"""LLM judges (``conf/judge/``), the rubrics they apply (``conf/rubric/``) and the judging stage."""

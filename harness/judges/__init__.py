"""LLM judges (``conf/judge/``): the backends that answer a rubric's prompts."""

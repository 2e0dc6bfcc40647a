"""Rubrics (``conf/rubric/``): render a judge's prompts for an item and read its replies."""

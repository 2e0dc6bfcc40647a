"""``harness align``: a judge combination fitted to human labels, judged on held-out questions."""

"""Route-aware scoring (seed 001, ``conf/routes/`` and the ``routes`` metric suite): route tables,
quality dimensions, checks, the confusion matrix and the per-route summary."""

"""The MLflow adapter: runs, their inputs, tables, traces and assessments, evaluation datasets, labels
read back, the store's errors and a tracking server's outages. The only folder that imports MLflow
(besides the ``mlflow_*.py`` judge and scorer adapters)."""

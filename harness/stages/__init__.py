"""The pipeline's stages: retrieval, answering, judging, scoring; no tracking, no Hydra."""

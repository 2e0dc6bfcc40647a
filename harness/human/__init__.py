"""Human evaluation (seed 003 section 8, seed 000 section 5).

Export a seeded sample of a finished run's answers as an annotation sheet (:mod:`.sampling`,
:mod:`.export`), read the filled sheets back strictly (:mod:`.annotations`), and measure
inter-annotator agreement (:mod:`.agreement`), agreement of humans with every automated metric
(:mod:`.correlation`) and the LLM judge's bias, corrected by prediction-powered inference
(:mod:`.calibration`). Nothing here imports MLflow: ``harness.tracking.reports.human_eval`` logs the
:class:`~harness.human.report.HumanEvalReport` that :mod:`.report` assembles.
"""

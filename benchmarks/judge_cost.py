"""Seconds per judged item of the local judge, per rubric, on demo questions with real retrieval.

    python benchmarks/judge_cost.py --questions 8 [--rubrics answer_score retrieval_grade ...]

Each question's top-5 chunks (fixed_tokens + bm25, the root defaults) are retrieved; the answer
judged is the question's expected answer (no generator needed). Reported per rubric: the mean
prompt length in tokens and the seconds per judged item (cache off, model already loaded), which
is what decides which rubrics `make run` can afford.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.utils import instantiate

from harness.cache import DiskCache
from harness.config import register
from harness.generators.base import Generation
from harness.judges.base import JudgePrompt
from harness.judges.items import item_for
from harness.results.records import QuestionRecord

ROOT = Path(__file__).resolve().parents[1]
ALL = ["answer_score", "retrieval_grade", "manual_grade", "likert", "claims_faithfulness", "claims_context_recall",
       "supported", "likelihood_correctness", "likelihood_faithfulness", "pmi_faithfulness"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--rubrics", nargs="+", default=ALL)
    args = parser.parse_args()
    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("config", overrides=["judge=local", "judge.cache=off", f"rubric=[{','.join(args.rubrics)}]"])
    judge = instantiate(cfg.judge)
    dataset, chunker, retriever = instantiate(cfg.dataset), instantiate(cfg.chunker), instantiate(cfg.retriever)
    chunks = chunker.chunk(dataset.documents)
    retriever.index(chunks, "judge-cost", DiskCache(ROOT / ".cache" / "bench", enabled=False))
    questions = dataset.questions[:args.questions]
    records = []
    for question, hits in zip(questions, retriever.search([q.text for q in questions])):
        record = QuestionRecord(question=question, chunks=[chunks[i] for i, _ in hits], scores=[s for _, s in hits],
                                top_k=retriever.top_k)
        record.generation = Generation(text=question.expected_answer or question.ground_truth or "")
        record.prompt_chunk_count = cfg.generation.contexts
        records.append(record)
    tokenizer, _ = judge._model()
    results = {}
    for name, node in cfg.rubrics.items():
        rubric = instantiate(node)
        items = [item_for(record, rubric.applies_to[0]) for record in records]
        first = (getattr(rubric, "local_messages", None) or getattr(rubric, "extract_messages", None)
                 or rubric.messages)
        tokens = [len(tokenizer(judge.text(JudgePrompt(rubric.render(first, rubric.item_values(i)))))["input_ids"])
                  for i in items]
        rubric.evaluate(judge, items[:1])  # warm-up
        start = time.perf_counter()
        judgements = rubric.evaluate(judge, items)
        seconds = (time.perf_counter() - start) / len(items)
        results[name] = {"prompt_tokens_mean": round(sum(tokens) / len(tokens)), "seconds_per_item": round(seconds, 2),
                         "missing": sum(j.failed for j in judgements)}
        print(f"{name:24s} {results[name]['prompt_tokens_mean']:5d} tokens  {seconds:6.2f} s/item")
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "judge_cost.json").write_text(json.dumps({"command": "python benchmarks/judge_cost.py", **results}, indent=2))


if __name__ == "__main__":
    main()

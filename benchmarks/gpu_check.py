"""BERTScore, dense encoding, the local judge and the local generator on a CUDA device, against the CPU.

    python benchmarks/gpu_check.py [--questions 32] [--device cuda] [--json FILE]

Where torch sees no CUDA device it prints one line and exits 0. Otherwise each part is built from
the real configuration twice, with ``models.device=cpu`` and with ``models.device=<device>``
(float32 on both sides, so that results can be compared), checked to have its model on that
device, warmed up, run on the same demo inputs, and compared:

| part | inputs | equal when |
|---|---|---|
| BERTScore (the answer suite's scorer) | each question's CPU answer against its ground truth | F1 within 1e-4 |
| dense encoding (``retriever=dense``'s encoder) | every demo chunk and the questions | cosine of each vector pair >= 0.9999, and the same top-5 chunks for >= 95% of questions |
| local judge (``likelihood_correctness``) | the CPU answers | scores (probabilities) within 1e-3 |
| local generator (greedy, 16 new tokens) | the questions, no context | the next-token logits of every prompt within 5e-3, the same text for >= 90% of answers (greedy decoding may part at a near-tie) |

Throughput is items per second on each side (models loaded, after a warm-up; on the GPU timed
after ``torch.cuda.synchronize()``); the generator's time to first token is the median over
questions answered one at a time, which ``LocalGenerator`` reads after synchronising the device.
Exit status 1 when a part misses its tolerance or ran elsewhere than asked. ``--device cpu`` runs
the same comparison CPU against CPU: a check of this script where no GPU exists.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # model loading's bars, as the harness's CLI

ROOT = Path(__file__).resolve().parents[1]
OVERRIDES = ["generator=local", "generator.dtype=float32", "generator.max_new_tokens=16", "judge=local",
             "judge.dtype=float32", "judge.cache=off", "rubric=[likelihood_correctness]", "retriever=dense"]
TOLERANCES = {"bertscore_f1": 1e-4, "dense_cosine": 0.9999, "dense_same_top5": 0.95, "judge_score": 1e-3,
              "generator_logits": 5e-3, "generator_same_text": 0.9}


def configuration(device: str):
    from hydra import compose, initialize_config_dir

    from harness.config import register

    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        return compose("config", overrides=[f"models.device={device}", *OVERRIDES])


def timed(run, device: str):
    """``run()``'s result and its seconds, the device's queued work included."""
    import torch

    sync = (lambda: torch.cuda.synchronize(device)) if device.startswith("cuda") else (lambda: None)
    sync()
    start = time.perf_counter()
    result = run()
    sync()
    return result, time.perf_counter() - start


def on(module) -> str:
    """The device a model's parameters are on (``cuda:0``, ``cpu``)."""
    return str(next(module.parameters()).device)


def bertscore(cfg, inputs: dict) -> tuple[list[float], str, float]:
    from omegaconf import OmegaConf

    from harness.metrics.bertscore import BERTScorer, forget_reference_embeddings

    scorer = BERTScorer(**OmegaConf.to_container(cfg.metrics.answer.bertscore, resolve=True))
    forget_reference_embeddings()  # the other device's reference embeddings are not reused
    scorer.score(inputs["answers"][:2], inputs["golds"][:2])
    forget_reference_embeddings()
    triples, seconds = timed(lambda: scorer.score(inputs["answers"], inputs["golds"]), cfg.models.device)
    return [f for _, _, f in triples], on(scorer._encoder().model), seconds


def dense(cfg, inputs: dict):
    import numpy as np
    from hydra.utils import instantiate

    from harness.models import load_sentence_transformer

    spec = instantiate(cfg.retriever).spec
    texts = inputs["chunks"] + inputs["questions"]
    spec.encode(texts[:4])
    vectors, seconds = timed(lambda: spec.encode(texts), cfg.models.device)
    chunks, questions = vectors[:len(inputs["chunks"])], vectors[len(inputs["chunks"]):]
    top5 = np.argsort(-(questions @ chunks.T), axis=1)[:, :5]
    return (vectors, top5), on(load_sentence_transformer(spec.model, spec.device)), seconds


def generator(cfg, inputs: dict):
    import torch
    from hydra.utils import instantiate

    from harness.generators.base import GenerationRequest
    from harness.generators.local import _load

    local = instantiate(cfg.generator)
    tokenizer, model = _load(local.model_path, local.gguf_file, local.device, local.dtype)
    requests = [GenerationRequest(f"q{i}", ({"role": "user", "content": q},), "no_context")
                for i, q in enumerate(inputs["questions"])]
    local.generate(requests[:2])
    answers, seconds = timed(lambda: local.generate(requests), cfg.models.device)
    ttft = [local.generate([r])[0].ttft_seconds for r in requests[:8]]  # alone: measured
    prompts = [tokenizer.apply_chat_template(list(r.messages), tokenize=False, add_generation_prompt=True)
               for r in requests]
    with torch.no_grad():
        encoded = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
        logits = model(**encoded).logits[:, -1].float().cpu()  # left padding: the last position is each prompt's
    return ([a.text for a in answers], logits, statistics.median(ttft)), on(model), seconds


def judge(cfg, inputs: dict):
    from hydra.utils import instantiate

    from harness.generators.base import Generation
    from harness.judges.items import item_for
    from harness.results.records import QuestionRecord

    local = instantiate(cfg.judge)
    rubric = instantiate(cfg.rubrics.likelihood_correctness)
    records = [QuestionRecord(question=q, chunks=[], scores=[], top_k=0, baseline=Generation(text=answer))
               for q, answer in zip(inputs["records"], inputs["answers"])]
    items = [item_for(record, "no_context") for record in records]
    rubric.evaluate(local, items[:2])
    judgements, seconds = timed(lambda: rubric.evaluate(local, items), cfg.models.device)
    return [j.score for j in judgements], on(local._model()[1]), seconds


def demo_inputs(count: int) -> dict:
    from hydra.utils import instantiate

    cfg = configuration("cpu")
    dataset, chunker = instantiate(cfg.dataset), instantiate(cfg.chunker)
    questions = dataset.questions[:count]
    return {"records": questions, "questions": [q.text for q in questions],
            "golds": [q.ground_truth or q.expected_answer or "" for q in questions],
            "chunks": [c.text for c in chunker.chunk(dataset.documents)]}


def compare(name: str, cpu, gpu) -> dict:
    """The part's differences between the two sides, and whether each is within its tolerance."""
    import numpy as np

    if name == "bertscore":
        worst = float(np.max(np.abs(np.array(cpu) - np.array(gpu))))
        return {"f1_max_abs_difference": worst, "ok": worst <= TOLERANCES["bertscore_f1"]}
    if name == "dense":
        (a, top_a), (b, top_b) = cpu, gpu
        cosine = float(np.min(np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))))
        same = float(np.mean([set(x) == set(y) for x, y in zip(top_a.tolist(), top_b.tolist())]))
        return {"min_cosine": cosine, "same_top5": same,
                "ok": cosine >= TOLERANCES["dense_cosine"] and same >= TOLERANCES["dense_same_top5"]}
    if name == "judge":
        worst = float(np.max(np.abs(np.array(cpu, dtype=float) - np.array(gpu, dtype=float))))
        return {"score_max_abs_difference": worst, "ok": worst <= TOLERANCES["judge_score"]}
    (texts_a, logits_a, ttft_a), (texts_b, logits_b, ttft_b) = cpu, gpu
    worst = float((logits_a - logits_b).abs().max())
    same = float(np.mean([x == y for x, y in zip(texts_a, texts_b)]))
    return {"logits_max_abs_difference": worst, "same_text": same, "ttft_median_s": [ttft_a, ttft_b],
            "ok": worst <= TOLERANCES["generator_logits"] and same >= TOLERANCES["generator_same_text"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=32, help="demo questions (the first N)")
    parser.add_argument("--device", default="cuda", help="the device checked against the CPU (cuda, cuda:1; cpu: a dry run)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print(f"gpu_check: skipped, torch {torch.__version__} sees no CUDA device")
        return 0
    name = torch.cuda.get_device_name(torch.device(args.device)) if args.device.startswith("cuda") else "cpu"
    print(f"gpu_check: {args.device} ({name}) against the CPU, torch {torch.__version__}, {args.questions} questions")
    inputs = demo_inputs(args.questions)
    figures, failed = {"device": args.device, "device_name": name, "questions": args.questions,
                       "tolerances": TOLERANCES}, False
    # The generator first: its CPU answers are what BERTScore and the judge score on both sides.
    for part, run, items in (("generator", generator, len(inputs["questions"])), ("bertscore", bertscore, None),
                             ("dense", dense, len(inputs["chunks"]) + len(inputs["questions"])),
                             ("judge", judge, None)):
        (cpu, cpu_on, cpu_s), (gpu, gpu_on, gpu_s) = (run(configuration(device), inputs) for device in ("cpu", args.device))
        if part == "generator":
            inputs["answers"] = cpu[0]
        count = items or len(inputs["answers"])
        row = {"ran_on": [cpu_on, gpu_on], "items": count, "cpu_per_s": count / cpu_s, "device_per_s": count / gpu_s,
               **compare(part, cpu, gpu)}
        row["ok"] = row["ok"] and torch.device(gpu_on).type == torch.device(args.device).type
        failed |= not row["ok"]
        figures[part] = row
        extra = ""
        if part == "generator":
            extra = f", TTFT median {row['ttft_median_s'][0] * 1000:.0f} ms vs {row['ttft_median_s'][1] * 1000:.0f} ms"
        differences = ", ".join(f"{k} {v:.3g}" for k, v in row.items() if k.endswith(("difference", "cosine", "top5", "text")))
        print(f"{part:10s} on {gpu_on}: {row['device_per_s']:8.1f}/s vs CPU {row['cpu_per_s']:8.1f}/s "
              f"({row['device_per_s'] / row['cpu_per_s']:.1f}x){extra}; {differences}: {'ok' if row['ok'] else 'MISMATCH'}")
    if args.json:
        args.json.write_text(json.dumps({"command": " ".join(["python", *sys.argv]), **figures}, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

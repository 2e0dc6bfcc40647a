"""The harness's OpenAI-compatible client against the bare ``openai`` SDK on the same real server.

Starts ``transformers serve`` with the embedded model (``harness serve``'s folder), then for each
round asks the same questions three ways, in rotating order: ``generator=openai``
(:class:`~harness.generators.openai_chat.OpenAIChatGenerator`, one ``generate()`` call for the
questions, as the answer stage makes it), the bare SDK streaming them one after another from one
client, and raw HTTP (``requests``, reading the event stream line by line). Greedy decoding and the
same ``max_tokens`` make every way decode the same tokens, so the difference in wall time per answer
is the client's overhead; on a busy machine the server's decoding time varies by more than that, so the
client's own CPU time per answer (this process's, the server being another) is reported beside it. TTFT is compared the same way: as the harness records it, as the bare SDK
sees its first chunk with text, and as the first ``data:`` line with text arrives on the wire
(``transformers serve`` reports no TTFT of its own).

    python benchmarks/api_client.py --questions 8 --rounds 5 --max-tokens 16
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import requests as http

from harness.generators.base import GenerationRequest
from harness.generators.openai_chat import OpenAIChatGenerator
from harness.serving import LOCAL_KEY_ENV, embedded_model, servable_folder, start

DEMO = Path(__file__).resolve().parents[1] / "experiments" / "demo" / "questions.jsonl"


def harness_way(server, batch: list[GenerationRequest], max_tokens: int) -> tuple[float, list[float]]:
    client = OpenAIChatGenerator(model=server.model, base_url=server.base_url, api_key_env=LOCAL_KEY_ENV,
                                 max_tokens=max_tokens, temperature=0.0, timeout=300, max_retries=0)
    start_time = time.perf_counter()
    answers = client.generate(batch)
    wall = time.perf_counter() - start_time
    assert all(a.error is None for a in answers), [a.error for a in answers]
    return wall, [a.ttft_seconds for a in answers]


def sdk_way(server, batch: list[GenerationRequest], max_tokens: int) -> tuple[float, list[float]]:
    from openai import OpenAI

    ttfts = []
    start_time = time.perf_counter()
    with OpenAI(api_key="local", base_url=server.base_url, timeout=300, max_retries=0) as client:
        for request in batch:
            sent = time.perf_counter()
            first = None
            stream = client.chat.completions.create(model=server.model, messages=list(request.messages),
                                                    max_tokens=max_tokens, temperature=0.0, stream=True)
            for chunk in stream:
                if first is None and chunk.choices and chunk.choices[0].delta.content:
                    first = time.perf_counter() - sent
            ttfts.append(first)
    return time.perf_counter() - start_time, ttfts


def wire_way(server, batch: list[GenerationRequest], max_tokens: int) -> tuple[float, list[float]]:
    ttfts = []
    start_time = time.perf_counter()
    with http.Session() as session:
        for request in batch:
            sent = time.perf_counter()
            first = None
            body = {"model": server.model, "messages": list(request.messages), "max_tokens": max_tokens,
                    "temperature": 0.0, "stream": True}
            with session.post(f"{server.base_url}/chat/completions", json=body, stream=True, timeout=300) as reply:
                for line in reply.iter_lines():
                    if first is None and line.startswith(b"data: {") and b'"content":"' in line:
                        first = time.perf_counter() - sent
            ttfts.append(first)
    return time.perf_counter() - start_time, ttfts


WAYS = {"harness": harness_way, "openai_sdk": sdk_way, "raw_http": wire_way}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    os.environ.setdefault(LOCAL_KEY_ENV, "local")
    questions = [json.loads(line)["question"] for line in DEMO.read_text().splitlines() if line.strip()]
    batch = [GenerationRequest(f"q{i}", ({"role": "user", "content": q},))
             for i, q in enumerate(questions[:args.questions])]
    per_answer: dict[str, list[float]] = {way: [] for way in WAYS}
    cpu: dict[str, list[float]] = {way: [] for way in WAYS}
    ttft: dict[str, list[float]] = {way: [] for way in WAYS}
    with start(servable_folder(*embedded_model()), device=args.device) as server:
        names = list(WAYS)
        for round_index in range(args.rounds):
            for way in names[round_index % 3:] + names[:round_index % 3]:  # rotate who goes first
                cpu_start = time.process_time()
                wall, firsts = WAYS[way](server, batch, args.max_tokens)
                cpu[way].append((time.process_time() - cpu_start) / len(batch))
                per_answer[way].append(wall / len(batch))
                ttft[way].extend(t for t in firsts if t is not None)
    median = {way: statistics.median(values) for way, values in per_answer.items()}
    result = {
        "questions": len(batch), "rounds": args.rounds, "max_tokens": args.max_tokens, "device": args.device,
        "seconds_per_answer_median": median,
        "harness_over_sdk_ms_per_answer": 1000 * (median["harness"] - median["openai_sdk"]),
        "harness_over_raw_http_ms_per_answer": 1000 * (median["harness"] - median["raw_http"]),
        "client_cpu_ms_per_answer_median": {way: 1000 * statistics.median(v) for way, v in cpu.items()},
        "ttft_median_seconds": {way: statistics.median(values) for way, values in ttft.items()},
        "ttft_p90_seconds": {way: statistics.quantiles(values, n=10)[-1] for way, values in ttft.items()},
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

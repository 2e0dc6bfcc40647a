"""What the harness adds around your own app (``app=python``), per question: an instant app asked
through the app stage's cache, threads and failure handling against calling it in a plain loop,
cold (every reply computed and cached) and warm (every reply read back); and an I/O-bound app
(``--wait`` seconds a call) at ``app.concurrency`` 1 and ``--concurrency``.

    python benchmarks/app_overhead.py --questions 500 --wait 0.02 --concurrency 8
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

from harness.apps.python import PythonApp
from harness.cache import DiskCache
from harness.data.records import Question

MODULE = "bench_app"


def _install(wait: float) -> None:
    module = types.ModuleType(MODULE)

    def instant(question: str) -> dict:
        return {"answer": question[:10], "contexts": [{"text": question, "doc_id": "d", "score": 1.0}]}

    def waiting(question: str) -> dict:
        time.sleep(wait)
        return instant(question)

    module.instant, module.waiting = instant, waiting
    module.__file__ = __file__  # the source hashed for the cache key
    sys.modules[MODULE] = module


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--wait", type=float, default=0.02)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    _install(args.wait)
    questions = [Question(id=f"q{i}", text=f"question number {i} about something") for i in range(args.questions)]
    allowed = [f"{MODULE}.instant", f"{MODULE}.waiting"]
    plain, cold, warm, serial, parallel = [], [], [], [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as folder:
            cache = DiskCache(Path(folder))
            app = PythonApp(target=f"{MODULE}:instant", allowed_targets=allowed, timeout=60)
            plain.append(_timed(lambda: [app.function(q.text) for q in questions]))
            cold.append(_timed(lambda: app.answer_all(questions, cache)))
            warm.append(_timed(lambda: app.answer_all(questions, cache)))
            few = questions[: max(args.concurrency * 4, 1)]
            one = PythonApp(target=f"{MODULE}:waiting", allowed_targets=allowed, concurrency=1, version="a")
            many = PythonApp(target=f"{MODULE}:waiting", allowed_targets=allowed, concurrency=args.concurrency,
                             version="b")
            serial.append(_timed(lambda: one.answer_all(few, cache)))
            parallel.append(_timed(lambda: many.answer_all(few, cache)))
    n = len(questions)
    figures = {
        "questions": n,
        "plain_loop_ms_per_question": 1000 * statistics.median(plain) / n,
        "cold_ms_per_question": 1000 * statistics.median(cold) / n,
        "warm_ms_per_question": 1000 * statistics.median(warm) / n,
        "io_bound_questions": len(few), "wait_s": args.wait, "concurrency": args.concurrency,
        "io_bound_serial_s": statistics.median(serial), "io_bound_concurrent_s": statistics.median(parallel),
        "concurrency_speedup": statistics.median(serial) / statistics.median(parallel),
    }
    print(json.dumps(figures, indent=2))
    out = Path(__file__).parent / "results" / "app_overhead.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()

"""The leaderboard on a 120-column console: no line wider, brackets kept, numbers whole, short names."""

from __future__ import annotations

from rich.console import Console

from harness.tracking.verdicts.leaderboard import Leaderboard

HEADLINE = ["retrieval/ndcg_at_5", "retrieval/mrr", "retrieval/hit_at_5", "key_facts/coverage_exact", "answer/f1",
            "answer/bertscore_f1", "judge/answer_score", "context_delta/delta_pp",
            "generation/seconds_per_answer_batched"]


def summaries() -> list[dict]:
    jobs = [(c, r) for c in ("fixed_tokens", "recursive", "markdown_sections") for r in ("bm25", "dense", "hybrid")]
    out = []
    for num, (chunker, retriever) in enumerate(jobs):
        metrics = {name: 0.5 + num / 100 for name in HEADLINE}
        metrics["context_delta/delta_pp"] = 37.1241 - 100 * num
        out.append({"job_num": num, "status": "FINISHED", "metrics": metrics,
                    "name": f"chunker={chunker},metrics=[retrieval,key_facts],retriever={retriever}"})
    return out


def render(board: Leaderboard, width: int = 120) -> str:
    console = Console(width=width, record=True)
    board.print("demo: 9 runs", console=console)
    return console.export_text()


def test_fits_120_columns_with_every_number_whole_and_brackets_kept():
    text = render(Leaderboard.from_summaries(summaries(), HEADLINE))
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "all with metrics=[retrieval,key_facts]" in text
    assert "run: chunker, retriever" in text and "markdown_sections, hybrid" in text
    for value in ("37.1241", "-762.8759", "0.5800"):
        assert value in text
    # a metric's name is never cut inside a word ("coverage_e" over "xact")
    assert "coverage_exact" in text and "seconds_per_answer_batched" in text
    assert "FINISHED" not in text  # the status column only when a job failed


def test_a_wide_console_shows_one_table_and_the_csv_keeps_full_names():
    board = Leaderboard.from_summaries(summaries(), HEADLINE)
    assert "(1/2)" not in render(board, width=200) and "(1/2)" in render(board, width=120)
    assert "chunker=recursive,metrics=[retrieval,key_facts],retriever=bm25" in board.to_csv()


def test_failed_jobs_show_their_status_last():
    rows = summaries()[:2]
    rows[1] = {**rows[1], "status": "FAILED", "metrics": {}}
    text = render(Leaderboard.from_summaries(rows, HEADLINE[:3]))
    lines = [line for line in text.splitlines() if "FAILED" in line or "FINISHED" in line]
    assert "FINISHED" in lines[0] and "FAILED" in lines[1]


def test_columns_are_the_headline_metrics_the_runs_have_in_order():
    runs = [{"job_num": n, "name": f"generator.path=p{n}.jsonl", "status": "FINISHED",
             "metrics": {"retrieval/mrr": None, "answer/f1": 0.1 * n, "judge/answer_score": 5.0 + n}}
            for n in range(3)]
    board = Leaderboard.from_summaries(runs, ["retrieval/ndcg_at_5", "retrieval/mrr", "answer/f1",
                                              "judge/answer_score"])
    assert board.columns == ["job", "run", "status", "answer/f1", "judge/answer_score"]
    assert [row["job"] for row in board.rows] == [2, 1, 0]  # sorted by answer/f1, the first present


def test_failed_questions_are_a_column_with_their_reasons_under_the_table():
    jobs = summaries()[:2]
    jobs[1]["failures"] = {"app": {"attempted": 300, "failed": 39, "max_failed_fraction": 0.5,
                                   "reasons": {"RuntimeError: HTTP 500 after 3 tries": 37, "TimeoutError: no reply": 1,
                                               "malformed reply: not JSON": 1}}}
    board = Leaderboard.from_summaries(jobs, HEADLINE)
    assert board.columns[:4] == ["job", "run", "status", "failed"]
    assert [row["failed"] for row in board.rows] == ["39/300 (13%)", "0"]
    text = render(board)
    assert "39/300 (13%)" in text and "failed" in text
    assert "app: 39 of 300 questions failed (13%): 37x RuntimeError: HTTP 500 after 3 tries; 1x TimeoutError" \
        in " ".join(text.split())  # the console wraps the line
    assert "failed" in board.to_csv().splitlines()[0] and "Failed questions:" in board.to_markdown()
    assert "failed" not in Leaderboard.from_summaries(summaries()[:2], HEADLINE).columns

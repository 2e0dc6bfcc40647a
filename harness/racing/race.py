"""A race's state from round to round, and its record (``race.json`` in the sweep folder).

The sweeper launches each round and hands the results to :meth:`Race.finish_round`; the
tracking layer reads the record back to log each configuration's figures and print the
eliminations. Nothing here launches or logs anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from harness.config.files import replace_file
from harness.racing.elimination import Elimination, EliminationRule, Scores, decisions, eliminate

RACE_FILE = "race.json"


@dataclass
class RoundRecord:
    number: int
    questions: int
    ran: list[str]
    leader: str
    eliminated: list[Elimination]


@dataclass
class Race:
    """Args:
        configurations: the names of the configurations that start, in launch order.
        sizes: each round's prefix length (:func:`harness.racing.order.round_sizes`).
        rule: the elimination rule.
        total_questions: the dataset's size (what the full grid runs each configuration on).
    """

    configurations: list[str]
    sizes: list[int]
    rule: EliminationRule
    total_questions: int
    rounds: list[RoundRecord] = field(default_factory=list)
    # Every configuration's values on the longest prefix it ran (the running leader's bets read
    # those of configurations that left); rebuilt by replaying the rounds when a race resumes.
    seen: dict = field(default_factory=dict, repr=False)
    # decide: front: each survivor's last verdict against the leader at the margin (harness.stats.margin).
    decided: dict = field(default_factory=dict)

    @property
    def survivors(self) -> list[str]:
        gone = {e.name for r in self.rounds for e in r.eliminated}
        return [name for name in self.configurations if name not in gone]

    @property
    def done(self) -> bool:
        return len(self.rounds) >= len(self.sizes) or len(self.survivors) <= 1

    @property
    def next_size(self) -> int:
        return self.sizes[len(self.rounds)]

    def finish_round(self, scores: Scores, failed: dict[str, str] | None = None) -> RoundRecord:
        """Records a round: ``scores`` of the configurations that ran it and, by name, the reason
        of each one that failed (eliminated with it)."""
        number, size = len(self.rounds) + 1, self.next_size
        failed = failed or {}
        ran = [name for name in self.survivors if name in scores or name in failed]
        eliminated = [Elimination(name, number, size, "", "", float("nan"), float("nan"), float("nan"),
                                  f"failed: {reason}") for name, reason in failed.items()]
        leader = ""
        if scores:
            retired = {name: got for name, got in self.seen.items() if name not in scores}
            leader, found = eliminate(scores, self.rule, number, retired)
            eliminated.extend(found)
            self.seen.update({name: {metric: list(values) for metric, values in got.items()}
                              for name, got in scores.items()})
            if self.rule.decide == "front":
                gone = {e.name for e in eliminated}
                self.decided = decisions({n: got for n, got in scores.items() if n not in gone}, self.rule, leader)
        record = RoundRecord(number, size, ran, leader, eliminated)
        self.rounds.append(record)
        return record

    def questions(self, name: str) -> int:
        """How many questions a configuration got to (0 if it never ran)."""
        return max((r.questions for r in self.rounds if name in r.ran), default=0)

    def eliminated_round(self, name: str) -> int:
        """The round after which it was eliminated; 0 when it survived."""
        return next((e.round for r in self.rounds for e in r.eliminated if e.name == name), 0)

    @property
    def evaluations(self) -> int:
        """Question-evaluations spent: each configuration's questions, every earlier round cached."""
        return sum(self.questions(name) for name in self.configurations)

    @property
    def grid_evaluations(self) -> int:
        return len(self.configurations) * self.total_questions

    @property
    def champion(self) -> str:
        """The last round's leader (the best survivor on the most questions)."""
        return next((r.leader for r in reversed(self.rounds) if r.leader), "")

    def to_dict(self) -> dict:
        return {
            "configurations": self.configurations, "sizes": self.sizes, "total_questions": self.total_questions,
            "alpha": self.rule.alpha, "test": self.rule.test, "evidence": self.rule.evidence,
            "level": self.rule.level, "configuration_level": self.rule.configuration_level, "comparisons": self.rule.comparisons,
            "rule": self.rule.describe(), "champion": self.champion, "decide": self.rule.decide,
            "decisions": self._decisions(),
            "evaluations": self.evaluations, "grid_evaluations": self.grid_evaluations,
            "rounds": [{"number": r.number, "questions": r.questions, "ran": r.ran, "leader": r.leader,
                        "eliminated": [e.to_dict() for e in r.eliminated]} for r in self.rounds],
            "runs": {name: {"questions": self.questions(name), "eliminated_round": self.eliminated_round(name)}
                     for name in self.configurations},
        }

    def _decisions(self) -> dict[str, str]:
        """``decide: front``: per configuration, what the race decided against the champion."""
        if self.rule.decide != "front":
            return {}
        out = {}
        for name in self.configurations:
            gone = next((e for r in self.rounds for e in r.eliminated if e.name == name), None)
            if name == self.champion:
                out[name] = "leader"
            elif gone is not None:
                out[name] = "failed" if not gone.metric else \
                    ("worse beyond the margin" if gone.metric == self.rule.primary.name else f"worse on {gone.metric}")
            else:
                out[name] = self.decided.get(name, "undecided")
        return out

    def save(self, folder: Path) -> Path:
        path = folder / RACE_FILE
        replace_file(path, json.dumps(self.to_dict(), indent=2) + "\n")
        return path


def read_race(folder: Path) -> dict | None:
    """The race record a racing sweep left in its folder, or None (another sweeper)."""
    path = folder / RACE_FILE
    return json.loads(path.read_text()) if path.exists() else None


def round_lines(record: dict) -> list[str]:
    """The console's account of a race: one line per round and one per elimination (none
    without a record)."""
    if not record:
        return []
    lines = [f"Race: {len(record['configurations'])} configurations, {len(record['rounds'])} round(s), "
             f"{record['evaluations']} of {record['grid_evaluations']} question-evaluations "
             f"({record['evaluations'] / max(record['grid_evaluations'], 1):.0%} of the grid); "
             + record.get("rule", f"alpha {record['alpha']} over {record['comparisons']} comparisons ({record['test']})")]
    for r in record["rounds"]:
        gone = r["eliminated"]
        lines.append(f"  round {r['number']} ({r['questions']} questions, {len(r['ran'])} ran), "
                     f"leader {r['leader'] or '-'}: " + (f"{len(gone)} eliminated" if gone else "none eliminated"))
        lines.extend(f"    eliminated {e['name']}: {e['reason']}" for e in gone)
    lines.append(f"  champion: {record['champion'] or '-'}")
    decided = record.get("decisions") or {}
    if decided:
        reached = {name: d for name, d in decided.items() if d not in ("leader", "undecided")}
        open_ = [name for name, d in decided.items() if d == "undecided"]
        lines.append(f"  decisions reached against the leader: "
                     + ("; ".join(f"{name}: {d}" for name, d in reached.items()) or "none"))
        lines.append("  too few questions to decide: " + (", ".join(open_) if open_ else "none"))
    return lines

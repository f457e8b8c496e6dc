"""bench/retrieval/cisi_queries.jsonl (ADR 0041): CISI's 112 queries with their provenance,
split in two fixed halves. Guards a truncated or re-split copy (one stored copy of CISI.QRY
ends at query 57), which would move the figures tuned on one half and reported on the
other."""

from __future__ import annotations

import json
from pathlib import Path

FILE = Path(__file__).resolve().parent.parent / "bench" / "retrieval" / "cisi_queries.jsonl"


def test_all_112_queries_with_provenance_and_halves() -> None:
    lines = [json.loads(ln) for ln in FILE.read_text(encoding="utf-8").splitlines() if ln]
    head, rows = lines[0], lines[1:]
    source = head["source"]
    assert source["repository"] and source["path"] == "CISI.QRY"
    assert len(source["commit"]) == 40 and int(source["commit"], 16) >= 0
    assert [int(r["qid"]) for r in rows] == list(range(1, 113))
    assert all(r["q"].strip() and "\n" not in r["q"] for r in rows)
    assert {r["half"] for r in rows if int(r["qid"]) % 2} == {"tune"}
    assert {r["half"] for r in rows if not int(r["qid"]) % 2} == {"report"}

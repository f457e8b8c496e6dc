"""Asks (issue 23): the ask record, its bounds, the matcher behind `promote` and `distill`
(lean_memory.asks, pure functions)."""

from __future__ import annotations

import functools
import random
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import asks as A
from lean_memory._record import replace
from lean_memory.asks import Ask, Written, distill, make_ask, propose, same_request
from lean_memory.secrets import scan_text

from .conftest import load_bench

AN = string.ascii_letters + string.digits


def token(rng: random.Random) -> str:
    return "ghp_" + "".join(rng.choice(AN) for _ in range(36))


def at(day: int, minute: int = 0) -> str:
    return f"2026-11-{day:02d}T10:{minute:02d}:00Z"


def asks_in_sessions(texts: list[str], first_day: int = 1, prefix: str = "s") -> list[Ask]:
    """One ask per text, each in its own session on its own day."""
    out = []
    for i, text in enumerate(texts):
        ask = make_ask(f"{prefix}{i}", text, at(first_day + i))
        assert ask is not None
        out.append(ask)
    return out


@functools.cache
def bench_sample() -> tuple[list[Ask], list[A.Proposal]]:
    """The first 60 sessions of the promote bench's train split, and their proposals."""
    run = load_bench("promote/run.py", "promote_run")
    asks, _labels = run.load("train")
    keep = sorted({a.session for a in asks})[:60]
    sample = [a for a in asks if a.session in keep]
    return sample, propose(sample)


# -- the record and its bounds -----------------------------------------------------------------

texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=200)


@given(session=st.text(max_size=40), prompt=texts, minute=st.integers(0, 59))
def test_make_ask_is_deterministic(session: str, prompt: str, minute: int) -> None:
    """The same prompt captured twice gives the same record (a hook retried must not add a
    second ask); the id changes with the text."""
    one = make_ask(session, prompt, at(1, minute))
    assert one == make_ask(session, prompt, at(1, minute))
    if one is not None:
        other = make_ask(session, prompt + " x", at(1, minute))
        assert other is not None and other.id != one.id
        assert one.session and one.session.isprintable()


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(st.text(st.characters(codec="utf-8", exclude_characters="\x00"),
                              min_size=1, max_size=30), min_size=1, max_size=40),
       repeat=st.integers(1, 3000))
def test_ask_is_bounded(words: list[str], repeat: int) -> None:
    """An ask never keeps more than MAX_ASK_BYTES of UTF-8, however large the prompt (a
    pasted log of megabytes would otherwise ride in every compacted session)."""
    prompt = " ".join(words) * repeat
    ask = make_ask("s", prompt, at(1))
    if ask is not None:
        assert len(ask.text.encode("utf-8")) <= A.MAX_ASK_BYTES
        if len(prompt.encode("utf-8")) <= A.MAX_ASK_BYTES and not scan_text(prompt):
            assert ask.text == prompt.strip()


@settings(max_examples=40)
@given(before=st.text(st.sampled_from(string.ascii_letters + " \n.,:="), max_size=300),
       after=st.text(st.sampled_from(string.ascii_letters + " \n.,:="), max_size=300),
       seed=st.integers(0, 2**32), glue=st.sampled_from([" ", "\n", " token ", "="]))
def test_credential_never_kept(before: str, after: str, seed: int, glue: str) -> None:
    """A prompt holding a credential is recorded with the credential cut out, never its
    value (the session layer is a file on disk; a token in it would leak to every reader)."""
    value = token(random.Random(seed))
    ask = make_ask("s", before + glue + value + " " + after, at(1))
    assert ask is not None
    assert value not in ask.text and value[4:] not in ask.text
    assert scan_text(ask.text) == []


@pytest.mark.parametrize("limit", [A.MAX_ASK_BYTES, 4 * A.MAX_ASK_BYTES])
@pytest.mark.parametrize("shift", [-30, -5, 0, 3, 20])
def test_credential_across_a_cut_never_kept(limit: int, shift: int) -> None:
    """A credential that straddles either cut (24 KB kept, 96 KB scanned) leaves no fragment:
    a cut inside a word would keep a head too short for the scanner to recognise."""
    value = token(random.Random(limit + shift))
    pad = "word " * ((limit + shift) // 5)
    ask = make_ask("s", pad + value + " tail", at(1))
    assert ask is not None
    assert not any(value[i:i + 12] in ask.text for i in range(4, len(value) - 12))
    assert scan_text(ask.text) == []


def test_credentials_that_shrink_leave_no_fragment() -> None:
    """A pasted .env dump: 96 KB of credentials shrink to a few bytes once cut out, so the
    end of the scanned window comes within the 24 KB kept. A credential straddling that
    window's end must not leave its head there (the window is cut at white space)."""
    rng = random.Random(7)
    room = 4 * A.MAX_ASK_BYTES - len(A.CUT_MARK.encode()) - 20  # 20 characters in the window
    dump = ""
    while len(dump) < room:
        dump += token(rng) + "\n"
    dump = dump[: dump.rfind("\n", 0, room) + 1]
    dump += " " * (room - len(dump))
    value = token(rng)
    ask = make_ask("s", dump + value + " tail", at(1))
    assert ask is not None and len(ask.text) < A.MAX_ASK_BYTES
    assert not any(value[i:i + 8] in ask.text for i in range(len(value) - 8))
    assert scan_text(ask.text) == []


def test_session_id_and_time_are_checked() -> None:
    """A harness's session id is shown and keyed on: control characters and credentials
    never pass; a malformed time is refused (ordering and quiet detection rely on it)."""
    value = token(random.Random(5))
    for sid in ("id\n\x1b[31m" + value, value, "x" * 500, "\ud800"):
        ask = make_ask(sid, "hello", at(1))
        assert ask is not None and ask.session.startswith("h-"), sid
        assert value[4:12] not in ask.session and ask == make_ask(sid, "hello", at(1))
    uuid = "3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f"
    assert (make_ask(uuid, "hello", at(1)) or A.Ask("", "", "", "")).session == uuid
    with pytest.raises(ValueError):
        make_ask("s", "hello", "yesterday")
    assert make_ask("s", "   \n", at(1)) is None


def test_bound_session_keeps_the_latest_once() -> None:
    """The per-session cap keeps the latest asks (what a compacted context needs back), each
    once, in time order."""
    asks = [make_ask("s", f"ask {i}", at(1, i)) for i in range(10)]
    kept = A.bound_session([a for a in reversed(asks) if a] * 2, limit=4)
    assert [a.text for a in kept] == ["ask 6", "ask 7", "ask 8", "ask 9"]


# -- the matcher -------------------------------------------------------------------------------

PARAPHRASES = [
    ("use uv not pip", "please install with uv instead of pip"),
    ("please install with uv instead of pip", "remember, uv for installs"),
    ("never use pip, always uv", "I prefer uv over pip for dependencies"),
    ("always run the tests before you commit", "never commit without running the tests"),
    ("don't push to main", "never push to main directly"),
]

NEAR_MISSES = [
    ("use uv not pip", "uninstall uv"),
    ("use uv not pip", "always uninstall uv before the release build"),
    ("always use uv", "always uninstall uv"),
    ("use uv not pip", "never use uv, use pip"),
    ("always run tests", "don't run tests"),
    ("always run the tests before committing", "always run ruff before committing"),
    ("always add type hints", "remove the type hints, always"),
    ("never push to main", "always push to main after review"),
    ("use pnpm not npm", "use uv not pip"),
]


@pytest.mark.parametrize(("a", "b"), PARAPHRASES)
def test_paraphrases_are_the_same_request(a: str, b: str) -> None:
    """Paraphrases of one preference link (else promote never sees it three times)."""
    assert same_request(a, b) and same_request(b, a)


@pytest.mark.parametrize(("a", "b"), NEAR_MISSES)
def test_near_misses_are_not(a: str, b: str) -> None:
    """Texts that share words but mean different things never link: a rule proposed from
    them would say the opposite of some of its evidence."""
    assert not same_request(a, b) and not same_request(b, a)


def test_the_issues_example_is_proposed_once() -> None:
    """Three sessions, three phrasings of "uv, not pip": one proposal, with its evidence
    (dates, sessions, phrasings), never written by itself."""
    texts = ["use uv not pip", "please install with uv instead of pip",
             "remember, uv for installs"]
    noise = asks_in_sessions(["fix the failing test in cache.py", "run the tests",
                              "add a --json flag to status"] * 2, 10, "n")
    found = propose(asks_in_sessions(texts) + noise)
    assert len(found) == 1
    p = found[0]
    assert p.sessions == ("s0", "s1", "s2")
    assert [e.text for e in p.evidence] == texts
    assert [e.date for e in p.evidence] == ["2026-11-01", "2026-11-02", "2026-11-03"]
    assert "uv" in p.rule and "pip" in p.rule and "\n" not in p.rule


def test_two_sessions_are_not_enough() -> None:
    """A request said in two sessions (or three times in one) is not proposed."""
    twice = asks_in_sessions(["use uv not pip", "remember, uv for installs"])
    one_session = [make_ask("x", "always use uv, not pip", at(5, m)) for m in range(3)]
    assert propose(twice + [a for a in one_session if a]) == []


def test_near_misses_never_share_a_proposal() -> None:
    """"use uv" / "uninstall uv" and "always run tests" / "don't run tests", each said in
    three sessions: no proposal mixes the two sides."""
    sides = [["use uv not pip"] * 3, ["always uninstall uv before releasing"] * 3,
             ["always run tests"] * 3, ["don't run tests"] * 3]
    asks = []
    for n, texts in enumerate(sides):
        asks += asks_in_sessions(texts, 1 + 5 * n, f"side{n}-")
    side_of = {a.id: a.session.split("-")[0] for a in asks}
    for p in propose(asks):
        assert len({side_of[e.ask] for e in p.evidence}) == 1, p


def test_a_shared_frame_is_not_one_rule() -> None:
    """"always run ruff before committing" and "always run mypy before committing" share
    three of four words, yet each names a tool the other lacks: two rules, never one."""
    asks = asks_in_sessions(["always run ruff before committing"] * 3, 1, "r")
    asks += asks_in_sessions(["always run mypy before committing"] * 3, 5, "m")
    # ruff and mypy are everyday words in this person's prompts, so no idf keeps them apart
    asks += asks_in_sessions(["ruff and mypy fail on cli.py, fix them"] * 6, 10, "n")
    found = propose(asks)
    assert sorted(len(p.sessions) for p in found) == [3, 3]
    for p in found:
        assert len({e.session[0] for e in p.evidence}) == 1, p


def test_tasks_asked_again_are_not_rules() -> None:
    """"run the tests", "continue", "fix the failing test in cache.py" in every session
    are tasks, not rules: never proposed."""
    tasks = ["run the tests", "continue", "fix the failing test in cache.py",
             "it doesn't work", "the tests don't pass", "why does it not build?",
             "there is KeyError: no such key in the logs, find it"]
    asks = []
    for n, text in enumerate(tasks):
        asks += asks_in_sessions([text] * 4, 1 + 5 * n, f"t{n}-")
    assert propose(asks) == []


def test_a_pasted_error_is_not_a_rule_but_an_error_name_is_a_word() -> None:
    """"No module named 'yaml'" inside a pasted error is no prohibition; "never raise
    ValueError" names ValueError (only the pasted message, name and colon, is dropped)."""
    assert A.rule_clauses("the build broke: ModuleNotFoundError: No module named 'yaml'") == []
    ((_, terms),) = A.rule_clauses("never raise ValueError, use our AppError")
    assert terms == {"rais": -1, "valueerror": -1, "apperror": 1}


def test_a_known_rule_is_not_proposed_again() -> None:
    """After a yes (the rule is written) or a no (dismissed), the same request is not
    proposed again, though its asks stay."""
    asks = asks_in_sessions(["use uv not pip", "please install with uv instead of pip",
                             "remember, uv for installs"])
    (p,) = propose(asks)
    assert propose(asks, known=[p.rule]) == []
    assert propose(asks, known=["Never use pip; uv for every install."]) == []
    assert propose(asks, known=["Always answer in British English."]) == [p]


def test_projects_suggest_the_global_layer() -> None:
    """Asked in two or more projects: the proposal suggests --global."""
    texts = ["use uv not pip", "please install with uv instead of pip", "use uv, not pip"]
    asks = [replace(a, project=f"p{i % 2}") for i, a in enumerate(asks_in_sessions(texts))]
    (p,) = propose(asks)
    assert p.projects == ("p0", "p1") and p.suggest_global


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_propose_is_order_independent(seed: int) -> None:
    """The asks in any order (and repeated) give the same proposals, in the same order: the
    numbers a person says yes or no to must not move."""
    asks, first = bench_sample()
    shuffled = asks + asks[: len(asks) // 3]
    random.Random(seed).shuffle(shuffled)
    assert first and propose(shuffled) == first


def test_bench_goals_and_data_are_current() -> None:
    """The committed promote sets are what gen.py and dev/build.py make, and the matcher meets
    the goals on the sets it was tuned on (train, dev: precision >= .90 counting a second
    proposal of one rule as wrong, recall >= .70 / .60) and on the generated test split
    (precision >= .90, recall >= .70). Since issue 34 the test split is no held-out measure
    (one generator wrote both splits; the hand-written sets under heldout/ are): one rule
    proposed twice there is tolerated (strict precision >= .85; the second proposal of a rule
    is shown after the first was decided)."""
    gen = load_bench("promote/gen.py", "promote_gen")
    run = load_bench("promote/run.py", "promote_run")
    dev = load_bench("promote/dev/build.py", "promote_dev_build")
    for path, text in gen._files().items():
        assert path.read_text(encoding="utf-8") == text, path
    for path, text in dev.files().items():
        assert path.read_text(encoding="utf-8") == text, path
    # (and the sets tuned on since: dev5, dev6 and set C; a regression guard, no measure)
    for name in ("train", "dev", "dev5", "dev6", "set_c"):
        r = run.score(name, show=False)
        assert r["strict"] >= run.PRECISION_GOAL and r["recall"] >= run.RECALL_GOAL[name], r
    r = run.score("test", show=False)
    assert r["sessions"] >= 200
    assert r["precision"] >= run.PRECISION_GOAL and r["strict"] >= 0.85, r
    assert r["recall"] >= run.RECALL_GOAL["test"], r


# -- distill -----------------------------------------------------------------------------------


def session_fixture() -> tuple[list[Ask], list[Written]]:
    asks = [make_ask("S1", t, at(3, m)) for m, t in enumerate([
        "why does the cache return stale rows after a deploy?",
        "continue",
        "use uv not pip",
        "add a --json flag to the status command",
        "write a migration that adds an index on orders.created_at",
    ])]
    other = make_ask("S2", "add pagination to orders", at(3, 30))
    written = [
        Written("e1", "decisions", "Cache rows carry the deploy id, stale rows are dropped",
                "after a deploy the cache returns rows keyed by the old deploy", at(3, 10)),
        Written("e2", "failures", "Invalidating the cache on SIGHUP did not work", "", at(3, 11)),
        Written("e3", "conventions", "status --json prints a stable shape", "json flag", None),
    ]
    return [a for a in [*asks, other] if a], written


def test_distill_sorts_asked_decided_open_and_dead_ends() -> None:
    """The summary says what was asked, what was decided (entries written), what is still
    open (asks nothing written afterwards answers) and the dead ends (failures), each line
    with its ask or entry id; chit-chat and standing rules are not open questions."""
    asks, written = session_fixture()
    s = distill("S1", asks, written)
    by_text = {a.text: a.id for a in asks}
    assert [ref for ref, _ in s.asked] == [a.id for a in asks if a.session == "S1"]
    assert [ref for ref, _ in s.decided] == ["e1", "e3"]
    assert [ref for ref, _ in s.dead_ends] == ["e2"]
    assert [ref for ref, _ in s.open] == [
        by_text["write a migration that adds an index on orders.created_at"]]
    for ref, line in s.asked + s.decided + s.open + s.dead_ends:
        assert f"- {line} ({ref})" in s.text
    assert "add pagination" not in s.text  # another session's ask


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32))
def test_distill_is_idempotent_and_order_free(seed: int) -> None:
    """Distilling again, with the summary itself now among the entries written, and with the
    inputs in any order (an entry recorded twice, as first written and as edited, included),
    gives the same summary (running distill twice changes nothing)."""
    asks, written = session_fixture()
    rng = random.Random(seed)
    edited = replace(written[0], title="Cache rows carry the deploy id", at=at(3, 12))
    first = distill("S1", asks, [*written, edited])
    asks2, written2 = asks[:] * 2, [*written, edited, Written(
        first.id, A.SUMMARY_SHARD, first.title, first.text, at(4))]
    rng.shuffle(asks2)
    rng.shuffle(written2)
    assert distill("S1", asks2, written2) == first


def test_an_answer_written_before_the_ask_does_not_close_it() -> None:
    """"Still open" means nothing written *afterwards* answers the ask."""
    ask = make_ask("S", "add a --json flag to the status command", at(3, 20))
    assert ask is not None
    early = Written("e9", "conventions", "status --json flag", "", at(3, 5))
    assert [r for r, _ in distill("S", [ask], [early]).open] == [ask.id]
    late = replace(early, at=at(3, 25))
    assert distill("S", [ask], [late]).open == ()


def test_a_dead_end_does_not_close_an_ask() -> None:
    """An attempt that failed (an entry in the failures shard) is a dead end, not an answer:
    the ask stays open."""
    ask = make_ask("S", "make the cache survive a deploy", at(3, 20))
    assert ask is not None
    failed = Written("e7", "failures", "Keeping the cache across a deploy corrupted it", "",
                     at(3, 40))
    s = distill("S", [ask], [failed])
    assert [r for r, _ in s.open] == [ask.id] and [r for r, _ in s.dead_ends] == ["e7"]


def test_asked_lines_are_capped_but_traceable() -> None:
    """A long session lists the first asks of each part and names the ids of the rest."""
    asks = [make_ask("S", f"question number {i} about the parser", at(3, i)) for i in range(30)]
    s = distill("S", [a for a in asks if a], [])
    asked_part = s.text.split("**Asked**")[1].split("**Decided**")[0]
    assert asked_part.count("question number") == A.MAX_SECTION_LINES
    assert len(s.open) == 30
    for a in asks[A.MAX_SECTION_LINES:]:
        assert a is not None and a.id in asked_part


def test_quiet_sessions() -> None:
    """A session is quiet after distill_after seconds without a prompt, or when it ended."""
    asks = [make_ask("old", "a b", at(3, 0)), make_ask("new", "a b", at(3, 50)),
            make_ask("ended", "a b", at(3, 55))]
    got = A.quiet_sessions([a for a in asks if a], at(3, 59), after_seconds=1800,
                           ended=["ended"])
    assert got == ("ended", "old")

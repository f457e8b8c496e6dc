"""The promote matcher's anchored links and reading repairs (issue 34 item 3, ADR 0043): a
preference said in paraphrase shares its object ("pnpm", "apologies", "force-unwrap") and few
other words; it must still be proposed once, while opposite sides, rules that merely share a
word, and words said once stay apart. Expected groups are written by hand from what the
person meant, not from the matcher's output."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import asks as A
from lean_memory._stem import stem_inflected
from lean_memory.asks import Ask, make_ask, propose

# Tasks of any coding week, so that word weights look like a real store's (a rule's object
# is rarer than "fix", "test", "file").
FILLER = [
    "fix the failing test in cache.py", "add a health endpoint", "run the tests",
    "explain what the scheduler does", "rename the config loader", "bump the version",
    "write a unit test for the parser", "why is the build slow?", "update the README",
    "add logging to the worker", "refactor the retry loop", "open a PR for this",
    "look at the flaky test", "continue", "review my changes in src/app.py",
    "add pagination to the list endpoint", "fix the typo in the docs",
    "profile the import step", "split utils.py into two modules", "remove the dead code",
]


def week(groups: dict[str, list[str]], filler: int = 3) -> tuple[list[Ask], dict[str, str]]:
    """One session per text of each group (sessions of different groups interleave), each
    session also holding ``filler`` tasks; returns the asks and each ask id's group."""
    asks: list[Ask] = []
    label: dict[str, str] = {}
    n = 0
    longest = max(len(texts) for texts in groups.values())
    for i in range(longest):
        for name, texts in groups.items():
            if i >= len(texts):
                continue
            session = f"{name}-{i}"
            day = f"2026-10-{1 + n % 28:02d}T{8 + n // 28:02d}:00:00Z"
            ask = make_ask(session, texts[i], day, "proj")
            assert ask is not None
            asks.append(ask)
            label[ask.id] = name
            for k in range(filler):
                task = make_ask(session, FILLER[(n * filler + k) % len(FILLER)],
                                day.replace(":00:00Z", f":{10 + k:02d}:00Z"), "proj")
                assert task is not None
                asks.append(task)
                label[task.id] = "task"
            n += 1
    return asks, label


def proposed(groups: dict[str, list[str]]) -> list[set[str]]:
    """The groups each proposal's evidence comes from."""
    asks, label = week(groups)
    return [{label[e.ask] for e in p.evidence} for p in propose(asks)]


def test_paraphrases_that_share_only_their_object_are_one_proposal() -> None:
    """Three phrasings of "never force-unwrap" share "force unwrap" and nothing else: before
    the anchored link no two reached the cosine and nothing was proposed."""
    got = proposed({"unwrap": [
        "Avoid force-unwraps (!) — use guard let or if let.",
        "no force unwrapping in Swift code please",
        "Never force-unwrap an optional.",
    ]})
    assert got == [{"unwrap"}]


def test_a_word_said_once_does_not_split_a_rule() -> None:
    """"obvious", "repeat", "restate" are each said once: decoration, not three rules."""
    got = proposed({"comments": [
        "don't add comments that repeat the code",
        "No obvious comments please, the code says it.",
        "Stop adding comments that just restate the code!",
    ]})
    assert got == [{"comments"}]


def test_opposite_sides_sharing_their_anchor_never_merge() -> None:
    """"always indent with tabs" and "indent with spaces instead of tabs" share "indent" and
    "tabs": an anchored link across them would propose the opposite of half the evidence."""
    got = proposed({
        "tabs": ["always indent with tabs", "Tabs for indentation please.",
                 "we indent using tabs here, right?"],
        "no-tabs": ["never use tabs, spaces only", "Indent with spaces instead of tabs.",
                    "tabs are banned in this codebase"],
    })
    assert all(len(g) == 1 for g in got), got
    assert {"tabs"} in got or {"no-tabs"} in got


def test_two_rules_that_share_a_word_stay_two() -> None:
    """"ask before adding dependencies" and "ask before deleting files" share "ask"; "no
    requests, httpx only" and "never log the request body" share "request"."""
    got = proposed({
        "deps": ["Please always ask me before you add dependencies",
                 "never add a dependency without asking first",
                 "ask before adding any new dependency"],
        "delete": ["remember: ask first before removing files",
                   "never delete a file without asking me first",
                   "ask me before deleting any files"],
        "httpx": ["Httpx only for http, not requests", "Don't add requests, httpx please",
                  "we switched to httpx, so no requests"],
        "body": ["Never log the request body"],
    })
    assert all(len(g) == 1 for g in got), got
    assert {"deps"} in got and {"delete"} in got and {"httpx"} in got


def test_a_refused_opposite_is_a_wish() -> None:
    """"don't write long answers" asks for short ones: read as refusing answers, it never met
    "keep replies concise" (and "no huge PRs" asks for small ones)."""
    long_answers = dict(A._read("don't write long answers")[0][1])
    assert long_answers.get(A._term("short")) == 1
    assert long_answers.get(A._term("answers")) == 1
    assert dict(A._read("no huge PRs")[0][1]).get(A._term("small")) == 1
    got = proposed({"short": ["From now on keep replies concise.",
                              "don't write long answers, keep it brief",
                              "I prefer terse replies, skip the preamble."]})
    assert got == [{"short"}]


@pytest.mark.parametrize(("text", "refused", "place"), [
    ("Keep emojis out of commit messages please", "emoji", "commit"),
    ("do not add emoji to commit messages", "emoji", "commit"),
    ("leave the type hints out of the tests", "hint", "tests"),
])
def test_what_is_kept_out_is_refused_and_where_is_not(text: str, refused: str,
                                                       place: str) -> None:
    """"keep emojis out of commit messages" was read as wanting emojis; "don't add emoji to
    commit messages" refused commit messages too, so it clashed with "no emoji in commit
    messages"."""
    (_, terms, marked, keys), = A._read(text)
    assert marked
    assert terms[A._term(refused)] == -1
    assert terms.get(A._term(place), 1) == 1
    assert A._term(place) not in keys


@pytest.mark.parametrize(("text", "one"), [
    ("mix format first, then commit", True),
    ("run the linter first, then push", True),
    ("fix the bug, then run the tests", False),
])
def test_first_then_is_one_order(text: str, one: bool) -> None:
    """"X first, then Y" is one rule about order; ", then" otherwise joins a second request."""
    assert (len(A._sentences(text)) == 1) is one


@pytest.mark.parametrize("group", [
    "apology apologies apologize apologise apologizing",
    "summary summaries summarize",
    "category categories categorize",
])
def test_a_noun_in_y_and_its_verb_in_ize_share_a_stem(group: str) -> None:
    """"no apologies" and "don't apologize" are one rule (Porter: apologi / apolog)."""
    words = group.replace("apologise", "apologize").split()
    assert len({stem_inflected(w) for w in words}) == 1, {w: stem_inflected(w) for w in words}


@pytest.mark.parametrize(("text", "words"), [
    ("use async/await everywhere", ["async", "await"]),
    ("prefer f-strings", ["fstrings"]),
    ("CI/CD runs on merge", ["ci", "cd"]),
])
def test_slashes_and_one_letter_prefixes(text: str, words: list[str]) -> None:
    """"async/await" was one token that never met "async await"; "f-strings" lost its f."""
    got = A._words(A._normalize(text))
    assert all(w in got for w in words), got
    assert "src/app.py" in A._words(A._normalize("look at src/app.py"))


def test_a_refused_switch_keeps_its_target_refused() -> None:
    """"don't convert them to rem" wanted rem (and so met "use rem for font sizes")."""
    terms = A._read("Pixel units are fine for us, don't convert them to rem.")[0][1]
    assert terms[A._term("rem")] == -1
    assert A._read("switch the fonts to rem")[0][1][A._term("rem")] == 1


def test_a_group_that_wants_its_key_both_ways_is_not_proposed() -> None:
    """Chained through what else they say, "squash on merge" and "never squash" sessions
    once formed one group; it is refused however it was joined."""
    asks, _ = week({"x": ["squash merge PRs", "never squash when merging a PR",
                          "we squash on merge here", "don't squash PRs on merge"]})
    clauses = [c for a in asks for c in A._rule_readings(a) if "squash" in c.text.lower()]
    said = A._core_clause(clauses)
    assert A._split_direction(clauses, said.keys | {A._term("squash")})


TOOLS = ["pnpm", "podman", "ruff", "polars", "httpx", "vitest", "pytest", "biome"]
DECOR = ["please", "here", "for this repo", "ok?", "again", "from now on", "in every project",
         "thanks", "seriously", "for new code"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TOOLS), st.lists(st.sampled_from(DECOR), min_size=6, max_size=6))
def test_yes_and_no_on_one_tool_never_share_a_proposal(tool: str, decor: list[str]) -> None:
    """Whatever decoration a phrasing carries, a proposal never holds both "use X" and
    "never X" (the anchor is shared, the direction is not)."""
    yes = [f"always use {tool} {decor[0]}", f"{tool} is the tool we use, {decor[1]}",
           f"I prefer {tool} {decor[2]}"]
    no = [f"never use {tool} {decor[3]}", f"we removed {tool}, don't bring it back",
          f"no {tool} {decor[5]}"]
    for got in proposed({"yes": yes, "no": no}):
        assert len(got) == 1, (got, yes, no)


def test_two_values_of_one_setting_never_merge() -> None:
    """"comments in Spanish" and "comments in English" share "comments" and one frame: they
    were proposed as one rule (as "2 spaces" / "4 spaces" never were)."""
    got = proposed({
        "es": ["Write the code comments in Spanish", "code comments in Spanish, please",
               "comments always in Spanish"],
        "en": ["Code comments in English only", "english comments, always",
               "Please write comments in English"],
    })
    assert all(len(g) == 1 for g in got), got
    for a, b in [("comments in Spanish", "comments in English"),
                 ("use snake_case for columns", "use camelCase for columns"),
                 ("indent with 2 spaces", "indent with 4 spaces")]:
        assert not A.same_request(a, b), (a, b)


def test_a_task_pointing_at_one_thing_is_never_evidence() -> None:
    """"run mix format on this file" (a task asked again) joined "mix format before you
    commit" and made its proposal wrong."""
    got = proposed({
        "rule": ["mix format before you commit anything, please",
                 "always run mix format before committing",
                 "Commits go through mix format, every time"],
        "task": ["run mix format on this file", "format the file you just changed with mix "
                 "format", "mix format lib/ledger.ex"],
    })
    assert got == [{"rule"}], got
    assert A._read("run mix format on this file") == []


def test_the_task_beside_a_rule_is_not_the_rule() -> None:
    """In "Add the mapstruct dependency — in Gradle, not Maven" the rule is the second part:
    the task's "dependency" linked it to every rule about dependencies."""
    (_, terms, marked, _), = A._read("Add the mapstruct dependency — in Gradle, not Maven")
    assert marked
    assert A._term("dependency") not in terms and A._term("maven") in terms
    # and a general part beside a task is a rule of its own
    (_, terms, marked, _), = A._read(
        "Document the smoothing function — comments in Spanish, the analysts read them.")
    assert marked and A._term("spanish") in terms


@pytest.mark.parametrize("text", [
    "Explain why the precision dropped after adding tenure",
    "check whether the cache is warm before the deploy",
])
def test_a_question_inside_a_task_is_no_rule(text: str) -> None:
    """"Explain why X dropped after Y" read as general (a condition) and as refusing X."""
    assert not A.rule_clauses(text)


@pytest.mark.parametrize(("text", "wanted", "refused"), [
    ("Nada de %>%, usamos el pipe nativo |>", "pipe", ""),
    ("comentarios siempre en castellano, ¿ok?", "spanish", ""),
    ("Usa siempre Pest, niente PHPUnit", "pest", "phpunit"),
    ("Non usare mai jQuery", "", "jquery"),
    ("Bitte nimm ruff, nicht flake8", "ruff", "flake8"),
])
def test_rule_words_in_other_languages(text: str, wanted: str, refused: str) -> None:
    """Spanish and Italian asks (and their tag questions, "¿ok?") were read as questions or
    as nothing at all; German and French were already covered."""
    (_, terms, marked, _), = A._read(text)
    assert marked
    if wanted:
        assert terms[A._term(wanted)] == 1
    if refused:
        assert terms[A._term(refused)] == -1


def test_flags_annotations_and_conventions() -> None:
    """"-fno-exceptions" was "exceptions" wanted (meeting "throw exceptions"); "@spec" never met
    "spec"; "as in the rest of the API" is a standing convention."""
    terms = A._read("We build with -fno-exceptions")[0][1]
    assert A._term("exceptions") not in terms
    assert A._term("spec") in A._read("public funcs get @spec, always")[0][1]
    assert A.rule_clauses("Properties camelCased, as in the rest of the API")
    assert A._read("%>% is banned in new code")[0][1].get(A._term("banned")) is None


@pytest.mark.parametrize("group", ["lint linter linters linting", "format formatter formatted",
                                   "run runner runners", "wrap wrapper wrapped"])
def test_a_doer_shares_its_verbs_stem(group: str) -> None:
    """"the Elixir formatter" / "mix format", "the linter" / "lint": one thing."""
    assert len({stem_inflected(w) for w in group.split()}) == 1


def test_one_shared_generic_word_is_no_link() -> None:
    """"with SQL text" and "text via translation keys" share only "text"."""
    assert not A.same_request("never build queries with SQL text",
                              "UI text always via translation keys")
    # a rule said in generic words only still meets itself
    assert A.same_request("never commit, I'll do the commits myself",
                          "you don't commit in this repo, ever")


@pytest.mark.parametrize(("text", "term", "sign"), [
    ("dont use var ever", "var", -1),
    ("we dont do mutable state here, use immutable records", "mutable", -1),
    ("you shouldnt mock the db", "mock", -1),
])
def test_a_negation_typed_without_its_apostrophe(text: str, term: str, sign: int) -> None:
    """"dont use var ever" read as wanting var (and as no rule at all)."""
    (_, terms, marked, _), = A._read(text)
    assert marked and terms[A._term(term)] == sign


def test_a_pasted_log_line_is_no_rule() -> None:
    """"fix this: 2026-11-03 12:00:01 ERROR db timeout" read as a setting (a verbless noun
    phrase) beside a task, with its time stamps as terms."""
    got = A._read("fix this: 2026-11-03 12:00:01 ERROR db timeout. and pls always use the "
                  "connection pool")
    assert [r[2] for r in got] == [True]
    assert A._term("pool") in got[0][1]
    assert not any(t[:1].isdigit() for r in got for t in r[1])


@pytest.mark.parametrize("text", ["no wait, undo that", "no no, the other file",
                                  "no stop, that's the wrong branch"])
def test_no_wait_is_steering(text: str) -> None:
    """"no wait, undo that" read as a prohibition of waiting."""
    assert A._read(text) == []


def test_a_complaint_asks_for_what_was_missed() -> None:
    """"you always forget the tests" is "always add the tests", not a rule about forgetting."""
    (_, terms, marked, _), = A._read("you always forget the tests")
    assert marked and terms[A._term("tests")] == 1 and A._term("forget") not in terms


def test_a_rule_word_typed_wrong_is_still_the_rule_word() -> None:
    """"alwasy use pnpm", "nevr push to main": a typo in the word a rule turns on lost the
    rule (and "nevr" its direction)."""
    assert A._read("alwasy use pnpm")[0][2]
    (_, terms, marked, _), = A._read("nevr push to main")
    assert marked and terms[A._term("push")] == -1
    assert A._read("i perfer tabs")[0][2]
    # words in their own right are left alone
    assert "ever" not in A._CUE_TYPOS and "very" not in A._CUE_TYPOS


def test_a_word_typed_wrong_once_is_the_common_word() -> None:
    """"fromat" (said once) and "format" (said in every session) are one term; "allow" and
    "alloc" (one letter changed) are two words, never merged."""
    df = {A._term("format"): 5, "fromat": 1, "formmat": 1, "alloc": 4, "allow": 1,
          "spring": 1, "string": 6}
    fix = A._typos(df)
    assert fix.get("fromat") == A._term("format") and fix.get("formmat") == A._term("format")
    assert "allow" not in fix and "spring" not in fix


@pytest.mark.parametrize(("text", "rule"), [
    ("TODO comments need a ticket", True),
    ("PRs need two approvals", True),
    ("the build needs a fix", False),
    ("we need to fix this", False),
])
def test_a_general_subject_that_needs_something_is_a_rule(text: str, rule: bool) -> None:
    """"TODO comments need a ticket" read as a task pointing at "a" ticket."""
    assert bool(A.rule_clauses(text)) is rule


def test_a_removal_said_after_its_object() -> None:
    """"commit it, with cell outputs stripped" wanted the outputs (a removal said after what
    it removes); "the precision dropped" is a fact, not a refusal."""
    terms = A._read("Commit the analysis, with cell outputs stripped like always")[0][1]
    assert terms[A._term("outputs")] == -1
    assert not A.rule_clauses("the precision dropped after the upgrade")


@settings(max_examples=60, deadline=None)
@given(st.text("abcdefghijklmnoprstuvwy", min_size=6, max_size=10), st.integers(1, 8))
def test_a_swapped_pair_maps_back_to_the_common_word(word: str, at: int) -> None:
    """Whatever the word, two swapped letters (not the first) said once map back to the word
    said in many asks, and the map never sends a word to itself."""
    i = min(at, len(word) - 2)
    typo = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if typo == word:
        return
    fix = A._typos({word: 5, typo: 1})
    assert fix == {typo: word}
    assert A._typos({word: 5}) == {}

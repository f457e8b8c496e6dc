"""Said again: the near-duplicate threshold (where it merges, where it stops) and the
"Said again" part of a body (ADR 0005, lean_memory.dedup)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import Memory
from lean_memory import format as fmt
from lean_memory.dedup import (
    MARKER,
    STOP_WORDS,
    add_said_again,
    content_words,
    find_near_duplicate,
    folds,
    main_text,
    said_again_part,
    signature,
)


def entry(text: str, id_: str = "e1", **meta: str) -> fmt.Entry:
    return fmt.Entry(id=id_, shard="quirks", title=" ".join(text.split()[:3]) or "t", text=text,
                     meta=tuple(meta.items()))


# The same fact again: only case, white space, punctuation, inflection, articles and other
# stop words, contractions or Markdown emphasis differ. Each folds.
PARAPHRASES = [
    # case, white space, punctuation
    ("Deploys must happen before the migration.", "deploys MUST happen before the migration!"),
    ("Run the linter before every commit.", "  Run the linter\n\tbefore every commit  "),
    ("The Windows runner fails on CRLF fixtures.", "The Windows runner fails on CRLF fixtures"),
    ("Integration tests need Docker, Postgres and Redis.",
     "Integration tests need: Docker; Postgres; Redis..."),
    ("Set core.autocrlf=false in .gitattributes.", "Set core.autocrlf = false in .gitattributes"),
    ("Use `uv pip install -e .` for the dev setup.", "Use uv pip install -e . for the dev setup"),
    ("**Never** push to main directly.", "Never push to main directly."),
    ("Release notes live in docs/changes.md (not the wiki).",
     "Release notes live in docs/changes.md -- not the wiki."),
    # plural / singular
    ("The flaky test times out on slow runners.", "The flaky tests time out on slow runner."),
    ("Keep one fixture per file.", "Keep one fixture per files."),
    ("Cache keys include the lockfile hash.", "Cache key includes the lockfile hashes."),
    ("Copy the certificate into the container.", "Copy the certificates into the containers."),
    # tense and other inflection
    ("The nightly job fails when the cache is cold.",
     "The nightly job failed when the cache was cold."),
    ("The upload step retries three times.", "The upload step retried three times."),
    ("Mypy complains about the generated stubs.", "Mypy complained about the generated stub."),
    ("Running the benchmarks needs a quiet machine.", "Run the benchmark needs a quiet machine."),
    ("The deploy script copies the assets.", "The deploy script copied the assets."),
    # articles, forms of be/do/have, "that", "of", "and"
    ("The build needs the Node 20 toolchain.", "Build needs Node 20 toolchain."),
    ("Note that the cache is shared between jobs.", "Note: cache shared between jobs."),
    ("Most of the failures are timeouts.", "Most failures: timeouts."),
    ("Tests use pytest and hypothesis.", "Tests use pytest, hypothesis."),
    # contractions spelt out
    ("The cache isn't safe to delete.", "The cache is not safe to delete."),
    ("You can't run two migrations at once.", "You cannot run two migrations at once."),
    ("Don't commit the .env file.", "Do not commit the .env file."),
    ("The fixture won't reset the clock.", "The fixture will not reset the clock."),
    ("It's flaky on macOS.", "It is flaky on macOS."),
    # case never matters, identifiers included (as for an exact repeat in the store)
    ("Docker on macOS needs --platform linux/amd64 and HTTP_PROXY.",
     "docker on macos needs: --platform LINUX/AMD64 and http_proxy"),
    ("The team\u2019s runbook lives in ops/README.md.",
     "The team's runbook lives in ops/README.md."),
]

# Opposite or different facts: each pair must stay two entries (the second is never folded
# into the first). At least one pair per class.
CONTRADICTIONS = [
    # the seven of issue 10
    ("Deploys must happen before the migration.", "Deploys must happen after the migration."),
    ("The integration suite passes on the ARM runners.",
     "The integration suite fails on the ARM runners."),
    ("Memory usage of the indexer is low for large repositories.",
     "Memory usage of the indexer is high for large repositories."),
    ("The retry loop gives up after eight attempts.",
     "The retry loop gives up after eighty attempts."),
    ("Latency stays above the SLO during the nightly batch.",
     "Latency stays below the SLO during the nightly batch."),
    ("Customer data is stored in the eu region bucket.",
     "Customer data is stored in the us region bucket."),
    ("The blue cluster serves production and the green cluster serves staging.",
     "The green cluster serves production and the blue cluster serves staging."),
    # negation
    ("Use poetry to install the dev dependencies.",
     "Do not use poetry to install the dev dependencies."),
    ("The cache is safe to delete between runs.", "The cache isn't safe to delete between runs."),
    ("Always squash commits before merging.", "Never squash commits before merging."),
    ("The parser accepts trailing commas.", "The parser accepts no trailing commas."),
    ("Migrations can run while the app is up.", "Migrations can't run while the app is up."),
    ("The hook works with a detached HEAD.", "The hook works without a detached HEAD."),
    ("Tests may touch the network.", "Tests may never touch the network."),
    # antonyms
    ("Enable the feature flag before the release.", "Disable the feature flag before the release."),
    ("The staging database is empty after a reset.", "The staging database is full after a reset."),
    ("The lock is acquired first.", "The lock is released first."),
    ("Builds are faster with ccache.", "Builds are slower with ccache."),
    ("The endpoint is public.", "The endpoint is private."),
    ("Allow force pushes on release branches.", "Deny force pushes on release branches."),
    ("The old API is deprecated.", "The new API is deprecated."),
    ("Start the worker before the scheduler.", "Stop the worker before the scheduler."),
    # numbers, number words, units, versions
    ("The staging database listens on port 5432.", "The staging database listens on port 5433."),
    ("Request timeout is 8s.", "Request timeout is 8ms."),
    ("Request timeout is 8 s.", "Request timeout is 8 ms."),
    ("Use HTTPS for the package registry.", "Use HTTP for the package registry."),
    ("Pin the SDK to v1.2 in the lockfile.", "Pin the SDK to v1.3 in the lockfile."),
    ("The docs build needs Sphinx 7.2.", "The docs build needs Sphinx 7.2.1."),
    ("Keep two replicas of the queue.", "Keep three replicas of the queue."),
    ("The batch size is 1000 rows.", "The batch size is 10000 rows."),
    ("Offset the clock by 5 minutes.", "Offset the clock by -5 minutes."),
    ("Coverage must stay at 90% or more.", "Coverage must stay at 90 or more."),
    ("Python 3.11 is required.", "Python 3.12 is required."),
    ("Use one worker per core.", "Use a worker per core."),
    ("The cache holds 8 GB.", "The cache holds 8 MB."),
    # word order: the same words, roles swapped
    ("The login service calls the billing service on every request.",
     "The billing service calls the login service on every request."),
    ("Run the unit tests before the integration tests.",
     "Run the integration tests before the unit tests."),
    ("Copy the config from staging to production.", "Copy the config from production to staging."),
    ("The client retries and the server times out.",
     "The server retries and the client times out."),
    ("Tests pass on Linux and fail on Windows.", "Tests fail on Linux and pass on Windows."),
    ("Rebase main onto the feature branch.", "Rebase the feature branch onto main."),
    # paths, identifiers, flags, operators, case of identifiers
    ("The entry point is src/app/main.py.", "The entry point is src/app/main.js."),
    ("Config lives in /etc/app.toml.", "Config lives in etc/app.toml."),
    ("Call parse_config before load_plugins.", "Call parse_config before load_plugin."),
    ("Run pytest with -x in CI.", "Run pytest with -s in CI."),
    ("Run git push --force-with-lease on rebased branches.",
     "Run git push --force on rebased branches."),
    ("Require python >= 3.11.", "Require python <= 3.11."),
    ("The secret lives in $HOME/.netrc.", "The secret lives in ./.netrc."),
    ("Add a -text rule in .gitattributes.", "Add a text rule in .gitattributes."),
    # stop words that matter: prepositions and adverbs of place, time and direction
    ("The cache is on for CI builds.", "The cache is off for CI builds."),
    ("Log level is set in the config file.", "Log level is set out of the config file."),
    ("Scale the workers up at night.", "Scale the workers down at night."),
    ("Tests run with the network.", "Tests run without the network."),
    ("Only admins can rotate the keys.", "Admins can rotate the keys."),
    ("All jobs use the shared runner except the release job.",
     "All jobs use the shared runner including the release job."),
    ("Move the fixtures into the tests folder.", "Move the fixtures out of the tests folder."),
    ("The banner shows over the login form.", "The banner shows under the login form."),
    ("Write logs to stdout.", "Write logs from stdout."),
    ("Freeze merges until the release is tagged.", "Freeze merges since the release is tagged."),
    ("Turn left at the gateway for the VPN route.", "Turn right at the gateway for the VPN route."),
    ("Traffic flows inbound through the proxy.", "Traffic flows outbound through the proxy."),
    # named places
    ("The primary database runs in Frankfurt.", "The primary database runs in Dublin."),
    ("Backups are replicated to us-east-1.", "Backups are replicated to eu-west-1."),
    ("The on-call rota follows the Berlin office hours.",
     "The on-call rota follows the Tokyo office hours."),
    # modal verbs, quantifiers, pronouns and other content
    ("Reviewers must approve schema changes.", "Reviewers may approve schema changes."),
    ("All tests touch the database.", "Some tests touch the database."),
    ("Our CI caches the wheels.", "Their CI caches the wheels."),
    ("Use npm or yarn for the frontend.", "Use npm and yarn for the frontend."),
    ("The job runs daily.", "The job runs weekly."),
    ("The first run is slow.", "The last run is slow."),
    # new information added or dropped
    ("Flaky test test_upload times out on CI runners.",
     "Flaky test test_upload times out on CI runners because the S3 mock is slow."),
    ("Integration tests need the docker daemon running before pytest starts, and four "
     "gigabytes of free memory.",
     "Integration tests need the docker daemon running before pytest starts."),
    # reordered list items: conservative, kept apart
    ("Install redis, then postgres.", "Install postgres, then redis."),
]


def test_the_lists_are_large_enough() -> None:
    assert len(CONTRADICTIONS) >= 60 and len(PARAPHRASES) >= 20
    assert len(set(CONTRADICTIONS)) == len(CONTRADICTIONS)


@pytest.mark.parametrize(("old", "new"), PARAPHRASES)
def test_paraphrases_fold(old: str, new: str) -> None:
    assert folds(new, old) and folds(old, new)
    assert find_near_duplicate(new, [entry("Something else entirely, about git hooks.", "x"),
                                     entry(old)]) is not None
    assert signature(new) == signature(old) != b""


@pytest.mark.parametrize(("old", "new"), CONTRADICTIONS)
def test_contradictions_never_fold(old: str, new: str) -> None:
    assert not folds(new, old) and not folds(old, new)
    assert find_near_duplicate(new, [entry(old)]) is None
    assert find_near_duplicate(old, [entry(new)]) is None


@pytest.mark.parametrize(("old", "new"), CONTRADICTIONS)
def test_put_keeps_both_sides_of_a_contradiction(mem: Memory, old: str, new: str) -> None:
    a = mem.put_entry("quirks", old, date="2026-01-01")
    b = mem.put_entry("quirks", new, date="2026-01-02")
    stored = mem.entries("quirks")
    assert a.id != b.id and [e.text for e in stored[-2:]] == [old, new]
    assert all(e.get("said_again") is None for e in stored)
    # the newer statement is what a search for its own words finds
    assert any(h.entry.id == b.id for h in mem.search(new, k=2))


@pytest.mark.parametrize(("old", "new"), PARAPHRASES)
def test_put_folds_a_paraphrase(mem: Memory, old: str, new: str) -> None:
    first = mem.put_entry("quirks", old, date="2026-01-01")
    again = mem.put_entry("quirks", new, date="2026-01-02")
    (stored,) = mem.entries("quirks")
    assert again.id == first.id == stored.id
    assert main_text(stored.text) == old and stored.get("said_again") == "1"


def test_what_counts_as_a_content_word() -> None:
    assert content_words("The tests FAILED, didn't they?") == ("test", "fail", "not", "thei")
    # inflection only: derivations stay apart, short results never meet a real short word
    assert content_words("general generic") == ("general", "generic")
    assert content_words("used us news new") == ("us+", "us", "news", "new")
    # acronyms are not plurals; identifiers stay whole, only case-folded
    assert content_words("GCS GC HTTPS HTTP APIs iOS IO") == (
        "gcs", "gc", "https", "http", "api", "ios", "io")
    assert content_words("HTTP_PROXY $HOME -x ./run >= 50% getUserIds") == (
        "http_proxy", "$home", "-x", "./run", ">=", "50", "%", "getuserid")
    assert not folds("The. A! Is?", "the a is")  # no content word: only exact duplicates
    assert all(w == w.lower() for w in STOP_WORDS)
    for matters in ("not", "no", "never", "before", "after", "above", "below", "on", "off",
                    "in", "out", "up", "down", "with", "without", "only", "except", "to",
                    "from", "must", "may", "all", "some", "or", "we", "they"):
        assert matters not in STOP_WORDS


def test_first_candidate_wins_and_compacted_entries_are_never_matched() -> None:
    old, new = PARAPHRASES[0]
    first, second = entry(old, "first"), entry(new.lower(), "second")
    assert find_near_duplicate(new, [first, second]) is first
    assert find_near_duplicate(new, [second, first]) is second
    assert find_near_duplicate(new, [entry(new, "sum", compacted="4")]) is None
    # a said-again part never makes a body match: only its main text counts
    other = add_said_again(entry("Something else entirely."), new, "2026-01-01")
    assert find_near_duplicate(new, [other]) is None


# -- properties --------------------------------------------------------------------------------

# Test-side truth, independent of the module: the content word each form stands for.
FORMS = {
    "fail": ["fail", "fails", "failed", "FAIL", "Failing"],
    "test": ["test", "tests", "Test", "TESTED"[:4]],
    "cache": ["cache", "caches", "cached", "Cache"],
    "deploy": ["deploy", "deploys", "deployed", "Deploying"],
    "before": ["before", "Before"], "after": ["after", "AFTER"],
    "not": ["not", "n't"], "never": ["never"], "only": ["only"], "without": ["without"],
    "on": ["on"], "off": ["off"], "up": ["up"], "down": ["down"], "in": ["in"], "out": ["out"],
    "8": ["8"], "80": ["80"], "eight": ["eight"], "eighty": ["eighty"],
    "8s": ["8s"], "8ms": ["8ms"], "v1.2": ["v1.2"], "v1.3": ["v1.3"],
    "src/a.py": ["src/a.py"], "HTTP_PROXY": ["HTTP_PROXY"], "http_proxy": ["http_proxy"],
    "eu": ["eu", "EU"], "us": ["us", "US"], "blue": ["blue", "Blue"], "green": ["green"],
    "low": ["low"], "high": ["high", "High"], "above": ["above"], "below": ["below"],
}
FILLER = ["the", "a", "is", "was", "of", "and", "that", ",", ";", ":", "!", "(", ")", "...",
          "\n", "  "]
CONTENT = sorted(FORMS)


def _render(draw: st.DrawFn, words: list[str]) -> str:
    out: list[str] = []
    for w in words:
        out.extend(draw(st.lists(st.sampled_from(FILLER), max_size=2)))
        form = draw(st.sampled_from(FORMS[w]))
        if form == "n't":  # a contraction needs a verb to hang on
            form = draw(st.sampled_from(["isn't", "doesn't", "wasn't"]))
        out.append(form)
    out.extend(draw(st.lists(st.sampled_from(FILLER), max_size=2)))
    return " ".join(out)


@st.composite
def text_pairs(draw: st.DrawFn) -> tuple[list[str], str, list[str], str]:
    a = draw(st.lists(st.sampled_from(CONTENT), min_size=1, max_size=8))
    edit = draw(st.sampled_from(["same", "swap", "add", "drop", "replace", "move"]))
    b = list(a)
    i = draw(st.integers(0, len(b) - 1))
    if edit == "swap" and len(b) > 1:
        j = draw(st.integers(0, len(b) - 1))
        b[i], b[j] = b[j], b[i]
    elif edit == "add":
        b.insert(i, draw(st.sampled_from(CONTENT)))
    elif edit == "drop" and len(b) > 1:
        del b[i]
    elif edit == "replace":
        b[i] = draw(st.sampled_from(CONTENT))
    elif edit == "move":
        b.append(b.pop(i))
    return a, _render(draw, a), b, _render(draw, b)


@settings(max_examples=400, deadline=None)
@given(text_pairs())
def test_a_text_with_other_content_words_never_folds(
        pair: tuple[list[str], str, list[str], str]) -> None:
    a, b = pair[1], pair[3]
    # case never matters (HTTP_PROXY and http_proxy are one content word)
    a_words, b_words = ([w.casefold() for w in words] for words in (pair[0], pair[2]))
    if sorted(a_words) != sorted(b_words):  # a different multiset: never folded
        assert not folds(b, a) and find_near_duplicate(b, [entry(a)]) is None
    if a_words != b_words:  # the same words in another order: never folded either
        assert not folds(b, a)
    else:  # only case, punctuation, stop words and inflection differ: folded
        assert folds(b, a) and find_near_duplicate(b, [entry(a)]) is not None


@settings(max_examples=300, deadline=None)
@given(a=st.text(max_size=60), b=st.text(max_size=60))
def test_folding_means_equal_content_words_and_the_prefilter_is_sound(a: str, b: str) -> None:
    if Counter(content_words(a)) != Counter(content_words(b)):
        assert not folds(b, a)
    found = find_near_duplicate(b, [entry(a)]) is not None
    assert found == folds(b, a)
    if found:  # the store's fast path must never rule out what the full test folds
        assert signature(b) == signature(a) != b""


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["Fails", "tests", "the", "v1.2", "8ms", "not", "isn't",
                                 "HTTP_PROXY", "/etc/x", "-x", "GitHub", "naïve", "used",
                                 "us", ">=", ",", ".", "and", "won't", "x.won't", "a's.b",
                                 "Cannot", "we'll"]), min_size=1, max_size=10),
       st.sampled_from([str.upper, str.lower, str.title, lambda s: s]))
def test_case_never_matters_and_the_prefilter_is_sound(
        words: list[str], case: Callable[[str], str]) -> None:
    text = " ".join(words)
    variant = " ".join(case(w) for w in words)
    assert folds(variant, text) == bool(content_words(text))
    if content_words(text):
        assert find_near_duplicate(variant, [entry(text)]) is not None
        assert signature(variant) == signature(text) != b""


WINDOWS = ("The Windows runner fails on CRLF fixtures; set core.autocrlf=false in .gitattributes.",
           "Windows runners failed on the CRLF fixtures: set core.autocrlf=false in .gitattributes")


def test_said_again_part_is_kept_apart_from_the_main_text() -> None:
    old, new = WINDOWS
    e = add_said_again(entry(old), new, "2026-03-04")
    assert main_text(e.text) == old
    assert e.text.startswith(old) and MARKER in e.text and "Said again" in e.text
    assert "> 2026-03-04: Windows runners failed" in said_again_part(e.text)
    # said again a second time in other words: both phrasings are kept, in order
    third = "Windows runner: CRLF fixtures fail; set core.autocrlf=false in .gitattributes."
    e2 = add_said_again(e, third, "2026-03-05")
    assert main_text(e2.text) == old
    part = said_again_part(e2.text)
    assert part.index("2026-03-04") < part.index("2026-03-05")
    # a phrasing already kept (case and white space aside) is not quoted twice
    assert add_said_again(e2, "  " + new.upper() + "\n", "2026-04-01") is e2
    assert add_said_again(e2, old, "2026-04-01") is e2
    # the main text still decides: the quotes add nothing to it
    assert folds(new, e2.text) and not folds("Something else entirely.", e2.text)
    assert content_words(main_text(e2.text)) == content_words(old)


def test_quoting_neutralises_structure() -> None:
    nasty = "## looks like a heading\n```\nan unclosed fence\n" + MARKER + "\n"
    e = add_said_again(entry("Body.\r\nSecond line\r\n"), nasty, "2026-01-01")
    assert main_text(e.text) == "Body.\r\nSecond line\r\n"
    assert "> 2026-01-01: ## looks like a heading\r\n> ```\r\n> an unclosed" in e.text
    back = fmt.parse("# P\n\n" + fmt.render_entry(e), "quirks").entries
    assert len(back) == 1 and back[0].text == e.text


@settings(max_examples=300)
@given(body=st.text(min_size=1), phrasing=st.text(min_size=1),
       date=st.sampled_from(["2026-01-01", ""]))
def test_main_text_gives_back_the_body(body: str, phrasing: str, date: str) -> None:
    if MARKER in body:
        return  # a body that quotes the marker itself is the one documented exception
    e = add_said_again(entry(body), phrasing, date)
    assert main_text(e.text) == body
    assert main_text(body) == body
    twice = add_said_again(e, phrasing + " and more", date)
    assert main_text(twice.text) == body


# -- through the store ------------------------------------------------------------------------


def test_put_near_duplicate_records_said_again(mem: Memory) -> None:
    old = "Run the test suite with `pytest -x -q` before pushing, because CI is slow."
    new = "Run the test suites with pytest -x -q before pushing: because CI's slow!"
    first = mem.put_entry("conventions", old, date="2026-01-01")
    again = mem.put_entry("conventions", new, date="2026-02-01")
    assert again.id == first.id
    (stored,) = mem.entries("conventions")
    assert main_text(stored.text) == old
    assert "> 2026-02-01: Run the test suites" in stored.text
    assert stored.get("said_again") == "1" and stored.get("last_said") == "2026-02-01"
    # said once more, exactly as the first time: counted, not quoted
    mem.put_entry("conventions", "  " + old.upper() + "\n", date="2026-03-01")
    (stored,) = mem.entries("conventions")
    assert stored.get("said_again") == "2" and stored.text.count("> 20") == 1


def test_put_where_merging_stops_adds_an_entry(mem: Memory) -> None:
    old, new = CONTRADICTIONS[0]
    a = mem.put_entry("quirks", old, date="2026-01-01")
    b = mem.put_entry("quirks", new, date="2026-01-02")
    assert a.id != b.id and len(mem.entries("quirks")) == 2


def test_put_new_forces_a_separate_entry(mem: Memory) -> None:
    old, new = WINDOWS
    a = mem.put_entry("quirks", old, date="2026-01-01")
    b = mem.put_entry("quirks", new, date="2026-01-02", new=True)
    assert a.id != b.id and len(mem.entries("quirks")) == 2


def test_search_ignores_the_said_again_part(tmp_path: Path, mem: Memory) -> None:
    old, new = WINDOWS
    mem.put_entry("quirks", old, date="2026-01-01")
    mem.put_entry("quirks", new, date="2026-01-02")
    hits = mem.search("Windows runner CRLF", k=3)
    assert len(hits) == 1
    assert "Said again" not in mem.get_memory(query="Windows runner CRLF")

"""Generate the labelled promote set: coding-agent sessions of asks, deterministically.

Every phrasing below was written by hand. Each preference intent has TRAIN phrasings (the
matcher was tuned on sessions built from them) and TEST phrasings (held out: never looked at
while tuning); a few intents exist only in the test split, with words the train split never
uses. Both splits mix in one-off tasks, tasks asked again and again (never a rule), rule-like
asks said in only one or two sessions, and near misses that share words with a preference
but mean something else ("use uv" / "uninstall uv").

    python bench/promote/gen.py          # writes data/train.jsonl, data/test.jsonl, labels.json
    python bench/promote/gen.py --check  # exit 1 if the committed files differ from a fresh run
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 23
SESSIONS = 240  # per split
PROJECTS = ("webshop", "cli-tool", "data-pipeline", "infra")

# -- preferences: (id, train phrasings, test phrasings) -----------------------------------------
PREFS: list[tuple[str, list[str], list[str]]] = [
    ("uv-not-pip", [
        "use uv not pip",
        "please install with uv instead of pip",
        "remember, uv for installs",
        "never use pip here, always uv",
        "I prefer uv over pip for dependencies",
    ], [
        "don't reach for pip, we install everything with uv",
        "uv, not pip, for adding packages please",
        "again: uv rather than pip when you install stuff",
    ]),
    ("pnpm-not-npm", [
        "use pnpm not npm",
        "please install node packages with pnpm instead of npm",
        "remember we use pnpm, never npm",
        "always pnpm for the frontend deps",
        "pnpm over npm, always",
    ], [
        "no npm in this repo please, pnpm only",
        "stick with pnpm rather than npm for installs",
        "don't forget: pnpm, not npm",
    ]),
    ("pytest-not-unittest", [
        "always write tests with pytest, not unittest",
        "please use pytest instead of unittest for new tests",
        "never use unittest.TestCase, we prefer plain pytest functions",
        "remember: pytest style tests",
        "write pytest tests rather than unittest classes",
    ], [
        "no unittest classes please, pytest functions only",
        "keep in mind we write tests in pytest, not unittest",
        "from now on pytest for every new test, not unittest",
    ]),
    ("tests-before-commit", [
        "always run the tests before you commit",
        "remember to run the test suite before committing",
        "never commit without running the tests first",
        "run the tests before every commit, always",
        "from now on, run the tests before each commit",
    ], [
        "don't forget to run the tests before committing anything",
        "make sure you always run the tests prior to a commit",
        "always test before you commit please",
    ]),
    ("ruff-before-commit", [
        "always run ruff before committing",
        "remember to run ruff check before each commit",
        "never commit before ruff passes",
        "run ruff before every commit please, always",
        "from now on ruff check before you commit",
    ], [
        "don't forget ruff before committing",
        "make sure ruff is clean before any commit, always",
        "always lint with ruff prior to committing",
    ]),
    ("never-push-main", [
        "never push to main directly",
        "don't push to main, open a PR instead",
        "remember, no direct pushes to main",
        "always go through a pull request, never push straight to main",
        "please never push to the main branch",
    ], [
        "do not push directly to main ever",
        "no pushing to main, PRs only",
        "keep in mind: main is protected, never push to it directly",
    ]),
    ("no-force-push", [
        "never force push",
        "don't force push, ever",
        "remember: no force pushes",
        "please never use git push --force",
        "avoid force pushing to shared branches, always",
    ], [
        "do not force-push anything please",
        "no force pushes, we rebase locally only",
        "from now on never force push",
    ]),
    ("type-hints", [
        "always add type hints",
        "please always annotate functions with type hints",
        "remember to add type hints to every new function",
        "never leave a function without type hints",
        "type hints on everything, always",
    ], [
        "don't forget type hints on new code",
        "from now on annotate every function with type hints",
        "make sure every function you write always has type hints",
    ]),
    ("british-english", [
        "always answer in British English",
        "please use British spelling, not American",
        "remember, British English in docs and comments",
        "write British English, never American English",
        "I prefer British English spelling everywhere",
    ], [
        "don't use American spelling, British English please",
        "British English only in the docs",
        "keep in mind I want British spelling, colour not color",
    ]),
    ("logging-not-print", [
        "use logging, not print",
        "never use print for debugging output, use the logger",
        "please log with the logging module instead of print",
        "remember: no print statements, logging only",
        "always use logger calls rather than print",
    ], [
        "don't leave print calls in, use logging",
        "from now on logging instead of print everywhere",
        "print is not allowed, we log through logging",
    ]),
    ("pathlib", [
        "use pathlib not os.path",
        "please prefer pathlib over os.path",
        "remember, pathlib instead of os.path for file paths",
        "never use os.path, always pathlib",
        "always pathlib for paths",
    ], [
        "don't use os.path in new code, pathlib please",
        "stick to pathlib rather than os.path",
        "from now on pathlib for every path, not os.path",
    ]),
    ("no-mock-db", [
        "don't mock the database in tests",
        "never mock the database, use the test container",
        "remember, no database mocks in the test suite",
        "please avoid mocking the database in tests",
        "always hit a real database in tests, never a mock",
    ], [
        "do not mock the db in integration tests",
        "no mocked database in tests please, we use a real postgres",
        "keep in mind we never mock the database",
    ]),
    ("no-new-deps", [
        "don't add new dependencies without asking me",
        "never add a dependency without asking first",
        "remember: ask before adding any new dependency",
        "please always ask me before you add dependencies",
        "no new dependencies unless I say so",
    ], [
        "do not pull in new dependencies without my ok",
        "check with me before adding a dependency, always",
        "from now on, no new dependencies without asking",
    ]),
    ("conventional-commits", [
        "always use conventional commits",
        "please write commit messages in conventional commit format",
        "remember, conventional commits for every message",
        "use conventional commit messages, feat: and fix: prefixes",
        "commit messages must follow conventional commits, always",
    ], [
        "don't forget the conventional commits format in messages",
        "from now on conventional commits only",
        "stick to conventional commit messages please",
    ]),
    ("no-emoji-commits", [
        "no emojis in commit messages",
        "never put emojis in commit messages",
        "please don't use emoji in commits",
        "remember, commit messages without emojis",
        "avoid emojis in commit messages, always",
    ], [
        "do not add emoji to commit messages",
        "keep emojis out of commit messages please, never add them",
        "from now on no emoji in any commit message",
    ]),
    ("fstrings", [
        "use f-strings not format()",
        "please prefer f-strings over str.format",
        "remember, f-strings instead of percent formatting",
        "always f-strings for string formatting",
        "never use .format(), use f-strings",
    ], [
        "don't use % formatting, f-strings please",
        "from now on f-strings for every formatted string",
        "stick with f-strings rather than format()",
    ]),
    ("httpx", [
        "use httpx not requests",
        "please use httpx instead of requests for HTTP calls",
        "remember, we use httpx, never requests",
        "always httpx for HTTP clients",
        "I prefer httpx over requests",
    ], [
        "don't add requests, httpx please",
        "httpx only for http, not requests",
        "keep in mind we switched to httpx, so no requests",
    ]),
    ("short-answers", [
        "keep your answers short, always",
        "please always give short answers, no essays",
        "remember, brief answers please",
        "always be concise in your replies",
        "I prefer short answers over long explanations",
    ], [
        "don't write long answers, keep it brief",
        "from now on keep replies concise",
        "short replies only please, never walls of text",
    ]),
    ("podman", [
        "use podman not docker",
        "please run containers with podman instead of docker",
        "remember, podman for containers",
        "never use docker here, always podman",
        "I prefer podman over docker",
    ], [
        "don't call docker, podman please",
        "containers go through podman rather than docker",
        "from now on podman, not docker",
    ]),
    ("ask-before-delete", [
        "always ask before deleting files",
        "never delete a file without asking me first",
        "please check with me before you delete any files",
        "remember: ask first before removing files",
        "don't delete files unless I confirm",
    ], [
        "do not delete anything without my confirmation",
        "from now on ask me before deleting any file",
        "keep in mind you must ask before deleting files",
    ]),
    ("migrations-untouched", [
        "never touch the migrations folder",
        "don't edit files under migrations",
        "remember, the migrations directory is off limits, never edit it",
        "please never modify existing migrations",
        "always leave the migrations folder alone",
    ], [
        "do not change anything in migrations",
        "from now on, hands off the migrations folder",
        "keep in mind migrations must never be edited",
    ]),
    ("small-prs", [
        "always keep pull requests small",
        "please keep each PR small and focused, always",
        "remember, small pull requests",
        "never open huge PRs, split them",
        "I prefer small PRs over big ones",
    ], [
        "don't make giant pull requests, keep them small",
        "from now on small focused PRs only",
        "keep in mind I want small PRs",
    ]),
]

# Intents that exist only in the test split: words the train split never uses.
TEST_ONLY: list[tuple[str, list[str]]] = [
    ("polars-not-pandas", [
        "use polars not pandas",
        "please do dataframes with polars instead of pandas",
        "remember, polars for dataframes",
        "never import pandas, always polars",
        "I prefer polars over pandas",
        "don't reach for pandas, polars please",
    ]),
    ("tabs-in-go", [
        "always gofmt go files before committing",
        "remember to gofmt every go file",
        "never commit go code that is not gofmt'd",
        "please always run gofmt on go files",
        "from now on gofmt go code before each commit",
        "don't forget gofmt on the go files",
    ]),
    ("utc-times", [
        "always store timestamps in UTC",
        "never store local time, UTC only",
        "remember, timestamps in UTC",
        "please keep all datetimes in UTC",
        "from now on UTC for every stored timestamp",
        "don't save naive local times, always UTC",
    ]),
    ("no-sudo", [
        "never use sudo",
        "don't run anything with sudo",
        "remember: no sudo commands",
        "please avoid sudo, always",
        "from now on never sudo",
        "do not prefix commands with sudo",
    ]),
]

# Rule-like asks said once or twice: never a proposal.
ONCE: list[str] = [
    "always use tabs in the Makefile",
    "never use global variables in the parser module",
    "remember the API base url is staging for now",
    "prefer composition over inheritance in the new service",
    "don't touch the vendored libxml code",
    "use snake_case for the new JSON fields",
    "always return early in the validators",
    "never log the request body",
    "remember, the demo is on Friday",
    "use black not autopep8 in the legacy folder",
    "don't use async in the CLI entry point",
    "prefer dataclasses over namedtuples in models.py",
    "always pin the base image digest",
    "never shell out to curl, use the client",
    "remember to bump the version in pyproject",
    "use rg instead of grep when you search",
    "don't rename public functions",
    "keep the README in sync with the flags, always",
    "no TODO comments in the release branch",
    "always sort imports",
    "use yaml safe_load, never load",
    "never catch bare exceptions",
    "prefer early returns over nested ifs",
    "always set a timeout on HTTP calls",
    "don't reformat files you did not change",
    "use Decimal not float for money",
    "remember, the staging db is read only",
    "never use eval",
    "always quote shell variables",
    "prefer enum over string constants",
]

# Near misses: share words with a preference, mean something else; one or two sessions each.
NEAR: list[tuple[str, str]] = [
    ("uv-not-pip", "uninstall uv, it is broken on this box"),
    ("uv-not-pip", "use pip for this one, uv cannot build that wheel"),
    ("uv-not-pip", "never use uv in the docker image, pip is already there"),
    ("pnpm-not-npm", "use npm for the legacy widget, pnpm breaks it"),
    ("pnpm-not-npm", "remove pnpm from the CI image"),
    ("pytest-not-unittest", "keep the old unittest tests as they are, don't port them to pytest"),
    ("tests-before-commit", "don't run the tests, they take forever"),
    ("tests-before-commit", "don't run the tests yet, I am still editing"),
    ("tests-before-commit", "commit now without running the tests, I'll run them in CI"),
    ("ruff-before-commit", "don't run ruff on the generated files"),
    ("never-push-main", "push to main directly for this hotfix"),
    ("never-push-main", "always push to main after I approve the PR"),
    ("no-force-push", "force push the rebased branch, it's only mine"),
    ("type-hints", "remove the type hints from generated.py"),
    ("type-hints", "no need for type hints in the migration scripts"),
    ("british-english", "reply in American English for the marketing copy"),
    ("logging-not-print", "use print here, it is a throwaway script"),
    ("logging-not-print", "remove the logging calls from the hot loop"),
    ("pathlib", "keep os.path in the py2 compat module, don't use pathlib there"),
    ("no-mock-db", "mock the clock in this test"),
    ("no-mock-db", "always mock the payment API in tests"),
    ("no-new-deps", "add the new dependency, I approve it"),
    ("conventional-commits", "don't use conventional commits in the docs repo"),
    ("no-emoji-commits", "add an emoji to the release notes"),
    ("fstrings", "use .format() here, the template comes from config"),
    ("httpx", "use requests in the legacy script, httpx is not installed there"),
    ("short-answers", "give me a long detailed answer this time"),
    ("podman", "use docker for the CI job, podman is not on the runner"),
    ("ask-before-delete", "delete the tmp files without asking"),
    ("migrations-untouched", "edit the latest migration to add the index"),
    ("small-prs", "one big PR is fine for this refactor"),
]

# Tasks that come back again and again: not rules.
REPEATED = [
    "run the tests", "continue", "commit this", "push it", "run the tests again please",
    "update the changelog", "go on", "looks good, commit and push", "why is CI red?",
    "run the linter", "fix the failing test", "ok, next step", "try again",
    "pip install -e . fails, can you check?", "run ruff", "rebase on main",
    "open a PR for this", "the tests don't pass", "it doesn't work", "thanks!",
    "uninstall uv and reinstall it", "install the dev dependencies",
]

FILES = ["src/cache.py", "app/models/user.py", "lib/parser.ts", "cmd/server/main.go",
         "tests/test_api.py", "src/billing/invoice.py", "web/src/App.tsx", "etl/load.py",
         "infra/main.tf", "src/cli.py", "pkg/auth/token.go", "scripts/release.sh"]
FUNCS = ["parse_config", "load_users", "render_invoice", "retry_fetch", "handleLogin",
         "build_index", "sync_orders", "validate_email", "flush_cache", "compute_tax"]
ERRORS = ["KeyError: 'id'", "TypeError: NoneType is not iterable", "ECONNREFUSED",
          "a segfault in the C extension", "exit code 137", "a timeout after 30s",
          "ModuleNotFoundError: No module named 'yaml'", "a 502 from the gateway"]
PKGS = ["django", "react", "sqlalchemy", "fastapi", "terraform", "numpy", "vite"]
ONE_OFF = [
    "add a --json flag to the status command",
    "why does {func} return None when the list is empty?",
    "refactor {func} in {file}, it is too long",
    "the CI fails on windows with {err}, can you look?",
    "write a docstring for {func}",
    "rename {func} to {func2} everywhere",
    "add logging to {func}",
    "bump {pkg} to the latest minor version",
    "explain what {file} does",
    "{func} is slow on big inputs, profile it",
    "add a test for {func} with an empty input",
    "make {func} async",
    "the build broke after the {pkg} upgrade: {err}",
    "fix the failing test in {file}",
    "add pagination to the orders endpoint",
    "migrate {file} to the new config loader",
    "delete the dead code in {file}",
    "why is {func} called twice on startup?",
    "split {file} into two modules",
    "add retries with backoff to {func}",
    "there is {err} in production logs, find the cause",
    "review my changes in {file}",
    "add a dark mode toggle to the settings page",
    "write a migration that adds an index on orders.created_at",
    "set up a GitHub Action that runs on pull requests",
    "pip install fails with an SSL error on the build box, any idea?",
    "remove the unused imports in {file}",
    "port {func} from {file} to the new API",
]


def _fill(rng: random.Random, template: str) -> str:
    f1, f2 = rng.sample(FUNCS, 2)
    return template.format(func=f1, func2=f2, file=rng.choice(FILES), err=rng.choice(ERRORS),
                           pkg=rng.choice(PKGS))


def _say(rng: random.Random, rule: str, task: str) -> str:
    """A rule said alone, or in passing around a task, as people do."""
    style = rng.random()
    if style < 0.4:
        return rule
    if style < 0.7:
        return f"{task[:1].upper()}{task[1:]}. {rule[:1].upper()}{rule[1:]}."
    if style < 0.85:
        return f"{rule[:1].upper()}{rule[1:]}. Now, {task}"
    return f"{task}, and {rule}"


def generate(split: str) -> tuple[list[dict[str, str]], dict[str, dict[str, object]]]:
    rng = random.Random(f"{SEED}-{split}")
    sessions: list[list[tuple[str, str]]] = [[] for _ in range(SESSIONS)]  # (text, label)
    labels: dict[str, dict[str, object]] = {}

    def place(label: str, kind: str, phrasings: list[str], n_sessions: int) -> None:
        chosen = rng.sample(range(SESSIONS), n_sessions)
        for s in chosen:
            task = _fill(rng, rng.choice(ONE_OFF))
            sessions[s].append((_say(rng, rng.choice(phrasings), task), label))
        labels[label] = {"kind": kind, "sessions": len(chosen)}

    for pid, train, test in PREFS:
        phrasings = train if split == "train" else test
        n = rng.choice([1, 2, 3, 3, 4, 4, 5, 6, 8])  # some prefs never reach three sessions
        place(f"pref:{pid}", "pref", phrasings, n)
    if split == "test":
        for pid, phrasings in TEST_ONLY:
            place(f"pref:{pid}", "pref", phrasings, rng.choice([2, 3, 4, 5, 6]))
    once = ONCE[0::2] if split == "train" else ONCE[1::2]
    for i, text in enumerate(once):
        place(f"once:{split}{i}", "once", [text], rng.choice([1, 1, 2]))
    for i, (pid, text) in enumerate(NEAR):
        if (i % 2 == 0) == (split == "train"):
            place(f"near:{pid}:{i}", "near", [text], rng.choice([1, 2]))
    for i, text in enumerate(REPEATED):
        chosen = rng.sample(range(SESSIONS), rng.randint(8, 60))
        for s in chosen:
            sessions[s].append((text, f"task:{i}"))
        labels[f"task:{i}"] = {"kind": "task", "sessions": len(chosen)}
    for s in range(SESSIONS):
        for _ in range(rng.randint(2, 8)):
            sessions[s].append((_fill(rng, rng.choice(ONE_OFF)), "oneoff"))

    rows = []
    start = datetime(2026, 9, 1, 8, 0, 0)
    for s, asks in enumerate(sessions):
        rng.shuffle(asks)
        at = start + timedelta(hours=7 * s + rng.randint(0, 5))
        sid = f"{split}-{s:03d}"
        project = rng.choice(PROJECTS)
        for text, label in asks:
            at += timedelta(minutes=rng.randint(1, 25), seconds=rng.randint(0, 59))
            rows.append({"session": sid, "at": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "project": project, "text": text, "label": label})
    return rows, dict(sorted(labels.items()))


def _files() -> dict[Path, str]:
    out: dict[Path, str] = {}
    all_labels = {}
    for split in ("train", "test"):
        rows, labels = generate(split)
        out[HERE / "data" / f"{split}.jsonl"] = "".join(
            json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
        all_labels[split] = labels
    out[HERE / "labels.json"] = json.dumps(all_labels, indent=1, sort_keys=True) + "\n"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files")
    args = ap.parse_args()
    files = _files()
    if args.check:
        stale = [p for p, text in files.items()
                 if not p.exists() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"{p.relative_to(HERE)}: differs from a fresh run", file=sys.stderr)
        return 1 if stale else 0
    for p, text in files.items():
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

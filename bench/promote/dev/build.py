# ruff: noqa: E501  (hand-written phrasings, one list a line)
"""The promote matcher's development set: hand-written asks placed into sessions (seeded).

Written by the matcher's author (issue 34) *before* any score on the held-out sets was
looked at, and the only labelled data besides ``bench/promote/data/train.jsonl`` that the
matcher was tuned on. Same line and label format as ``bench/promote/heldout``::

    python bench/promote/dev/build.py           # rewrite dev.jsonl and labels.json
    python bench/promote/dev/build.py --check   # exit 1 if they are stale

Kinds: ``pref`` (a standing rule, a different phrasing each session), ``rare`` (rule-like,
1-2 sessions), ``task`` (asked again and again), ``control`` (steering the conversation),
``fact`` (a statement, often with always/never), ``oneoff`` (filler tasks).
"""

from __future__ import annotations

import json
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from asks5 import (  # noqa: E402
    CONTROL5,
    CONTROL6,
    FACTS5,
    FACTS6,
    ONEOFF5,
    ONEOFF6,
    PREFS5,
    PREFS6,
    PROJECTS5,
    PROJECTS6,
    RARE6,
    TASKS5,
    TASKS6,
)

PROJECTS = ["billing", "webapp", "etl", "mobile", "ops", "docs-site", "cli"]

PROJECTS3 = ["ingest", "gateway", "tilecache", "infra", "dashboard", "storefront", "shop-api",
             "scripts", "handbuch"]

# label: (kind, projects or None for any, [texts], rule, opposite)
PREFS: dict[str, tuple[list[str] | None, list[str], str, str]] = {
    "pref:uv": (["billing", "etl", "cli"], [
        "use uv for installing packages, not pip",
        "Install deps with uv please, pip is too slow for us.",
        "we manage python packages with uv — no pip install, ok?",
        "add requests to the project. And remember: uv add, never pip install",
        "Packages go through uv, right?",
    ], "Use uv, not pip, to install packages.", ""),
    "pref:squash": (None, [
        "Squash commits before merging",
        "please squash your commits before you merge a branch",
        "When merging, squash the commits into one, yeah?",
        "I want branches squashed before they're merged.",
    ], "Squash commits before merging.", "pref:no-squash"),
    "pref:no-squash": (None, [
        "don't squash commits when merging, keep the history",
        "Never squash on merge. We want every commit kept.",
        "no squashing before merges please",
    ], "Don't squash commits when merging.", "pref:squash"),
    "pref:bullets": (None, [
        "answer in short bullet points",
        "Please keep your answers short, bullet-points are fine.",
        "short bullet point answers, not walls of text",
        "Reply with brief bullets, ok?",
        "Can you answer in bullet-point form from now on",
    ], "Answer in short bullet points.", ""),
    "pref:tabs": (["webapp", "docs-site"], [
        "always indent with tabs",
        "Tabs for indentation, not spaces.",
        "we indent using tabs here, right?",
    ], "Always indent with tabs.", "pref:no-tabs"),
    "pref:no-tabs": (["etl", "cli", "billing"], [
        "never use tabs, spaces only",
        "No tabs for indentation please, four spaces.",
        "Indent with spaces instead of tabs.",
        "tabs are banned in this codebase, indent with spaces",
    ], "Never indent with tabs; use spaces.", "pref:tabs"),
    "pref:lodash-no": (["webapp"], [
        "we removed lodash, never bring it back",
        "Don't add lodash again, we got rid of it on purpose.",
        "no lodash please, plain JS helpers instead",
    ], "Never bring lodash back.", "pref:lodash-yes"),
    "pref:lodash-yes": (["mobile"], [
        "use lodash for this kind of thing",
        "Prefer lodash helpers over hand-rolled loops.",
        "lodash is fine, go ahead and use it for collection stuff",
    ], "Use lodash for collection helpers.", "pref:lodash-no"),
    "pref:pnpm": (["webapp", "mobile", "docs-site"], [
        "pnpm over npm, always",
        "Please use pnpm instead of npm.",
        "we're a pnpm shop, don't run npm install",
        "use pnpm, not npm, ok?",
    ], "Use pnpm, not npm.", ""),
    "pref:type-hints": (["billing", "etl", "cli"], [
        "add type hints to every new function",
        "All new functions need type annotations please.",
        "Type-hint everything you add, ok?",
        "remember to type hint new code",
    ], "Add type hints to new functions.", ""),
    "pref:no-push-main": (None, [
        "never push directly to main",
        "Don't push to main, open a PR.",
        "pushing straight to main is not ok, use a branch",
        "main is protected: no direct pushes",
    ], "Never push directly to main.", ""),
    "pref:conventional": (None, [
        "use conventional commit messages",
        "Commit messages in conventional-commits style please (feat:, fix:)",
        "write conventional commits, right?",
    ], "Write conventional commit messages.", ""),
    "pref:utc": (["billing", "etl", "ops"], [
        "store timestamps in UTC",
        "All timestamps should be UTC, never local time.",
        "Keep times in UTC in the database please.",
        "utc timestamps only",
    ], "Store timestamps in UTC.", ""),
    "pref:tests-before-commit": (None, [
        "run the tests before committing",
        "Always run the test suite before you commit.",
        "please make sure tests pass before every commit",
        "don't commit without running the tests",
    ], "Run the tests before committing.", ""),
    "pref:no-emoji": (None, [
        "no emojis in commit messages",
        "Please don't put emoji in commit messages.",
        "commit messages without emojis, ok?",
    ], "No emojis in commit messages.", ""),
    "pref:english-docs": (["docs-site", "webapp"], [
        "write the docs in English",
        "Dokumentation bitte immer auf Englisch.",
        "la documentation, toujours en anglais",
        "docs are English-only, even if I ask in German",
    ], "Write the docs in English.", ""),
    "pref:ruff": (["billing", "cli", "etl"], [
        "Bitte ruff zum Formatieren, nicht black.",
        "format with ruff, not black",
        "Use ruff format instead of black please.",
    ], "Format with ruff, not black.", ""),
    "pref:no-mocks-db": (["billing", "etl"], [
        "don't mock the database in tests",
        "Tests should hit a real database, no mocks.",
        "Never mock the DB in integration tests, use the test container.",
    ], "Don't mock the database in tests.", ""),
    "pref:f-strings": (["billing", "cli"], [
        "f-strings over .format()",
        "Use f strings instead of str.format please",
        "prefer f-strings for string formatting",
    ], "Use f-strings over str.format.", ""),
    "pref:ask-before-delete": (None, [
        "ask me before deleting any files",
        "Check with me before you delete files, please.",
        "never delete files without asking first",
    ], "Ask before deleting files.", ""),
    "pref:kotlin-coroutines": (["mobile"], [
        "coroutines for async code please, not RxJava",
        "Nutze Coroutines statt RxJava.",
        "pas de RxJava, on utilise les coroutines",
    ], "Use coroutines, not RxJava, for async code.", ""),
}

# A second batch, written later (after the first round of tuning on the batch above) to check
# that what was tuned carries over: `dev2`, never tuned on before its first score was read.
PREFS2: dict[str, tuple[list[str] | None, list[str], str, str]] = {
    "pref:black-line": (["billing", "cli"], [
        "line length 100 for black",
        "Set black's line-length to 100, we don't do 88 here.",
        "fix the import error in cli.py. btw black line length is 100 for us",
        "max line length: 100 chars, ok?",
    ], "Black line length is 100.", ""),
    "pref:german-commits": (["docs-site"], [
        "Commit-Nachrichten bitte auf Deutsch.",
        "write commit messages in German",
        "commit messages auf Deutsch, ja?",
    ], "Commit messages in German.", ""),
    "pref:no-force-push": (None, [
        "never force-push",
        "Don't force push to shared branches, ever.",
        "rebase the branch. and no force pushing please",
        "force-pushing is not allowed here",
    ], "Never force-push.", ""),
    "pref:explain-first": (None, [
        "explain your plan before changing code",
        "Before you change anything, tell me the plan first.",
        "I want a short plan before any edit, please",
        "always explain what you'll do before editing files",
    ], "Explain the plan before changing code.", ""),
    "pref:yarn-no": (["webapp"], [
        "we dropped yarn, don't use it",
        "no yarn. never.",
        "Stop suggesting yarn commands, we left yarn last year.",
    ], "Don't use yarn.", ""),
    "pref:sql-upper": (["etl", "billing"], [
        "SQL keywords in uppercase",
        "Please write SQL keywords upper-case (SELECT, FROM...)",
        "uppercase sql keywords, always",
        "keep the SQL keywords capitalised",
    ], "SQL keywords in uppercase.", ""),
    "pref:small-commits": (None, [
        "make small commits, one change per commit",
        "Keep commits small and focused please.",
        "one logical change per commit, right?",
    ], "Small commits, one change each.", "pref:one-commit"),
    "pref:one-commit": (["ops"], [
        "put everything in one commit",
        "I prefer a single commit for the whole change",
        "one commit per PR, don't split it up",
    ], "One commit for the whole change.", "pref:small-commits"),
    "pref:dataclasses": (["billing", "cli", "etl"], [
        "use dataclasses instead of dicts for records",
        "Prefer dataclasses over plain dicts.",
        "records should be dataclasses, not dicts",
        "add the new endpoint. Oh and dataclasses, not dicts, for the payloads",
    ], "Use dataclasses, not dicts, for records.", ""),
    "pref:no-comments": (None, [
        "don't add comments that repeat the code",
        "No obvious comments please, the code says it.",
        "Stop adding comments that just restate the code!",
    ], "No comments that repeat the code.", ""),
    "pref:french-ui": (["mobile"], [
        "les textes de l'interface toujours en francais",
        "UI strings in French please",
        "keep the UI text in French, ok?",
    ], "UI text in French.", ""),
    "pref:pin-versions": (["ops", "etl"], [
        "pin exact versions in requirements",
        "Always pin dependency versions exactly (==).",
        "Pinned versions only, no ranges.",
    ], "Pin exact dependency versions.", ""),
}

TASKS2: dict[str, list[str]] = {
    "task:format": ["format the code", "format the code", "run the formatter on it"],
    "task:tests-de2": ["lass die Tests laufen", "mach die Tests nochmal", "lass die Tests laufen"],
    "task:deploy-fr": ["lance le déploiement sur staging", "relance le déploiement",
                       "lance le déploiement sur staging"],
    "task:migrate-de": ["Migrationen ausführen bitte", "Migrationen ausführen",
                        "bitte die Migrationen ausführen"],
    "task:review-fr": ["regarde la PR de Paul", "tu peux regarder la PR ?",
                       "regarde la PR de Paul stp"],
    "task:explain": ["explain this function", "explain this", "explain what this does"],
    "task:rebase": ["rebase on main", "rebase on main", "rebase onto main please"],
}

CONTROL2: dict[str, list[str]] = {
    "control:undo": ["undo that", "undo the last change", "revert it"],
    "control:hold": ["wait, hold on", "hold on", "wait"],
    "control:laisse": ["laisse tomber", "laisse tomber, c'est bon", "egal, lass es"],
    "control:warte": ["warte mal", "Moment, warte", "warte, nicht so"],
    "control:pas-ca": ["non, c'est pas ça", "pas comme ça", "c'est pas ça, recommence"],
    "control:spaeter": ["später", "das machen wir später", "plus tard"],
}

FACTS2: dict[str, list[str]] = {
    "fact:ci-de": ["der CI-Build ist immer rot", "die Pipeline schlägt immer fehl",
                   "das schlägt auf CI immer fehl"],
    "fact:crash-fr": ["ça plante toujours au démarrage", "l'app plante toujours au démarrage",
                      "le build échoue toujours sur arm"],
    "fact:deploy": ["the deploy always takes 20 minutes", "deploys take ages",
                    "the deploy never finishes before lunch"],
    "fact:windows": ["it never builds on windows", "the windows build always breaks",
                     "windows builds keep failing"],
}

# A third batch in the shape bench/promote/heldout/README.md describes (its texts unread):
# every session a new phrasing, terse / polite / annoyed / in passing inside a task, tag
# questions, hyphens and inflections, tasks that share a rule's words. First scored after
# the second round of tuning.
PREFS3: dict[str, tuple[list[str] | None, list[str], str, str]] = {
    "pref:go-errors": (["ingest", "gateway"], [
        "wrap errors with %w, don't just return them",
        "Fix the retry loop. Also: always wrap returned errors with fmt.Errorf and %w",
        "errors get wrapped (%w) before they're returned, ok?",
        "Please wrap errors with context when returning them.",
        "for the love of god wrap the errors, stop returning bare err",
    ], "Wrap returned errors with %w.", ""),
    "pref:table-tests": (["ingest", "gateway"], [
        "use table-driven tests in Go",
        "Write the new tests table driven, like the rest of the package.",
        "table driven tests please",
        "Add a test for ParseHeader. Table-driven, as always.",
    ], "Use table-driven tests in Go.", ""),
    "pref:clippy": (["tilecache"], [
        "run clippy before you commit",
        "cargo clippy has to pass before every commit",
        "Make sure clippy is clean before committing, right?",
        "commit only after clippy passes",
    ], "Run clippy before committing.", ""),
    "pref:no-unwrap": (["tilecache"], [
        "no unwrap() in library code",
        "Please don't use unwrap in the lib, return a Result instead.",
        "stop putting unwrap everywhere!! propagate the error",
        "avoid unwrap outside of tests, yeah?",
    ], "No unwrap() in library code.", ""),
    "pref:tf-plan": (["infra"], [
        "always show me the terraform plan before applying",
        "Never terraform apply without showing the plan first.",
        "plan first, apply after I've seen it",
        "Bump the instance size. And please show the plan before you apply anything",
    ], "Show the terraform plan before applying.", ""),
    "pref:short-prs": (None, [
        "keep PRs under 400 lines",
        "Please keep pull requests small, 400 lines max.",
        "PRs should stay below 400 changed lines, ok?",
    ], "Keep PRs under 400 lines.", ""),
    "pref:logging-struct": (["gateway", "shop-api"], [
        "use structured logging, not print statements",
        "Log with the structured logger instead of print(), please.",
        "no print() for logging, use the logger",
        "structured logs only",
    ], "Use structured logging, not print.", ""),
    "pref:spaces-2": (["dashboard", "storefront"], [
        "indent with 2 spaces",
        "Two-space indentation please.",
        "2 spaces for indenting, right?",
        "indentation: two spaces, always",
    ], "Indent with 2 spaces.", "pref:spaces-4"),
    "pref:spaces-4": (["shop-api", "scripts"], [
        "indent with 4 spaces",
        "Four-space indentation, like PEP 8.",
        "4 spaces for indenting please",
    ], "Indent with 4 spaces.", "pref:spaces-2"),
    "pref:rebase-merge": (["dashboard", "ingest"], [
        "rebase instead of merge commits",
        "Please rebase onto main, no merge commits.",
        "we rebase, we don't merge main into branches",
    ], "Rebase, no merge commits.", "pref:merge-commits"),
    "pref:merge-commits": (["infra", "scripts"], [
        "use merge commits, don't rebase shared branches",
        "Never rebase, merge main in instead.",
        "merge commits are fine, rebasing is not",
    ], "Merge, don't rebase.", "pref:rebase-merge"),
    "pref:de-answers": (["handbuch"], [
        "Antworte bitte immer auf Deutsch.",
        "answer in German please",
        "Antworten auf Deutsch, ok?",
    ], "Answer in German.", ""),
    "pref:no-ai-commit": (None, [
        "don't mention AI in commit messages",
        "Commit messages must not say they were AI-generated.",
        "no 'generated by AI' lines in commits!",
    ], "Don't mention AI in commit messages.", ""),
    "pref:explicit-types-ts": (["dashboard", "storefront"], [
        "no any in TypeScript",
        "Please avoid the any type, use unknown instead.",
        "never type things as any",
        "Fix the build. and no `any` types please",
    ], "No any in TypeScript.", ""),
}

# A fourth batch, phrased as loosely as people do (few shared words between sessions).
PREFS4: dict[str, tuple[list[str] | None, list[str], str, str]] = {
    "pref:squash-merge": (None, [
        "squash before merge",
        "When a PR lands, it should be one commit. Squash it.",
        "Add the CSV export. Also please squash-merge PRs, I want a linear history",
        "squash merging only, no merge commits on main",
    ], "Squash-merge pull requests.", ""),
    "pref:terse": (None, [
        "be terse",
        "Shorter answers please, I don't need the essay.",
        "keep replies brief, ok?",
        "too long!! answer in two or three sentences max",
    ], "Keep answers short.", ""),
    "pref:django-orm": (["shop-api"], [
        "no raw SQL, use the ORM",
        "Please stick to the Django ORM instead of raw queries.",
        "raw SQL is not allowed in views, go through the ORM",
    ], "Use the ORM, no raw SQL.", ""),
    "pref:k8s-limits": (["cluster", "infra"], [
        "every deployment needs resource limits",
        "Always set CPU and memory limits on containers.",
        "don't ship a pod spec without resource limits, right?",
        "resource limits on all workloads please",
    ], "Set resource limits on every deployment.", ""),
    "pref:dbt-tests": (["pipeline"], [
        "every dbt model gets a test",
        "Add tests for each new dbt model please.",
        "no model without at least a not_null test",
    ], "Every dbt model gets a test.", ""),
    "pref:changelog": (None, [
        "update the changelog with every user-facing change",
        "User facing changes need a CHANGELOG entry, always.",
        "don't forget the changelog entry when behaviour changes",
        "Fix the date parsing. and remember the changelog line",
    ], "Add a changelog entry for user-facing changes.", ""),
    "pref:no-sudo": (["infra", "scripts"], [
        "never run things with sudo",
        "Don't use sudo in the scripts.",
        "no sudo, ever, fix the permissions instead",
    ], "Never use sudo.", ""),
    "pref:ask-scope": (None, [
        "ask before touching anything outside the task",
        "Don't change unrelated code without asking.",
        "stay in scope: no drive-by refactors unless I say so",
        "only change what the task needs, check with me for the rest",
    ], "Ask before changing code outside the task.", ""),
}

TASKS4: dict[str, list[str]] = {
    "task:squash4": ["squash these two commits", "squash it into one commit", "squash these"],
    "task:changelog4": ["update the changelog", "add a changelog entry for 2.4",
                        "update the changelog"],
    "task:limits4": ["bump the memory limit of the api pod to 512Mi",
                     "raise the cpu limit on the worker", "bump the memory limit again"],
}

TASKS3: dict[str, list[str]] = {
    "task:clippy": ["run clippy", "run clippy", "run cargo clippy and fix the warnings"],
    "task:plan": ["show me the terraform plan", "terraform plan please", "show me the plan"],
    "task:rebase3": ["rebase this branch onto main", "rebase onto main", "rebase it"],
    "task:wrap": ["wrap this error", "wrap the error in handler.go", "wrap that error"],
    "task:logs": ["check the logs", "look at the logs", "check the logs again"],
    "task:go": ["go ahead", "go on", "go ahead"],
}

CONTROL3: dict[str, list[str]] = {
    "control:wrongfile": ["wrong file", "no, the other file", "wrong file, the other one"],
    "control:revert3": ["revert that", "revert that change", "undo"],
    "control:notlikethat": ["not like that", "no, not like that", "that's not it"],
    "control:skip-ci": ["don't wait for CI this time", "skip CI for now", "ignore CI for now"],
}

FACTS3: dict[str, list[str]] = {
    "fact:tf": ["terraform always wants to recreate the bucket", "terraform keeps recreating it",
                "the plan always shows a diff on the bucket"],
    "fact:flake": ["the e2e tests never pass on the first try", "e2e is always flaky",
                   "the e2e suite always flakes"],
}

RARE: dict[str, list[str]] = {
    "rare:no-semicolons": ["never use semicolons in JS"],
    "rare:black": ["always run black after editing"],
    "rare:pydantic": ["prefer pydantic models over dicts", "use pydantic instead of plain dicts"],
    "rare:no-print": ["don't use print for logging"],
    "rare:dark-theme": ["keep the dark theme as default"],
}

TASKS: dict[str, list[str]] = {
    "task:continue": ["continue", "continue", "go on", "continue please", "keep going"],
    "task:run-tests": ["run the tests", "run the tests", "can you run the tests", "run the tests again"],
    "task:fix-cache": ["fix the failing test in cache.py", "fix the failing test in cache.py",
                       "the test in cache.py is failing again, fix it"],
    "task:squash-last": ["squash the last 3 commits", "squash the last 3 commits",
                         "squash the last two commits into one"],
    "task:lock": ["regenerate uv.lock", "regenerate uv.lock", "regenerate the uv.lock file"],
    "task:pr": ["open a PR for this", "open a PR for this", "open a pull request for this"],
    "task:commit": ["commit this", "commit", "commit these changes"],
    "task:push": ["push it", "push to the feature branch", "push it"],
    "task:lint": ["run the linter", "run the linter and fix what it finds", "run the linter"],
    "task:tests-de": ["führ die Tests aus", "Tests laufen lassen bitte", "führ bitte die Tests nochmal aus"],
}

CONTROL: dict[str, list[str]] = {
    "control:never-mind": ["Never mind, revert that.", "never mind", "nevermind, undo that"],
    "control:wrong": ["no, that's wrong, try again", "No, that's wrong.", "that's wrong, try again"],
    "control:stop": ["stop, that's not what I meant.", "stop", "Stop. That's not what I asked for."],
    "control:docs-later": ["Don't worry about the docs for now.", "don't worry about the docs for now",
                           "forget about the docs for now"],
    "control:not-now": ["not now", "not now, later", "not right now"],
    "control:dont-commit-yet": ["don't commit yet", "Don't commit yet.", "don't commit this yet"],
    "control:no-tests-this-time": ["don't run the tests this time, they take forever",
                                   "skip the tests this time", "no need to run the tests this time"],
    "control:nein": ["nein, das ist falsch, nochmal", "nein, nochmal", "non, c'est faux, recommence"],
}

FACTS: dict[str, list[str]] = {
    "fact:ci": ["it always fails on CI, take a look", "It always fails on CI.",
                "this always fails on CI for some reason"],
    "fact:arm": ["the arm64 build never worked", "the arm64 build never works",
                 "arm64 builds never work for us"],
    "fact:flaky": ["test_sync is always flaky", "test_sync is flaky again", "that test is always flaky"],
    "fact:slow": ["the tests always take forever", "the test suite is always slow",
                  "tests take forever"],
}

ONEOFF = [
    "add a retry to the http client", "why is the dashboard slow?", "rename parse_row to parse_record",
    "explain what etl/load.py does", "write a migration for the invoices table",
    "add pagination to the /users endpoint", "bump the android sdk to 34",
    "the login page shows a blank screen, can you look", "add a CHANGELOG entry for 2.3",
    "refactor the settings screen into smaller components", "what does this regex do?",
    "add a healthcheck to the docker compose file", "delete the old feature flags",
    "remove the unused imports in api/views.py", "update the README install section",
    "write a unit test for parse_amount", "make the sidebar collapsible",
    "TypeError: cannot read properties of undefined (reading 'map') — fix please",
    "convert the config loader to toml", "add caching to get_user",
    "why does terraform want to recreate the bucket?", "split the big module into two",
    "translate the error messages to French", "add a --dry-run flag to the cli",
    "set up a cron job for the nightly export", "move the helpers into utils/",
    "ajoute un bouton pour exporter en CSV", "kannst du den Bug im Login fixen?",
    "profile the import step", "add an index on orders.created_at",
    "document the deploy steps", "check why the websocket reconnects",
    "write a script to clean old logs", "upgrade react to 19",
    "add logging to the payment webhook", "the build is red, see the log",
    "use a dataclass for the Config here", "make the table sortable",
    "add a test for the empty cart case", "fix the typo in the header",
]


def build(prefs: dict[str, tuple[list[str] | None, list[str], str, str]],
          tables: tuple[tuple[str, dict[str, list[str]]], ...], oneoff: list[str],
          seed: int, prefix: str, start: datetime, projects_: list[str] = PROJECTS
          ) -> tuple[list[dict[str, str]], dict[str, dict[str, object]]]:
    rng = random.Random(seed)
    sessions = [f"{prefix}-{i:03d}" for i in range(60)]
    project_of = {s: projects_[rng.randrange(len(projects_))] for s in sessions}
    placed: dict[str, list[tuple[str, str]]] = {s: [] for s in sessions}
    labels: dict[str, dict[str, object]] = {}

    def place(label: str, texts: list[str], projects: list[str] | None,
              avoid: set[str]) -> None:
        pool = [s for s in sessions if (projects is None or project_of[s] in projects)
                and s not in avoid and all(lb != label for lb, _ in placed[s])]
        rng.shuffle(pool)
        for s, text in zip(pool, texts, strict=False):
            placed[s].append((label, text))

    for label, (projects, texts, rule, opposite) in prefs.items():
        avoid = {s for s in sessions if any(lb == opposite for lb, _ in placed[s])}
        place(label, texts, projects, avoid)
        labels[label] = {"kind": "pref", "rule": rule, "opposite": opposite}
    for kind, table in tables:
        for label, texts in table.items():
            place(label, texts, None, set())
            labels[label] = {"kind": kind}
    for text in oneoff:
        s = sessions[rng.randrange(len(sessions))]
        placed[s].append(("oneoff", text))
    rows = []
    for n, s in enumerate(sessions):
        items = placed[s]
        rng.shuffle(items)
        at = start + timedelta(hours=5 * n)
        for label, text in items:
            at += timedelta(minutes=rng.randrange(2, 12))
            rows.append({"at": at.strftime("%Y-%m-%dT%H:%M:%SZ"), "label": label,
                         "project": project_of[s], "session": s, "text": text})
    for label, info in labels.items():
        got = [r for r in rows if r["label"] == label]
        info["sessions"] = len({r["session"] for r in got})
        info["projects"] = sorted({r["project"] for r in got})
    return rows, labels


def files() -> dict[Path, str]:
    """Each committed file of the dev sets and the text a fresh build gives it."""
    rows, labels = build(PREFS, (("rare", RARE), ("task", TASKS), ("control", CONTROL),
                                 ("fact", FACTS)), ONEOFF, 34, "dev", datetime(2026, 11, 2, 8))
    rows2, labels2 = build(PREFS2, (("task", TASKS2), ("control", CONTROL2),
                                    ("fact", FACTS2)), ONEOFF, 35, "dev2",
                           datetime(2026, 11, 20, 8))
    out = {HERE / "labels.json": json.dumps({"dev": labels, "dev2": labels2}, indent=1,
                                              sort_keys=True, ensure_ascii=False) + "\n"}
    rows3, labels3 = build(PREFS3, (("task", TASKS3), ("control", CONTROL3),
                                    ("fact", FACTS3)), ONEOFF, 36, "dev3",
                           datetime(2026, 12, 5, 8), PROJECTS3)
    rows4, labels4 = build(PREFS4, (("task", TASKS4),), ONEOFF, 37, "dev4",
                           datetime(2026, 12, 20, 8),
                           [*PROJECTS3, "cluster", "pipeline"])
    rows5, labels5 = build(PREFS5, (("task", TASKS5), ("control", CONTROL5),
                                    ("fact", FACTS5)), ONEOFF5, 38, "dev5",
                           datetime(2027, 1, 4, 8), PROJECTS5)
    rows6, labels6 = build(PREFS6, (("rare", RARE6), ("task", TASKS6), ("control", CONTROL6),
                                    ("fact", FACTS6)), ONEOFF6, 39, "dev6",
                           datetime(2027, 1, 20, 8), PROJECTS6)
    out[HERE / "labels.json"] = json.dumps(
        {"dev": labels, "dev2": labels2, "dev3": labels3, "dev4": labels4, "dev5": labels5,
         "dev6": labels6}, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    for name, got in (("dev", rows), ("dev2", rows2), ("dev3", rows3), ("dev4", rows4),
                      ("dev5", rows5), ("dev6", rows6)):
        out[HERE / f"{name}.jsonl"] = "".join(
            json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in got)
    return out


def main() -> int:
    files_ = files()
    if "--check" in sys.argv:
        stale = [p.name for p, text in files_.items()
                 if not p.exists() or p.read_text(encoding="utf-8") != text]
        return 1 if stale else 0
    for path, text in files_.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

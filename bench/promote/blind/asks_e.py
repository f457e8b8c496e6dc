# ruff: noqa: E501
"""Blind held-out set E: hand-written asks, one text = one session.

Each table maps a slug to (rule, scope, texts): `rule` is the one-line rule a person would
approve (pref/rare only, else ""), `scope` the projects the texts may be placed in (None =
any project), `texts` one paraphrase per session. `build.py` places them; nothing here is
generated. Written without reading the matcher, its tests or any other set's texts.
"""

from __future__ import annotations

START = "2026-11-09"

# project -> number of sessions (60 in all)
PROJECTS = {
    "tinyc-ml": 10,  # OCaml compiler for a toy language (dune, menhir, ppx_expect)
    "wp-bookings": 9,  # WordPress booking plugin (PHP), team in Brazil
    "sensor-fw": 9,  # embedded Rust firmware (no_std, embassy, STM32)
    "ledger-api": 9,  # .NET 8 web API (C#, EF Core, PostgreSQL)
    "tidy": 8,  # Python CLI without any framework (stdlib only)
    "lanterns": 8,  # Godot 4 game (GDScript)
    "thesis": 7,  # LaTeX PhD thesis, Dutch author
}

CODE = ("tinyc-ml", "wp-bookings", "sensor-fw", "ledger-api", "tidy", "lanterns")

PREF: dict[str, tuple[str, tuple[str, ...] | None, list[str]]] = {
    # ---- git ----
    "conventional-commits": (
        "Write commit messages as Conventional Commits (feat:, fix:, chore: ...).",
        ("tinyc-ml", "wp-bookings", "sensor-fw", "ledger-api", "tidy"),
        [
            "commit msgs: conventional commits pls",
            "Could you start every commit message with feat:, fix:, chore: and so on? That's how our release tool figures out the version bump.",
            "Again with the 'Update stuff' commit message. Type prefix. feat/fix/refactor. Every time.",
            "Add a retry to the flaky network call, and when you commit use the conventional format, e.g. fix(net): ...",
            "can we always write commits in the Conventional Commits style from now on?",
            "Zoals ik al eerder zei: commitberichten volgens conventional commits, dus feat: of fix: ervoor.",
        ],
    ),
    "rebase-linear": (
        "Keep history linear: rebase feature branches onto main, never merge main into them.",
        ("sensor-fw", "tinyc-ml", "tidy"),
        [
            "rebase on main, no merge commits",
            "When your branch falls behind, could you rebase it onto main instead of merging main in? I like the history linear.",
            "There's a 'Merge branch main into feature' commit in the log again. Rebase. Linear history.",
            "Update the feature branch with the latest main — by rebasing, as always — and rerun the build.",
            "Zoals gezegd: altijd rebasen op main, nooit main erin mergen.",
        ],
    ),
    "merge-not-rebase": (
        "Never rebase shared branches; bring main in with a regular merge commit.",
        ("ledger-api", "wp-bookings"),
        [
            "don't rebase shared branches, merge instead",
            "Please don't rewrite history on branches other people pushed to — bring main in with a regular merge commit.",
            "Who rebased release/2.3?! Never rebase anything shared. Merge.",
            "Nunca faz rebase em branch compartilhada, usa merge normal.",
        ],
    ),
    "gitmoji": (
        "Start every commit message with a gitmoji.",
        ("lanterns",),
        [
            "For this repo could you start commit messages with a gitmoji, like ✨ for features and 🐛 for fixes? The jam team likes it.",
            "Your commit is missing the emoji again. Every commit gets a gitmoji.",
            "Commit the new tileset with the usual emoji prefix, 🍱 for assets.",
        ],
    ),
    "no-emoji": (
        "No emoji in commit messages, docs or comments.",
        ("ledger-api", "tidy"),
        [
            "no emoji in commits or docs",
            "Please keep emoji out of commit messages, READMEs and code comments, it looks unprofessional in the client's repo.",
            "🚀 in the commit subject. No. Plain text.",
            "can we always keep commit messages free of emoji?",
        ],
    ),
    # ---- code style ----
    "tabs": (
        "Indent with tabs, not spaces.",
        ("wp-bookings", "lanterns"),
        [
            "tabs for indentation, not spaces",
            "Heads up: we indent with real tabs in this project, your editor config keeps producing 4 spaces.",
            "Recuo com tab, não espaço. Quantas vezes...",
            "Add the cooldown check to the dash — and indent with tabs like the rest of the file.",
        ],
    ),
    "spaces": (
        "Indent with spaces, never tabs.",
        ("tidy", "ledger-api"),
        [
            "indent with 4 spaces, never tabs",
            "Could you make sure everything is indented with spaces? There's a tab-indented block in the last file you touched and the diff looks awful.",
            "Tabs again. Spaces. Only spaces.",
            "can we always use spaces for indentation here?",
        ],
    ),
    "comments-english": (
        "Write code comments in English.",
        ("sensor-fw", "ledger-api", "tidy", "tinyc-ml"),
        [
            "code comments in English",
            "Could you write all comments in English? Half the contributors don't read Dutch.",
            "Why are there Dutch comments in this file? English only in the code.",
            "Schrijf commentaar in de code altijd in het Engels, ook als ik in het Nederlands vraag.",
        ],
    ),
    "comments-portuguese": (
        "Write code comments in Portuguese.",
        ("wp-bookings",),
        [
            "comentários no código em português",
            "Could you write the code comments in Portuguese? The whole team maintaining this plugin is in Recife.",
            "De novo comentário em inglês... aqui os comentários são em português, combinado?",
            "Add the cancellation-fee hook, comments in Portuguese like the rest of the file.",
        ],
    ),
    "no-unwrap": (
        "No unwrap() or expect() in firmware code; propagate or handle errors.",
        ("sensor-fw",),
        [
            "no unwrap() in firmware code",
            "In the driver code could you please avoid .unwrap() and .expect() entirely? A panic on the device means a bricked sensor in a field somewhere; bubble the error up instead.",
            'I just found three more expect("...") calls in the I2C module. We don\'t panic on the board, handle the Result.',
            "Port the BME280 reading to the new HAL; handle every Result properly, unwrap is banned here.",
            "Como já falei: nada de unwrap nem expect no firmware, trata o erro.",
        ],
    ),
    "defmt-logging": (
        "Log on the device with defmt, not the log crate or core::fmt printing.",
        ("sensor-fw",),
        [
            "For logs on the device, use the defmt macros (defmt::info! etc.) — the log crate pulls in formatting code we don't have flash for.",
            "Why is there a core::fmt Debug print in the hot loop? defmt only, I've said it.",
            "can all new log lines go through defmt from now on?",
        ],
    ),
    "ocamlformat": (
        "Run dune fmt (ocamlformat) before every commit.",
        ("tinyc-ml",),
        [
            "run dune fmt before you commit",
            "Whenever you've touched .ml files, please run `dune build @fmt --auto-promote` so ocamlformat gets a pass before anything lands.",
            "CI's red because of formatting. AGAIN. ocamlformat before every commit, it's not optional.",
            "Add the `let*` syntax to the typechecker monad and format with ocamlformat before committing, as always.",
        ],
    ),
    "wp-escape": (
        "Escape every output in templates (esc_html, esc_attr, esc_url, wp_kses).",
        ("wp-bookings",),
        [
            "escape all output: esc_html, esc_attr, esc_url.",
            "Sempre escapa a saída no template, esc_html e companhia, por favor.",
            "Found an unescaped echo $booking->name in the admin table. Everything that's printed goes through an esc_* function, no exceptions.",
            "Build the settings page for the email templates; escape every echoed value like the rest of the plugin.",
            "podemos sempre usar wp_kses_post ou esc_html em tudo que vai pra tela?",
        ],
    ),
    "nullable-strict": (
        "Keep nullable reference types on and don't use the null-forgiving operator (!).",
        ("ledger-api",),
        [
            "keep <Nullable>enable</Nullable>, no `!` operator",
            "Please don't silence nullable warnings with the null-forgiving operator; if something can be null, model it as Type? and check it.",
            "There are 14 `!`s in the PR. Stop suppressing NRT warnings, fix them.",
            "Refactor AccountQuery to records — and as I said, nullable reference types stay on and no damn-it operator.",
        ],
    ),
    "stdlib-only": (
        "tidy uses only the Python standard library: no third-party dependencies.",
        ("tidy",),
        [
            "no new third-party deps in tidy. stdlib only.",
            "I know rich would make the table output prettier, but I'd really rather keep tidy on the standard library alone — it has to run on locked-down boxes where pip install isn't allowed.",
            "You added PyYAML to pyproject. Again. Take it out, we don't take dependencies.",
            "Add a --json flag to the report command; and keep it pure standard library, the json module is fine.",
            "can we keep tidy dependency-free going forward? only what ships with Python.",
        ],
    ),
    "signals-in-code": (
        "Connect Godot signals in code (_ready), not in the editor.",
        ("lanterns",),
        [
            "connect signals in code, not in the editor",
            "Could you wire up signals with .connect() in _ready() rather than through the Node tab? Editor connections keep getting lost when we rename scenes.",
            "The door signal was connected in the inspector again and broke on rename. In code, please, always.",
            "can we always do signal connections from script?",
        ],
    ),
    # ---- testing ----
    "postgres-tests": (
        "Integration tests run against a real PostgreSQL (Testcontainers), never the EF in-memory provider or SQLite.",
        ("ledger-api",),
        [
            "integration tests hit real Postgres, not the EF in-memory provider",
            "Hey, small thing for the test setup — I'd really like all the integration tests to run against an actual pg instance (the docker one) rather than InMemoryDatabase, it hides too many bugs.",
            "Why is there UseSqlite in the test fixture again?? Tests go against the database we ship on, which is PostgreSQL.",
            "Write tests for the TransferService overdraft path; they should spin up the Testcontainers postgres like the others, no in-memory db.",
            "As I said before, no fake DbContext for integration tests — Postgres or nothing.",
        ],
    ),
    "test-first": (
        "For a bug fix, write a failing test that reproduces it before changing the code.",
        ("tinyc-ml", "tidy", "ledger-api", "sensor-fw"),
        [
            "bugfix = failing test first, then the fix",
            "For bugs, could you first write a test that reproduces it and show me it failing, before touching the code?",
            "You fixed the crash without a regression test. Test first, then code. Every bug.",
            "The off-by-one in the range check: reproduce it in a test before you fix it, as usual.",
            "can we make it a habit: red test before any bug fix?",
        ],
    ),
    "expect-tests": (
        "Test compiler output with ppx_expect expect tests.",
        ("tinyc-ml",),
        [
            "use expect tests for compiler output",
            "For new codegen cases, could you write ppx_expect tests that print the IR, instead of hand-written assert equals?",
            "Stop writing OUnit asserts for pretty-printer output — that's what [%expect] is for.",
            "Add a test for the closure-conversion pass; the usual let%expect_test with the printed output, please.",
        ],
    ),
    "no-snapshots": (
        "No snapshot tests; assert explicit values.",
        ("ledger-api", "wp-bookings"),
        [
            "no snapshot tests; assert the actual values",
            "Could you avoid snapshot files in the tests? I want explicit asserts on the fields that matter, reviewers never read the approved files.",
            "Another 300-line approved snapshot. We don't do snapshot testing here — assert specific values.",
            "Nada de snapshot nos testes, por favor, asserts explícitos.",
        ],
    ),
    # ---- docs ----
    "changelog": (
        "Every user-facing change gets a CHANGELOG entry in the same commit.",
        ("tinyc-ml", "wp-bookings", "tidy", "ledger-api"),
        [
            "user-facing change => CHANGELOG.md entry",
            "When a change affects people using the tool, could you add a line under Unreleased in the CHANGELOG in the same commit?",
            "You shipped the new flag without touching the changelog. Every user-visible change gets an entry, please.",
            "Nos commits que mudam algo pro usuário, sempre atualiza o CHANGELOG.md também.",
        ],
    ),
    "doc-comments": (
        "Every public function or item gets a doc comment.",
        ("tinyc-ml", "sensor-fw", "ledger-api", "tidy"),
        [
            "every public function gets a doc comment",
            "Please add a doc comment to anything public you add — (** *) in the .mli, /// in Rust, XML docs in C#, docstrings in Python.",
            "Half the public API has no docs at all. Every exported item needs a doc comment, stop skipping it.",
            "Add the merge helper for spans and document it, like every public function should be.",
        ],
    ),
    "one-sentence-per-line": (
        "In the .tex files, one sentence per line.",
        ("thesis",),
        [
            "one sentence per line in the .tex files",
            "Could you keep each sentence on its own line in the chapters? It makes the git diffs with my supervisor's edits so much easier to read.",
            "You reflowed the whole paragraph into 80-column lines again. One sentence, one line.",
            "Graag één zin per regel in de LaTeX-bestanden, altijd.",
        ],
    ),
    "cleveref": (
        "Use cleveref's \\cref for cross-references, not \\ref.",
        ("thesis",),
        [
            "\\cref, not \\ref",
            "For cross-references please use cleveref's \\cref{} so the 'Figure'/'Section' word comes out automatically.",
            "Why 'Figure~\\ref{fig:ablation}' again... we have cleveref loaded for a reason.",
            "Rewrite the results intro for chapter 4, and reference the tables with \\Cref like everywhere else.",
        ],
    ),
    # ---- reviews ----
    "review-blockers-first": (
        "In reviews, list blocking issues first and nits separately after.",
        None,
        [
            "in reviews: blockers first, nits after, clearly separated",
            "When you review something for me, could you sort it — what must change before merge at the top, the style nitpicks in a separate list below?",
            "Your review was a wall of 20 points and I couldn't tell which ones matter. Must-fix first, nice-to-have last, always.",
            "Have a look at the branch Joana pushed; structure the feedback as blocking vs non-blocking like usual.",
            "Bij reviews graag eerst wat echt moet, en pas daarna de kleine opmerkingen.",
        ],
    ),
    # ---- answer style ----
    "answer-short": (
        "Keep answers short: a few lines and the code, no background.",
        ("tinyc-ml", "sensor-fw", "ledger-api", "tidy", "wp-bookings"),
        [
            "short answers pls",
            "Could you keep your replies brief? A couple of lines and the code is plenty, I can ask if I need more.",
            "Too much prose. I don't need an essay for every change, keep it to the point.",
            "Find why the release build got 30% bigger — and keep the answer tight, bullet points at most.",
            "can we always have the short version of the answer? skip the background.",
        ],
    ),
    "answer-explain": (
        "Explain the reasoning step by step, not just the code.",
        ("thesis", "lanterns"),
        [
            "explain your reasoning step by step",
            "I'm still learning this stuff, so when you change something could you walk me through why, not just hand me the code?",
            "You just dumped code again without saying why. I need to understand it, explain every step.",
            "Leg het graag stap voor stap uit, ik wil snappen waarom het zo moet.",
        ],
    ),
    "no-apology": (
        "Don't apologize in answers; just state the problem and the fix.",
        None,
        [
            "skip the apologies, just give me the fix",
            "You don't need to say sorry every time something doesn't work — just tell me what was wrong and what you changed.",
            "Stop with 'I apologize for the confusion'. Fix it.",
            "Fix the broken build from this morning. Oh, and no 'sorry' paragraphs, as I mentioned before.",
        ],
    ),
    "diff-only": (
        "Show only the changed hunks (a diff), not the whole file.",
        None,
        [
            "only show the diff, not the full file",
            "When you change something, just paste the changed hunks — I don't need the whole 600-line file reprinted each time.",
            "I asked for a two-line fix and got the entire file back. Diffs only.",
            "daqui pra frente, mostra só o diff, tá?",
        ],
    ),
}

OPPOSITES = [
    ("rebase-linear", "merge-not-rebase"),
    ("gitmoji", "no-emoji"),
    ("tabs", "spaces"),
    ("comments-english", "comments-portuguese"),
    ("expect-tests", "no-snapshots"),
    ("answer-short", "answer-explain"),
]

RARE: dict[str, tuple[str, tuple[str, ...] | None, list[str]]] = {
    "pathlib": (
        "Use pathlib, not os.path.",
        ("tidy",),
        ["use pathlib instead of os.path", "os.path.join? we're on pathlib in this codebase."],
    ),
    "wp-prefix": (
        "Prefix every function and hook with wpb_.",
        ("wp-bookings",),
        [
            "prefix every function and hook with wpb_",
            "prefixa tudo com wpb_, senão conflita com outros plugins",
        ],
    ),
    "no-force-push": (
        "Never force-push to main.",
        None,
        ["never force-push to main, whatever happens"],
    ),
    "menhir": (
        "Use menhir for the parser, not ocamlyacc.",
        ("tinyc-ml",),
        ["use menhir for the parser, not ocamlyacc"],
    ),
    "british-spelling": (
        "Use British spelling in the thesis.",
        ("thesis",),
        [
            "British spelling throughout: modelling, behaviour, optimise.",
            "it's 'colour' in this thesis, not 'color' — UK spelling please",
        ],
    ),
    "minimal-api": (
        "New endpoints as minimal APIs, no more controllers.",
        ("ledger-api",),
        ["new endpoints as minimal APIs from now on, no more controllers"],
    ),
    "heapless": (
        "No allocator in the firmware: use heapless collections.",
        ("sensor-fw",),
        [
            "use heapless collections, we don't have alloc",
            "no Vec here — there's no allocator on this chip, heapless::Vec",
        ],
    ),
    "no-autoload": (
        "Don't add autoload singletons; pass references instead.",
        ("lanterns",),
        ["please don't add more autoload singletons, pass references down instead"],
    ),
    "line-length": ("Keep lines under 90 columns.", ("tinyc-ml",), ["keep lines under 90 columns"]),
    "no-todo": (
        "Don't leave TODO comments; open an issue instead.",
        None,
        [
            "don't leave TODO comments in the code, open an issue instead",
            "no TODOs in committed code please, file a ticket",
        ],
    ),
    "pin-actions": (
        "Pin GitHub Actions to a commit SHA, not a tag.",
        CODE,
        ["pin GitHub Actions to a full commit SHA, not a version tag"],
    ),
    "answer-dutch": (
        "Answer in Dutch.",
        ("thesis",),
        ["antwoord voortaan gewoon in het Nederlands"],
    ),
    "signoff": (
        "Sign off every commit (git commit -s).",
        ("wp-bookings",),
        ["sign off every commit, git commit -s, for the DCO"],
    ),
}

TASK: dict[str, tuple[str, tuple[str, ...] | None, list[str]]] = {
    "continue": (
        "",
        None,
        [
            "continue",
            "go on",
            "keep going",
            "ok continue from where you stopped",
            "ga verder",
            "pode continuar",
        ],
    ),
    "run-tests": (
        "",
        CODE,
        [
            "run the tests",
            "run the test suite and tell me what fails",
            "can you run the tests again?",
            "roda os testes",
            "draai de tests even",
        ],
    ),
    "dune-build-errors": (
        "",
        ("tinyc-ml",),
        [
            "fix the dune build errors",
            "dune build is failing, fix it",
            "there are new build errors from dune after the rename, sort them out",
            "fix whatever dune build is complaining about now",
        ],
    ),
    "regen-parser-messages": (
        "",
        ("tinyc-ml",),
        [
            "regenerate the parser error messages (menhir --compile-errors)",
            "regenerate parser.messages after the grammar change",
            "the .messages file is stale again, regenerate it",
        ],
    ),
    "flash-board": (
        "",
        ("sensor-fw",),
        [
            "flash it to the board and watch the RTT output",
            "cargo embed it and tell me what the probe prints",
            "flash the new build onto the dev board",
            "flash again and check if it still resets",
        ],
    ),
    "clippy": (
        "",
        ("sensor-fw",),
        [
            "fix the clippy warnings",
            "clippy has new complaints, fix them",
            "make cargo clippy clean",
            "go through the clippy output and fix what's reasonable",
        ],
    ),
    "ef-migration": (
        "",
        ("ledger-api",),
        [
            "add an EF migration for this change",
            "generate the migration and apply it to the local postgres",
            "create a migration for the new Fee column",
            "add a migration and update the database on my machine",
        ],
    ),
    "release-changelog": (
        "",
        ("tinyc-ml", "wp-bookings", "tidy", "ledger-api"),
        [
            "write the changelog for the 0.9 release",
            "draft the CHANGELOG section for this release from the merged PRs",
            "update the changelog for v2.4.0",
        ],
    ),
    "phpcs": (
        "",
        ("wp-bookings",),
        [
            "run phpcs on the plugin",
            "roda o phpcs e corrige o que der",
            "phpcs is complaining, fix the sniffs",
            "run phpcbf and show me what's left",
        ],
    ),
    "squash": (
        "",
        None,
        [
            "squash these into one commit",
            "squash the last 4 commits",
            "squash my WIP commits before I push",
            "junta esses commits num só",
        ],
    ),
    "web-export": (
        "",
        ("lanterns",),
        [
            "export a web build",
            "make an HTML5 export so I can send it to the playtesters",
            "export for web again",
            "do a fresh web export and check it loads",
        ],
    ),
    "compile-thesis": (
        "",
        ("thesis",),
        [
            "compile the thesis and list the warnings",
            "run latexmk and tell me about overfull boxes",
            "build the PDF",
            "compileer de thesis opnieuw",
        ],
    ),
    "review-pr": (
        "",
        None,
        [
            "review my PR",
            "review this branch before I open the PR",
            "take a look at PR #212 and review it",
            "review the diff I just pushed",
        ],
    ),
    "commit-message": (
        "",
        None,
        [
            "write the commit message for this",
            "write a commit message for the staged changes",
            "commit this with a good message",
            "give me a commit message for what we just did",
        ],
    ),
    "fix-test-scan": (
        "",
        ("tidy",),
        [
            "fix the failing test in test_scan.py",
            "test_scan.py fails again, fix it",
            "the scan test is red again, look at test_scan.py",
        ],
    ),
}

CONTROL: dict[str, tuple[str, tuple[str, ...] | None, list[str]]] = {
    "revert-that": (
        "",
        None,
        [
            "never mind, revert that",
            "undo that last change",
            "laat maar, draai dat terug",
            "scratch that, put it back how it was",
        ],
    ),
    "dont-commit-yet": (
        "",
        None,
        [
            "don't commit yet",
            "hold off on committing, I want to look first",
            "não commita ainda",
            "don't commit that, just leave it staged",
        ],
    ),
    "skip-tests-now": (
        "",
        CODE,
        [
            "don't run the tests this time, they take forever",
            "skip the tests for now",
            "no need to run the test suite for this one",
        ],
    ),
    "stop": ("", None, ["stop, that's not what I meant", "stop stop stop", "para, não era isso"]),
    "wrong-file": (
        "",
        None,
        [
            "wrong file, I meant the other one",
            "not that file — the one in src/",
            "you edited the wrong file",
        ],
    ),
    "tldr": (
        "",
        None,
        [
            "too long, give me the tl;dr of that",
            "summarise that in one line",
            "resumindo?",
            "ok that was a lot, short version?",
        ],
    ),
    "try-again": (
        "",
        None,
        [
            "no, try again",
            "that's wrong, again",
            "nee, nog een keer",
            "doesn't work, try something else",
        ],
    ),
    "go-ahead": ("", None, ["yes, do it", "go ahead", "sounds good, go for it", "pode fazer"]),
    "wait": (
        "",
        None,
        ["wait, let me check something first", "hang on a sec", "espera, deixa eu ver uma coisa"],
    ),
    "only-this": (
        "",
        None,
        [
            "only touch that one function for now",
            "just this file, leave the rest alone for now",
            "limit it to this module for this change",
        ],
    ),
    "why-that": (
        "",
        None,
        ["why did you change that?", "why that approach?", "waarom heb je dat veranderd?"],
    ),
}

FACT: dict[str, tuple[str, tuple[str, ...] | None, list[str]]] = {
    "windows-ci": (
        "",
        ("tidy", "tinyc-ml"),
        [
            "the Windows job always fails on CI, take a look",
            "CI on windows-latest is red again, it never passes",
            "windows CI always times out in the install step",
        ],
    ),
    "cold-boot": (
        "",
        ("sensor-fw",),
        [
            "the board never boots on the first power-up, only after a reset",
            "cold boot failed again, as it always does",
            "it never comes up on first power, that's the issue I'm chasing",
        ],
    ),
    "godot-reimport": (
        "",
        ("lanterns",),
        [
            "Godot always reimports all the textures when I switch branches",
            "the editor reimports everything again on checkout, it always does",
            "opening the project always triggers a full reimport, it's slow",
        ],
    ),
    "staging-slow": (
        "",
        ("ledger-api",),
        [
            "staging is always slow before 9, the nightly backup is still running",
            "the staging database is always sluggish early in the day",
            "staging never answers fast in the morning, ignore those timeouts",
        ],
    ),
    "bib-first-run": (
        "",
        ("thesis",),
        [
            "latexmk never gets the bibliography right on the first run",
            "the first compile always has undefined references",
            "biber always needs a second pass here",
        ],
    ),
}

ONEOFF: dict[str, list[str]] = {
    "tinyc-ml": [
        "add a --dump-ast flag to the driver",
        "why does the typechecker loop forever on `let rec f x = f`?",
        "implement constant folding for integer arithmetic in the optimizer pass",
        "the error message for unbound variables should show the source span, add that",
        "port the lexer from ocamllex to sedlex so we get unicode identifiers",
        "what's the cleanest way to thread a fresh-name supply through the ANF conversion?",
        "add tuple patterns to the match compiler",
        "bump the OCaml version in the opam file to 5.2 and fix what breaks",
        "write a short README section on how to run the compiler on an example file",
        "rename `Ast.expr_desc` to `Ast.expr_kind` everywhere",
        "the register allocator spills too much on fib.tc, can you see why?",
        "add a `--target wasm` stub that just errors with 'not implemented'",
        "explain what the value restriction is doing in our inference code",
        "make the REPL print the inferred type after each expression",
        "split typecheck.ml, it's 2000 lines now",
        "add source locations to the IR so runtime errors point back to the .tc file",
        "generate a graphviz dot of the CFG behind a --dot flag",
        "is Hashtbl or Map better for the symbol table here?",
    ],
    "wp-bookings": [
        "add a shortcode [wpb_calendar] that renders the availability calendar",
        "the booking form submits twice on slow connections, prevent the double submit",
        "register a custom post type for resources (rooms, equipment)",
        "cria um endpoint REST pra listar as reservas de um dia",
        "make the confirmation email use the site's admin email as reply-to",
        "why does the plugin throw PHP 8.3 deprecation notices on activation?",
        "add a nonce check to the cancel-booking action",
        "traduz as strings novas e gera o .pot de novo",
        "add a Gutenberg block version of the calendar",
        "what's the right hook to clean up options on uninstall?",
        "show a notice in wp-admin when WooCommerce isn't active",
        "move the inline JS from the settings page into an enqueued file",
        "adiciona um filtro pra deixar mudar o preço antes de salvar a reserva",
        "write a WP-CLI command that exports bookings to CSV",
        "the timezone is wrong on bookings made after midnight, investigate",
        "bump 'Tested up to' in readme.txt to 6.7",
    ],
    "sensor-fw": [
        "add a watchdog that resets if the main loop stalls for more than 2 s",
        "why is the ADC reading drifting by ~30 counts when the radio transmits?",
        "switch the SPI driver to DMA",
        "put the MCU in STOP mode between measurements to save power",
        "add a CRC to the config struct we store in flash",
        "how much stack does the sensor task actually use? can we measure it?",
        "move the pin assignments into a single board.rs",
        "implement the LoRa uplink payload encoding (temperature, humidity, battery)",
        "bump embassy to the latest release and fix the API changes",
        "add a feature flag for the rev-B board, which has the LED on PB3",
        "write a host-side test for the payload encoder that runs with cargo test on x86",
        "the build is 3 KB over flash, what can we trim?",
        "debounce the button interrupt",
        "explain why this needs a critical section",
        "read the battery voltage through the divider on PA1 and convert it to mV",
        "add a memory.x for the STM32L072 variant",
    ],
    "ledger-api": [
        "add an endpoint GET /accounts/{id}/balance",
        "add pagination to the transactions list",
        "the JWT validation accepts expired tokens when clock skew is set, check it",
        "wire up OpenTelemetry tracing for the HTTP pipeline",
        "why is the transfer endpoint doing 40 queries? looks like N+1",
        "add rate limiting to the public endpoints",
        "make money amounts decimal(19,4) in the model",
        "add a health check that pings the database and the message broker",
        "upgrade to .NET 9 and see what breaks",
        "return problem+json for validation errors",
        "add an idempotency key header for POST /transfers",
        "explain the difference between AsNoTracking and AsNoTrackingWithIdentityResolution",
        "write the Dockerfile for the API, multi-stage",
        "rename LedgerEntry to JournalEntry, including the table",
        "log the correlation id on every request",
        "add a background job that closes the books at month end",
    ],
    "tidy": [
        "add a --dry-run flag to the clean command",
        "make tidy respect .gitignore when scanning",
        "the progress output breaks when stdout isn't a tty, fix that",
        "add a subcommand `tidy dupes` that finds duplicate files by hash",
        "why is scanning my home folder so slow? profile it",
        "support a config file at ~/.config/tidy/config.toml",
        "write the man page",
        "handle symlink loops without crashing",
        "make the exit codes consistent and document them",
        "add shell completion for bash",
        "print sizes in human units (KiB, MiB)",
        "what happens if two rules match the same file? make it deterministic",
        "add --older-than 30d",
        "the Windows path handling mangles UNC paths, look into it",
        "set up the pyproject entry point so `tidy` works after install",
    ],
    "lanterns": [
        "add a day/night cycle that tints the lighting",
        "the player clips through one-way platforms when falling fast",
        "make the lanterns flicker with a bit of noise",
        "add a pause menu with resume / settings / quit",
        "save the game state to user:// as JSON",
        "why does the particle effect stutter the first time it plays?",
        "add controller support to the menu navigation",
        "the camera jitters when following the player, smooth it out",
        "make an enemy that patrols between two markers",
        "add a volume slider bound to the Master bus",
        "how do I make a scene that other scenes can inherit from?",
        "add coyote time to the jump",
        "port the old TileMap to TileMapLayer nodes for Godot 4.3",
        "add screen shake when the player takes damage",
        "set up the input map for keyboard and gamepad",
    ],
    "thesis": [
        "fix the overfull hbox in chapter 3",
        "add a list of abbreviations",
        "make the figures in chapter 5 use the same colour palette",
        "maak een tabel van de resultaten uit results.csv",
        "the bibliography shows 'et al.' after two authors, make it three",
        "check chapter 2 for repeated words",
        "herschrijf de samenvatting, max 300 woorden",
        "add the university's title page template",
        "put the appendix after the bibliography",
        "convert the matplotlib plots to pgfplots",
        "why does hyperref draw red boxes around my TOC links? make them invisible",
        "add page numbers to the chapter-opening pages",
        "split the methods chapter into two sections: data and model",
        "controleer of alle figuren in de tekst genoemd worden",
    ],
}

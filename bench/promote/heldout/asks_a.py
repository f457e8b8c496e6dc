"""Set A: hand-written asks (mixed stacks, English). Each entry: label -> (rule, scope, texts).

Every text lands in its own session; `scope` lists the projects it may be said in (None: any).
"""

from __future__ import annotations

START = "2026-09-01"
PROJECTS = {
    "payments-api": 9,  # Python / FastAPI
    "ingest": 8,  # Go service
    "tilecache": 8,  # Rust
    "dashboard": 10,  # TypeScript / React
    "storefront": 8,  # TypeScript / Next.js (older code)
    "infra": 9,  # Terraform / AWS
    "handbook": 8,  # docs (mkdocs)
}

Entry = tuple[str, list[str] | None, list[str]]

PREF: dict[str, Entry] = {
    "uv-not-pip": (
        "Use uv, not pip, to install and manage Python packages.",
        ["payments-api", "handbook"],
        [
            "use uv not pip",
            "Add httpx to the deps. and please use uv for it, we don't use pip in this repo",
            "can you stop running pip install?? we're on uv. uv add, uv sync, that's it",
            "Reminder: package installs go through uv, never plain pip, ok?",
            "install mkdocs-material with uv rather than pip — same as always",
            "pls no pip. uv only for installing stuff",
        ],
    ),
    "never-push-main": (
        "Never push directly to main; open a pull request.",
        None,
        [
            "dont push to main directly, open a PR",
            "Fix the retry bug in the ingest worker. And remember: nothing goes straight onto main, always through a pull request.",
            "why did you push to main?! never do that. branch + PR, every time",
            "main is off-limits for direct pushes, right?",
            "Please never commit directly on the main branch; make a feature branch and a PR.",
        ],
    ),
    "short-bullets": (
        "Answer in short bullet points.",
        None,
        [
            "answer in short bullet points please",
            "keep your answers to a few bullet-points, I don't read walls of text",
            "too long. bullets, short ones. always.",
            "What changed between v1 and v2 of the tile format? short bulleted answer, as usual",
            "Could you keep replies brief and in bullet point form from now on?",
        ],
    ),
    "pytest-not-unittest": (
        "Write tests with pytest, not unittest.",
        ["payments-api"],
        [
            "write the tests with pytest, not unittest",
            "no unittest.TestCase classes please, plain pytest functions + fixtures",
            "Add tests for the refund endpoint — pytest style like the rest of the suite, never unittest.",
            "we use pytest here. dont import unittest",
        ],
    ),
    "conventional-commits": (
        "Write commit messages in Conventional Commits style (feat:, fix:, chore: ...).",
        None,
        [
            "use conventional commits for the messages (feat:, fix:, chore: ...)",
            "Commit this. message should be conventional-commit format, like `fix(ingest): ...`",
            "commit msgs: always conventional commits style, ok?",
            "please prefix every commit message with its type - feat/fix/docs/chore - the conventional commits way",
            "that commit message isn't conventional commits. always follow that format",
        ],
    ),
    "go-stdlib-http": (
        "In Go services use net/http from the standard library; no web frameworks like gin or echo.",
        ["ingest"],
        [
            "stick to net/http, no gin or echo",
            "Add a /healthz handler. Standard library only for HTTP, we don't pull in frameworks.",
            "please don't add gin. plain net/http is what we use",
            "no third-party http routers in this service, the stdlib mux is enough, right?",
        ],
    ),
    "go-table-tests": (
        "Write Go tests as table-driven tests.",
        ["ingest"],
        [
            "write table-driven tests for this",
            "Tests for parseBatch please, table driven like the others in the package",
            "can you always structure go tests as a table of cases + t.Run?",
            "ugh, not five copy-pasted test funcs again. table-driven, always",
        ],
    ),
    "clippy-before-commit": (
        "Run cargo clippy and fix its warnings before committing.",
        ["tilecache"],
        [
            "run cargo clippy before you commit",
            "Before any commit, clippy has to pass with zero warnings. please make that a habit",
            "you committed with clippy warnings again. clippy first, then commit",
            "Add the LRU eviction. and run clippy before committing, as always.",
            "always clippy-clean before a commit, yes?",
        ],
    ),
    "ts-no-any": (
        "Never use `any` in TypeScript; write real types or use unknown.",
        ["dashboard"],
        [
            "no `any` types please",
            "Type the API response properly. Don't use any, use unknown and narrow if you have to.",
            "we don't allow any in this codebase. ever.",
            "please stop sprinkling `: any` everywhere, write real types",
            "Refactor the chart props — and no any, ok?",
        ],
    ),
    "pnpm-not-npm": (
        "Use pnpm, not npm or yarn.",
        ["dashboard"],
        [
            "use pnpm, not npm",
            "install recharts, with pnpm please (we never use npm or yarn here)",
            "don't run npm install!! it creates a package-lock. pnpm only",
            "Reminder that this repo is pnpm-only.",
        ],
    ),
    "tf-plan-before-apply": (
        "Always show the terraform plan and wait for approval before applying.",
        ["infra"],
        [
            "never run terraform apply without showing me the plan first",
            "Always plan first, show me the diff, and only apply once I say yes.",
            "do NOT apply straight away. plan -> I review -> apply. every time",
            "Add the new S3 bucket for exports. show the plan before applying, as usual.",
            "terraform apply only after i've seen the plan output, ok?",
        ],
    ),
    "tf-tags": (
        "Tag every resource with owner, env and cost-center.",
        ["infra"],
        [
            "every resource needs owner, env and cost-center tags",
            "Create the SQS queue for retries; remember to tag it (owner/env/cost-center) like everything else",
            "you forgot the tags again. all resources get owner + env + cost-center. always",
            "please make sure all new AWS resources carry the standard tags: owner, env, cost-center",
        ],
    ),
    "american-spelling": (
        "Use American English spelling in the docs.",
        ["handbook"],
        [
            "use US spelling in the docs (color, organize, behavior)",
            "it's 'behavior' not 'behaviour' — we write American English in the handbook",
            "Proofread the onboarding page. American spelling throughout, as always.",
            "please stick to american english spelling in all docs pages",
        ],
    ),
    "sentence-case-headings": (
        "Use sentence case for headings in the docs.",
        ["handbook"],
        [
            "headings in sentence case please, not Title Case",
            "Write a page about the on-call rotation. Sentence-case headings, like the rest of the handbook",
            "why are the headings Title Cased again? sentence case only",
            "remember our style: headings are sentence case (only the first word capitalised)",
        ],
    ),
    "no-emojis": (
        "Don't use emojis in answers, commit messages or docs.",
        None,
        [
            "no emojis please",
            "drop the emojis. never use them in commit messages or docs or answers",
            "Can you write the release notes? And no emoji, not even the rocket.",
            "pls stop adding emojis to everything",
            "keep it emoji-free, ok?",
        ],
    ),
    "ask-before-deleting": (
        "Ask before deleting any file.",
        None,
        [
            "ask me before you delete any files",
            "Clean up the old fixtures. But check with me before removing any file.",
            "you deleted migrations/ without asking!! never delete files without my ok",
            "Always ask first before deleting stuff, right?",
        ],
    ),
    "pathlib": (
        "Use pathlib instead of os.path.",
        ["payments-api"],
        [
            "use pathlib instead of os.path",
            "Rewrite load_config so it uses pathlib.Path, we've moved away from os.path",
            "no os.path.join please, Path / 'x' is what we do",
        ],
    ),
    # opposite pairs: each side is its own rule
    "indent-tabs": (
        "Indent with tabs.",
        ["dashboard"],
        [
            "always use tabs for indentation",
            "indent with tabs, not spaces — prettier is set to useTabs",
            "Tabs. Not spaces. Please.",
            "Format the new component with tab indentation like the rest, ok?",
        ],
    ),
    "indent-no-tabs": (
        "Never indent with tabs; use spaces.",
        ["payments-api", "tilecache"],
        [
            "never use tabs, spaces only",
            "you put tabs in the yaml again. no tabs, ever, 4 spaces",
            "Convert the script to 4-space indentation; we never indent with tabs here.",
            "spaces not tabs, right?",
        ],
    ),
    "squash-commits": (
        "Squash commits before merging.",
        ["dashboard", "payments-api"],
        [
            "squash commits before merging",
            "Fix the login bug. And please, squash commits before merging",
            "squash it into one commit when you're done, like always",
            "please squash the branch down to a single commit before the PR gets merged",
        ],
    ),
    "no-squash": (
        "Don't squash; keep the full commit history.",
        ["tilecache", "ingest"],
        [
            "don't squash, keep the history",
            "please keep every commit — we never squash in this repo, the history matters",
            "no squashing! I want the individual commits preserved",
            "Merge with the full commit history, don't squash, ok?",
        ],
    ),
    "no-lodash": (
        "Never use lodash; it was removed, use native methods.",
        ["dashboard"],
        [
            "we removed lodash, never bring it back",
            "don't import lodash, write the helper or use native array methods",
            "Add debounce to the search box — without lodash, we got rid of it.",
            "lodash is banned here, ok?",
        ],
    ),
    "use-lodash": (
        "Use lodash helpers instead of hand-written utilities.",
        ["storefront"],
        [
            "use lodash for this kind of thing",
            "Just use lodash's groupBy, don't hand-roll it. We use lodash everywhere in storefront.",
            "prefer lodash helpers over custom utils please",
            "why write a deepClone? lodash has one, always reach for lodash first",
        ],
    ),
    "ts-semicolons": (
        "End TypeScript statements with semicolons.",
        ["storefront"],
        [
            "always end statements with semicolons",
            "add semicolons please, we don't rely on ASI",
            "Semicolons everywhere in TS, right?",
        ],
    ),
    "ts-no-semicolons": (
        "No semicolons at line ends in TypeScript.",
        ["dashboard"],
        [
            "no semicolons",
            "drop the semicolons, our style is semicolon-free",
            "Please never add semicolons at line ends in this repo; prettier has semi: false.",
        ],
    ),
    "comment-why": (
        "Comment non-obvious code, explaining why.",
        ["tilecache", "ingest"],
        [
            "add comments that explain why",
            "Please comment the tricky parts generously, explaining the reasoning",
            "always leave a comment on non-obvious code saying why it's done that way",
        ],
    ),
    "no-comments": (
        "Don't add comments to the code.",
        ["storefront"],
        [
            "don't add comments to the code",
            "no code comments please, the code should speak for itself",
            "Implement the cart reducer. Skip the comments — we never write inline comments here.",
        ],
    ),
    "explain-detail": (
        "Explain the reasoning in detail.",
        None,
        [
            "explain your reasoning step by step",
            "When you answer, walk me through the reasoning in detail, i want to learn this",
            "please give thorough explanations, not just code",
        ],
    ),
    "just-code": (
        "Give only the code, no explanations.",
        None,
        [
            "no explanations, just the code",
            "just give me the code. skip the explanation",
            "Code only please, I don't need the walkthrough.",
        ],
    ),
}

OPPOSITES = [
    ("indent-tabs", "indent-no-tabs"),
    ("squash-commits", "no-squash"),
    ("no-lodash", "use-lodash"),
    ("ts-semicolons", "ts-no-semicolons"),
    ("comment-why", "no-comments"),
    ("explain-detail", "just-code"),
]

RARE: dict[str, Entry] = {
    "httpx-over-requests": (
        "Prefer httpx over requests.",
        ["payments-api"],
        ["prefer httpx over requests", "use httpx, not requests, for the new client"],
    ),
    "line-length-100": ("Use a line length of 100.", None, ["set line length to 100 everywhere"]),
    "imperative-commits": (
        "Write commit messages in the imperative mood.",
        None,
        ["write commit messages in the imperative mood"],
    ),
    "zod-validation": (
        "Validate payloads with zod.",
        ["dashboard"],
        ["validate api payloads with zod", "Use zod schemas for form validation please"],
    ),
    "slog-logging": (
        "Use log/slog for logging in Go.",
        ["ingest"],
        ["use log/slog for logging, not log.Printf", "structured logs with slog pls"],
    ),
    "anyhow-binaries": (
        "Use anyhow in binaries, thiserror in libraries.",
        ["tilecache"],
        ["use anyhow in the binary crate, thiserror in the lib"],
    ),
    "no-tf-workspaces": (
        "Don't use terraform workspaces; one state per env directory.",
        ["infra"],
        ["don't use terraform workspaces, separate state per env dir"],
    ),
    "todo-ticket": (
        "TODO comments must reference a ticket.",
        None,
        ["TODOs must reference a ticket, like TODO(PAY-123)", "always put the jira ticket in TODO comments"],
    ),
    "admonitions-sparingly": (
        "Use admonitions sparingly in the docs.",
        ["handbook"],
        ["use admonitions sparingly in the docs"],
    ),
    "no-default-exports": (
        "Never use default exports.",
        ["dashboard", "storefront"],
        ["never use default exports", "named exports only pls"],
    ),
    "cite-links": (
        "Include the link when citing documentation.",
        None,
        ["when you cite docs, always include the link"],
    ),
    "no-sudo": ("Never use sudo in scripts.", None, ["never use sudo in scripts"]),
    "dark-mode-first": (
        "Design dark mode first.",
        ["dashboard", "storefront"],
        ["design everything dark-mode first"],
    ),
}

TASK: dict[str, Entry] = {
    "run-tests": (
        "",
        None,
        ["run the tests", "run tests", "can you run the test suite", "run the tests again", "rerun the tests pls", "run the tests"],
    ),
    "continue": ("", None, ["continue", "go on", "continue", "ok continue", "continue please", "continue"]),
    "fix-cache-test": (
        "",
        ["payments-api"],
        [
            "fix the failing test in cache.py",
            "test_cache is failing again, fix it",
            "fix the failing cache.py test",
            "cache.py test broke, can you fix it",
        ],
    ),
    "uv-lock": (
        "",
        ["payments-api"],
        ["run uv lock and commit the lockfile", "regenerate uv.lock", "update uv.lock pls"],
    ),
    "go-mod-tidy": ("", ["ingest"], ["run go mod tidy", "go mod tidy please", "tidy the go modules"]),
    "cargo-bench": (
        "",
        ["tilecache"],
        ["run the benchmarks", "cargo bench and show me the numbers", "run cargo bench again"],
    ),
    "tf-plan-staging": (
        "",
        ["infra"],
        ["run terraform plan for staging", "plan staging", "terraform plan on staging pls", "run the staging plan again"],
    ),
    "rebase-main": (
        "",
        None,
        ["rebase on main", "rebase this branch onto main", "rebase onto latest main and fix the conflicts", "rebase on main again"],
    ),
    "push-branch": ("", None, ["push the branch", "push it", "push my branch", "ok push the branch"]),
    "review-diff": (
        "",
        None,
        ["review my diff", "look over my changes before i commit", "review the staged changes", "can you review my diff"],
    ),
    "pnpm-build": (
        "",
        ["dashboard"],
        ["pnpm build", "run pnpm build and fix the type errors", "build the dashboard with pnpm"],
    ),
    "deploy-staging": ("", None, ["deploy to staging", "deploy this to staging pls", "ship it to staging"]),
    "mkdocs-serve": ("", ["handbook"], ["serve the docs locally", "mkdocs serve", "start the docs preview"]),
    "update-changelog": (
        "",
        None,
        ["update the changelog", "add this to CHANGELOG.md", "changelog entry for this pls", "update the changelog"],
    ),
    "summary-bullets": (
        "",
        None,
        [
            "summarize what you did in a few bullet points",
            "give me a short bullet summary of the changes",
            "short bullet-point summary of this session pls",
        ],
    ),
    "squash-last-three": (
        "",
        ["storefront", "dashboard"],
        ["squash the last 3 commits", "squash the last three commits into one", "squash my last 3 commits"],
    ),
}

CONTROL: dict[str, Entry] = {
    "never-mind-revert": ("", None, ["never mind, revert that", "nvm, revert", "never mind, undo that change", "never mind revert that"]),
    "not-what-i-meant": ("", None, ["stop, that's not what I meant", "no no, that's not what i meant", "stop. not what I asked for"]),
    "wrong-try-again": ("", None, ["no, that's wrong, try again", "wrong. try again", "that's not right, try again", "no thats wrong try again"]),
    "docs-later": ("", None, ["don't worry about the docs for now", "skip the docs for now", "forget about the docs for the moment"]),
    "dont-change-yet": (
        "",
        None,
        ["don't change anything yet, just explain", "don't touch the code yet, just tell me what's going on", "don't edit anything yet, first tell me what's wrong"],
    ),
    "go-ahead": ("", None, ["ok go ahead", "yes, do it", "looks good, go ahead", "go ahead"]),
    "wait": ("", None, ["wait", "hold on", "wait a sec, stop"]),
    "skip-for-now": ("", None, ["skip that for now", "leave that for later", "let's skip this one for now"]),
    "undo-last": ("", None, ["undo the last change", "undo that", "undo your last edit please"]),
    "dont-commit-yet": ("", None, ["don't commit yet", "don't commit that yet", "hold off on committing", "dont commit yet"]),
    "no-tests-this-time": (
        "",
        None,
        ["don't run the tests this time, they take forever", "no need to run the tests now", "don't bother running tests for this one"],
    ),
    "thanks": ("", None, ["thanks, that's all", "thx, perfect", "great, thanks", "thanks"]),
}

FACT: dict[str, Entry] = {
    "ci-always-fails": (
        "",
        None,
        ["it always fails on CI, take a look", "this always fails in CI but passes locally", "CI fails every time on this job, can you look"],
    ),
    "staging-slow": (
        "",
        None,
        ["staging is always slow in the morning", "staging is always super slow before 9am", "fyi staging is always sluggish early in the day"],
    ),
    "arm-never-built": (
        "",
        ["tilecache", "ingest"],
        ["the arm64 build never worked", "we never got the arm build working", "arm64 has never built successfully"],
    ),
    "prod-python-311": (
        "",
        ["payments-api"],
        ["prod runs python 3.11", "we're on python 3.11 in production", "production is still 3.11"],
    ),
    "upload-flaky": (
        "",
        ["payments-api", "storefront"],
        ["test_upload is always flaky", "the upload test is flaky, always has been", "test_upload flakes all the time"],
    ),
}

ONEOFF: dict[str, list[str]] = {
    "payments-api": [
        "add a /refunds/{id} GET endpoint",
        "why is the stripe webhook returning 400?",
        "rename PaymentIntent.amt to amount_cents everywhere",
        "write a migration that adds a currency column to invoices",
        "the /health endpoint takes 2s, figure out why",
        "Add retry with backoff to the ledger client",
        "what does Depends() do in fastapi exactly",
        "split services/billing.py into two modules, it's 900 lines",
        "KeyError: 'customer_id' in reconcile.py line 88 — fix",
        "add pagination to GET /invoices",
        "make the settings load from env vars with a PAYMENTS_ prefix",
        "how do I mock datetime.now in this test?",
        "add an index on payments.created_at",
        "log the request id in every error response",
        "Bump fastapi to the latest minor and see what breaks",
        "write a script to backfill the missing invoice numbers",
        "explain the difference between the two refund flows",
        "the decimal rounding in fees.py is off by a cent, look at it",
    ],
    "ingest": [
        "add a flag for the batch size",
        "why does the worker leak goroutines on shutdown?",
        "implement graceful shutdown with context cancellation",
        "parse the new CSV format from the partner feed",
        "add a prometheus counter for dropped records",
        "the kafka consumer lags by 10 minutes, investigate",
        "what's the idiomatic way to return multiple errors in go 1.22",
        "move config parsing into its own package",
        "add a dead-letter queue for records that fail validation",
        "panic: runtime error: index out of range [3] with length 3 in splitFields — fix",
        "write a benchmark for the decoder",
        "dedupe records by (source, id) within a batch",
        "explain what sync.Pool buys us in decode.go",
        "add a --dry-run mode to the cli",
        "rate limit the outbound webhook calls to 50/s",
        "replace the hand-written retry loop with something simpler",
    ],
    "tilecache": [
        "implement the Tile::from_bytes constructor",
        "why does this borrow fail? cannot borrow `self.map` as mutable more than once",
        "add a size-based eviction on top of the LRU",
        "make the cache generic over the key type",
        "expose hit/miss counters",
        "write a property test for the z/x/y encoding",
        "port the python tile math to rust",
        "is Arc<Mutex<..>> the right choice here or should I use RwLock",
        "add a feature flag for the s3 backend",
        "the cache returns stale tiles after a purge, find out why",
        "serialize the index with serde instead of the custom format",
        "what's the MSRV if we use let-else?",
        "add an async fetch path using tokio",
        "shrink the binary size, it's 40MB",
        "document the public API in lib.rs",
        "benchmark: compare ahash vs the default hasher",
    ],
    "dashboard": [
        "add a date range picker to the revenue chart",
        "the table flickers when sorting, fix",
        "make the sidebar collapsible",
        "move the api calls into react-query hooks",
        "why is useEffect firing twice?",
        "add a loading skeleton to the kpi cards",
        "Type error: Property 'total' does not exist on type 'Summary' — fix",
        "dark mode toggle doesn't persist across reloads",
        "add CSV export for the orders table",
        "write a test for the useFilters hook",
        "the bundle is 2MB, what's pulling that in",
        "extract the color palette into a theme file",
        "add keyboard navigation to the dropdown",
        "show a toast when saving fails",
        "make the chart responsive on mobile",
        "i18n: pull all strings in Settings into the locale files",
        "why does the login redirect loop on safari",
    ],
    "storefront": [
        "add a wishlist button on the product card",
        "the cart total ignores discounts, fix",
        "migrate the product page to getStaticProps",
        "images load slowly, use next/image",
        "add a size guide modal",
        "checkout breaks when the address has an apostrophe",
        "write e2e tests for the checkout flow",
        "add structured data (json-ld) to product pages",
        "how does the old promo code logic work? explain promo.ts",
        "the search results page 500s on empty query",
        "add sorting by price",
        "replace the custom carousel with something accessible",
        "reduce layout shift on the homepage",
        "add a 'recently viewed' strip",
        "what's causing the hydration mismatch warning",
    ],
    "infra": [
        "add an RDS read replica for reporting",
        "move the VPC module to the registry version",
        "why does plan want to recreate the load balancer?",
        "write an IAM policy that lets the ingest role read the exports bucket",
        "add a cloudwatch alarm on 5xx rate",
        "import the manually created route53 record into state",
        "split main.tf by service",
        "Error: Error acquiring the state lock — what do I do",
        "add lifecycle rules to expire old logs after 90 days",
        "set up a budget alert at 80%",
        "make the ECS service autoscale on cpu",
        "upgrade the aws provider to v5, what breaks?",
        "add a bastion... actually no, set up SSM session manager instead",
        "output the queue url so the app can read it",
        "explain the difference between count and for_each here",
        "create a KMS key for the exports bucket",
    ],
    "handbook": [
        "write a page on how we do code review",
        "fix the broken links on the deploy page",
        "add a glossary",
        "reorganize the nav, onboarding should be first",
        "turn the incident checklist into a numbered list",
        "add a diagram of the ingest flow (mermaid)",
        "the search plugin doesn't index the api pages, look into it",
        "summarize the postmortem from last week into a page",
        "add a page about expense policy",
        "make code blocks copyable",
        "check the handbook for outdated mentions of jenkins",
        "add a FAQ section to the onboarding page",
        "shorten the intro on the home page",
        "add an 'edit this page' link",
        "write a how-to for requesting prod access",
    ],
}

"""dev5: asks written by the matcher's second author (issue 34, item 3) before dev5's first
score was read. Domains unlike dev..dev4 (Java/Spring, Swift, .NET, Elixir, CSS, notebooks,
answer style); terse, polite and annoyed tones; tag questions; German and French phrasings;
tasks that share a rule's words; steering; facts with always/never. Tuned on after its first
score (see ADR 0043): not a held-out set."""

from __future__ import annotations

PROJECTS5 = ["orders-svc", "ios-app", "billing-net", "chat-ex", "site-css", "notebooks",
             "docs-de"]

# label: (projects or None for any, [texts, one a session], rule, opposite)
PREFS5: dict[str, tuple[list[str] | None, list[str], str, str]] = {
    "pref:constructor-injection": (["orders-svc"], [
        "constructor injection only, no @Autowired on fields",
        "Please inject dependencies through the constructor rather than field injection.",
        "Again with the field injection?! Constructor injection, always.",
        "Use constructor-injected beans, ok?",
    ], "Use constructor injection, not field injection.", ""),
    "pref:no-force-unwrap": (["ios-app"], [
        "no force unwrapping in Swift code please",
        "Avoid force-unwraps (!) — use guard let or if let.",
        "stop force unwrapping optionals, it crashes in prod",
        "Never force-unwrap an optional.",
    ], "Never force-unwrap optionals.", ""),
    "pref:async-await": (["billing-net", "orders-svc"], [
        "use async/await instead of .Result or .Wait()",
        "Prefer async await over blocking calls.",
        "don't block on tasks with .Result, await them",
    ], "Use async/await, never block on .Result.", ""),
    "pref:pattern-match": (["chat-ex"], [
        "pattern match in function heads instead of case blocks when you can",
        "I like multiple function clauses with pattern matching better than big case statements.",
        "Prefer function-head pattern matching, right?",
    ], "Prefer pattern matching in function heads over case blocks.", ""),
    "pref:rem-units": (["site-css"], [
        "use rem for font sizes, not px",
        "Font sizes in rem please.",
        "no px font sizes anymore, rem only",
        "px for fonts is banned, rem.",
    ], "Use rem, not px, for font sizes.", ""),
    "pref:css-px": (["notebooks", "docs-de"], [
        "just use px for sizes, rem is overkill here",
        "Pixel units are fine for us, don't convert them to rem.",
        "keep px everywhere, ok?",
    ], "Use px for sizes.", "pref:rem-units"),
    "pref:clear-outputs": (["notebooks"], [
        "clear notebook outputs before committing",
        "Please strip the outputs from notebooks before you commit them.",
        "notebooks go into git without outputs, yeah?",
        "Ugh, outputs in the diff again. Clear them before every commit.",
    ], "Clear notebook outputs before committing.", ""),
    "pref:seeds": (["notebooks"], [
        "always set the random seed at the top of a notebook",
        "Fix the seed (42) so runs are reproducible.",
        "set seeds everywhere please, I want reproducible results",
    ], "Set a fixed random seed.", ""),
    "pref:german-docs": (["docs-de"], [
        "Die Doku bitte immer auf Deutsch schreiben.",
        "write the docs in German, not English",
        "Dokumentation auf Deutsch, ok?",
    ], "Write the docs in German.", ""),
    "pref:du-not-sie": (["docs-de"], [
        "In der Doku duzen wir die Leser, kein Sie.",
        "address the reader with du, never Sie",
        "Bitte 'du' statt 'Sie' in allen Texten.",
    ], "Address the reader with du, not Sie.", ""),
    "pref:no-jquery": (["site-css"], [
        "no jQuery, plain DOM APIs",
        "We dropped jQuery last year, don't bring it back.",
        "pas de jQuery s'il te plaît, on fait du JS natif",
        "Don't add jquery to anything.",
    ], "Never add jQuery.", ""),
    "pref:short-answers": (None, [
        "keep your answers short",
        "Way too long. Give me the short version from now on.",
        "réponses courtes stp",
        "I prefer terse replies, skip the preamble.",
        "less text please, get to the point",
    ], "Keep answers short.", ""),
    "pref:code-first": (None, [
        "show the code first, explain after",
        "Code first, then the explanation please.",
        "lead with the code, not with the prose",
    ], "Show the code first, then explain.", ""),
    "pref:no-apologies": (None, [
        "don't apologize, just fix it",
        "Stop saying sorry all the time.",
        "no apologies in answers please, they waste my time",
    ], "Don't apologize.", ""),
    "pref:records": (["orders-svc", "billing-net"], [
        "use records for DTOs",
        "DTOs should be records, not classes with getters.",
        "Make data transfer objects records, ok?",
        "records for all DTOs please",
    ], "Use records for DTOs.", ""),
    "pref:mix-format": (["chat-ex"], [
        "run mix format before you commit",
        "Always mix format the code before committing, CI checks it.",
        "mix format first, then commit",
    ], "Run mix format before committing.", ""),
    "pref:squash-merge": (["orders-svc", "ios-app", "chat-ex"], [
        "squash merge PRs",
        "Please use squash merges for pull requests.",
        "we squash on merge here, ok?",
    ], "Squash merge pull requests.", "pref:no-squash-merge"),
    "pref:no-squash-merge": (["billing-net", "site-css"], [
        "don't squash PRs, keep the individual commits",
        "No squash merges, we want the full history.",
        "never squash when merging a PR",
    ], "Never squash merge pull requests.", "pref:squash-merge"),
}

TASKS5: dict[str, list[str]] = {
    "task:squash-last": ["squash the last two commits", "squash these commits into one",
                         "squash my last 3 commits please"],
    "task:format": ["run mix format", "mix format the project", "run mix format on lib/"],
    "task:tests": ["run the tests", "run the test suite again", "tests please"],
    "task:continue": ["continue", "go on", "keep going"],
    "task:clear-nb": ["clear the outputs of eda.ipynb", "clear outputs in this notebook",
                      "clear the notebook outputs"],
    "task:records": ["convert OrderDto to a record", "turn this class into a record",
                     "make CustomerDto a record"],
    "task:rem": ["convert the px values in header.css to rem", "change the font size to 1.2rem",
                 "use rem in this component"],
}

CONTROL5: dict[str, list[str]] = {
    "control:never-mind": ["never mind, go back to the old version", "nvm, leave it",
                           "never mind that, revert"],
    "control:stop": ["stop, that's wrong", "stop. not like that.", "no no no, stop"],
    "control:not-now": ["don't bother with the tests for now", "skip the docs for now",
                        "don't commit yet"],
    "control:nochmal": ["nein, das ist falsch, nochmal", "non, c'est pas ça, recommence",
                        "nochmal bitte, das war nichts"],
}

FACTS5: dict[str, list[str]] = {
    "fact:ci-flaky": ["the iOS build always fails on CI, can you look",
                      "CI never passes on the first try for ios-app",
                      "the simulator job always times out"],
    "fact:mix-slow": ["mix compile is always slow on my laptop",
                      "mix deps.get never finishes behind the VPN",
                      "compiling always takes forever here"],
}

ONEOFF5 = [
    "add a health endpoint to OrderController",
    "why does the Swift compiler complain about Sendable here?",
    "write a migration for the invoices table",
    "explain GenServer.call vs cast",
    "fix the flexbox layout on the pricing page",
    "plot the distribution of order values",
    "übersetze die Einleitung ins Englische",
    "rename BillingService to InvoiceService",
    "add a dark mode toggle",
    "what does this stack trace mean?",
    "write a unit test for the tax calculator",
    "make the navbar sticky",
    "load the parquet file and show the head",
    "add pagination to the orders endpoint",
    "corrige la faute dans le titre",
    "bump the Phoenix version",
    "find where we leak the DB connection",
    "add retries to the HTTP client",
    "document the webhook payload",
    "why is this query slow?",
    "make the chart colours colour-blind safe",
    "implement the refund flow",
    "add an index on customer_id",
    "split the notebook into two",
    "update the README badges",
    "Schreib eine Einleitung für die Installationsseite.",
    "handle the offline case in the sync view",
    "add logging to the payment webhook",
    "refactor the CSS grid on the landing page",
    "profile the report generation",
]

# dev6: written after dev5's tuning, before dev6's first score; rules said with little shared
# wording, many traps sharing their words (tasks, steering, facts, rare rules)
PROJECTS6 = ["ledger", "mapview", "authd", "k8s-ops", "mobile-rn", "wiki", "etl-go"]

PREFS6: dict[str, tuple[list[str] | None, list[str], str, str]] = {
    "pref:gofmt-imports": (["etl-go", "authd"], [
        "group imports with goimports, stdlib first",
        "Please run goimports on every file you touch.",
        "imports: goimports order, always",
    ], "Keep imports in goimports order.", ""),
    "pref:no-panics": (["etl-go", "authd"], [
        "never panic in library code, return an error",
        "Don't use panic() outside main, please.",
        "panics are not ok in our packages — errors only",
        "no panic calls in library packages!",
    ], "Never panic in library code; return errors.", ""),
    "pref:helm-values": (["k8s-ops"], [
        "put every setting into values.yaml, no hardcoded values in templates",
        "Hardcoding stuff in the Helm templates is banned, use values.",
        "keep templates free of literals — values file only, ok?",
    ], "Put settings in values.yaml, never hardcode them in templates.", ""),
    "pref:resource-limits": (["k8s-ops"], [
        "every container needs CPU and memory limits",
        "Always set resource limits on deployments.",
        "don't ship a pod spec without limits",
    ], "Set resource limits on every container.", ""),
    "pref:functional-components": (["mobile-rn", "mapview"], [
        "function components with hooks only, no class components",
        "Please don't write class components anymore.",
        "We use hooks, not classes, for React components.",
        "class components? no. hooks.",
    ], "Use function components with hooks, not classes.", ""),
    "pref:styled": (["mapview"], [
        "styles go in styled-components, not inline style props",
        "No inline styles please, use styled components.",
        "Use styled-components for styling, right?",
    ], "Use styled-components, not inline styles.", ""),
    "pref:inline-ok": (["mobile-rn"], [
        "inline styles are fine in this app, don't add styled-components",
        "Just use inline style objects, we don't want styled-components here.",
        "keep styling inline please",
    ], "Inline styles are fine here.", "pref:styled"),
    "pref:sentence-case": (["wiki"], [
        "headings in sentence case, not Title Case",
        "Please write page titles in sentence case.",
        "Nur der erste Buchstabe groß in Überschriften, bitte.",
        "sentence-case headings, ok?",
    ], "Write headings in sentence case.", ""),
    "pref:no-passive": (["wiki"], [
        "avoid passive voice in the docs",
        "Write in active voice, please.",
        "pas de voix passive dans la doc",
    ], "Write in active voice.", ""),
    "pref:explain-why": (None, [
        "when you change something, tell me why",
        "Always explain the reason behind a change.",
        "I want to know why you did it, not just what.",
    ], "Explain why you made a change.", ""),
    "pref:no-yapping": (None, [
        "skip the summary at the end of answers",
        "Don't recap what you just did at the end, I can read the diff.",
        "no closing summaries please",
        "Enough with the wrap-up paragraphs.",
    ], "No summary at the end of answers.", ""),
    "pref:decimal-money": (["ledger"], [
        "money is Decimal, never float",
        "Never use floats for currency amounts.",
        "Use Decimal for all monetary values.",
        "floats for money?! no. Decimal.",
    ], "Use Decimal for money, never float.", ""),
}

TASKS6: dict[str, list[str]] = {
    "task:goimports": ["run goimports", "goimports the whole repo", "run goimports on cmd/"],
    "task:limits": ["raise the memory limit of the api pod to 1Gi",
                    "set the CPU limit to 500m for the worker", "bump the memory limits"],
    "task:summary": ["summarize this PR", "write a summary of the incident",
                     "give me a summary of the changes"],
    "task:why": ["why does this fail?", "why is the pod crashlooping?",
                 "explain why the test is flaky"],
    "task:float": ["convert the float columns to int", "fix the float rounding in report.py",
                   "why is this float comparison failing?"],
}

CONTROL6: dict[str, list[str]] = {
    "control:stop": ["stop, don't touch that file", "wait, not that one", "hold on, undo that"],
    "control:again": ["try again", "once more please", "again, but shorter"],
    "control:german": ["nein, so nicht", "das ist falsch, mach es nochmal", "vergiss es"],
    "control:later": ["don't deploy yet", "leave the tests for later",
                      "don't bother with styling for now"],
}

FACTS6: dict[str, list[str]] = {
    "fact:panics": ["the importer always panics on empty files",
                    "it panics every time the config is missing",
                    "etl-go never handled nil maps well"],
    "fact:helm": ["helm upgrade always hangs on the ingress",
                  "the values.yaml is never picked up in staging",
                  "our chart always renders an empty configmap"],
}

RARE6: dict[str, list[str]] = {
    "rare:tabs-wiki": ["always use tabs in the wiki tables"],
    "rare:no-emoji": ["no emojis in headings please", "never put emoji in titles"],
    "rare:logs-json": ["logs should always be JSON"],
}

ONEOFF6 = [
    "add a /healthz endpoint to authd",
    "why does the map flicker on zoom?",
    "write a cron job that rotates the keys",
    "add an ingress for the wiki",
    "fix the off-by-one in pagination",
    "explain how the ledger reconciliation works",
    "render the route polyline in blue",
    "schreib eine Seite über das Onboarding",
    "create a PodDisruptionBudget for the api",
    "add offline caching to the map tiles",
    "migrate the users table to uuid keys",
    "what is the difference between a Job and a CronJob?",
    "add a login screen to the app",
    "ajoute une page FAQ",
    "parse the CSV export from the bank",
    "write a test for the token refresh",
    "make the ETL retry failed batches",
    "rename the ledger_entries columns",
    "add a dark theme to the wiki",
    "profile the tile renderer",
]

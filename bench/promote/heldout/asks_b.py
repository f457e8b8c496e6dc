"""Set B: hand-written asks, other preferences and wording; some German and French.

Same shape as asks_a: label -> (rule, scope, texts); each text in its own session.
"""

from __future__ import annotations

START = "2026-10-05"
PROJECTS = {
    "shop-api": 10,  # Django
    "pipeline": 9,  # dbt / Airflow / SQL
    "cluster": 9,  # Kubernetes / Helm
    "handbuch": 8,  # German docs (Sphinx)
    "android-app": 8,  # Kotlin
    "vitrine": 8,  # Vue, French-speaking team
    "scripts": 8,  # misc Python tooling
}

Entry = tuple[str, list[str] | None, list[str]]

# text -> language, for the asks not (only) in English
FOREIGN: dict[str, str] = {}


def de(text: str) -> str:
    FOREIGN[text] = "de"
    return text


def fr(text: str) -> str:
    FOREIGN[text] = "fr"
    return text


PREF: dict[str, Entry] = {
    "ruff-not-flake8": (
        "Lint Python with ruff, not flake8.",
        ["shop-api", "pipeline", "scripts"],
        [
            "lint with ruff, not flake8",
            "flake8 is gone, we switched to ruff — please always use ruff for linting",
            de("Bitte nimm ruff zum Linten, nicht flake8."),
            "why did you add a .flake8 file?? ruff only. ruff check, ruff format",
            "Clean up the imports in utils.py and run ruff (never flake8), thanks",
        ],
    ),
    "sql-uppercase": (
        "Write SQL keywords in upper case.",
        ["pipeline"],
        [
            "SQL keywords in uppercase please",
            "select/from/where should be SELECT/FROM/WHERE. we always uppercase keywords",
            "Write the orders_daily model; uppercase SQL keywords like the rest of the project, ok?",
            "can you keep to upper-case keywords in all the sql you write",
        ],
    ),
    "dbt-model-tests": (
        "Every new dbt model gets a schema.yml entry with tests.",
        ["pipeline"],
        [
            "every new dbt model needs tests in schema.yml",
            "Add the customers_ltv model. And don't forget: no model without not_null/unique tests in the yml.",
            "you added a model without any tests again... each model gets schema tests, always",
            de("jedes neue Modell braucht Tests in der schema.yml, ja?"),
        ],
    ),
    "k8s-resource-limits": (
        "Always set CPU and memory requests and limits on containers.",
        ["cluster"],
        [
            "always set cpu/memory requests and limits",
            "Add the worker deployment — with resource requests + limits, like every container we run",
            "no container without resource limits. ever.",
            "please make sure each pod spec has requests and limits set, right?",
            de("Ressourcen-Limits bitte immer setzen, CPU und RAM"),
        ],
    ),
    "no-latest-tag": (
        "Never use the :latest image tag; pin a version or digest.",
        ["cluster", "android-app", "shop-api"],
        [
            "never use the :latest tag",
            "pin the image to a version, :latest is not allowed anywhere",
            "Update the redis chart values. no latest tags please — pin the exact version.",
            "who put image: foo:latest in here?? always pin versions",
        ],
    ),
    "answer-german": (
        "Answer in German.",
        ["handbuch", "pipeline"],
        [
            de("antworte bitte auf Deutsch"),
            de("Kannst du mir ab jetzt immer auf Deutsch antworten?"),
            "answer in german please, my team reads these",
            de("Erklär mir den Fehler — aber bitte auf Deutsch, wie immer."),
        ],
    ),
    "commits-english": (
        "Write commit messages in English.",
        None,
        [
            "commit messages in English, even if we talk German here",
            de("Commit-Messages bitte immer auf Englisch."),
            "write the commit message in english pls",
            "Commit the fix; message in English as always, ok?",
        ],
    ),
    "logging-not-print": (
        "Use the logging module, not print.",
        ["shop-api", "pipeline", "scripts"],
        [
            "use logging, not print",
            "no print() debugging left in the code please, go through the logger",
            "Replace those prints with proper logger calls — we never ship print statements",
            "always log via logging.getLogger(__name__) instead of print, yes?",
            "print statements again? logging only",
        ],
    ),
    "vue-composition": (
        "Use the Composition API with <script setup>, not the Options API.",
        ["vitrine"],
        [
            "composition API only, no options API",
            fr("Write the ProductGallery component with <script setup>. On n'utilise plus l'Options API."),
            "please stop writing data()/methods — composition api everywhere",
            fr("nouveaux composants : toujours Composition API avec script setup"),
        ],
    ),
    "no-new-deps": (
        "Ask before adding any new dependency.",
        None,
        [
            "ask before adding any new dependency",
            "don't pull in new packages without checking with me first",
            "Parse the dates. And if you need a new library for it, ask me before you add it.",
            de("frag mich bitte, bevor du eine neue Dependency hinzufügst"),
            "no new deps without my ok, right?",
        ],
    ),
    "code-example-first": (
        "Start answers with a code example, then explain.",
        None,
        [
            "show me a code example first, then explain",
            "When you explain something, lead with a short snippet please",
            "code first, prose after. always",
            "How do I debounce a watcher in Vue? example first, explanation second, like usual",
        ],
    ),
    "coroutines-not-rx": (
        "Use Kotlin coroutines and Flow, not RxJava.",
        ["android-app"],
        [
            "use coroutines/Flow, not RxJava",
            "Load the feed in the ViewModel with a Flow. we're migrating away from Rx, don't add new Rx code.",
            "no RxJava in new code!!",
            de("Kotlin coroutines for async stuff please, nie RxJava"),
        ],
    ),
    "draft-pr": (
        "Open pull requests as drafts.",
        None,
        [
            "open PRs as drafts",
            "always create the pull request as a draft first, i'll mark it ready myself",
            "please make it a draft PR, like always",
            de("PRs als Draft aufmachen bitte"),
        ],
    ),
    "no-edit-generated": (
        "Never edit generated files; change the source and regenerate.",
        ["android-app", "shop-api"],
        [
            "never edit generated files",
            "don't hand-edit anything under build/generated, change the proto and regenerate",
            "Fix the field name in the API client. It's generated, so edit the spec, not the output!",
            "generated code is off limits for manual edits, ok?",
        ],
    ),
    "snake-case-json": (
        "API JSON fields are snake_case.",
        ["shop-api"],
        [
            "json fields in snake_case",
            "the new endpoint returns camelCase keys, please change to snake_case — all our API fields are snake_case",
            "Add the shipping_estimate field to the serializer; snake case keys as usual.",
        ],
    ),
    "migration-names": (
        "Give Django migrations descriptive names.",
        ["shop-api"],
        [
            "give migrations descriptive names, not 0042_auto_...",
            "when you create a migration always pass --name with something meaningful",
            "Add the is_gift field. And name the migration properly please, no auto names.",
        ],
    ),
    "du-form": (
        "Address readers with 'du', not 'Sie', in the German docs.",
        ["handbuch"],
        [
            de("im Handbuch duzen wir, bitte kein Sie"),
            de("Schreib die Seite zum Urlaubsantrag. Leser bitte mit du ansprechen, wie überall."),
            "use the informal 'du' in the german docs, never 'Sie'",
            de("warum steht da schon wieder Sie? wir duzen immer"),
        ],
    ),
    # opposite pairs
    "docs-german": (
        "Write the docs in German.",
        ["handbuch"],
        [
            de("schreib die Doku auf Deutsch"),
            "Docs in this repo are German, please keep writing them in German",
            de("Die neue Seite bitte auf Deutsch, nicht Englisch."),
        ],
    ),
    "docs-english": (
        "Write the docs in English only.",
        ["vitrine", "cluster"],
        [
            "docs in English only",
            "Write the README in english please, even though the team is french — we never write docs in french",
            fr("la doc, toujours en anglais, ok ?"),
        ],
    ),
    "js-single-quotes": (
        "Use single quotes in JavaScript/TypeScript.",
        ["vitrine"],
        [
            "single quotes in JS please",
            "Use 'single' quotes for strings, not double, like the eslint config says",
            fr("guillemets simples partout dans le JS, s'il te plaît"),
        ],
    ),
    "py-double-quotes": (
        "Use double quotes for Python strings.",
        ["shop-api", "scripts"],
        [
            "double quotes for strings in python",
            "Please switch those 'strings' to \"strings\"; we always use double quotes",
            "double-quoted strings only, right?",
        ],
    ),
    "rebase-not-merge": (
        "Rebase on main instead of merging main into the branch.",
        ["shop-api", "pipeline"],
        [
            "rebase, don't merge main into the branch",
            "Please keep the history linear — always rebase onto main, never a merge commit",
            "no merge commits from main in feature branches! rebase",
            "Update the branch with main — by rebasing, as usual.",
        ],
    ),
    "merge-not-rebase": (
        "Merge main into the branch; never rebase shared branches.",
        ["android-app", "cluster"],
        [
            "don't rebase, merge main in",
            "never rebase here, we want the merge commits",
            "Bring the branch up to date with a merge — no rebasing, it breaks the others' checkouts",
        ],
    ),
    "use-orm": (
        "Use the Django ORM, no raw SQL.",
        ["shop-api"],
        [
            "use the ORM, no raw SQL",
            "Please don't write cursor.execute queries, go through the Django ORM",
            "Add the monthly sales report; ORM queries only, never raw sql.",
        ],
    ),
    "raw-sql": (
        "Write plain SQL, no ORM.",
        ["pipeline", "scripts"],
        [
            "write plain SQL, no ORM",
            "don't bring SQLAlchemy ORM into this, raw sql is what we want",
            de("Rohes SQL bitte, kein ORM"),
        ],
    ),
    "json-logs": (
        "Log in JSON format.",
        ["cluster", "shop-api"],
        [
            "logs should be JSON",
            "configure the logger to emit json lines, always, so loki can parse it",
            "Structured JSON logs please, no plain text lines.",
        ],
    ),
    "plain-logs": (
        "Log plain text lines, not JSON.",
        ["pipeline", "scripts"],
        [
            "plain text logs, not json",
            "please no JSON logging in the pipeline, we read these in a terminal",
            "Keep the log output human readable — plain lines, never json.",
        ],
    ),
    "trailing-commas": (
        "Always use trailing commas in multi-line lists.",
        ["vitrine"],
        [
            "always add trailing commas",
            "trailing comma on the last item please, it keeps diffs small",
            fr("virgule finale sur les listes multi-lignes, toujours"),
        ],
    ),
    "no-trailing-commas": (
        "No trailing commas.",
        ["android-app"],
        [
            "no trailing commas",
            "remove the trailing commas, our ktlint config forbids them",
            "Please never leave a trailing comma after the last parameter.",
        ],
    ),
}

OPPOSITES = [
    ("docs-german", "docs-english"),
    ("js-single-quotes", "py-double-quotes"),
    ("rebase-not-merge", "merge-not-rebase"),
    ("use-orm", "raw-sql"),
    ("json-logs", "plain-logs"),
    ("trailing-commas", "no-trailing-commas"),
]

RARE: dict[str, Entry] = {
    "lazy-log-format": (
        "Use lazy %-formatting in logging calls.",
        None,
        ["in logging calls use %s args, not f-strings"],
    ),
    "dataclasses-over-dicts": (
        "Prefer dataclasses over plain dicts.",
        ["shop-api", "scripts"],
        ["prefer dataclasses over dicts", "use a dataclass here instead of passing dicts around, that's our style"],
    ),
    "branch-names": ("Name branches feature/<ticket>.", None, ["name branches feature/<ticket-id>"]),
    "kustomize-new-services": (
        "Use kustomize, not helm, for new services.",
        ["cluster"],
        ["for new services use kustomize, not helm"],
    ),
    "multistage-docker": (
        "Keep Dockerfiles multi-stage.",
        ["cluster", "shop-api"],
        ["keep dockerfiles multi-stage", de("Dockerfile bitte immer multi-stage")],
    ),
    "comments-english": (
        "Write code comments in English.",
        None,
        [de("schreib Kommentare im Code auf Englisch")],
    ),
    "pinia-not-vuex": (
        "Use Pinia, not Vuex.",
        ["vitrine"],
        ["use pinia not vuex", fr("le state, c'est Pinia, pas Vuex")],
    ),
    "no-wildcard-imports": ("No wildcard imports.", None, ["no wildcard imports"]),
    "hilt-di": ("Use Hilt for dependency injection.", ["android-app"], ["use Hilt for DI"]),
    "ctes-over-subqueries": (
        "Use CTEs instead of subqueries.",
        ["pipeline"],
        ["CTEs instead of nested subqueries please", "prefer with-clauses over subqueries"],
    ),
    "answer-french": ("Answer in French.", ["vitrine"], [fr("réponds en français stp")]),
    "tz-aware-datetimes": (
        "Always use timezone-aware datetimes.",
        None,
        ["always use timezone-aware datetimes"],
    ),
    "no-magic-numbers": (
        "No magic numbers; name constants.",
        None,
        ["no magic numbers, name the constant", de("keine magischen Zahlen bitte")],
    ),
}

TASK: dict[str, Entry] = {
    "run-tests": (
        "",
        None,
        [de("lass die Tests laufen"), "run the test suite", "pytest again", "run the tests", "run the tests pls", "run tests again"],
    ),
    "carry-on": ("", None, [de("weiter"), de("mach weiter"), "continue", "go on", "continue please", "continue"]),
    "makemigrations": (
        "",
        ["shop-api"],
        ["make the migrations", "run makemigrations", "generate the migration for the new field", "makemigrations again pls"],
    ),
    "dbt-build": ("", ["pipeline"], ["dbt build -s orders+", "run dbt build", "dbt run for the staging models", "dbt build again"]),
    "helm-upgrade": (
        "",
        ["cluster"],
        ["helm upgrade the api release in staging", "upgrade the release", "helm upgrade api in staging again"],
    ),
    "pod-logs": (
        "",
        ["cluster"],
        ["show me the logs of the api pod", "get the pod logs", "kubectl logs for the crashing pod", "pod logs pls"],
    ),
    "gradle-build": ("", ["android-app"], ["./gradlew assembleDebug", "build the debug apk", de("baue die Debug-APK")]),
    "sphinx-build": ("", ["handbuch"], [de("bau die Doku"), "build the docs", "make html", "rebuild the docs"]),
    "vue-dev-server": ("", ["vitrine"], [fr("lance le serveur de dev"), "start the dev server", "npm run dev"]),
    "fix-lint": (
        "",
        None,
        ["fix the lint errors", "ruff is complaining, fix it", "fix the linter warnings", "lint errors again, fix pls"],
    ),
    "open-pr": ("", None, ["open a PR for this", "create the pull request", "open the PR", de("mach einen PR auf")]),
    "translate-page": (
        "",
        ["handbuch"],
        [de("übersetz die Seite ins Englische"), "translate this page to english", "translate the vacation page into English"],
    ),
    "dag-failure": (
        "",
        ["pipeline"],
        ["why did the nightly DAG fail?", "check why the airflow run failed", "nightly dag failed again, look into it"],
    ),
    "bump-deps": ("", None, ["update the dependencies", "bump all deps", "update deps to latest", "refresh the dependencies"]),
    "write-commit-msg": (
        "",
        None,
        ["write a commit message for this", "commit message pls", "suggest a commit message", "write the commit msg"],
    ),
}

CONTROL: dict[str, Entry] = {
    "wrong-again": ("", None, [de("nein, das ist falsch, nochmal"), "no, wrong, again", de("falsch, versuch's nochmal"), fr("non, c'est faux, recommence")]),
    "forget-it": ("", None, [de("vergiss es"), "forget it", "never mind, forget it"]),
    "stop": ("", None, ["stop!", "stop stop stop", "stop right there", "stop it"]),
    "revert-that": ("", None, [de("mach das rückgängig"), "revert that", "roll that back", "revert that please"]),
    "tests-later": ("", None, ["don't bother with tests for now", "tests later", de("lass die Tests erstmal weg")]),
    "keep-going": ("", None, [de("passt, weiter so"), "good, keep going", "perfect, carry on", "nice, keep going"]),
    "not-what-i-asked": ("", None, ["that's not what I asked", de("das meinte ich nicht"), "no, I meant the other file"]),
    "dont-push-yet": ("", None, ["don't push yet", de("noch nicht pushen"), "hold off on pushing"]),
    "ignore-warnings": ("", None, ["ignore the warnings for now", de("ignorier die Warnungen erstmal"), "never mind the warnings this time"]),
    "one-sec": ("", None, ["one moment", "brb", "one sec"]),
    "thanks": ("", None, ["ok thanks", fr("merci, c'est bon"), "thanks, done for today", "thx, that's it"]),
}

FACT: dict[str, Entry] = {
    "dag-fails-sundays": (
        "",
        ["pipeline"],
        ["the nightly DAG always fails on sundays", de("der Nightly-Job schlägt sonntags immer fehl"), "sunday runs always fail, no idea why"],
    ),
    "emulator-never-starts": (
        "",
        ["android-app"],
        ["the emulator never starts on my machine", "my emulator never boots, always hangs at the logo", "emulator never comes up here"],
    ),
    "k8s-version": ("", ["cluster"], ["the cluster runs k8s 1.29", de("wir sind auf Kubernetes 1.29"), "cluster version is 1.29 btw"]),
    "orders-table-huge": (
        "",
        ["pipeline", "shop-api"],
        ["the orders table is always huge, queries take minutes", "orders has 400M rows, everything on it is slow", "queries on orders always take forever"],
    ),
    "e2e-safari": (
        "",
        ["vitrine"],
        [fr("les tests e2e échouent toujours sur Safari"), "e2e always fails on safari", "safari e2e is always red"],
    ),
}

ONEOFF: dict[str, list[str]] = {
    "shop-api": [
        "add an endpoint to list a customer's saved addresses",
        "the search endpoint ignores accents, fix",
        "move settings to django-environ",
        "tax calc is wrong for Austria, check it",
        "add a healthcheck view",
        "add a coupon model with expiry date",
        "the checkout view does 120 queries, fix the N+1",
        "why is the admin so slow on the orders page?",
        "add a DRF viewset for product reviews",
        "IntegrityError: duplicate key value violates unique constraint \"shop_sku_key\" — what's going on",
        "send the order confirmation email via celery",
        "add rate limiting to the login endpoint",
        "write a management command to recalc stock levels",
        "what does select_for_update actually lock here",
        "add soft delete to Product",
        "cache the category tree for 5 minutes",
        "the price filter ignores the currency, fix",
        de("warum gibt /api/cart/ 403 zurück?"),
        "add a webhook for paid orders",
        "explain the signals in orders/signals.py",
    ],
    "pipeline": [
        "add a column for the acquisition channel to customers",
        "the marts run 40 min now, find the slow model",
        "add an exposure for the finance dashboard",
        "rename stg_payments columns to match the source",
        "why is the row count of fct_orders dropping",
        "add a model for weekly active customers",
        "the orders_daily numbers don't match finance, compare them",
        "backfill the events table for august",
        "add a freshness check on the raw.orders source",
        "make the customers model incremental",
        "why does the airflow scheduler skip runs?",
        "write a macro for the fiscal week",
        "document the revenue columns",
        "add a snapshot for product prices",
        "how do I test an incremental model locally?",
        "split the big staging model into three",
        "load the new marketing csv into raw",
        "the DAG should alert slack on failure",
        "dedupe the events by event_id",
    ],
    "cluster": [
        "add a ServiceMonitor for the api",
        "bump the ingress-nginx chart",
        "the pvc for postgres is 90% full, what now",
        "set up a staging namespace that mirrors prod",
        "why does the pod get OOMKilled at startup?",
        "add topology spread constraints to the api",
        "add a HorizontalPodAutoscaler for the api",
        "why is the ingress returning 502?",
        "set up cert-manager for the new domain",
        "add a PodDisruptionBudget for redis",
        "the node pool is at 90% memory, what's eating it",
        "create a namespace for the data team with quotas",
        "add a network policy so only the api can reach postgres",
        "rotate the service account for CI",
        "explain the difference between liveness and readiness here",
        "add a cronjob that cleans old jobs",
        "CrashLoopBackOff on the worker, find out why",
        "write a values file for the prod environment",
        "how do i get the events for a pod?",
        "migrate the ingress to the gateway api",
    ],
    "handbuch": [
        "add an FAQ to the onboarding page",
        "link the security policy from the home page",
        "the search doesn't find pages with umlauts, look into it",
        "add a page template for ADRs",
        "split the infra page into two",
        de("schreib eine Seite zum Onboarding für neue Entwickler"),
        "the links on the deploy page are broken, fix them",
        "add a glossary page",
        "reorder the toc, onboarding goes first",
        "summarize last week's postmortem",
        "add a page on the release process",
        "add a diagram of the data flow",
        "the sphinx build warns about duplicate labels, fix",
        "add a section on on-call duty",
        "check the pages for outdated mentions of jenkins",
        "make the intro shorter",
        "how do I include a table from a CSV in sphinx?",
        "write a how-to for getting VPN access",
    ],
    "android-app": [
        "add a settings toggle for push notifications",
        "the splash screen shows twice",
        "crash: IllegalStateException: Fragment not attached to a context — fix",
        "support right-to-left layouts",
        "add offline mode for the cart",
        "why is the recycler so janky on old phones",
        "add pull-to-refresh on the feed",
        "the app crashes on rotation in the detail screen",
        "migrate the settings screen to Compose",
        "why does the build take 6 minutes?",
        "add a dark theme",
        "cache images on disk with coil",
        "add deep links for product pages",
        "explain how the navigation graph works here",
        "write a UI test for login",
        "the list jumps when new items arrive, fix",
        "add crash reporting",
        "reduce the APK size",
        "handle the back gesture on Android 14",
    ],
    "vitrine": [
        "add a breadcrumb on category pages",
        "the price shows NaN when the product has no variant",
        "compress the hero images",
        "add an accessibility pass on the checkout form",
        "what does this watchEffect do exactly?",
        "show stock levels on the product page",
        fr("ajoute un carrousel sur la page d'accueil"),
        "the cart badge doesn't update, fix",
        "add lazy loading to product images",
        fr("pourquoi le build prend 3 minutes ?"),
        "add a newsletter signup form",
        "translate the footer strings",
        "fix the layout on iPhone SE",
        "add tests for the Cart component",
        "add meta tags for social sharing",
        "the filter sidebar resets on navigation",
        "explain how the router guards work here",
        "add a 404 page",
        "migrate to Vite 5",
    ],
    "scripts": [
        "add a dry-run option to the cleanup script",
        "the report script should email the csv",
        "convert ids.py to use a generator, it eats 4GB",
        "add unit tests for parse_ids",
        "why does the cron job run twice?",
        "merge the two export scripts into one",
        "write a script that renames the S3 exports by date",
        "add argparse to cleanup.py",
        "parse the nginx logs and count 5xx per hour",
        "the csv export script chokes on utf-8 BOM, fix",
        "add a --verbose flag",
        "make the sync script idempotent",
        "explain what this regex in parse_ids.py does",
        "write a script that deletes merged branches older than 30 days",
        "read the config from toml instead of ini",
        "add a progress bar to the download script",
        "the backup script should skip files over 1GB",
        "package the scripts so they can be installed",
    ],
}

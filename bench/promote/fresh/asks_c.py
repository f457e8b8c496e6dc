"""Set C (tuning): hand-written asks, 7 projects, English with some Spanish and Italian.

Each table maps a slug to (rule, scope, texts): `rule` is the one-line rule a person would
approve (pref/rare; None otherwise), `scope` the projects it may be said in (None = any),
`texts` one text per session. Written by hand; build.py only places them.
"""

START = "2026-11-02"

PROJECTS = {
    "ledger": 9,  # Elixir/Phoenix accounting service
    "claims-portal": 9,  # Java/Spring Boot insurance claims app
    "forge": 9,  # C++ game engine
    "rider-app": 9,  # Flutter/Dart mobile app
    "shiny-epi": 8,  # R/Shiny epidemiology dashboard (Spanish-speaking analysts)
    "agenzia": 8,  # PHP/Laravel travel agency site (Italian team)
    "notebooks": 8,  # data-science Jupyter repo
}

PREF = {
    # --- single rules ---
    "mix-format": ("Run mix format before every commit.", {"ledger"}, [
        "mix format before you commit anything, please",
        "Add the overdraft check to Accounts.withdraw/2. And run `mix format` first whenever you commit, the CI lint keeps failing on us.",
        "Formatting: always pass everything through the Elixir formatter before committing.",
        "Again the diff is full of whitespace noise. Commits go through mix format, every time, ok?",
        "Reminder: code gets mix-formatted prior to any commit in this repo.",
    ]),
    "ecto-no-raw-sql": ("No raw SQL in the Elixir code; build queries with Ecto.Query.", {"ledger"}, [
        "Please don't write raw SQL strings, use Ecto queries.",
        "Rewrite the balance report query. Use Ecto.Query for it, we don't do hand-written SQL fragments here.",
        "No more Repo.query! with SQL text, please. Compose it with the Ecto query DSL.",
    ]),
    "typespecs": ("Give every public Elixir function a @spec.", {"ledger"}, [
        "Every public function needs a @spec, don't skip them.",
        "Add the new Invoices.void/1 function, with a typespec like all the other public ones, right?",
        "you keep leaving out the specs. public funcs get @spec, always",
    ]),
    "constructor-injection": ("Use constructor injection in Spring; no @Autowired on fields.", {"claims-portal"}, [
        "Use constructor injection, not @Autowired fields.",
        "Add a ClaimAuditService. Dependencies come in through the constructor — field injection is banned here.",
        "Please stop putting @Autowired on private fields. Inject via constructors.",
        "We wire beans through constructors (final fields, Lombok @RequiredArgsConstructor is fine), never field-injected.",
        "constructor-based DI only, ok?",
    ]),
    "gradle-not-maven": ("Build with Gradle (Kotlin DSL), not Maven.", {"claims-portal"}, [
        "We use Gradle with the Kotlin DSL, don't add a pom.xml.",
        "Add the mapstruct dependency — in build.gradle.kts, not Maven. Maven is gone from this project.",
        "stick with gradle please, no maven stuff",
    ]),
    "no-raw-new": ("No raw new/delete in engine code; use std::unique_ptr or make_unique.", {"forge"}, [
        "No raw new/delete, use unique_ptr.",
        "Port the particle emitter to the new allocator. Ownership via std::make_unique please, never naked `new`.",
        "I saw a `delete` in your patch again. Manual memory management is not allowed here, smart pointers only.",
        "Prefer make_unique over new, always.",
        "Heads-up for the whole session: raw new and delete are banned in the engine; wrap ownership in unique_ptr.",
    ]),
    "no-heap-in-update": ("Never allocate on the heap inside the per-frame update loop.", {"forge"}, [
        "Don't allocate in the update loop.",
        "Fix the stutter in the AI tick. And no heap allocations per frame — preallocate, reuse buffers.",
        "Per-frame code must not allocate. Not even a std::vector push_back that can grow, ok?",
        "zero allocations inside update(), that's a hard rule for us",
    ]),
    "riverpod": ("Manage Flutter state with Riverpod, not setState or Provider.", {"rider-app"}, [
        "Use Riverpod for state, not setState.",
        "Build the trip history screen; state lives in Riverpod providers like everything else, please.",
        "We don't use the provider package or setState for app state here — Riverpod only.",
        "Please stick with Riverpod for state management.",
    ]),
    "const-widgets": ("Mark Flutter widget constructors and instances const wherever possible.", {"rider-app"}, [
        "Make widgets const wherever you can.",
        "Add the empty-state illustration. Const constructors please, the linter's prefer_const rule is there for a reason.",
        "Why isn't that Padding const? Everything that can be const should be.",
        "always const-construct widgets when possible, ok?",
        "Usa const en los widgets siempre que se pueda, por favor.",
    ]),
    "renv-snapshot": ("After adding an R package, update renv.lock with renv::snapshot().", {"shiny-epi"}, [
        "When you add a package, snapshot renv.",
        "Add the lubridate dependency and update the lockfile with renv::snapshot(), as always.",
        "Cada vez que añadas un paquete, actualiza el renv.lock, ¿vale?",
        "New R packages must land in renv.lock in the same commit.",
    ]),
    "native-pipe": ("Use the native |> pipe in R, not magrittr's %>%.", {"shiny-epi"}, [
        "Use the native pipe |>, not %>%.",
        "Refactor the incidence plot code — with the base R pipe, please, we're moving away from magrittr.",
        "Nada de %>%, usamos el pipe nativo |>.",
        "%>% is banned in new code",
        "native pipes only, ok?",
    ]),
    "pest-tests": ("Write PHP tests in Pest syntax, not PHPUnit classes.", {"agenzia"}, [
        "Write the tests in Pest, not PHPUnit classes.",
        "Scrivi i test con Pest, per favore, niente classi PHPUnit.",
        "Add tests for the booking controller — Pest style `it(...)`, like the rest of the suite.",
        "We prefer Pest for all tests here.",
    ]),
    "translations-it": ("Every user-facing string goes through __() with a key in lang/it; no hard-coded text.", {"agenzia"}, [
        "No hard-coded strings in Blade, everything through __().",
        "Tutte le stringhe dell'interfaccia vanno nei file di traduzione, mai scritte a mano nella vista.",
        "Add the cancellation banner. Text via translation keys in lang/it as always, ok?",
        "user-facing text must be translatable, use the __() helper",
        "Le etichette nuove: sempre con __() e la chiave in lang/it/messages.php.",
    ]),
    "clear-outputs": ("Clear notebook outputs before committing.", {"notebooks"}, [
        "Clear the outputs before you commit a notebook.",
        "Commit the churn analysis, with cell outputs stripped like always.",
        "Notebooks are committed without outputs here — nbstripout them first.",
        "no outputs in committed .ipynb files please, the diffs are unreadable",
    ]),
    "seed-everything": ("Fix the random seed (42) in every experiment.", {"notebooks"}, [
        "Set the random seed to 42 in every experiment.",
        "Train the gradient boosting baseline — seeded, random_state=42, same as every run we do.",
        "Always seed numpy, random and sklearn so results are reproducible.",
        "Fijá la semilla en 42 en todos los experimentos, siempre.",
        "every experiment gets a fixed seed, ok?",
        "Reproducibility: the RNG seed is pinned to 42 in all notebooks, don't forget.",
    ]),
    "no-emoji": ("No emojis in answers, code comments or commit messages.", None, [
        "No emojis, please.",
        "Please leave emojis out of commit messages and comments.",
        "ugh, drop the emoji. never use them in anything you write for me",
        "Sin emojis en las respuestas, por favor.",
        "Keep it emoji-free, ok?",
    ]),
    "ask-before-deps": ("Ask before adding any new dependency.", None, [
        "Ask me before adding any new dependency.",
        "Parse the CSV upload. And check with me first if you want to pull in a library for it — no new deps without asking.",
        "Don't add packages without my OK.",
        "New third-party libraries need my approval first, always.",
        "Prima di aggiungere una dipendenza nuova, chiedimelo.",
    ]),
    # --- opposite pairs ---
    "cpp-no-exceptions": ("No exceptions in engine C++; return error codes or expected.", {"forge"}, [
        "No exceptions in the engine, return error codes.",
        "Make the asset loader report missing files — via std::expected, not by throwing. We build with -fno-exceptions.",
        "throw is banned in engine code",
    ]),
    "java-throw-exceptions": ("In the Java code, signal errors by throwing exceptions, not by returning error codes.", {"claims-portal"}, [
        "Throw exceptions for errors, don't return error codes.",
        "Handle the invalid policy number case. Throw a domain exception, the ControllerAdvice maps it — no status-code return values.",
        "Please use exceptions for failure paths, not null or -1.",
        "Errors are signalled by throwing here, right?",
    ]),
    "comments-spanish": ("Write code comments in Spanish.", {"shiny-epi"}, [
        "Write the code comments in Spanish.",
        "Los comentarios del código, en español, por favor.",
        "Document the smoothing function — comments in Spanish, the analysts read them.",
        "comentarios siempre en castellano, ¿ok?",
    ]),
    "comments-english": ("Write code comments in English only.", {"ledger", "claims-portal", "forge", "rider-app"}, [
        "Code comments in English only.",
        "Add a note explaining the rounding mode. In English, like all our comments.",
        "Please write comments in English, even if I ask in another language.",
        "english comments, always",
        "All source comments are in English here, ok?",
    ]),
    "auto-commit": ("Commit each finished change yourself, one small commit per change.", {"rider-app", "notebooks"}, [
        "Commit after each change, small commits.",
        "Go ahead and commit every step yourself as you finish it, I don't want to do it by hand.",
        "Fix the login redirect and commit it. In general: you commit as you go, one change per commit.",
        "Please make a commit after each logical change, always.",
    ]),
    "no-commit": ("Never commit; leave committing to me.", {"ledger", "forge", "agenzia"}, [
        "Never commit, I'll do the commits myself.",
        "Leave the changes unstaged, I always commit myself.",
        "Non fare mai commit tu, li faccio io.",
        "you don't commit in this repo, ever. I review and commit",
        "Make the fix but don't create commits — that's my job, always.",
    ]),
    "snake-case-fields": ("Name data columns and fields in snake_case.", {"shiny-epi", "notebooks"}, [
        "Column names in snake_case please.",
        "Clean up the admissions data frame; rename the columns to snake_case like all our data.",
        "Los nombres de columnas siempre en snake_case.",
        "snake_case for every column, no CamelCase, ok?",
    ]),
    "camel-case-fields": ("Name JSON fields and model properties in camelCase.", {"claims-portal", "rider-app"}, [
        "JSON fields in camelCase.",
        "Add the claim summary DTO. Properties camelCased, as in the rest of the API.",
        "We use camelCase for all field names, not snake_case.",
    ]),
    "explain-first": ("Explain the plan before writing any code.", {"forge", "notebooks", "shiny-epi"}, [
        "Explain your plan before you write code.",
        "Tell me how you'd approach it first, then code. Always in that order.",
        "Before touching anything, walk me through the approach, ok?",
        "Primero explícame el plan, luego el código.",
        "plan first, code second. every time",
    ]),
    "code-only": ("Just give the code; no explanations unless asked.", {"agenzia", "rider-app", "ledger", "claims-portal"}, [
        "Just the code, no explanation.",
        "Skip the explanations and give me the code, that's how I like it.",
        "Solo il codice, senza spiegazioni.",
        "I don't need the prose, code only, ok?",
    ]),
    "mock-db": ("Mock the database in unit tests.", {"agenzia", "rider-app"}, [
        "Mock the database in the tests.",
        "Add a test for the price calculator — with the repository mocked, we never hit a real DB in unit tests.",
        "Nei test il database va sempre mockato.",
        "use fakes/mocks for the data layer in tests, ok?",
    ]),
    "real-db-tests": ("Never mock the database; tests run against a real Postgres.", {"ledger", "claims-portal"}, [
        "Don't mock the database, use the real test DB.",
        "Test the ledger posting with a real Postgres through the Ecto sandbox — DB mocks are not allowed here.",
        "No repository mocks. Testcontainers Postgres for anything that touches data.",
        "we never mock the db, right?",
        "Tests must talk to an actual database, not a mock.",
    ]),
}

OPPOSITES = [
    ("cpp-no-exceptions", "java-throw-exceptions"),
    ("comments-spanish", "comments-english"),
    ("auto-commit", "no-commit"),
    ("snake-case-fields", "camel-case-fields"),
    ("explain-first", "code-only"),
    ("mock-db", "real-db-tests"),
]

RARE = {
    "utc-timestamps": ("Store every timestamp in UTC.", {"ledger"}, [
        "Store the posting timestamps in UTC, always.",
    ]),
    "no-records-for-entities": ("Do not use Java records as JPA entities.", {"claims-portal"}, [
        "Don't use records for JPA entities.",
        "Entities stay classes, no Java records for them, ok?",
    ]),
    "span-over-pointer": ("Prefer std::span to pointer-plus-size parameters.", {"forge"}, [
        "Prefer std::span over pointer + size in signatures.",
    ]),
    "go-router": ("Use go_router for navigation.", {"rider-app"}, [
        "Navigation goes through go_router, please.",
    ]),
    "ggplot-minimal": ("Use theme_minimal() for every ggplot.", {"shiny-epi"}, [
        "All plots with theme_minimal().",
        "Usa theme_minimal en todos los gráficos.",
    ]),
    "livewire-admin": ("Build admin screens with Livewire, not Vue.", {"agenzia"}, [
        "The admin pages are Livewire, don't bring in Vue.",
    ]),
    "typed-helpers": ("Type-annotate the helper modules under src/.", {"notebooks"}, [
        "Type hints in every helper module under src/ please.",
    ]),
    "no-secrets-in-logs": ("Never log secrets or tokens.", None, [
        "Never print tokens or secrets in logs.",
        "Make sure we never log the API key, that's a rule.",
    ]),
    "british-spelling": ("Use British spelling in user-facing text.", None, [
        "British spelling in the UI copy, please.",
    ]),
    "branch-names": ("Name branches feat/..., fix/... .", None, [
        "Branches are named feat/<thing> or fix/<thing>.",
        "name the branch fix/something, that's our convention",
    ]),
    "blade-no-php": ("No inline @php blocks in Blade views.", {"agenzia"}, [
        "No @php blocks inside Blade views.",
    ]),
    "genserver-names": ("Register GenServers under their module name.", {"ledger"}, [
        "Register GenServers with name: __MODULE__.",
    ]),
    "vendored-sdl": ("Never edit the vendored SDL sources.", {"forge"}, [
        "Don't touch the vendored SDL code.",
        "third_party/SDL is off limits, never patch it.",
    ]),
}

TASK = {
    "continue": (None, None, [
        "continue",
        "keep going",
        "go ahead with the next part",
        "continúa",
        "ok, next step",
    ]),
    "mix-test": (None, {"ledger"}, [
        "run mix test",
        "Run the test suite (mix test) and tell me what fails.",
        "mix test again please",
        "rerun mix test for the accounts context",
    ]),
    "format-file": (None, {"ledger"}, [
        "run mix format on this file",
        "mix format lib/ledger/posting.ex",
        "format the file you just changed with mix format",
    ]),
    "fix-flaky-claim-test": (None, {"claims-portal"}, [
        "Fix the flaky ClaimServiceTest.",
        "ClaimServiceTest failed again, can you look at it?",
        "the flaky ClaimServiceTest is back, fix it",
        "Take another look at ClaimServiceTest, it's still flaky.",
    ]),
    "gradle-build": (None, {"claims-portal"}, [
        "run ./gradlew build",
        "Build it with gradle and show me the errors.",
        "./gradlew build again",
        "run the gradle build one more time",
    ]),
    "recompile-shaders": (None, {"forge"}, [
        "Recompile the shaders.",
        "rebuild the shaders and rerun the demo scene",
        "recompile shaders, the lighting looks wrong",
        "Compile the shaders again please.",
    ]),
    "build-runner": (None, {"rider-app"}, [
        "Run build_runner to regenerate the freezed files.",
        "regenerate the freezed/json_serializable code",
        "dart run build_runner build --delete-conflicting-outputs",
        "The generated files are stale, run build_runner.",
    ]),
    "renv-restore": (None, {"shiny-epi"}, [
        "run renv::restore()",
        "Restaura el entorno con renv::restore.",
        "renv restore please, my library is out of date",
    ]),
    "knit-report": (None, {"shiny-epi"}, [
        "Re-knit the weekly report.",
        "Vuelve a generar el informe semanal.",
        "render the weekly report again",
        "knit weekly_report.Rmd once more",
    ]),
    "migrate-fresh": (None, {"agenzia"}, [
        "php artisan migrate:fresh --seed",
        "Rifai le migrazioni da zero con il seed.",
        "reset the DB with migrate:fresh --seed",
        "run migrate fresh and seed again",
    ]),
    "rerun-notebook": (None, {"notebooks"}, [
        "Rerun the churn notebook top to bottom.",
        "rerun churn.ipynb from the start",
        "Run all cells of the churn notebook again.",
        "re-execute the churn notebook and show me the final table",
    ]),
    "commit-this": (None, None, [
        "commit this",
        "Commit these changes.",
        "ok, commit it",
        "fai il commit",
    ]),
    "explain-error": (None, None, [
        "What does this error mean?",
        "explain this error",
        "¿Qué significa este error?",
        "can you explain that error message?",
    ]),
    "add-test": (None, None, [
        "Add a test for this.",
        "write a test for that function",
        "add a unit test covering this case",
        "Cover this with a test.",
    ]),
    "push-branch": (None, None, [
        "push this to the remote",
        "Push the feature branch.",
        "push this branch to origin",
    ]),
}

CONTROL = {
    "never-mind": (None, None, [
        "never mind",
        "Never mind, leave it.",
        "lascia stare",
        "nvm, forget it",
    ]),
    "stop": (None, None, [
        "stop",
        "Wait, stop.",
        "para, para",
        "hold on, stop there",
    ]),
    "dont-commit-yet": (None, None, [
        "no commit yet",
        "Don't commit this yet, I want to look first.",
        "hold off on the commit for now",
    ]),
    "forget-docs": (None, None, [
        "forget the docs for now",
        "Skip the documentation for now.",
        "no docs yet, just the code for now",
    ]),
    "undo": (None, None, [
        "undo it",
        "Revert what you just did.",
        "annulla l'ultima modifica",
        "roll it back please",
    ]),
    "wrong-file": (None, None, [
        "that's the wrong file",
        "No, not that file, the other one.",
        "wrong file, I meant the test",
    ]),
    "first-part-only": (None, None, [
        "just the first part for now",
        "Only do step one for now.",
        "do the first half, we'll see about the rest",
    ]),
    "skip-tests-now": (None, None, [
        "don't run the test suite this time",
        "Skip the tests for now, they're slow.",
        "no tests this round",
        "don't bother running tests right now",
    ]),
    "shorter": (None, None, [
        "shorter",
        "Too long, cut it down.",
        "más corto",
    ]),
    "try-again": (None, None, [
        "try again",
        "No, that's wrong, try again.",
        "riprova",
        "one more try",
    ]),
    "leave-as-was": (None, None, [
        "leave it as it was",
        "Put it back the way it was.",
        "restore the original version",
    ]),
}

FACT = {
    "ios-ci": (None, {"rider-app"}, [
        "The iOS build always fails on CI, take a look.",
        "iOS on CI failed again — it always does after a pod update.",
        "CI's iOS job never goes green on the first try, can you see why?",
    ]),
    "staging-data": (None, {"ledger", "claims-portal"}, [
        "Staging never has fresh data, so I can't reproduce it there.",
        "the staging DB is always a week behind, keep that in mind while you debug",
        "Remember staging data is never current; check the logs instead.",
    ]),
    "editor-crash": (None, {"forge"}, [
        "The editor always crashes when loading level 3.",
        "level 3 crashed the editor again, it always does",
        "Loading level 3 in the editor never works, here's the stack.",
    ]),
    "windows-test": (None, None, [
        "This test never passes on Windows.",
        "it always fails on the Windows runner only",
        "On Windows this one never passes, no idea why.",
    ]),
    "shiny-startup": (None, {"shiny-epi"}, [
        "The Shiny app always takes 20 seconds to start.",
        "La app siempre tarda muchísimo en arrancar.",
        "startup is always slow, ~20s, before the first plot",
    ]),
}

ONEOFF = {
    "ledger": [
        "Add a Phoenix LiveView page listing the last 50 postings.",
        "Why does Accounts.transfer/3 return {:error, :stale} sometimes?",
        "Rename the `Txn` schema to `Transaction` everywhere.",
        "Add a unique index on (account_id, external_ref).",
        "Write a migration that backfills currency = 'EUR' where it's null.",
        "How do I run only one ExUnit test by line number?",
        "Make the JSON API return amounts as strings, not floats.",
        "Add pagination to GET /api/accounts.",
        "Explain what Ecto.Multi does in the transfer function.",
        "Set up a telemetry handler that logs slow queries over 200 ms.",
        "The release build fails with 'could not compile dependency :bcrypt_elixir', fix it.",
        "Add a CSV export for the monthly statement.",
        "Upgrade Phoenix from 1.7.10 to 1.7.14.",
        "Add a health check endpoint at /healthz.",
        "Why is the PubSub broadcast not reaching the LiveView?",
        "Write a seed script with three demo accounts.",
    ],
    "claims-portal": [
        "Add an endpoint to upload a PDF to an existing claim.",
        "Why does Hibernate issue N+1 queries on the claims list?",
        "Add validation that the incident date isn't in the future.",
        "Upgrade Spring Boot to 3.3.",
        "Write a Flyway migration adding a `status_reason` column.",
        "Configure CORS for the new frontend on localhost:5173.",
        "Add an OpenAPI description for ClaimController.",
        "Map ClaimEntity to ClaimDto with MapStruct.",
        "Add a scheduled job that closes claims idle for 90 days.",
        "What's the difference between @Transactional on the class and on the method?",
        "Add caching to the policy lookup with Caffeine.",
        "Return 404 instead of 500 when a claim id doesn't exist.",
        "Add a Micrometer counter for submitted claims.",
        "Why does the app take 40 s to start locally?",
        "Split ClaimService into intake and assessment services.",
        "Add a search endpoint filtering by status and date range.",
    ],
    "forge": [
        "Add a frustum culling pass to the renderer.",
        "Why does the physics step explode at 144 Hz?",
        "Implement a simple ring buffer for the audio mixer.",
        "Add an ImGui panel showing frame timings.",
        "Port the input system to SDL3 gamepad events.",
        "Write a CMake option to build without the editor.",
        "Why is the shadow map flickering on the terrain edges?",
        "Add hot reload for Lua scripts.",
        "Make the entity IDs 64-bit with a generation counter.",
        "Profile the scene load and tell me where the time goes.",
        "Add a fixed-timestep accumulator to the main loop.",
        "Fix the MSVC warning C4267 in mesh.cpp.",
        "Add a debug draw for collision boxes.",
        "Explain why this template fails to deduce T here.",
        "Write a tiny benchmark for the ECS iteration.",
        "Add gamma correction to the final blit.",
    ],
    "rider-app": [
        "Add a pull-to-refresh on the rides list.",
        "Why is the map widget rebuilding on every scroll?",
        "Add dark mode using the system setting.",
        "Integrate Firebase Crashlytics.",
        "Show a snackbar when the ride is cancelled.",
        "Add a Spanish localisation file with the existing strings.",
        "Why does the app crash on Android 10 when opening the camera?",
        "Cache the profile picture with cached_network_image.",
        "Add a bottom sheet to pick the payment method.",
        "Upgrade Flutter to 3.24 and fix the breaking changes.",
        "Add deep link handling for rider://ride/<id>.",
        "Make the ETA text update every 10 seconds.",
        "What is causing the 'RenderFlex overflowed by 12 pixels' on small phones?",
        "Add an onboarding carousel with three pages.",
        "Request location permission only when the map opens.",
        "Add a golden test for the ride card.",
    ],
    "shiny-epi": [
        "Add a date range filter to the incidence tab.",
        "¿Por qué el gráfico de casos no se actualiza al cambiar la región?",
        "Add a download button for the filtered table as CSV.",
        "Compute 7-day rolling averages per region.",
        "Add a leaflet map of cases by province.",
        "Why is reactive() recomputing on every input change?",
        "Añade una pestaña con la tasa por 100.000 habitantes.",
        "Read the new Excel file from the ministry and clean it.",
        "Make the app load the data once at startup instead of per session.",
        "Add a plotly tooltip with the exact counts.",
        "Fit a Poisson regression for weekly cases vs. temperature.",
        "Deploy the app to shinyapps.io.",
        "Add unit tests for the cleaning functions with testthat.",
        "Corrige el orden de los meses en el eje X.",
        "Cache the heavy summary with bindCache.",
    ],
    "agenzia": [
        "Aggiungi un filtro per destinazione nella pagina dei viaggi.",
        "Add a queued job that sends the booking confirmation email.",
        "Why does the checkout page return a 419 after a while?",
        "Create a Filament resource for managing hotels.",
        "Aggiungi la paginazione all'elenco delle offerte.",
        "Add an Eloquent scope for trips departing this month.",
        "Integrate Stripe checkout for deposits.",
        "Perché la query delle prenotazioni è così lenta?",
        "Add rate limiting to the contact form.",
        "Create a sitemap.xml generator.",
        "Resize uploaded hotel images to 1200px wide.",
        "Add a policy so only admins can delete bookings.",
        "Upgrade to Laravel 11.",
        "Add a newsletter signup using Mailchimp.",
        "Show the price in EUR with Italian number formatting.",
    ],
    "notebooks": [
        "Load the November events parquet and show the schema.",
        "Plot retention curves by signup cohort.",
        "Why is this groupby so slow on 20M rows?",
        "Try a logistic regression baseline for churn.",
        "Compute SHAP values for the best model.",
        "Move the feature engineering into src/features.py.",
        "Make a confusion matrix heatmap.",
        "Split train/test by time, not randomly.",
        "What's the AUC on the last month only?",
        "Add a cell that checks for data leakage in the features.",
        "Convert the timestamps to Europe/Madrid.",
        "Calibrate the model probabilities with isotonic regression.",
        "Write the predictions to a CSV for the marketing team.",
        "Explain why the precision dropped after adding tenure.",
        "Bin the session lengths into quintiles.",
    ],
}

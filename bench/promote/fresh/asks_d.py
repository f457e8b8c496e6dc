"""Set D (held out, report only): hand-written asks, 7 projects, English only.

Longer and messier than sets A-C: half sentences, typos, a pasted error line before the
request. Each table maps a slug to (rule, scope, texts): `rule` is the one-line rule a
person would approve (pref/rare; None otherwise), `scope` the projects it may be said in
(None = any), `texts` one text per session. Written by hand; build.py only places them.
"""

START = "2026-11-16"

PROJECTS = {
    "quoter": 9,  # Scala 3 / cats-effect pricing service
    "typecheck": 8,  # Haskell type checker for a small language
    "webshop-ui": 9,  # Svelte 5 / SvelteKit storefront
    "playbooks": 8,  # Ansible fleet configuration
    "dungeon": 9,  # Unity C# roguelike
    "sim": 8,  # Julia epidemic simulation
    "devportal": 9,  # developer docs site (MkDocs Material)
}

PREF = {
    # --- single rules ---
    "no-implicit-conversions": ("No implicit conversions in Scala; use explicit given/using or plain methods.", {"quoter"}, [
        "no implicit conversions please",
        "[warn] Implicit conversion Double => Money is deprecated ... ok so about that, rip the implicit conversion out and make the caller say Money(x), we don't do implicit conversions in this codebase at all",
        "the discount code you wrote leans on an implicit def to convert BigDecimal -> Price, that's exactly the thing I don't want. explicit conversions only, every time, ok?",
        "Reminder since it came up again: implicit conversions are banned here. givens for typeclasses are fine, conversions are not.",
    ]),
    "cats-effect-io": ("Use cats-effect IO for effects, not scala.concurrent.Future.", {"quoter"}, [
        "use IO not Future",
        "value onComplete is not a member of cats.effect.IO[Quote] -- right, because it shouldn't be a Future in the first place. keep everything in cats-effect IO, no Futures anywhere in the service please",
        "the new FX rate client returns a Future, wrap it / rewrite it so it's IO. we stick with cats effect for all effectful code",
        "Future is not used in this project, everything effectful is an IO. can you redo the cache warmer with that in mind",
        "prefer IO over Future, always, even in tests",
    ]),
    "no-partial-functions": ("No partial functions (head, fromJust, !!) in the Haskell code.", {"typecheck"}, [
        "Prelude.head: empty list   <- this is why we don't use head. no partial functions anywhere, pattern match or use NonEmpty",
        "please avoid fromJust and friends, partial functions are banned in this repo",
        "unify is fine but you used `!!` in the substitution lookup. total functions only, ok?",
        "no head/tail/fromJust/read. we keep the code total",
    ]),
    "hlint-clean": ("Keep the Haskell code hlint-clean.", {"typecheck"}, [
        "the code has to pass hlint with zero hints",
        "src/Infer.hs:88:5: Suggestion: Use <$>   ... every patch needs to be hlint clean before I look at it, pls always run it",
        "can you finish the let-polymorphism bit, and keep it hlint-clean like the rest",
    ]),
    "svelte-runes": ("Use Svelte 5 runes ($state, $derived, $props), not stores or legacy `let` reactivity.", {"webshop-ui"}, [
        "runes only, no writable stores",
        "`$:` is not allowed in runes mode  -- yeah, we're on svelte 5, use $derived. please always write components with runes, never the legacy reactive statements",
        "the cart badge component uses a writable() store, rewrite it with $state. we do runes everywhere now",
        "new components: $props and $state, not export let. that's the standard here, ok?",
        "stick with svelte 5 runes for all state, don't go back to stores",
    ]),
    "tailwind-no-inline-style": ("No inline style attributes; use Tailwind classes.", {"webshop-ui"}, [
        "no style=\"...\" attributes, tailwind classes instead",
        "the product card had `style=\"margin-top: 12px\"` in it, please don't do inline styles ever, we use tailwind utilities for everything",
        "fix the header alignment on mobile -- and Tailwind only, inline styling is banned here",
        "inline styles, again... use the tailwind classes please",
    ]),
    "fqcn-modules": ("Use fully qualified collection names for Ansible modules (ansible.builtin.copy).", {"playbooks"}, [
        "fqcn for all modules please",
        "fqcn[action-core]: Use FQCN for builtin module actions (copy).   -- always write ansible.builtin.copy etc, not the short names",
        "add a task that installs chrony. fully-qualified module names like every other task, ok?",
        "we always spell modules out with the collection prefix, `template` alone isn't acceptable",
        "Module names: use the FQCN form (community.general.x, ansible.builtin.y), no short forms.",
    ]),
    "check-mode-first": ("Run playbooks with --check --diff before applying them for real.", {"playbooks"}, [
        "always dry run with --check --diff before applying",
        "before you actually apply anything to the fleet, do a --check --diff pass first and show me. that's how we work here",
        "never apply a playbook for real without a check-mode run first, right?",
        "FAILED! => {\"changed\": false, \"msg\": \"Unable to restart service nginx\"}  this is exactly why: check mode and diff first, every time, then the real run",
    ]),
    "no-find-in-update": ("Never call GameObject.Find or GetComponent inside Update; cache references.", {"dungeon"}, [
        "don't call GameObject.Find in Update",
        "the minimap lags, probably because of GetComponent in Update. cache refs in Awake, no Find/GetComponent per frame, that's a rule for all scripts",
        "NullReferenceException: Object reference not set to an instance of an object  EnemyAI.Update () (at Assets/Scripts/EnemyAI.cs:41)  -- fix it, and don't use GameObject.Find every frame, cache it",
        "per-frame lookups (Find, FindObjectOfType, GetComponent) are banned in Update/FixedUpdate, ok?",
    ]),
    "serializefield-private": ("Expose inspector fields as [SerializeField] private, never public fields.", {"dungeon"}, [
        "[SerializeField] private instead of public fields",
        "the loot table script has like 10 public fields just for the inspector. make them private with [SerializeField], always do it that way",
        "no public fields for inspector stuff, serialize private ones",
        "add a knockback force to the weapon — serialized private field, not public, as usual",
        "please keep fields private + SerializeField, we don't expose public fields in this project",
    ]),
    "type-stable": ("Keep Julia functions type-stable; check with @code_warntype.", {"sim"}, [
        "functions need to be type stable",
        "Body::Union{Float64, Int64}   from @code_warntype step!  ... that's the problem. everything in the hot path must be type-stable, please check each function you write",
        "add the vaccination compartment, type-stable as always, ok?",
        "make sure you never return a Union from anything in src/, run @code_warntype",
    ]),
    "no-globals-julia": ("No non-const global variables in the Julia code.", {"sim"}, [
        "no non-const globals",
        "you put `population = 10_000` at top level again. non-constant globals are banned, pass it in or make it const",
        "global mutable state is not ok in this repo, wrap it in a struct or a const Ref",
    ]),
    "sentence-case-headings": ("Write docs headings in sentence case.", {"devportal"}, [
        "headings in sentence case",
        "the new page has 'Getting Started With The API' -- we use sentence case for headings, so 'Getting started with the API'. everywhere, please",
        "title-case headings are banned in the docs, sentence case only",
        "write the webhooks page, with sentence-case titles like the rest, right?",
        "Sentence case for every H1-H4, not Title Case.",
    ]),
    "relative-links": ("Link between docs pages with relative paths, not absolute URLs.", {"devportal"}, [
        "relative links between pages, not full urls",
        "WARNING - Doc file 'auth.md' contains a link 'https://dev.example.com/errors/', ... use relative links to other pages of the site, we never hardcode the domain",
        "update the SDK page; internal links as relative .md paths as usual",
    ]),
    "cite-sources": ("When stating how an API or library behaves, link the docs or source.", None, [
        "when you claim something about a library, link the docs",
        "you said Array.sort is stable -- source? in general please back up API claims with a link to the docs or the source code, every time",
        "cite where you got that from. always link the documentation for API behaviour",
        "ok but add a link to the relevant docs, I want references for claims like that",
        "please always include a reference (doc page or source line) when you explain what a function does",
    ]),
    "no-force-push": ("Never force-push.", None, [
        "never force push",
        "! [rejected] main -> main (non-fast-forward)  -- do NOT force push to fix this. we never force-push, rebase/merge instead",
        "no --force, no --force-with-lease, not on any branch",
    ]),
    "ask-if-unclear": ("If an ask is ambiguous, ask a question before writing code.", None, [
        "if something's unclear, ask me before coding",
        "you guessed what I meant and got it wrong, again. when the request is ambiguous, stop and ask, always",
        "don't assume, ask a clarifying question first when it's not obvious what I want",
        "rather you ask than guess, for anything ambiguous, right?",
    ]),
    # --- opposite pairs ---
    "tdd": ("Write the failing test first, then the code.", {"typecheck", "quoter"}, [
        "test first, then implementation",
        "add support for type annotations on lambdas. as usual: write the failing test before you touch the checker",
        "please do TDD here - red test first, always",
        "we write the test before the code in this repo, ok?",
    ]),
    "no-tests-prototype": ("Don't write tests for prototype or gameplay code.", {"dungeon", "sim"}, [
        "no tests for prototype code",
        "skip tests for gameplay scripts, they change every day, we never test those",
        "this is exploratory, don't bother writing tests for it, that's the rule for the experiments folder",
        "don't add unit tests for prototypes, ok?",
    ]),
    "diff-only": ("Show only the diff, not the whole file.", {"quoter", "typecheck", "playbooks"}, [
        "just show me the diff",
        "you pasted the whole 400-line file again... diffs only please, always",
        "show changes as a unified diff, not full files",
        "only the changed hunks, ok?",
        "When you change something, give me a diff, never the complete file.",
    ]),
    "full-file": ("Always give the complete file, not a diff.", {"dungeon", "devportal", "webshop-ui"}, [
        "give me the full file, not a diff",
        "I paste your output straight into the editor so please always send the whole file, no patches",
        "complete file every time pls, partial diffs are useless to me",
        "send the entire component, not just the changed lines, right?",
    ]),
    "us-spelling": ("Use US spelling.", {"devportal", "webshop-ui"}, [
        "US spelling please",
        "you wrote 'colour' and 'authorisation' in the API reference, we use American spelling in all docs",
        "American English for all copy, ok?",
    ]),
    "uk-spelling": ("Use British spelling.", {"dungeon", "sim"}, [
        "British spelling please",
        "item descriptions need UK spelling: armour, colour, grey. always",
        "the report text should be in British English, like all our writing",
        "uk spelling, ok? 'modelling' not 'modeling'",
    ]),
    "mutate-in-place": ("Mutate arrays in place (bang functions) in hot code for performance.", {"sim"}, [
        "mutate in place, use the ! functions",
        "  0.812 s (3201 allocations: 1.2 GiB)  -- way too many allocs. update the state arrays in place with broadcast .= and mul!, always do that in the step functions",
        "prefer in-place (!) versions in anything that runs per timestep",
        "don't allocate new arrays each step, write into preallocated ones, ok?",
    ]),
    "immutable-only": ("No mutable state: vals and immutable collections only.", {"quoter"}, [
        "no vars, no mutable collections",
        "the quote builder uses a mutable.ListBuffer -- we don't do mutable state here, rewrite with immutable structures",
        "keep everything immutable please, val only",
        "immutability is non-negotiable in this service, right?",
    ]),
    "wrap-80": ("Wrap lines at 80 columns.", {"typecheck", "devportal"}, [
        "wrap at 80 columns",
        "lines over 80 chars, please rewrap. we keep everything under 80 cols",
        "80-column limit, always",
    ]),
    "lines-120": ("Lines up to 120 columns are fine; don't wrap at 80.", {"quoter", "dungeon"}, [
        "120 col lines are fine, don't wrap at 80",
        "you split every call over 4 lines to fit 80 chars, stop that, our limit is 120",
        "line length is 120 here, don't rewrap things to 80",
        "no need to break lines before 120 columns, ok?",
    ]),
    "todos-ok": ("Leave TODO comments where something is unfinished or uncertain.", {"sim", "webshop-ui"}, [
        "leave TODOs where you're not sure",
        "if you skip an edge case, put a TODO comment there, always, I grep for them",
        "mark unfinished bits with // TODO so I can find them",
        "TODO comments are welcome, use them, ok?",
    ]),
    "no-todos": ("No TODO comments in code; open an issue instead.", {"typecheck", "playbooks", "quoter"}, [
        "no TODO comments in code",
        "remove the TODO you added in Unify.hs -- we never leave TODOs in the code, open an issue instead",
        "TODOs are banned here, file an issue",
        "don't leave todo/fixme comments behind, right?",
    ]),
}

OPPOSITES = [
    ("tdd", "no-tests-prototype"),
    ("diff-only", "full-file"),
    ("us-spelling", "uk-spelling"),
    ("mutate-in-place", "immutable-only"),
    ("wrap-80", "lines-120"),
    ("todos-ok", "no-todos"),
]

RARE = {
    "for-comprehensions": ("Prefer for-comprehensions to nested flatMap chains.", {"quoter"}, [
        "use a for-comprehension instead of the flatMap pyramid",
    ]),
    "deriving-via-generics": ("Derive instances via Generic, not Template Haskell.", {"typecheck"}, [
        "derive the Aeson instances via Generic, no TH",
        "no template haskell for the instances pls, Generic deriving",
    ]),
    "form-actions": ("Use SvelteKit form actions for forms, not fetch calls.", {"webshop-ui"}, [
        "checkout form should use a SvelteKit form action, not a fetch",
    ]),
    "tag-every-task": ("Give every Ansible task a tag.", {"playbooks"}, [
        "every task gets a tag",
        "tag the tasks, all of them, so we can run subsets",
    ]),
    "scriptable-objects": ("Keep item data in ScriptableObjects.", {"dungeon"}, [
        "item data goes in ScriptableObjects, not in prefabs",
    ]),
    "static-arrays": ("Use StaticArrays for small fixed-size vectors.", {"sim"}, [
        "use SVector for the 3-element positions",
    ]),
    "admonitions": ("Use admonitions, not bold 'Note:' paragraphs.", {"devportal"}, [
        "use a !!! note admonition instead of **Note:**",
        "admonitions for warnings please, not bold text",
    ]),
    "vault-secrets": ("Keep secrets in ansible-vault, never plaintext group_vars.", {"playbooks"}, [
        "that password can't sit in group_vars in plaintext, vault it",
    ]),
    "no-linq-hot-path": ("No LINQ in per-frame code.", {"dungeon"}, [
        "no LINQ in Update, it allocates",
        "get rid of the .Where().First() in the tick, avoid LINQ in hot paths",
    ]),
    "btime-benchmarks": ("Benchmark with BenchmarkTools @btime, not @time.", {"sim"}, [
        "benchmark it with @btime, not @time",
    ]),
    "prettier-defaults": ("Use Prettier with default settings.", {"webshop-ui"}, [
        "just use prettier defaults, don't tweak the config",
    ]),
    "no-orphans": ("No orphan instances.", {"typecheck"}, [
        "no orphan instances, move it next to the type",
        "that Pretty instance is an orphan, we avoid those",
    ]),
    "alt-text": ("Every image needs alt text.", {"devportal"}, [
        "give every screenshot an alt text",
    ]),
}

TASK = {
    "continue": (None, None, [
        "continue",
        "ok keep going",
        "go on, finish the rest",
        "yes, carry on",
        "next",
    ]),
    "sbt-test": (None, {"quoter"}, [
        "run sbt test",
        "[error] Failed tests: quoter.PricingSpec  -- run sbt test again after your fix",
        "sbt test pls",
        "run the tests with sbt and tell me what's red",
    ]),
    "cabal-build": (None, {"typecheck"}, [
        "cabal build and show me the errors",
        "build it with cabal again",
        "cabal build, then paste the first error",
        "does it cabal build now?",
    ]),
    "hlint-file": (None, {"typecheck"}, [
        "run hlint on src/Parser.hs",
        "hlint Parser.hs and apply the suggestions",
        "run hlint over the parser module",
    ]),
    "fix-cart-test": (None, {"webshop-ui"}, [
        "fix the failing cart.spec.ts",
        "FAIL src/lib/cart.spec.ts > cart > applies coupon  -- again, fix it",
        "cart.spec.ts is red again",
        "can you get cart.spec.ts passing",
    ]),
    "check-staging": (None, {"playbooks"}, [
        "run site.yml against staging with --check",
        "dry-run site.yml on the staging inventory",
        "ansible-playbook -i inventories/staging site.yml --check, show me the output",
        "check-mode run of site.yml on staging again",
    ]),
    "ansible-lint": (None, {"playbooks"}, [
        "run ansible-lint",
        "ansible-lint the roles dir",
        "lint the playbooks with ansible-lint again",
    ]),
    "rebake-lighting": (None, {"dungeon"}, [
        "rebake the lighting in the cave scene",
        "cave scene lightmaps look broken, rebake them",
        "bake lighting for Cave.unity again",
        "rebake the cave lights after that change",
    ]),
    "rerun-bench": (None, {"sim"}, [
        "rerun the benchmark",
        "run bench/run.jl again and compare to last time",
        "benchmark again pls",
        "rerun the benchmarks with the change",
    ]),
    "build-docs": (None, {"devportal"}, [
        "build the site and check for broken links",
        "mkdocs build --strict and tell me what breaks",
        "rebuild the docs, check the links",
        "build the docs again",
    ]),
    "commit-push": (None, None, [
        "commit and push",
        "ok commit that and push it",
        "push the commit",
        "commit + push pls",
    ]),
    "explain-this-error": (None, None, [
        "what does this error mean",
        "explain this error to me",
        "no idea what this error is saying, explain",
        "what's this error about?",
    ]),
    "summarize-changes": (None, None, [
        "summarize what you changed",
        "give me a summary of the changes",
        "what did you change, short summary",
        "recap the changes so far",
    ]),
    "test-for-this": (None, None, [
        "write a test for this",
        "add a test that covers this bug",
        "can you add a test for that case",
        "test for this pls",
    ]),
    "update-changelog": (None, None, [
        "changelog pls",
        "note this in CHANGELOG.md under Unreleased",
        "changelog entry for this please",
        "put it in the changelog",
    ]),
}

CONTROL = {
    "never-mind": (None, None, [
        "never mind",
        "nvm",
        "actually never mind, leave it",
        "forget I asked",
    ]),
    "stop": (None, None, [
        "stop",
        "wait wait stop",
        "stop, that's not what I meant",
        "hold on, stop right there",
    ]),
    "dont-push-yet": (None, None, [
        "not pushing yet",
        "don't push that yet, I want to test locally",
        "hold the push for now",
    ]),
    "forget-docs": (None, None, [
        "forget the docs for now",
        "skip the docs this time, later",
        "leave the documentation for now",
    ]),
    "revert-that": (None, None, [
        "revert",
        "undo the edit you just made",
        "nope, revert it",
        "back that out",
    ]),
    "not-that-one": (None, None, [
        "not that one",
        "no, the other function",
        "wrong one, I meant the staging inventory",
    ]),
    "one-thing": (None, None, [
        "one thing at a time",
        "just do the first step for now",
        "only the first bit for now, then stop",
    ]),
    "skip-tests-now": (None, None, [
        "no tests this time",
        "skip the tests, they take forever",
        "no need to run tests for this one",
        "don't bother with tests right now",
    ]),
    "wait-checking": (None, None, [
        "wait, I'm checking something",
        "hang on, let me look first",
        "give me a sec, checking the logs",
    ]),
    "again": (None, None, [
        "again",
        "try that again",
        "nope, same error. try again",
        "one more time",
    ]),
    "keep-old": (None, None, [
        "keep the old version",
        "leave it like it was before",
        "put the original back",
    ]),
}

FACT = {
    "sbt-oom": (None, {"quoter"}, [
        "java.lang.OutOfMemoryError: Metaspace  -- the sbt build always OOMs on the CI runner, look into it",
        "CI sbt job died again, it always runs out of memory there",
        "the sbt build never survives CI without a retry, why",
    ]),
    "windows-player": (None, {"dungeon"}, [
        "the Windows player build never links, here's the log",
        "IL2CPP windows build failed again, it always does",
        "error: linker command failed ... windows standalone never builds for me",
    ]),
    "db3-timeout": (None, {"playbooks"}, [
        "fatal: [db-3]: UNREACHABLE! => ... db-3 always times out, it's always that host",
        "db-3 timed out again, it never responds in time",
        "the run always hangs on db-3, can you look",
    ]),
    "docs-deploy-slow": (None, {"devportal"}, [
        "the docs deploy always takes ~10 min, no idea why",
        "deploy took forever again, it always does",
        "docs deployment is always super slow",
    ]),
    "julia-precompile": (None, {"sim"}, [
        "Precompiling project... 143 dependencies  -- it always takes forever on first run",
        "precompile took 4 minutes again, it always does",
        "first run is always slow because of precompilation, anything we can do",
    ]),
}

ONEOFF = {
    "quoter": [
        "[error] value quote is not a member of quoter.Pricing  -- I renamed it to price yesterday, update the callers",
        "add an endpoint GET /quotes/:id that returns 404 when the quote doesnt exist",
        "why does the http4s server hang on shutdown, it waits like 30s",
        "add a Redis cache in front of the FX rates lookup, TTL 5 minutes",
        "migrate the config loading from typesafe config to pureconfig",
        "circe decoding failure: DownField(currency)  -- currency is optional in the partner payload, handle that",
        "add a metric for quote latency with a histogram",
        "the rounding in VAT calc is off by a cent for 19.99 * 3, find out why",
        "write a doobie query for quotes created in the last 24h",
        "bump scala to 3.5 and see what breaks",
        "add request ids to the logs via MDC or whatever cats-effect has for that",
        "is Resource the right thing for the kafka producer here",
        "add an admin route to invalidate the cache",
        "refactor PricingRules into separate files per product line",
        "parse the partner's xml feed, sample attached below",
    ],
    "typecheck": [
        "add let-polymorphism to the inference, currently everything is monomorphic",
        "parse error on input 'in' at line 3 col 12 for `let x = 1 in x` -- the parser chokes on let, fix",
        "pretty-print types with minimal parentheses",
        "add a REPL command :type",
        "the occurs check is missing, `\\x -> x x` loops forever",
        "switch the parser from parsec to megaparsec",
        "add source spans to the error messages",
        "why does stack build work and cabal not, different ghc?",
        "implement row polymorphism for records, start with a design sketch",
        "add a golden test runner for the examples dir",
        "error messages should show expected vs actual type side by side",
        "profile the checker on big.lang, it takes 8 seconds",
        "add a --dump-constraints flag",
        "support type synonyms",
    ],
    "webshop-ui": [
        "add a skeleton loader on the product grid",
        "500 Internal Error  Cannot read properties of undefined (reading 'price')  -- on /product/[slug] when the variant is missing",
        "make the mini cart slide in from the right",
        "add a +page.server.ts load for the category page with pagination",
        "hydration mismatch warning on the header, look into it",
        "implement a wishlist stored in localStorage",
        "add meta tags and og:image per product",
        "the search box should debounce 300ms",
        "upgrade to sveltekit 2 latest and check the adapter",
        "add a size guide modal",
        "image lazy loading isnt working on safari",
        "add a quantity stepper that can't go below 1",
        "build an accessible dropdown for sorting",
        "track add-to-cart events with plausible",
        "why is the lighthouse score 54 on mobile",
    ],
    "playbooks": [
        "write a role that installs and configures node_exporter",
        "ERROR! the role 'common' was not found in ... -- roles path issue? fix the ansible.cfg",
        "add a handler that reloads nginx only when the config changed",
        "rotate the ssh host keys on the bastion",
        "set up unattended-upgrades on all debian hosts",
        "add a molecule scenario for the postgres role",
        "template the haproxy config from the inventory",
        "why does the apt task always report changed",
        "create a user for the deploy bot with a restricted shell",
        "make the timezone a variable per group",
        "add a playbook to drain a k3s node",
        "the firewall role should open 9100 only for the monitoring subnet",
        "convert the shell tasks in the backup role into proper modules",
        "add a dynamic inventory for hetzner",
    ],
    "dungeon": [
        "add a dodge roll with i-frames",
        "Assets/Scripts/Inventory.cs(57,13): error CS0246: The type or namespace name 'ItemStack' could not be found  -- I deleted it, restore the type or replace it",
        "procedural room generation is making overlapping rooms, fix",
        "add a pause menu with resume/settings/quit",
        "enemies should flash white when hit",
        "save/load the run to a json file",
        "add controller support with the new input system",
        "the camera jitters when following the player, smooth it",
        "make a simple A* for the grid enemies",
        "add footstep sounds that vary by floor type",
        "the boss fight phase 2 never triggers, look at BossController",
        "add a minimap render texture",
        "object pool for the arrows",
        "show damage numbers above enemies",
        "add screen shake on big hits, subtle",
    ],
    "sim": [
        "add an SEIR variant alongside the SIR model",
        "MethodError: no method matching step!(::Model{Float64}, ::Int64)  -- after the refactor, fix the signature",
        "plot infections over time for 5 seeds with Makie",
        "read the contact matrix from the CSV in data/",
        "add a parameter sweep over beta and gamma, save results to JLD2",
        "parallelize the sweep with Threads.@threads",
        "fit beta to the observed case counts with Optim",
        "add age groups to the model",
        "write the docstring for run_simulation",
        "why does the result differ between 1 and 8 threads",
        "export results to arrow for the python folks",
        "add a stochastic version using Gillespie",
        "make a Pluto notebook that shows the basic model",
        "compute R0 from the parameters and print it",
    ],
    "devportal": [
        "write a quickstart page for the python SDK",
        "add a dark mode toggle to the theme",
        "ERROR - Config value 'plugins': The \"redirects\" plugin is not installed  -- add it to requirements",
        "set up versioned docs with mike",
        "write the rate limits page from the table in the wiki",
        "add a search boost for the API reference section",
        "document the webhook signature verification with code samples in 3 languages",
        "the code tabs dont remember the selected language across pages",
        "add an OpenAPI render for the v2 spec",
        "create a changelog page generated from the releases",
        "restructure the nav: guides, reference, tutorials",
        "add a feedback widget at the bottom of each page",
        "fix the broken table layout on the pricing page",
        "add a 404 page with a search box",
        "write a migration guide from v1 to v2 of the API",
    ],
}

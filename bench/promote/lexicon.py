"""A general lexicon of how developers name the same thing or the same stance (data only).

Measured, not wired (ADR 0046): ``concepts.py`` in this folder reads it into the promote
matcher for a bench run. Written from general knowledge of how people talk about software
work before any set's misses were read (commit 7110229), then refined on set C and dev*.

:data:`GROUPS` has one group a line (an indented line continues the group above):
``name[ / opposite]: member | member ... [ ! opposite member | ...]``. Every member says
what ``name`` says; every opposite member says the opposite (``no walls of text`` asks for
short answers, as ``no long answers`` does). A member is a word or a short phrase as the
matcher reads a prompt (``asks._normalized``: lowercase ASCII, accents left off, a hyphen a
space, "pull request" "pr", "snake case" "snakecase"; a test keeps them so).
``name`` and ``opposite`` are single plain words. Tools and their nicknames, git practice,
code style, answer style, docs, logging, errors, dependencies, CI, reviews, security;
English and the common words of German, French, Spanish, Italian, Portuguese and Dutch.

:data:`VALUES` has one setting a line: its values, each a group's name or a plain word. Two
rules that want different values of one setting are two rules ("use pnpm" / "use npm").
"""

from __future__ import annotations

__all__ = ["GROUPS", "VALUES", "table"]

GROUPS = """
# -- answers: size, manner, format ------------------------------------------------------------
short / long: short | shorter | brief | briefly | concise | concisely | terse | tersely | succinct
    | succinctly | compact | to the point | straight to the point | in a nutshell | kurz | kurze
    | kurzer | knapp | kurz und knapp | court | courte | courtes | concis | concise | breve | breves
    | corto | corta | cortos | cortas | curto | curta | curtos | curtas | conciso | concisa
    | sucinto | succinto | sintetico | kort | korte | beknopt | bondig ! long | longer | lengthy
    | verbose | verbosity | wordy | long winded | longwinded | rambling | rambly | ramble
    | walls of text | wall of text | essay | essays | novel | novels | fluff | filler | waffle
    | waffling | preamble | preambles | langatmig | long | longue | longues | largo | larga | largos
    | largas | lungo | lunga | lunghe | longo | longa | langdradig
detail: detailed | in detail | in depth | thorough | thoroughly | step by step | walk me through
    | walk through | explain each step | ausfuhrlich | detailliert | schritt fur schritt | detaille
    | detaillee | en detail | etape par etape | detallado | detallada | paso a paso | dettagliato
    | dettagliata | passo a passo | detalhado | detalhada | stap voor stap | gedetailleerd
    | uitgebreid
bullet: bullet | bullets | bullet point | bullet points | bulleted | bulleted list | bullet list
    | bullet lists | list form | as a list | aufzahlung | aufzahlungspunkte | stichpunkte | puces
    | liste a puces | vinetas | lista con vinetas | elenco puntato | punti elenco | topicos
    | marcadores | opsomming | opsommingstekens
codeonly: just the code | only the code | code only | just code | only code | nothing but code
    | just the diff | only the diff | just the patch | only the patch | nur code | nur den code
    | juste le code | seulement le code | only el codigo | only codigo | only il codice
    | so o codigo | alleen code | alleen de code
wholefile: whole file | whole files | entire file | entire files | full file | full files
    | complete file | complete files | ganze datei | fichier complet | archivo completo
    | file completo | arquivo completo | hele bestand
placeholder: placeholder | placeholders | rest of the code | existing code here
    | omitted for brevity | elided | truncated code
apology: apology | apologies | apologize | apologise | apologizing | apologising | sorry | excuse
    | excuses | entschuldigung | entschuldige | entschuldigungen | desole | desolee | excuses
    | perdon | disculpa | disculpas | lo siento | scusa | scuse | mi dispiace | desculpa | desculpas
    | sinto muito | excuses | spijt
flattery: flattery | flatter | flattering | praise | compliment | compliments | great question
    | good question | sycophancy | sycophantic | cheerleading | lob | schmeichelei | flatterie
    | compliments | halagos | adulacion | complimenti | lusinghe | elogios | bajulacao | vleierij
emoji: emoji | emojis | emoticon | emoticons | smiley | smileys | gitmoji | emojii
hedge: hedge | hedging | hedges | caveat | caveats | disclaimer | disclaimers | qualifiers
    | weasel words
guess: guess | guessing | guesses | make things up | making things up | make stuff up
    | making stuff up | invent | inventing | hallucinate | hallucinating | hallucination
    | hallucinations | fabricate | fabricating | assume | assuming | assumption | assumptions
    | raten | erfinden | deviner | inventer | adivinar | inventar | indovinare | inventare | chutar
    | gokken | verzinnen
clarify: clarify | clarifying | clarifying question | clarifying questions | clarification
    | when in doubt ask | ask if unclear | ask when unclear | ask questions | nachfragen | ruckfrage
    | ruckfragen | demande des precisions | pregunta si | chiedi se | pergunte se | vraag het
plan: plan | plans | planning | outline | game plan | approach first | design first | plan first
    | think first | plan before coding | vorgehen | plan d'action | planifie | plan de accion
    | piano | plano | aanpak | approach | your approach | the approach
plain / jargon: plain english | plain language | simple language | simple words | simple terms
    | layman's terms | laymans terms | lay terms | eli5 | like i'm five | like im five
    | not technical | einfache sprache | langage simple | lenguaje sencillo | linguaggio semplice
    | linguagem simples | eenvoudige taal ! jargon | buzzwords | buzzword | technobabble
    | fachjargon
markdown: markdown | md formatting | markdown formatting
codeblock: code block | code blocks | fenced code | fenced code block | code fence | code fences
    | triple backticks | backticks
heading: heading | headings | section headers | section headings | uberschriften | titres
    | encabezados | titoli | titulos | koppen
table: table | tables | tabular | tabelle | tabellen | tableau | tableaux | tabla | tablas | tabella
    | tabelas | tabellen
summary: summary | summaries | summarize | summarise | recap | recaps | tl;dr | tldr | tl dr
    | key takeaways | zusammenfassung | resumen | riassunto | resumo | samenvatting
example: example | examples | for instance | sample code | code sample | code samples
    | usage example | usage examples | beispiel | beispiele | exemple | exemples | ejemplo
    | ejemplos | esempio | esempi | exemplo | exemplos | voorbeeld | voorbeelden
rationale: rationale | reasoning | justification | justify | the why | explain why | begrundung
    | justification | justificacion | motivazione | justificativa | onderbouwing
source: sources | citation | citations | cite | citing | references | link the docs | quellen
    | fuentes | fonti | fontes | bronnen
english: english | englisch | anglais | ingles | inglese | engels
german: german | deutsch | allemand | aleman | tedesco | alemao | duits
french: french | francais | franzosisch | frances | francese | frances | frans
spanish: spanish | espanol | castellano | spanisch | espagnol | spagnolo | espanhol | spaans
italian: italian | italiano | italienisch | italien | italiaans
portuguese: portuguese | portugues | portugiesisch | portugais | portoghese | portugees
dutch: dutch | nederlands | hollandisch | niederlandisch | neerlandais | holandes | olandese
    | nederlandse
formal: formal | formally | formality | professional tone | siezen | vouvoiement | usted | formale
casual: casual | informal | informally | relaxed tone | duzen | tutoiement | tutear | informale
# -- tools and their nicknames --------------------------------------------------------------
postgres: postgres | postgresql | postgre | pg | psql | pgsql | postgres db
mysql: mysql | my sql
mariadb: mariadb | maria db
sqlite: sqlite | sqlite3 | sqlite db
mongodb: mongodb | mongo | mongo db
redis: redis | valkey
dynamodb: dynamodb | dynamo | dynamo db
elasticsearch: elasticsearch | elastic search | opensearch
kafka: kafka | apache kafka
rabbitmq: rabbitmq | rabbit mq
kubernetes: kubernetes | k8s | kube | kubectl
helm: helm | helm chart | helm charts
docker: docker | dockerfile | dockerfiles | docker image | docker images
dockercompose: docker compose | compose file | compose files
podman: podman
terraform: terraform | opentofu | tofu
ansible: ansible | playbook | playbooks
javascript: javascript | js | ecmascript | es6 | vanilla js
typescript: typescript | ts | tsc
python: python | python3 | py | cpython
node: node | nodejs | node.js
deno: deno
react: react | reactjs | react.js
vue: vue | vuejs | vue.js
angular: angular | angularjs
svelte: svelte | sveltekit
nextjs: next.js | nextjs | next js
golang: golang | go lang
rust: rust | rustlang | rustc
kotlin: kotlin | kt
csharp: c# | csharp | c sharp | dotnet | .net
cpp: c++ | cpp | cplusplus
java: java | jdk | jvm
ruby: ruby | rb
rails: rails | ruby on rails | ror
django: django | drf
flask: flask
fastapi: fastapi | fast api
spring: spring | spring boot | springboot
npm: npm | npm install | npm i
pnpm: pnpm | pnpx
yarn: yarn | yarnpkg | yarn berry
bun: bun | bunx
pip: pip | pip3 | pip install
uv: uv | uv pip | uv add | astral uv
poetry: poetry | poetry add
pipenv: pipenv
conda: conda | anaconda | miniconda | mamba | micromamba
cargo: cargo
gradle: gradle | gradlew
maven: maven | mvn | pom.xml
pytest: pytest | py.test | pytests
unittest: unittest | unit test module
jest: jest
vitest: vitest
mocha: mocha
ruff: ruff | ruff check
flake8: flake8 | flake 8
pylint: pylint
black: black formatter | psf black
prettier: prettier
eslint: eslint | es lint
mypy: mypy | my py
pyright: pyright | pylance
gofmt: gofmt | go fmt | goimports
rustfmt: rustfmt | cargo fmt
clippy: clippy | cargo clippy
pandas: pandas
polars: polars
numpy: numpy | np
requests: requests library | python requests
httpx: httpx
axios: axios
fetch: fetch api | native fetch | window.fetch
lodash: lodash | underscore.js | lodash es
moment: moment | moment.js | momentjs
dayjs: dayjs | day.js
datefns: date fns | datefns
sqlalchemy: sqlalchemy | sql alchemy
prisma: prisma
tailwind: tailwind | tailwindcss | tailwind css
github: github | gh
gitlab: gitlab
vscode: vscode | vs code | visual studio code
vim: vim | neovim | nvim
makefile: makefile | makefiles | make target | make targets
bash: bash | bash script | bash scripts | shell script | shell scripts
powershell: powershell | pwsh
aws: aws | amazon web services
gcp: gcp | google cloud
azure: azure
celery: celery
graphql: graphql | gql
grpc: grpc | protobuf | protobufs | protocol buffers
openapi: openapi | swagger | open api
jsonschema: json schema | jsonschema
yaml: yaml | yml
toml: toml | pyproject | pyproject.toml
json: json
esm: esm | es modules | es module | ecmascript modules | import export syntax
commonjs: commonjs | cjs | common js | require calls
# -- git practice ----------------------------------------------------------------------------
rebase / mergecommit: rebase | rebasing | rebased | linear history | history linear
    | straight history | fast forward | fast forward only | ff only | rebase and merge
    | git pull rebase | pull rebase | rebasen | rebaser ! merge commit | merge commits
    | merge bubbles | merge bubble
squash: squash | squashed | squashing | squash merge | squash and merge | squash merges
    | one commit per pr | one commit per feature | single commit per pr | a single commit
    | one commit per branch | squashen | zusammenfassen commits | ecraser | single commit
    | one commit | one single commit | everything in one commit
conventional: conventional commits | conventional commit | conventional commit messages
    | commit prefixes | commit prefix | feat: | fix: | chore: | feat( | fix( | feat/fix
    | semantic commits | semantic commit messages | commitlint | commit convention
    | commit conventions | angular commit
imperative: imperative | imperative mood | imperative form | present tense imperative | imperativ
    | imperatif | imperativo
signoff: sign off | signoff | signed off | signed off by | dco | developer certificate of origin
gpgsign: gpg | gpg sign | gpg signed | signed commits | sign commits | sign your commits
    | sign my commits | commit signing | signing key | ssh signing | verified commits
forcepush / safepush: force push | force pushing | force pushed | force pushes | forcepush
    | push force | push -f | push --force | force with lease | force_with_lease | rewrite history
    | rewriting history | history rewrite | rewritten history
amend: amend | amending | amended | amends | commit amend
main: main | master | trunk | main branch | master branch | default branch | production branch
featurebranch: feature branch | feature branches | topic branch | topic branches
    | branch per feature
directpush: push directly | pushing directly | push straight | pushing straight | direct push
    | direct pushes | commit directly | committing directly | commit straight
precommit: precommit | pre commit | pre commit hook | pre commit hooks | git hook | git hooks
    | commit hook | commit hooks | husky | lefthook
gitignore: gitignore | .gitignore | git ignore | ignore file
wip: wip | work in progress | wip commit | wip commits | fixup | fixup commits | fixups
atomic: atomic commits | atomic commit | small commits | focused commits | one change per commit
    | one logical change per commit | logical commits | commit as you go | commit after each change
    | commit after every change | one commit per change | each logical change | every logical change
    | commit early and often | frequent commits | commits small | small and focused commits
    | commits small and focused
semver: semver | semantic versioning | semantic version | sem ver
changelog: changelog | change log | changelogs | changelog.md | release notes | news file
    | changes.md
tag: git tag | git tags | release tag | release tags | version tag | version tags
# -- reviews, PRs, CI ------------------------------------------------------------------------
pr: pr | prs | mr | mrs | changeset | changesets
review: review | reviews | reviewed | reviewer | reviewers | code review | code reviews | approval
    | approvals | lgtm | peer review | reviewen | revue de code | revision de codigo | revisione
    | revisao | codereview
ci: ci | ci cd | continuous integration | pipeline | pipelines | github actions | gha | gitlab ci
    | circleci | jenkins | travis | buildkite | ci pipeline | build pipeline | ci checks
green / redbuild: green | all green | green build | green ci | ci green | builds green | tests green
    | green tests ! failing | red build | broken build | red tests | tests red | red ci
deploy: deploy | deploys | deploying | deployment | deployments | ship | shipping | release to prod
    | push to prod | go live | rollout | roll out | ausrollen | deployen | deployer | desplegar
    | despliegue | distribuire | implantar | uitrollen
friday: friday | fridays | freitag | freitags | vendredi | vendredis | viernes | venerdi
    | sexta feira | sexta | vrijdag | vrijdags
production: production | prod | prod environment | production environment | produktion | produccion
    | produzione | producao | productie
staging: staging | preprod | pre prod | pre production | uat
# -- code style ------------------------------------------------------------------------------
indent: indent | indents | indentation | indenting | indented | einruckung | einrucken | indentacion
    | indentazione | indentacao | inspringen | inspringing
tab: tab | tabs | hard tabs | tab character | tab characters | tabulator | tabulations | tabulacion
    | tabulazione | tabulacao
space: space | spaces | soft tabs | leerzeichen | espaces | espacios | spazi | espacos | spaties
linelength: line length | line lengths | max line length | maximum line length | line width
    | line limit | column limit | columns wide | characters per line | chars per line | zeilenlange
    | longueur de ligne | longitud de linea | lunghezza della riga | regellengte
quote: quote | quotes | quotation marks | quoting | anfuhrungszeichen | guillemets | comillas
    | virgolette | aspas | aanhalingstekens
trailingcomma: trailing comma | trailing commas | dangling comma | dangling commas
semicolon: semicolon | semicolons | semi colons | semis
format: format | formatter | formatting | formatted | autoformat | auto format | autoformatter
    | code formatter | formatieren | formatage | formatear | formattare | formatar | formatteren
lint: lint | linter | linters | linting | linted | static analysis | lint checks | lint errors
    | lint warnings
hint: type hint | type hints | typehint | typehints | type annotation | type annotations | annotate
    | annotated | annotation | annotations | static types | static typing | type signatures
    | fully typed | typisierung | typannotationen | anotaciones de tipo | annotazioni di tipo
    | anotacoes de tipo | type hints
anytype: any type | type any | the any type | as any | any types | untyped
strict: strict | strict mode | strictness | strict typing | strict type checking | noimplicitany
fstring / oldformat: fstring | fstrings | f string | f strings | string interpolation
    | template literal | template literals | template strings ! percent formatting | % formatting
    | format() | .format() | str.format | .format | string concatenation | concatenating strings
snake: snake | snakecase | underscores
camel: camel | camelcase | lower camel
pascal: pascal | pascalcase | upper camel | upper camelcase
kebab: kebab | kebabcase | dash case | hyphenated names
upper: uppercase | upper case | all caps | screaming snake | capitals | capital letters
    | capitalized | grossbuchstaben | majuscules | mayusculas | maiuscole | maiusculas
    | hoofdletters
lower: lowercase | lower case | small letters | kleinbuchstaben | minuscules | minusculas
    | minuscole | kleine letters
descriptive / cryptic: descriptive | descriptive names | descriptive variable names
    | meaningful names | meaningful variable names | clear names | readable names
    | self explanatory names | self documenting names | full words | spelled out | sprechende namen
    | noms explicites | nombres descriptivos | nomi descrittivi | nomes descritivos
    | beschrijvende namen ! single letter | single letter names | single letter variables
    | one letter | one letter names | one letter variables | cryptic names | cryptic | abbreviations
    | abbreviated | abbreviate | abbrevs | abkurzungen | abreviations | abreviaturas | abbreviazioni
    | afkortingen
magicnumber: magic number | magic numbers | magic string | magic strings | magic values
    | magic value | hardcoded numbers | unnamed constants | magische zahlen | nombres magiques
    | numeros magicos | numeri magici
hardcode: hardcode | hardcoded | hardcoding | hard code | hard coded | hard coding
    | inline credentials | fest codiert | en dur | codificado | cablato
constant: constant | constants | const | named constant | named constants | konstante | konstanten
    | constante | constantes | costante | costanti
global: global | globals | global state | global variable | global variables | module level state
    | singleton | singletons | globale | globales | variabili globali
immutable / mutable: immutable | immutability | frozen | frozen dataclass | frozen dataclasses
    | readonly | read only | unveranderlich | immuable | inmutable | immutabile | imutavel
    | onveranderlijk ! mutable | mutation | mutations | mutate | mutating | mutated | side effects
    | side effect
pure: pure | pure function | pure functions | referentially transparent
composition / inheritance: composition | delegation | favor composition ! inheritance | inherit
    | inheriting | subclass | subclasses | subclassing | class hierarchy | class hierarchies
    | deep hierarchies | vererbung | heritage | herencia | ereditarieta | heranca | overerving
funccomponent / classcomponent: function component | function components | functional component
    | functional components | react hooks ! class component | class components
    | class based components
dataclass: dataclass | dataclasses | attrs | namedtuple | named tuple
enum: enum | enums | enumeration | enumerations | string enum | literal types
nesting / flatcode: deep nesting | deeply nested | nested ifs | nested if | nested conditionals
    | arrow code | pyramid of doom | callback hell ! guard clause | guard clauses | early return
    | early returns | return early | bail out early | bail early
asyncawait / callback: async await | async/await | async and await | asyncio ! then chains
    | then chain | .then() | .then | promise chains | promise chain | callbacks | callback style
arrowfunction: arrow function | arrow functions | fat arrow | fat arrows
comprehension: comprehension | comprehensions | list comprehension | list comprehensions
    | dict comprehension | generator expression | generator expressions
walrus: walrus | walrus operator | assignment expression | assignment expressions
wildcard: wildcard import | wildcard imports | star import | star imports | import *
relativeimport / absoluteimport: relative import | relative imports ! absolute import
    | absolute imports
pathlib / ospath: pathlib | path objects | pathlib.path ! os.path | os path | string paths
equality / looseequality: triple equals | strict equality ! double equals | loose equality
semantichtml: semantic html | semantic markup | semantic elements
css: css | stylesheet | stylesheets
# -- comments and docs ------------------------------------------------------------------------
comment: comment | comments | commented | commenting | code comment | code comments | inline comment
    | inline comments | kommentar | kommentare | commentaire | commentaires | comentario
    | comentarios | commento | commenti | comentario | commentaar | commentaren
obvious: obvious | obvious comments | redundant | redundant comments | noise comments
    | useless comments | restate the code | restates the code | restating the code
    | says what the code does | what the code does | trivial comments | self evident
docstring: docstring | docstrings | doc comment | doc comments | doc string | doc strings
    | documentation comment | documentation comments | jsdoc | javadoc | rustdoc | godoc | pydoc
    | tsdoc | xml docs | xml doc comments
docs: docs | doc | documentation | document | documents | documenting | documented | dokumentation
    | doku | dokumentieren | documentation | documenter | documentacion | documentar
    | documentazione | documentare | documentacao | documentatie | documenteren
readme: readme | read me | readme.md | readme file
adr: adr | adrs | architecture decision record | architecture decision records | decision record
    | decision records | design doc | design docs
todo: todo | todos | to do comment | fixme | fixmes | xxx comments | hack comment | hack comments
deadcode: dead code | commented out code | unused code | commented code | unreachable code
    | code that is commented out | auskommentierter code | code mort | codigo muerto | codice morto
    | codigo morto | dode code
unused: unused | unused import | unused imports | unused variable | unused variables
    | unused parameters | unused functions
license: license | licence | license header | license headers | spdx | copyright header
    | copyright headers | lizenz | licencia | licenza | licenca | licentie
# -- logging and errors -----------------------------------------------------------------------
log / printcall: log | logs | logging | logger | loggers | logged | log line | log lines
    | log messages | protokoll | protokollieren | journalisation | journaliser | registro
    | registrar | registrazione | loggen ! print statement | print statements | print calls
    | print() | console.log | console.log() | println | printf | printf debugging | print debugging
    | echo statements | fmt.println | system.out.println | dbg!
structlog: structured logging | structured logs | json logs | json logging | structlog | log fields
    | key value logging
loglevel: log level | log levels | loglevel | debug level | info level | verbosity level
exception / errorcode: exception | exceptions | throw | throws | throwing | thrown
    | raise an exception | raise exceptions | raise an error | raise errors | raising
    | exceptions for errors | ausnahme | ausnahmen | excepcion | excepciones | eccezione | eccezioni
    | excecao | excecoes | uitzondering ! error codes | error code | return codes | return code
    | status codes | sentinel values | return null | null returns | magic return values
bareexcept / specificexcept: bare except | bare excepts | except: | catch all | catch alls
    | catch everything | catching everything | catch exception | except exception
    | pokemon exception handling | swallow errors | swallow exceptions | swallowing errors
    | swallowing exceptions | swallowed | silence errors | silencing errors | silently ignore
    | ignore errors | ignoring errors | empty catch | empty catch block | empty except
    ! specific exceptions | specific exception | narrow exceptions | catch specific
result: result type | result types | errors as values | error values | return errors
    | returning errors | either type
unwrap: unwrap | unwraps | unwrap() | .unwrap() | expect() | force unwrap | force unwraps
    | force unwrapping | force unwrapped
panic: panic | panics | panicking | panic!
errorwrap: wrap errors | wrapping errors | error wrapping | wrapped errors | add context to errors
    | error context | errors.wrap | fmt.errorf
retry: retry | retries | retrying | backoff | exponential backoff | retry logic | retry loop
timeout: timeout | timeouts | time out | time limit | deadline | deadlines
assert: assert | asserts | assertion | assertions | assert statements
validation: validate | validates | validating | validation | validated | sanitize | sanitise
    | sanitizing | sanitising | sanitization | sanitisation | input validation | validieren
    | validierung | valider | validation | validar | validacion | validare | validazione | validacao
    | valideren
# -- dependencies ------------------------------------------------------------------------------
dependency: dependency | dependencies | deps | dep | third party | third party packages
    | third party libraries | third party libs | external packages | external libraries
    | external libs | new packages | new libraries | new libs | extra packages | extra libraries
    | additional packages | additional libraries | abhangigkeit | abhangigkeiten | dependance
    | dependances | dependencia | dependencias | dipendenza | dipendenze | dependencia
    | afhankelijkheid | afhankelijkheden | package | packages
pin / unpin: pin | pins | pinned | pinning | exact version | exact versions | pinned versions
    | version pins | lock file | lockfile | lock files | lockfiles | locked versions | uv.lock
    | poetry.lock | package lock | cargo.lock | renv.lock | renv::snapshot() | snapshot renv
    | yarn.lock | go.sum | gemfile.lock | composer.lock | pipfile.lock | package lock.json
    | pnpm lock.yaml | update the lockfile ! version ranges | floating versions | unpinned
    | latest version | latest versions
upgrade: upgrade | upgrades | upgrading | upgraded | bump | bumps | bumping | bumped
    | update dependencies | dependabot | renovate
stdlib: stdlib | standard library | std lib | builtins | built in modules | batteries included
    | standardbibliothek | bibliotheque standard | biblioteca estandar | libreria standard
    | biblioteca padrao | standaardbibliotheek
vendor: vendor | vendored | vendoring | vendor folder | vendor directory | vendored copies
venv: venv | virtualenv | virtual env | virtual environment | virtual environments | .venv
    | virtualenvs
# -- tests --------------------------------------------------------------------------------------
tests: tests | test | tested | testing | test suite | test suites | unit test | unit tests | spec
    | specs | test cases | test case | testfalle | tests unitaires | pruebas | prueba
    | pruebas unitarias | test unitari | testes | teste | testes unitarios | testen
tdd: tdd | test first | tests first | test driven | test driven development | red green refactor
    | red green | write the test first | write tests first | failing test first
coverage: coverage | code coverage | test coverage | cov | line coverage | branch coverage
    | abdeckung | testabdeckung | couverture | cobertura | copertura | dekking
mock / unmocked: mock | mocks | mocking | mocked | stub out | fakes | test doubles | monkeypatch
    | monkeypatching | patch out | mock objects | mockato | mockare | mocken | gemockt | simuler
    ! real database | real db | real databases | live database | actual database | real services
    | real network | real api
fixture: fixture | fixtures | test data | factories | factory boy
propertybased: property based | property based tests | property based testing | property tests
    | hypothesis tests | quickcheck | proptest | fuzzing | fuzz tests | fast check
integration: integration test | integration tests | integration testing | end to end | e2e
    | e2e tests | end to end tests | system tests | acceptance tests
snapshot: snapshot | snapshots | snapshot tests | snapshot testing | golden files | golden tests
flaky: flaky | flakey | flakes | flakiness | intermittent failures | intermittently failing
skiptest: skipping tests | skipped tests | skip markers | xfail | xfails | pytest.mark.skip
    | mark.skip | @skip | disabled tests | disable tests | disabling tests | comment out tests
    | commenting out tests | commented out tests | it.skip | test.skip
# -- security ------------------------------------------------------------------------------------
secret: secret | secrets | credential | credentials | creds | api key | api keys | apikey | apikeys
    | password | passwords | passwd | private key | private keys | access key | access keys
    | access token | access tokens | auth token | auth tokens | tokens and keys | geheimnisse
    | zugangsdaten | passwort | passworter | secrets | identifiants | mot de passe | mots de passe
    | secretos | credenciales | contrasena | contrasenas | segreti | credenziali | segredos
    | credenciais | senha | senhas | geheimen | wachtwoord | wachtwoorden
env: env | env var | env vars | environment variable | environment variables | dotenv | .env
    | env file | env files | umgebungsvariablen | variables d'environnement | variables de entorno
    | variabili d'ambiente | variaveis de ambiente | omgevingsvariabelen
sudo: sudo | as root | run as root | root user | superuser | root privileges | doas
pii: pii | personal data | personal information | personally identifiable | user data
    | customer data | gdpr | personenbezogene daten | donnees personnelles | datos personales
    | dati personali | dados pessoais | persoonsgegevens
parameterized: parameterized | parameterised | parameterized queries | parameterised queries
    | parameterized query | prepared statement | prepared statements | bind parameters | bind params
    | bound parameters | query parameters | placeholders in sql
orm / rawsql: orm | orms | query builder | query builders | active record | ecto | query dsl
    | activerecord | hibernate | jpa | sequelize | typeorm | knex | django orm ! raw sql | raw query
    | raw queries | hand written sql | handwritten sql | sql strings | sql string | sql fragments
    | sql text | string built sql | sql string concatenation | string concatenation in sql
    | fstrings in sql | format strings in sql
eval: eval | exec | eval() | exec() | dynamic code execution
shelltrue: shell=true | shell true | os.system | subprocess with shell
https / plainhttp: https | tls | ssl | encrypted connections ! plain http | unencrypted | http only
verifyssl: verify=false | verify false | certificate verification | cert verification
    | ssl verification | tls verification | insecure skip verify | insecureskipverify
    | rejectunauthorized
auth: auth | authentication | authenticate | authenticated | authn | login required | logged in
authz: authorization | authorisation | authz | permission check | permission checks | access control
    | rbac | acl | acls
crypto: roll your own crypto | custom crypto | homemade crypto | own crypto
hash: hashing | hashed | hash passwords | password hashing | bcrypt | argon2 | scrypt
cve: cve | cves | vulnerability | vulnerabilities | security advisories | audit | npm audit
    | pip audit | cargo audit
# -- time, data, i18n ---------------------------------------------------------------------------
utc / localtime: utc | gmt | zulu | timezone aware | tz aware | aware datetimes | aware datetime
    | timezone aware datetimes | utc timestamps | utc times | utc dates | in utc ! local time
    | local times | naive datetimes | naive datetime | naive timestamps | server time
iso: iso 8601 | iso8601 | iso format | iso dates | iso timestamps | isoformat | rfc 3339 | rfc3339
i18n / untranslated: i18n | internationalization | internationalisation | localization
    | localisation | l10n | translations | translatable | translatable strings | gettext
    | translation | translation keys | translation files | translation key | __() | traduzione
    | traduzioni | traduccion | traducciones | ubersetzung | ubersetzungen | traduction
    | traductions | vertaling | vertalingen | traducao | traducoes ! hardcoded strings
    | hard coded strings | hardcoded text | hard coded text | literal strings | untranslated strings
a11y: a11y | accessibility | accessible | aria | aria labels | screen reader | screen readers
    | alt text | alt attributes | wcag | barrierefreiheit | accessibilite | accesibilidad
    | accessibilita | acessibilidade | toegankelijkheid
money: money | currency | monetary | amounts | prices
decimal / float: decimal | decimals | integer cents | cents | minor units | fixed point ! float
    | floats | floating point | doubles
unit: units | si units | metric | imperial
# -- process and collaboration -------------------------------------------------------------------
ask: ask me | ask me first | ask first | check with me | confirm with me | run it by me
    | run it past me | get my ok | get my okay | get my approval | get my sign off | consult me
    | permission | my permission | frag mich | frag erst | demande moi | demande moi d'abord
    | preguntame | pregunta first | chiedimi | chiedi first | pergunte me | pergunte primeiro
    | vraag mij | vraag eerst | my ok | my okay | my approval | my permission | my sign off
    | my go ahead | chiedimelo | preguntame | fragt mich | frag mich vorher | vraag me
explain: explain | explaining | explanation | explanations | explain yourself | erklar | erklaren
    | erklarung | expliquer | explique | explication | explicar | explicacion | explicaciones
    | spiegare | spiegazione | spiegazioni | explicar | explicacao | uitleggen | uitleg | explicame
    | erklar mir | explique moi | spiegami | explica me
diff: diff | diffs | unified diff | patch file | patches
minimaldiff: minimal changes | minimal diff | minimal diffs | smallest change
    | smallest possible change | small diffs | focused changes | surgical changes | surgical
    | scope creep | drive by changes | drive by refactors | unrelated changes
refactor: refactor | refactors | refactoring | refactored | restructure | restructuring | rewrite
    | rewrites | rewriting | cleanup | clean up | umbauen | refaktorisieren | refactoriser
    | refactorizar | rifattorizzare | refatorar | herstructureren
generated: generated | generated files | generated code | autogenerated | auto generated | codegen
    | code generation | build artifacts | artifacts | dist folder | build output
migration: migration | migrations | db migration | database migration | database migrations
    | schema migration | schema migrations | schema change | schema changes | alembic | flyway
    | liquibase | migrationen | migracion | migraciones | migrazione | migrazioni | migracao
    | migracoes | migratie | migraties
backup: backup | backups | back up | snapshot the database | dump | dumps
destructive: destructive | destructive commands | destructive operations | rm rf | rm -rf
    | drop table | drop tables | truncate table | delete the database | wipe | wiping
monorepo: monorepo | mono repo | single repo | one repository
perf: performance | perf | speed | fast | faster | latency | throughput | efficient | efficiency
    | optimize | optimise | optimization | optimisation
premature: premature optimization | premature optimisation | optimize later | make it work first
    | measure first | profile first | benchmark first
benchmark: benchmark | benchmarks | benchmarking | profile | profiling | profiler | perf numbers
cache: cache | caches | caching | cached | memoize | memoization | memoise
api: api | apis | endpoint | endpoints | route | routes | rest api | rest endpoints
versioning: api versioning | versioned api | versioned endpoints | v1 prefix | breaking changes
    | backwards compatible | backward compatible | backwards compatibility | backward compatibility
    | compat
smartpointer / rawnew: smart pointer | smart pointers | unique_ptr | make_unique | shared_ptr
    | make_shared | std::unique_ptr | std::make_unique | std::shared_ptr | std::make_shared | raii
    ! raw new | naked new | new/delete | raw pointers | raw pointer | owning raw pointers
    | manual memory management | manual memory | malloc/free
database: database | databases | db | dbs | data layer | persistence layer | datastore | data store
    | persistence
"""

# Values of one setting, one setting a line: two rules that want different values are two
# rules ("use pnpm" / "use npm"), however alike the rest.
VALUES = """
npm pnpm yarn bun
pip uv poetry pipenv conda
pytest unittest
jest vitest mocha
ruff flake8 pylint
black ruff
prettier eslint
mypy pyright
postgres mysql mariadb sqlite mongodb dynamodb
pandas polars
axios fetch
moment dayjs datefns
github gitlab
aws gcp azure
docker podman
esm commonjs
formal casual
upper lower
"""


def table(groups: str = GROUPS) -> tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...]:
    """The groups as (name, opposite word or "", members, opposite members)."""
    out = []
    lines: list[str] = []
    for line in groups.splitlines():
        if line.startswith(" ") and lines:
            lines[-1] += " " + line.strip()  # a group continued
        elif line.strip() and not line.startswith("#"):
            lines.append(line.strip())
    for line in lines:
        head, _, body = line.partition(": ")
        name, _, opposite = (p.strip() for p in head.partition("/"))
        same, _, other = body.partition(" ! ")
        out.append((name, opposite, _members(same), _members(other)))
    return tuple(out)


def _members(text: str) -> tuple[str, ...]:
    return tuple(m.strip().rstrip("?") for m in text.split(" | ") if m.strip().rstrip("?"))

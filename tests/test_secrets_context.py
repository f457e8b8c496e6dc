"""Credentials told by their context, not their shape (issue 27), and their redaction.

Five classes, each a list of labelled cases: positives (a credential the place states:
a URL's userinfo, a command-line flag, a login call's second string, a sentence, a header
named `…-Key`) and near-miss negatives (prose about passwords, `-p 8080`, `password_policy`,
digests, git SHAs, UUIDs, paths, versions, placeholders). Every secret is assembled at run
time from words, digits and random characters, so this file holds none (it is scanned, last
test); a failure names cases, never a value.
"""

from __future__ import annotations

import random
import string
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory.scanfiles import scan_paths
from lean_memory.secrets import format_finding, redact, redact_path, scan_text

from .conftest import run_cli

AN = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
_R = random.Random(27)
# Words with no placeholder or weak word inside ("test", "pass", "key", "demo" ...).
_WORDS = ("tulip", "rocket", "canyon", "harbor", "maple", "falcon", "velvet", "copper",
          "orbit", "meadow", "lantern", "pebble", "thistle", "walnut", "quartz", "juniper")


def rnd(alphabet: str, n: int) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def word() -> str:
    return _R.choice(_WORDS)


def wordpw() -> str:
    """A password made of words and a number, as people choose them: "tulipcanyon42harbor"."""
    a, b, c = _R.sample(_WORDS, 3)
    return f"{a}{b}{_R.randint(10, 99)}{c}"


def passphrase() -> str:
    a, b, c = _R.sample(_WORDS, 3)
    return f"{a.capitalize()}-{b.capitalize()}-{_R.randint(10, 99)}-{c.capitalize()}"


def key(n: int = 32) -> str:
    """A random key with capitals, small letters and digits, as services issue them."""
    return rnd(AN, n - 3) + rnd(string.digits, 1) + rnd(string.ascii_uppercase, 1) + rnd(
        string.ascii_lowercase, 1)


def hexs(n: int) -> str:
    return rnd(HEX, n)


Positive = tuple[str, Callable[[], tuple[str, str]]]  # name, () -> (text, secret)


def _pair(secret: str, template: str) -> tuple[str, str]:
    """(text, secret): ``template`` with the secret in place of ``{}``."""
    return template.format(secret), secret
Negative = tuple[str, Callable[[], str]]


def _check(positives: list[Positive], negatives: list[Negative]) -> None:
    """Every positive found (3 draws) with its value never shown; every negative clean."""
    assert len(positives) + len(negatives) >= 20 and len(negatives) >= 8
    bad: list[str] = []
    for name, make in positives:
        for _ in range(3):
            text, secret = make()
            found = scan_text(text)
            if not found:
                bad.append(f"missed: {name}")
                break
            shown = redact(text) + "".join(format_finding(f) for f in found)
            if secret in shown:
                bad.append(f"value shown: {name}")
                break
    for name, make_neg in negatives:
        for _ in range(3):
            found = scan_text(make_neg())
            if found:
                bad.append(f"flagged: {name} ({sorted({f.rule for f in found})})")
                break
    assert not bad, bad


# ---------------------------------------------------------------------------------------------
# 1. Connection URLs: the userinfo password is a credential whatever its entropy.

URL_POSITIVES: list[Positive] = [
    ("issue example, documentation host",
     lambda: _pair(wordpw(), "postgresql://ci:{}@db-prod-1.example.net:5432/orders")),
    ("mysql dsn", lambda: _pair(wordpw(), "DSN=mysql://app:{}@10.0.3.7:3306/app")),
    ("redis no user", lambda: _pair(wordpw(), "redis://:{}@cache.internal:6379/0")),
    ("amqp", lambda: _pair(wordpw(), "broker_url = 'amqp://deploy:{}@mq.acme.io:5672//'")),
    ("mongodb srv",
     lambda: _pair(wordpw(), "mongodb+srv://svc:{}@cluster0.ab12c.mongodb.net/prod")),
    ("git remote", lambda: _pair(wordpw(), "git clone https://bot:{}@git.acme.io/o/r.git")),
    ("passphrase in env",
     lambda: _pair(passphrase(), 'DATABASE_URL="postgres://app:{}@db:5432/app"')),
    ("proxy", lambda: _pair(wordpw(), "export https_proxy=http://u1:{}@proxy.corp:3128")),
    ("sqlalchemy driver",
     lambda: _pair(wordpw(), "postgresql+psycopg2://etl:{}@warehouse/analytics")),
    ("ftp", lambda: _pair(wordpw(), "ftp://backup:{}@ftp.acme.io/nightly/")),
    ("symbols", lambda: _pair(f"{word()}!{_R.randint(100, 999)}{word()}",
                         "amqps://ops:{}@rabbit.acme.io")),
    ("words and digit on example.com",
     lambda: _pair(wordpw(), "see http://admin:{}@example.com/admin")),
]
URL_NEGATIVES: list[Negative] = [
    ("word placeholder", lambda: "postgresql://ci:password@db.acme.net:5432/orders"),
    ("env placeholder", lambda: "postgresql://ci:${DB_PASS}@db:5432/orders"),
    ("angle placeholder", lambda: "postgresql://ci:<password>@db:5432/orders"),
    ("stars", lambda: "postgresql://ci:***@db:5432/orders"),
    ("changeme", lambda: "postgresql://ci:changeme@db:5432/orders"),
    ("jinja", lambda: "postgresql://ci:{{ db_password }}@db:5432/orders"),
    ("shell var", lambda: "mysql://root:$MYSQL_ROOT_PASSWORD@db/app"),
    ("printf", lambda: "postgresql://%s:%s@%s/%s"),
    ("port, no password", lambda: "postgresql://localhost:5432/orders"),
    ("user only", lambda: "https://bot@git.acme.io/o/r.git"),
    ("scp syntax", lambda: "git@github.com:acme/infra.git"),
    ("ipv6 host", lambda: "http://[::1]:8080/healthz"),
    ("documentation word", lambda: "http://evil:thing@example.com/"),
    ("masked", lambda: "redis://:" + "\u2022" * 4 + "@cache:6379"),
    ("percent-encoded placeholder", lambda: "http://john%40acme.io:P%40SSWORD@localhost:3128/"),
    ("short on example host", lambda: "https://user:p%2Fss@artifactory.example.com/nodejs"),
]


def test_url_passwords_by_place() -> None:
    """Bug: a word-like password in a URL on a documentation host (the issue's
    `…@db-prod-1.example.net`) was not flagged; placeholders must still pass."""
    _check(URL_POSITIVES, URL_NEGATIVES)


# ---------------------------------------------------------------------------------------------
# 2. Passwords on command lines.

CLI_POSITIVES: list[Positive] = [
    ("mysql -p quoted", lambda: _pair(wordpw(), "mysql -u root -p'{}' orders")),
    ("mysql -p double quoted", lambda: _pair(wordpw(), 'mysqldump -u root -p"{}" app')),
    ("mysql -p glued", lambda: _pair(wordpw(), "mysql -h db -u root -p{} orders")),
    ("--password=", lambda: _pair(wordpw(), "mysqladmin -u root --password={} status")),
    ("--password space", lambda: _pair(wordpw(), "vault-cli login --password {}")),
    ("PGPASSWORD", lambda: _pair(wordpw(), "PGPASSWORD={} psql -h db -U app")),
    ("MYSQL_PWD", lambda: _pair(wordpw(), "MYSQL_PWD={} mysql -u root")),
    ("export", lambda: _pair(wordpw(), "export DB_PASSWORD={}")),
    ("docker -e", lambda: _pair(wordpw(),
                           "docker run -e POSTGRES_PASSWORD={} postgres:16")),
    ("sshpass", lambda: _pair(wordpw(), "sshpass -p {} ssh deploy@10.0.0.9")),
    ("curl -u", lambda: _pair(wordpw(), "curl -u deploy:{} https://api.acme.io")),
    ("curl --user quoted", lambda: _pair(key(14), "curl --user kevin:'{}' -X PATCH")),
    ("redis-cli -a", lambda: _pair(wordpw(), "redis-cli -h cache -a {} ping")),
    ("openssl pass:", lambda: _pair(wordpw(),
                               "openssl pkcs12 -export -passout pass:{} -out a.p12")),
    ("ACRPWD", lambda: _pair(key(16), "ACRPWD={}")),
]
CLI_NEGATIVES: list[Negative] = [
    ("docker port", lambda: "docker run -p 8080:80 nginx"),
    ("ssh port", lambda: "ssh -p 2222 deploy@host"),
    ("mysql prompt", lambda: "mysql -u root -p"),
    ("mysql prompt then db", lambda: "mysql -u root -p orders"),
    ("password-stdin", lambda: "echo $TOKEN | docker login --password-stdin ghcr.io"),
    ("PGPASSWORD from env", lambda: "PGPASSWORD=$PGPASSWORD psql -h db"),
    ("export template", lambda: "export DB_PASSWORD=${DB_PASSWORD}"),
    ("flag placeholder", lambda: "--password=<pass>"),
    ("flag changeme", lambda: "mysql --password=changeme"),
    ("flag prompt", lambda: "tool --password=prompt"),
    ("curl vars", lambda: "curl -u $USER:$TOKEN https://api.acme.io"),
    ("sshpass env", lambda: "sshpass -e ssh deploy@host"),
    ("mysql quoted var", lambda: 'mysql -p"$MYSQL_PASSWORD" app'),
    ("pytest plugin flag", lambda: "pytest -p no:cacheprovider -q"),
    ("password file", lambda: "--password-file /run/secrets/db_password"),
    ("commit message", lambda: 'git commit -m "rotate the db password"'),
]


def test_command_line_passwords() -> None:
    """Bug: `mysql -p'…'`, `--password=…`, `PGPASSWORD=… psql` and `ACRPWD=…` with a
    password of words and digits were not flagged; ports and prompts must not be."""
    _check(CLI_POSITIVES, CLI_NEGATIVES)


# ---------------------------------------------------------------------------------------------
# 3. Credentials by position.

def _twilio() -> tuple[str, str]:
    sid, tok = "AC" + hexs(32), hexs(32)
    return f"client = Client('{sid}', '{tok}')", tok


POSITIONAL_POSITIVES: list[Positive] = [
    ("twilio Client", _twilio),
    ("twilio Client double quotes",
     lambda: _pair(hexs(32), f'Client("AC{hexs(32)}", "{{}}")')),
    ("rest client", lambda: _pair(key(40), 'api = RestClient("acme", "{}")')),
    ("smtp login", lambda: _pair(wordpw(), 'smtp.login("alerts@acme.io", "{}")')),
    ("ftp login", lambda: _pair(key(14), "ftp.login('backup', '{}')")),
    ("imap login", lambda: _pair(passphrase(), "imap.login('ops@acme.io', '{}')")),
    ("requests auth tuple", lambda: _pair(key(24),
                                     'requests.get(url, auth=("api", "{}"))')),
    ("HTTPBasicAuth", lambda: _pair(wordpw(), 'HTTPBasicAuth("deploy", "{}")')),
    ("HTTPDigestAuth", lambda: _pair(wordpw(), "HTTPDigestAuth('admin', '{}')")),
    ("aiohttp BasicAuth", lambda: _pair(key(20), 'aiohttp.BasicAuth("svc", "{}")')),
    ("NetworkCredential", lambda: _pair(wordpw(),
                                   'new NetworkCredential("svc", "{}");')),
    ("pymysql connect", lambda: _pair(wordpw(),
                                 'pymysql.connect("db.internal", "app", "{}", "orders")')),
    ("boto3 positional", lambda: _pair(key(40).replace("_", "A"),
                                  "boto3.client('s3', 'eu-west-1', None, False, True, None, "
                                  f"'AKIA{rnd(string.ascii_uppercase + '234567', 16)}', '{{}}')")),
    ("redis keyword", lambda: _pair(wordpw(), "r = Redis(host='cache', password='{}')")),
]
POSITIONAL_NEGATIVES: list[Negative] = [
    ("variables", lambda: "smtp.login(user, password)"),
    ("placeholder word", lambda: 'smtp.login("user", "password")'),
    ("same as user", lambda: 'ftp.login("admin", "admin")'),
    ("test fixture words", lambda: "self.server.login('testuser', 'testpw')"),
    ("env lookup", lambda: 'HTTPBasicAuth(USER, os.environ["API_PASSWORD"])'),
    ("angle placeholder", lambda: 'auth=("user", "<token>")'),
    ("tuple of names", lambda: "auth=(username, password)"),
    ("twilio placeholders", lambda: "Client('AC" + "x" * 32 + "', 'your_auth_token')"),
    ("twilio from env", lambda: f"Client('AC{hexs(32)}', os.environ['TWILIO_AUTH_TOKEN'])"),
    ("one repeated char", lambda: f"Client('AC{hexs(32)}', '" + "a" * 32 + "')"),
    ("empty password", lambda: 'pymysql.connect("localhost", "root", "")'),
    ("template", lambda: 'pymysql.connect("db", "app", "${DB_PASSWORD}")'),
    ("sqlite path", lambda: 'sqlite3.connect("app.db")'),
    ("socket address", lambda: 'sock.connect(("10.0.0.1", 8080))'),
    ("getpass", lambda: 'imap.login("me@acme.io", getpass.getpass())'),
    ("region and stage", lambda: 'Client("us-east-1", "prod")'),
]


def test_credentials_by_position() -> None:
    """Bug: `Client('AC…', '<32 hex>')` (the hex read as a digest) and `.login("u", "…")`,
    `HTTPBasicAuth(…)`, `auth=(…)` pairs were not flagged."""
    _check(POSITIONAL_POSITIVES, POSITIONAL_NEGATIVES)


# ---------------------------------------------------------------------------------------------
# 4. Credentials in prose.

PROSE_POSITIVES: list[Positive] = [
    ("root pw", lambda: _pair(wordpw(), "root pw: {}")),
    ("vendor portal pair",
     lambda: _pair(wordpw(), "Login for the vendor portal: ops@acme.io / {}")),
    ("the password is", lambda: _pair(wordpw(), "the password is {}")),
    ("db password is now", lambda: _pair(wordpw(), "The DB password is now {}.")),
    ("staging login", lambda: _pair(wordpw(), "Staging login: deploy / {}")),
    ("creds are", lambda: _pair(key(14), "creds are deploy:{}")),
    ("wifi password", lambda: _pair(wordpw(), "Office wifi password: {}")),
    ("pw =", lambda: _pair(wordpw(), "pw = {}")),
    ("password for", lambda: _pair(passphrase(),
                              "Password for the admin console: {}")),
    ("password for user is", lambda: _pair(wordpw(),
                                      "The new password for svc-backup is {}")),
    ("credentials pair", lambda: _pair(wordpw(), "credentials: ci / {}")),
    ("pw is", lambda: _pair(wordpw(), "Our vendor pw is {}")),
]
PROSE_NEGATIVES: list[Negative] = [
    ("required", lambda: "the password is required"),
    ("stored", lambda: "the password is stored in Vault under secret/db"),
    ("masked", lambda: "password: ********"),
    ("policy prose", lambda: "The password must be at least 12 characters long."),
    ("reset", lambda: "Reset the password via the vendor portal."),
    ("policy key", lambda: "password_policy: min_length=12"),
    ("policy assignment", lambda: "password_policy = strict"),
    ("see manager", lambda: "pw: see 1Password"),
    ("pair without digit", lambda: "Login: admin / ask-ops"),
    ("same as user", lambda: "the password is the same as the username"),
    ("in vault", lambda: "root pw: (in vault)"),
    ("weak", lambda: "The pw is changeme"),
    ("angle placeholder", lambda: "password: <your password>"),
    ("env placeholder", lambda: "pw: ${ROOT_PW}"),
    ("rotated on a date", lambda: "the password was rotated on 2024-05-01"),
    ("strong password advice", lambda: "Use a strong password for the vendor portal."),
]


def test_credentials_in_prose() -> None:
    """Bug: "root pw: …", "Login for the vendor portal: <email> / …" and "the password is
    <words and digits>" were not flagged; prose about passwords must not be."""
    _check(PROSE_POSITIVES, PROSE_NEGATIVES)


# ---------------------------------------------------------------------------------------------
# 5. Keys named by their context.

CONTEXT_POSITIVES: list[Positive] = [
    ("debug log", lambda: _pair(key(28), "[DEBUG] Using Key={}")),
    ("query string", lambda: _pair(key(32),
                              "GET https://api.acme.io/v1/items?api_key={}&page=2")),
    ("query key=", lambda: _pair(key(32), "https://maps.acme.io/tile?key={}&z=3")),
    ("vendor header", lambda: _pair(key(36), "X-Acme-Key: {}")),
    ("vendor header in curl", lambda: _pair(key(32),
                                       "curl -H 'X-Vendor-Key: {}' https://x.io")),
    ("header in json", lambda: _pair(key(32), '{{"X-Partner-Key": "{}"}}')),
    ("go token", lambda: _pair(key(36), 'token := "{}"')),
    ("log key=", lambda: _pair(key(40), "api response: key={} status=200")),
    ("creds", lambda: _pair(key(24), "creds = {}")),
    ("numbered token", lambda: _pair(key(48), 'some_api_token_123 = "{}"')),
    ("long number token", lambda: _pair("".join(_R.choice(string.digits) for _ in range(32)),
                                   "discord_token = {}")),
    ("dotted vault token", lambda: _pair("s." + key(24), "token: {}")),
    ("lower-case random", lambda: _pair(f"clrv{rnd('bcdfghjklmnpqrstvwxz', 4)}0oztx3{rnd(HEX, 6)}",
                                   "dropbox_token: {}")),
]
CONTEXT_NEGATIVES: list[Negative] = [
    ("one char", lambda: "[DEBUG] Using Key=" + "a" * 28),
    ("typed pattern", lambda: "Key=" + "abcd1234" * 3),
    ("xxxx", lambda: "X-Acme-Key: " + "x" * 32),
    ("example", lambda: "api_key=EXAMPLE" + key(20)),
    ("sort key", lambda: f"sort_key={key(24)}"),
    ("cache key", lambda: f"cache_key=user:{_R.randint(1, 9999)}:{key(20)}"),
    ("uuid", lambda: f"X-Idempotency-Key: {uuid.UUID(int=_R.getrandbits(128), version=4)}"),
    ("digest", lambda: f"key=sha256:{hexs(64)}"),
    ("object path", lambda: f"?key=cloudformation/{uuid.UUID(int=_R.getrandbits(128))}"),
    ("websocket nonce", lambda: f"Sec-WebSocket-Key: {key(22)}=="),
    ("result key", lambda: f'"result_key": "{key(24)}"'),
    ("git sha", lambda: f"Key={hexs(40)}"),
    ("lock-file hash", lambda: f'"integrity": "sha512-{key(86)}=="'),
    ("primary key", lambda: "primary_key=True"),
    ("code with spaces", lambda: f'key = "{key(47)}"'),
    ("path", lambda: "Key=/usr/local/etc/ssl/private/server.pem"),
    ("version", lambda: "key=v1.2.3-rc1"),
    ("template", lambda: "X-Request-Key: {{ request_key }}"),
    ("public key", lambda: f"PublicKey={key(44)}"),
    ("relative path", lambda: "Key=src/auth/key_loader.py"),
    ("snowflake id", lambda: f"discord_token_id = {_R.randint(10**17, 10**18)}"),
    ("id under token", lambda: f'asanaToken = "{_R.randint(10**15, 10**16 - 1)}"'),
]


def test_keys_named_by_context() -> None:
    """Bug: `Using Key=<random>`, `X-<Vendor>-Key: <random>`, `creds = …`, Vault `s.…`
    tokens and 32-digit secrets were not flagged; placeholders, digests, ids must not be."""
    _check(CONTEXT_POSITIVES, CONTEXT_NEGATIVES)


# ---------------------------------------------------------------------------------------------
# Vendor shapes added with the context rules (issue 27's benchmark families).

VENDOR: list[tuple[str, Callable[[], str]]] = [
    ("easypost-api-key", lambda: "EZA" + "K" + key(54)),
    ("sourcegraph-token", lambda: "sgp" + "_" + hexs(16) + "_" + hexs(40)),
    ("intra42-client-secret", lambda: "s-s4t2" + "ud-" + hexs(64)),
    ("dynatrace-token", lambda: "dt0c01" + "." + key(24) + "." + key(64)),
    ("airtable-token", lambda: "pat" + key(14) + "." + hexs(64)),
    ("alibaba-access-key-id", lambda: "LTA" + "I" + key(20)),
    ("adobe-client-secret", lambda: "p8e" + "-" + key(32)),
    ("openshift-token", lambda: "sha256" + "~" + key(43)),
    ("heroku-api-key", lambda: "HRKU" + "-AA" + key(58)),
    ("facebook-access-token", lambda: "EAA" + "M" + key(180)),
    ("stripe-restricted-key", lambda: "rk_" + "prod_" + key(60)),
    ("flyio-token", lambda: "FlyV1 fm1" + "r_" + key(120)),
]


@pytest.mark.parametrize(("rule", "make"), VENDOR, ids=[r for r, _ in VENDOR])
def test_vendor_shape(rule: str, make: Callable[[], str]) -> None:
    """Bug: these issued-token shapes were not recognised at all."""
    for _ in range(3):
        value = make()
        found = scan_text(f"config: {value}\n")
        assert rule in {f.rule for f in found}, f"{rule} not detected"
        assert value not in redact(f"config: {value}\n")


# ---------------------------------------------------------------------------------------------
# Issue 20, item 4: hyphenated tokens in file names, a Slack token after `/`.

def _slack() -> str:
    return ("xox" + "b-" + rnd(string.digits, 12) + "-" + rnd(string.digits, 13) + "-"
            + key(24))


def _gitlab() -> str:
    return "glpat" + "-" + key(20)


def _openai() -> str:
    return "sk-" + "proj-" + key(60) + "T3Blbk" + "FJ" + key(20)


def test_slack_token_after_a_slash_is_found() -> None:
    """Bug: the Slack rule refused a token right after `/` (a path, a URL)."""
    for text in (f"notes/{_slack()}.md", f"https://hooks.acme.io/{_slack()}"):
        assert "slack-token" in {f.rule for f in scan_text(text)}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([_slack, _gitlab, _openai]),
       st.sampled_from(["deploy-{}.txt", "a/{}", "{}-notes.md", "x_{}/y", "notes.{}",
                        "dir/{}/f.txt", "c:\\x\\{}", "{}"]))
def test_redact_path_hides_hyphenated_tokens(make: Callable[[], str], shape: str) -> None:
    """Bug: `redact_path` cut names at every hyphen, so `deploy-xoxb-…`, `glpat-…` and
    `sk-proj-…` names were printed whole."""
    secret = make()
    shown = redact_path(shape.format(secret))
    assert secret not in shown and secret[6:22] not in shown


def test_scan_never_prints_a_token_in_a_file_name(tmp_path: Path) -> None:
    """Bug: `scan` printed file names holding Slack, GitLab and OpenAI tokens unredacted."""
    secrets = [_slack(), _gitlab(), _openai()]
    (tmp_path / f"deploy-{secrets[0]}.txt").write_text(f"GH={_gitlab()}\n")
    (tmp_path / f"{secrets[1]}-notes.md").write_text(f"token: {_slack()}\n")
    (tmp_path / secrets[2]).mkdir()
    (tmp_path / secrets[2] / "f.txt").write_text(f"k={_openai()}\n")
    r = run_cli("scan", ".", cwd=tmp_path)
    out = r.stdout.decode() + r.stderr.decode()
    assert r.returncode == 1, r.stderr
    assert out.count("\n") >= 3
    assert not [s[:5] for s in secrets if s[6:22] in out]
    res = scan_paths([tmp_path])
    assert len(res.findings) >= 3
    assert not any(s[6:22] in (f.path or "") for s in secrets for f in res.findings)


def test_this_file_is_clean() -> None:
    res = scan_paths([__file__])
    assert not res.findings, [format_finding(f) for f in res.findings]

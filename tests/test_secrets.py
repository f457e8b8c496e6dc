"""Tests of the secret scanner.

Every secret here is assembled at run time from a prefix and random characters, so this file
holds no credential (it is itself scanned, last test) and a failing assertion shows only rule
ids and names, never a secret value.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import shutil
import string
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import secrets as S
from lean_memory._secret_rules import GENERIC_KEYWORDS, REFERENCES, RULES
from lean_memory.errors import LeanMemoryError, SecretFound
from lean_memory.scanfiles import scan_paths, scan_staged
from lean_memory.secrets import Allowlist, Finding, format_finding, scan_text

from .conftest import cpu_seconds

AN = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
URLSAFE = AN + "-_"
B64 = AN + "+/"
_R = random.Random(1234)


@pytest.fixture(autouse=True)
def _same_values_in_any_order(request: pytest.FixtureRequest) -> None:
    """Each test draws the same random values whatever ran before it in its process (pytest
    -n spreads tests over workers in no fixed order): a verdict never depends on the order."""
    _R.seed(request.node.nodeid)


def rnd(alphabet: str, n: int) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def pw(n: int) -> str:
    """A random password that is not, by chance, all letters (those can read as a name)."""
    return rnd(AN, n - 2) + rnd(string.digits, 1) + rnd(string.ascii_uppercase, 1)


def b64(n: int) -> str:
    return base64.b64encode(_R.randbytes(n)).decode()


def uuid4() -> str:
    return str(uuid.UUID(int=_R.getrandbits(128), version=4))


def rules_in(text: str) -> set[str]:
    return {f.rule for f in scan_text(text)}


def pem_block(label: str, body_lines: int = 6) -> str:
    lines = "\n".join(b64(48) for _ in range(body_lines))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----\n"


def discord_token() -> str:
    first = base64.b64encode(str(_R.randrange(10**17, 10**19)).encode()).decode().rstrip("=")
    return f"{first}.{rnd(URLSAFE, 6)}.{rnd(URLSAFE, 38)}"


def jwt() -> str:
    def enc(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    head, body = enc({"alg": "HS256", "typ": "JWT"}), enc({"sub": "42", "role": "admin"})
    return f"{head}.{body}.{rnd(URLSAFE, 43)}"


PASSPHRASE = "-".join(["Tulip", "Rocket", "42", "Canyon"])  # the example passphrase

# (expected rule id, sample text). Built lazily so that each run draws fresh random values.
POSITIVES: list[tuple[str, Callable[[], str]]] = [
    (
        "aws-access-key-id",
        lambda: f"AWS_ACCESS_KEY_ID={'AKIA'}{rnd(string.ascii_uppercase + '234567', 16)}\n",
    ),
    (
        "aws-access-key-id",
        lambda: f"temporary creds: {'ASIA'}{rnd(string.ascii_uppercase + string.digits, 16)}\n",
    ),
    ("aws-secret-access-key", lambda: f"aws_secret_access_key = {rnd(B64, 40)}\n"),
    ("aws-secret-access-key", lambda: f'"SecretAccessKey": "{rnd(B64, 40)}",\n'),
    ("aws-session-token", lambda: f"AWS_SESSION_TOKEN={'IQoJb3JpZ2lu'}X2Vj{rnd(B64, 300)}\n"),
    ("google-api-key", lambda: f"key={'AIza'}{rnd(URLSAFE, 35)}\n"),
    ("google-oauth-client-secret", lambda: f"client_secret: {'GOCSPX'}-{rnd(URLSAFE, 28)}\n"),
    ("google-oauth-access-token", lambda: f"token ya29.{rnd(URLSAFE, 100)}\n"),
    (
        "azure-storage-key",
        lambda: (
            f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={b64(64)};EndpointSuffix=core.windows.net\n"
        ),
    ),
    (
        "azure-connection-string",
        lambda: (
            f"Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={b64(32)}\n"
        ),
    ),
    (
        "azure-sas-token",
        lambda: (
            "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&se=2026-01-01&sig="
            + b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
            + "\n"
        ),
    ),
    (
        "azure-ad-client-secret",
        lambda: f"AZURE_CLIENT_SECRET={rnd(AN, 3)}8Q~{rnd(AN + '_~.-', 34)}\n",
    ),
    ("github-pat", lambda: f"GITHUB_TOKEN={'ghp'}_{rnd(AN, 36)}\n"),
    ("github-fine-grained-pat", lambda: f"token: {'github'}_pat_{rnd(AN, 22)}_{rnd(AN, 59)}\n"),
    ("github-oauth-token", lambda: f"{'gho'}_{rnd(AN, 36)}\n"),
    ("github-app-token", lambda: f"installation token {'ghs'}_{rnd(AN, 36)}\n"),
    ("github-refresh-token", lambda: f"refresh={'ghr'}_{rnd(AN, 36)}\n"),
    ("gitlab-pat", lambda: f"GITLAB_TOKEN={'glpat'}-{rnd(URLSAFE, 20)}\n"),
    ("gitlab-token", lambda: f"runner token {'glrt'}-{rnd(URLSAFE, 20)}\n"),
    (
        "slack-token",
        lambda: (
            f"SLACK_BOT_TOKEN={'xoxb'}-{rnd(string.digits, 12)}-{rnd(string.digits, 13)}-"
            f"{rnd(AN, 24)}\n"
        ),
    ),
    (
        "slack-webhook",
        lambda: (
            f"url: https://hooks.slack.com/services/T{rnd(string.ascii_uppercase, 8)}"
            f"/B{rnd(string.ascii_uppercase, 10)}/{rnd(AN, 24)}\n"
        ),
    ),
    ("discord-bot-token", lambda: f"bot token is {discord_token()}\n"),
    (
        "discord-webhook",
        lambda: f"https://discord.com/api/webhooks/{rnd(string.digits, 18)}/{rnd(URLSAFE, 68)}\n",
    ),
    ("telegram-bot-token", lambda: f"TELEGRAM={rnd(string.digits, 10)}:AA{rnd(URLSAFE, 33)}\n"),
    ("stripe-secret-key", lambda: f"STRIPE_SECRET_KEY={'sk'}_live_{rnd(AN, 24)}\n"),
    ("stripe-secret-key", lambda: f"stripe.api_key = '{'sk'}_test_{rnd(AN, 99)}'\n"),
    ("stripe-restricted-key", lambda: f"{'rk'}_live_{rnd(AN, 24)}\n"),
    ("twilio-api-key", lambda: f"TWILIO_API_KEY={'SK'}{rnd(HEX, 32)}\n"),
    ("twilio-auth-token", lambda: f"TWILIO_AUTH_TOKEN={rnd(HEX, 32)}\n"),
    ("sendgrid-api-key", lambda: f"{'SG'}.{rnd(URLSAFE, 22)}.{rnd(URLSAFE, 43)}\n"),
    ("mailgun-api-key", lambda: f"MAILGUN_KEY={'key'}-{rnd(HEX, 32)}\n"),
    ("mailgun-api-key", lambda: f"the key we use: {rnd(HEX, 32)}-{rnd(HEX, 8)}-{rnd(HEX, 8)}\n"),
    ("mailchimp-api-key", lambda: f"mailchimp: {rnd(HEX, 32)}-us14\n"),
    (
        "openai-api-key",
        lambda: f"OPENAI_API_KEY={'sk'}-proj-{rnd(URLSAFE, 74)}T3BlbkFJ{rnd(URLSAFE, 74)}\n",
    ),
    ("openai-api-key", lambda: f"{'sk'}-{rnd(AN, 20)}T3BlbkFJ{rnd(AN, 20)}\n"),
    ("anthropic-api-key", lambda: f"ANTHROPIC_API_KEY={'sk'}-ant-api03-{rnd(URLSAFE, 93)}AA\n"),
    ("huggingface-token", lambda: f"HF_TOKEN={'hf'}_{rnd(string.ascii_letters, 34)}\n"),
    ("groq-api-key", lambda: f"{'gsk'}_{rnd(AN, 52)}\n"),
    ("npm-token", lambda: f"//registry.npmjs.org/:_authToken={'npm'}_{rnd(AN, 36)}\n"),
    ("pypi-token", lambda: f"password = {'pypi'}-AgEIcHlwaS5vcmc{rnd(URLSAFE, 150)}\n"),
    ("private-key", lambda: pem_block("RSA PRIVATE KEY")),
    ("private-key", lambda: pem_block("OPENSSH PRIVATE KEY")),
    ("private-key", lambda: pem_block("EC PRIVATE KEY")),
    ("private-key", lambda: pem_block("PRIVATE KEY")),
    ("private-key", lambda: pem_block("ENCRYPTED PRIVATE KEY")),
    (
        "private-key",
        lambda: pem_block("PGP PRIVATE KEY BLOCK").replace("\n", "\nVersion: GnuPG v2\n\n", 1),
    ),
    (
        "private-key",
        lambda: (
            json.dumps({"type": "service_account", "private_key": pem_block("PRIVATE KEY")}) + "\n"
        ),
    ),
    ("jwt", lambda: f"id_token={jwt()}\n"),
    ("url-password", lambda: f"DATABASE_URL=postgres://app:{rnd(AN, 12)}9@db.internal:5432/app\n"),
    (
        "url-password",
        lambda: f"git remote add origin https://deploy:{pw(16)}@git.acme.io/a/b.git\n",
    ),
    (
        "http-auth-header",
        lambda: f'curl -H "Authorization: Bearer {rnd(AN, 40)}" https://api.acme.io\n',
    ),
    (
        "http-auth-header",
        lambda: (
            "Authorization: Basic "
            + base64.b64encode(f"ops:{rnd(AN, 14)}".encode()).decode()
            + "\n"
        ),
    ),
    ("curl-basic-auth", lambda: "curl -u admin:" + rnd(AN, 12) + "! https://jenkins.acme.io\n"),
    ("cli-password", lambda: f"mysql -u root -p{pw(12)} app\n"),
    ("generic-password", lambda: f"PGPASSWORD={pw(12)} psql -h db\n"),
    ("generic-password", lambda: "password: " + PASSPHRASE + "\n"),
    ("generic-password", lambda: "the staging root password is " + PASSPHRASE + ".\n"),
    ("generic-password", lambda: f'db.connect(password="{rnd(AN, 10)}#1")\n'),
    ("generic-password", lambda: f"--password={pw(14)}\n"),
    # no "%": "%d"/"%s" in a value reads as a format string, which the scanner rightly passes
    ("generic-secret", lambda: f'SECRET_KEY = "{rnd(AN + "!@#^&*(-_=+)", 50)}"\n'),
    ("generic-secret", lambda: f"- name: DB_PASSWORD\n  value: {pw(16)}\n"),
    ("generic-api-key", lambda: f'{{"api_key": "{pw(32)}"}}\n'),
    ("generic-token", lambda: f"AUTH_TOKEN={rnd(HEX, 40)}\n"),
    ("generic-api-key", lambda: f"AZURE_STORAGE_KEY={b64(64)}\n"),
    ("generic-api-key", lambda: f"The API key for the sandbox is {pw(32)}\n"),
    ("generic-password", lambda: f"password for the vpn: {rnd(AN, 10)}#7\n"),
    ("generic-password", lambda: f"machine api.acme.io\n  login me\n  password {rnd(AN, 30)}7aB\n"),
    ("generic-secret", lambda: f'<add key="ApiKey" value="{pw(32)}" />\n'),
    ("cli-password", lambda: f"docker login -u ci -p {pw(14)} registry.acme.io\n"),
    ("cli-password", lambda: f"htpasswd -b .htpasswd admin {pw(12)}\n"),
    ("cli-password", lambda: f"sshpass -p '{pw(12)}' ssh deploy@10.0.0.4\n"),
    (
        "kubernetes-secret",
        lambda: (
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n"
            f"  username: {base64.b64encode(b'app').decode()}\n"
            f"  password: {base64.b64encode(pw(14).encode()).decode()}\n"
        ),
    ),
    (
        "docker-auth",
        lambda: (
            json.dumps(
                {
                    "auths": {
                        "r.io": {"auth": base64.b64encode(f"bot:{rnd(AN, 16)}".encode()).decode()}
                    }
                }
            )
            + "\n"
        ),
    ),
]

NEGATIVES: list[tuple[str, Callable[[], str]]] = [
    ("git sha", lambda: f"commit {rnd(HEX, 40)}\nfixed in {rnd(HEX, 7)}\n"),
    (
        "uuid",
        lambda: f"request_id={uuid4()}\n",
    ),
    (
        "uuid token-ish",
        lambda: f"idempotency_token: {uuid4()}\n",
    ),
    ("sha256", lambda: f"sha256: {rnd(HEX, 64)}  app.tar.gz\n"),
    ("sri", lambda: f'"integrity": "sha512-{b64(64)}",\n'),
    ("poetry hash", lambda: f'hash = "sha256:{rnd(HEX, 64)}"\n'),
    ("go.sum", lambda: f"golang.org/x/text v0.14.0 h1:{b64(32)}\n"),
    ("checksum key", lambda: f'"checksum": "{rnd(HEX, 64)}"\n'),
    ("placeholder <>", lambda: "API_KEY=<YOUR_KEY>\n"),
    ("placeholder xxxx", lambda: "TOKEN=xxxx\n"),
    ("changeme", lambda: "password: changeme\n"),
    ("env template", lambda: "GITHUB_TOKEN=${TOKEN}\n"),
    ("jinja", lambda: "password: {{ secret }}\n"),
    ("gha secret", lambda: "token: ${{ secrets.GITHUB_TOKEN }}\n"),
    ("x token", lambda: "token: ghp_" + "x" * 36 + "\n"),
    ("x aws", lambda: "aws_access_key_id = AKIA" + "X" * 16 + "\n"),
    ("zero stripe", lambda: "STRIPE_KEY=sk_live_" + "0" * 24 + "\n"),
    ("your token", lambda: "export SLACK_TOKEN=xoxb-your-token-here\n"),
    ("weak default", lambda: "PASSWORD=P@ssw0rd\n"),
    ("url placeholder", lambda: "postgres://user:password@localhost:5432/db\n"),
    ("url template", lambda: "redis://:${REDIS_PASSWORD}@cache:6379/0\n"),
    ("doc url", lambda: "http://evil:thing@example.com/\n"),
    ("curl vars", lambda: "curl -u $USER:$PASS https://api.acme.io\n"),
    ("bearer placeholder", lambda: "Authorization: Bearer <token>\n"),
    ("environ", lambda: 'api_key = os.environ["API_KEY"]\n'),
    ("process.env", lambda: "const token = process.env.GITHUB_TOKEN;\n"),
    ("settings", lambda: "SECRET_KEY = settings.SECRET_KEY\n"),
    ("getenv", lambda: 'password = os.getenv("DB_PASSWORD")\n'),
    ("call", lambda: "password = get_password(user)\n"),
    ("subscript", lambda: "token = line[start:pos]\n"),
    ("fstring", lambda: 'headers = {"Authorization": f"Bearer {token}"}\n'),
    ("prose vault", lambda: "The API key lives in Vault under secret/billing.\n"),
    (
        "prose policy",
        lambda: "Rotate the token every 90 days; the password must be at least 12 characters.\n",
    ),
    ("prose wrong", lambda: "If the password is wrong the server returns 401.\n"),
    ("prose secret", lambda: "The secret is that we cache aggressively.\n"),
    ("prose emphasis", lambda: "the access_key/secret_key are now *always* written\n"),
    ("identifier", lambda: "password_field = forms.CharField(widget=forms.PasswordInput)\n"),
    ("count", lambda: "token_count = 42\n"),
    ("max_tokens", lambda: "max_tokens = 4096\n"),
    ("loop", lambda: "for token in tokens:\n"),
    ("pass_fds", lambda: "pass_fds = (r, w)\n"),
    ("pass to", lambda: "kw is extra keyword args to pass to subprocess.Popen.\n"),
    ("tokenizer", lambda: "tokenizer = AutoTokenizer.from_pretrained('gpt2')\n"),
    ("id suffix", lambda: f'client_id = "{rnd(AN, 32)}"\n'),
    ("url suffix", lambda: "token_url = 'https://oauth2.googleapis.com/token'\n"),
    ("public key name", lambda: f'public_key = "{rnd(B64, 44)}"\n'),
    ("ssh public key", lambda: f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(B64, 43)} dev@laptop\n"),
    ("certificate", lambda: pem_block("CERTIFICATE")),
    ("public pem", lambda: pem_block("PUBLIC KEY")),
    ("stripe publishable", lambda: f"STRIPE_PUBLISHABLE_KEY=pk_live_{rnd(AN, 24)}\n"),
    ("aws account", lambda: f"arn:aws:iam::{rnd(string.digits, 12)}:role/deploy\n"),
    ("twilio account sid", lambda: f"Account SID AC{rnd(HEX, 32)}\n"),
    (
        "ansible vault",
        lambda: "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(rnd(HEX, 80) for _ in range(3)) + "\n",
    ),
    (
        "sops",
        lambda: f"password: ENC[AES256_GCM,data:{b64(12)},iv:{b64(32)},tag:{b64(16)},type:str]\n",
    ),
    (
        "sealed secret",
        lambda: (
            "kind: SealedSecret\nspec:\n  encryptedData:\n    password: AgB" + rnd(B64, 600) + "\n"
        ),
    ),
    ("masked stars", lambda: "password: ********\n"),
    ("masked redacted", lambda: "Authorization: Bearer [REDACTED]\n"),
    (
        "own output",
        lambda: (
            "notes.md:3: github-pat: ghp_\u2026\nnotes.md:4: generic-password: DB_PASSWORD=\u2026\n"
        ),
    ),
    ("aws example", lambda: "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"),
    (
        "aws example secret",
        lambda: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    ),
    ("data uri", lambda: f"data:image/png;base64,{b64(300)}\n"),
    ("configmap", lambda: "kind: ConfigMap\ndata:\n  LOG_LEVEL: debug\n"),
    (
        "k8s template",
        lambda: "kind: Secret\ndata:\n  password: {{ .Values.dbPassword | b64enc }}\n",
    ),
    (
        "elided pem",
        lambda: (
            '"PrivateKey": "-----BEGIN RSA PRIVATE KEY-----\\n'
            + rnd(B64, 60)
            + '...\\n-----END RSA PRIVATE KEY-----"\n'
        ),
    ),
    ("namespaced type", lambda: f'"AWS::ApiGateway::ApiKey": "{rnd(HEX, 16)}",\n'),
    ("password hash", lambda: f'password_hash = "{rnd(HEX, 64)}"\n'),
    ("version", lambda: "token_version: 1.2.3\nsecret_engine_version: v2.0.1\n"),
    ("pass verb", lambda: "arguments to pass to :py:func:`pytest.main`, pass `check_0d=True`\n"),
    ("pass statement", lambda: "    pass\n\nN6DES_ks3DOLLAR_9E._fields_ = [\n"),
    ("type annotation", lambda: "    private_key: ed25519.Ed25519PrivateKey,\n"),
    ("pascal alias", lambda: "RSAPrivateKeyWithSerialization = RSAPrivateKey\n"),
    ("pascal constant", lambda: "ACCESS_KEY = 'AWSAccessKeyId'\n"),
    ("namespaced value", lambda: '_SAR_APP_KEY = "serverlessrepo:applicationId"\n'),
    ("call with args", lambda: "passwd = fallback_getpass(prompt, stream)\n"),
    ("kms arn", lambda: '"encryptionKey": "arn:aws:kms:<region-ID>:<account-ID>:alias/aws/s3",\n'),
    ("idempotency", lambda: f"--client-token {rnd(AN, 24)}\n"),
    ("compare to", lambda: f"compare the token to {rnd(AN, 24)} before use\n"),
    # A relative file path after the name: prose about code (the 10k speed bench had 30)
    ("relative path", lambda: "the token is src/auth/refresh_token.py's job\n"
                              "importToken is src/method/import.py\n"
                              f"api_key: config/{rnd(string.ascii_lowercase, 8)}.yaml\n"),
]


@pytest.mark.parametrize(
    ("rule", "make"), POSITIVES, ids=[f"{r}-{i}" for i, (r, _) in enumerate(POSITIVES)]
)
def test_detects_family(rule: str, make: Callable[[], str]) -> None:
    for _ in range(5):  # several random draws of the same shape
        found = rules_in(make())
        assert rule in found, f"{rule} not detected (got {sorted(found)})"


@pytest.mark.parametrize(("name", "make"), NEGATIVES, ids=[n for n, _ in NEGATIVES])
def test_hard_negative_is_clean(name: str, make: Callable[[], str]) -> None:
    for _ in range(5):
        found = rules_in(make())
        assert not found, f"false positive on {name}: {sorted(found)}"


# --- Syntaxes, names and shapes from other projects' cases (issue 9) -----------------------


def ghs_jwt() -> str:
    """A GitHub installation token in the 2026 format: ghs_<app id>_<JWT>."""
    return "ghs" + f"_{rnd(string.digits, 7)}_{jwt()}"


def bedrock_url() -> str:
    """A short-lived Bedrock key body: base64 of a presigned bedrock.amazonaws.com URL."""
    url = "bedrock.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Credential=" + rnd(AN, 60)
    return base64.b64encode(url.encode()).decode()


STRUCTURES: list[tuple[str, Callable[[], str]]] = [
    ("go typed var", lambda: f'var apiToken string = "{pw(32)}"\n'),
    ("kotlin typed val", lambda: f'val apiToken: String = "{pw(32)}"\n'),
    ("make ?=", lambda: f"API_TOKEN ?= {pw(32)}\n"),
    ("make ::=", lambda: f"API_TOKEN ::= {pw(32)}\n"),
    ("make :::=", lambda: f'API_TOKEN :::= "{pw(32)}"\n'),
    ("php .=", lambda: f'$apiToken .= "{pw(32)}";\n'),
    ("java setProperty", lambda: f'System.setProperty("DB_PASSWORD", "{pw(14)}");\n'),
    ("default argument", lambda: f'utils.GetEnvOrDefault("api_token", "{uuid4()}")\n'),
    ("xml own line", lambda: f"<password>\n    {pw(14)}\n</password>\n"),
    ("vendor TokenToken", lambda: f'acmeTokenToken = "{rnd(HEX, 4)}_{pw(30)}"\n'),
    ("uuid under a token name", lambda: f"heroku_token: {uuid4()}\n"),
    ("ghs bare", ghs_jwt),
    ("ghs env", lambda: "GITHUB_TOKEN=" + ghs_jwt() + "\n"),
    ("ghs header", lambda: "Authorization: token " + ghs_jwt() + "\n"),
    ("jwt base64", lambda: base64.b64encode(jwt().encode()).decode() + "\n"),
    ("AZURE_OPENAI_KEY", lambda: f"AZURE_OPENAI_KEY={rnd(HEX, 32)}\n"),
    ("AZURE_DEVOPS_PAT", lambda: f"AZURE_DEVOPS_PAT={rnd(HEX + 'ghijkmnopqrstuvwxyz', 52)}\n"),
    ("bedrock long-lived", lambda: "ABSK" + "QmVkcm9ja0FQSUtleS1" + rnd(AN, 100) + "=\n"),
    ("AWS_BEARER_TOKEN_BEDROCK", lambda: f"AWS_BEARER_TOKEN_BEDROCK={pw(40)}\n"),
    ("bedrock short-lived", lambda: "bedrock-api-key-" + bedrock_url() + "\n"),
    ("password with spaces", lambda: f'password = "{pw(6)} {rnd(AN, 5)} 7!"\n'),
    ("quoted value over 300", lambda: f'refresh_token = "0.A{rnd(URLSAFE + ".", 900)}"\n'),
    ("netrc uuid", lambda: f"machine api.heroku.com\n  login me@acme.io\n  password {uuid4()}\n"),
    ("netrc one line", lambda: f"machine api.heroku.com login me@acme.io password {uuid4()}\n"),
    ("pgpass", lambda: f"db.internal:5432:appdb:app:{pw(14)}\n"),
    ("pgpass wildcards", lambda: f"*:*:*:postgres:{pw(14)}#\n"),
    ("client constructor", lambda: f'sg = SendGridAPIClient("{pw(50)}")\n'),
    ("client two args", lambda: f'c = RestClient("AC{rnd(HEX, 32)}", "{rnd(HEX, 32)}")\n'),
    ("storage key, no marker", lambda: f"az storage blob list --account-key {b64(64)}\n"),
    ("storage key in prose", lambda: f"storage account key: {b64(64)}\n"),
    ("mongosh -p", lambda: f"mongosh -u admin -p {pw(14)} --authenticationDatabase admin\n"),
    ("sqlcmd -P", lambda: f"sqlcmd -S srv -U sa -P {pw(14)}\n"),
    ("login in prose", lambda: f"Login: admin / {pw(12)}\n"),
    ("credentials in prose", lambda: f"The credentials for staging are deploy:{pw(12)}\n"),
    ("unseal key", lambda: f"Unseal Key 1: {b64(32)}\n"),
    ("recovery key", lambda: "Recovery Key: " + "-".join(rnd(string.digits, 6) for _ in range(8))),
]

STRUCTURE_NEGATIVES: list[tuple[str, Callable[[], str]]] = [
    ("detect-secrets baseline", lambda: f'      "hashed_secret": "{rnd(HEX, 40)}",\n'),
    ("glpat inside a token", lambda: "xyz" + "glpat" + f"-{rnd(AN, 20)}\n"),
    ("fm2 inside a token", lambda: "abc" + "fm2" + f"_{rnd(AN, 50)}\n"),
    ("xoxo in an image url", lambda: "https://a.org/images/2018-250-" + "xoxo-indieweb-1.jpg\n"),
    ("masked slack", lambda: "xoxb" + f"-{rnd(string.digits, 12)}-" + "#" * 24 + "\n"),
    ("typed slack", lambda: "xoxe.xoxp" + "-1-SlackAppConfigurationAccessTokenHere\n"),
    ("repeated groups", lambda: "xoxp" + f"-1234-1234-1234-{rnd(HEX, 32)}\n"),
    ("alphabet runs", lambda: "sk-ant" + "-api03-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza\n"),
    ("mongodb placeholders", lambda: "mongodb://<username>:<password>@cluster0.mongodb.net/x\n"),
    ("elided token", lambda: f"export OP_SERVICE_ACCOUNT_TOKEN=ops_{rnd(AN, 20)}...\n"),
    ("maven coordinate", lambda: 'notes = "Maven - io.jsonwebtoken:jjwt-jackson-0.11.2"\n'),
    ("tuple of names", lambda: '("PKCS7PrivateKey", "X509Store")\n'),
    ("concatenated prefix", lambda: 'ctx("pypi_token", "pypi-AgEIcHlwaS5vcmc" + rest)\n'),
    ("make reference", lambda: "API_TOKEN ?= $(shell cat token.txt)\n"),
    ("go declaration", lambda: "var apiToken string\n"),
    ("xml reference", lambda: "<password>\n  ${DB_PASSWORD}\n</password>\n"),
    ("format string", lambda: 'PASSWD = getpass("IMAP password for %s on %s: " % (USER, host))\n'),
    ("pattern named PAT", lambda: "GROUP_PAT = 'fr.comp.lang.*'\nPATHEXT = '.COM;.EXE'\n"),
    ("url user", lambda: "('http://username:pass/word@localhost:22',\n"),
    ("netrc escapes", lambda: "machine h.example.com login log password \\xa1\\xa2 account a\n"),
    ("short bedrock", lambda: "bedrock-api-key-" + "YmVkcm9jay5hbWF6b25hd3MuY29t\n"),
    ("words with spaces", lambda: "password: 'Enter the new one twice'\n"),
]


@pytest.mark.parametrize(("name", "make"), STRUCTURES, ids=[n for n, _ in STRUCTURES])
def test_detects_structure(name: str, make: Callable[[], str]) -> None:
    for _ in range(5):
        found = bool(scan_text(make()))  # a plain bool: a failure never shows the text
        assert found, f"{name} not detected"


@pytest.mark.parametrize(
    ("name", "make"), STRUCTURE_NEGATIVES, ids=[n for n, _ in STRUCTURE_NEGATIVES]
)
def test_structure_negative_is_clean(name: str, make: Callable[[], str]) -> None:
    for _ in range(5):
        found = rules_in(make())
        assert not found, f"false positive on {name}: {sorted(found)}"


# Published example keys, each in a line its rule would flag; built from pieces so that the
# repository never holds them whole (the scanner keeps only their fingerprints).
PUBLISHED = [
    ("stripe: {}", "sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe-secret-key"),
    ("TELEGRAM_BOT_TOKEN={}", "110201543:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
     "telegram-bot-token"),
    ("DefaultEndpointsProtocol=https;AccountName=prod;AccountKey={};EndpointSuffix=core."
     "windows.net", "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
     + "K1SZFPTOtr/KBHBeksoGMGw==", "azure-storage-key"),
]


@pytest.mark.parametrize(("line", "value", "rule"), PUBLISHED, ids=[r for *_, r in PUBLISHED])
def test_published_example_keys_are_not_findings(line: str, value: str, rule: str) -> None:
    """The documented key is no finding; the same key with one character changed is one of
    its rule. Catches: the example fingerprints not consulted (``_is_example`` checking only
    for the word EXAMPLE), or one of these fingerprints lost from the table."""
    assert rules_in(line.format(value)) == set()
    mid = len(value) // 2
    changed = value[:mid] + ("Q" if value[mid] != "Q" else "R") + value[mid + 1:]
    assert rules_in(line.format(changed)) == {rule}
    assert all(re.fullmatch(r"[0-9a-f]{64}", v) for v in S._EXAMPLE_VALUES)


def test_finding_fields_line_and_fingerprint() -> None:
    value = "ghp_" + rnd(AN, 36)
    text = f"# notes\n\nGH={value}\n"
    (f,) = scan_text(text, path="notes.md")
    assert (f.rule, f.line, f.path) == ("github-pat", 3, "notes.md")
    assert f.fingerprint == hashlib.sha256(value.encode()).hexdigest()
    assert f.preview == "ghp_\u2026"
    assert format_finding(f) == "notes.md:3: github-pat: ghp_\u2026"
    assert format_finding(Finding("jwt", 1, "eyJ\u2026", "0" * 64)) == "<text>:1: jwt: eyJ\u2026"


def test_preview_never_shows_a_neighbouring_token() -> None:
    other, pw = rnd(AN, 20) + "7", rnd(AN, 10) + "#7"
    for text in (f"{other}_password={pw}\n", f"mysql -h {other} -u root -p{pw} app\n"):
        findings = scan_text(text)
        assert findings
        assert all(other[:12] not in format_finding(f) for f in findings)


def test_kubernetes_dockerconfigjson() -> None:
    def manifest(cfg: dict[str, object]) -> str:
        data = base64.b64encode(json.dumps(cfg).encode()).decode()
        head = "kind: Secret\ntype: kubernetes.io/dockerconfigjson\ndata:\n"
        return f"{head}  .dockerconfigjson: {data}\n"

    auth = base64.b64encode(f"ci:{pw(14)}".encode()).decode()
    found = scan_text(manifest({"auths": {"r.io": {"auth": auth}}}))
    assert [(f.rule, f.line) for f in found] == [("kubernetes-secret", 4)]
    assert not scan_text(manifest({"auths": {}}))


def test_private_key_reported_on_header_line() -> None:
    text = "intro\n" + pem_block("RSA PRIVATE KEY")
    found = scan_text(text)
    assert [(f.rule, f.line) for f in found] == [("private-key", 2)]


def _value_of(f: Finding, text: str) -> str:
    """Recover the flagged value from the sample through its fingerprint."""
    for i in range(len(text)):
        for j in range(i + 1, min(len(text), i + 2000) + 1):
            if hashlib.sha256(text[i:j].encode()).hexdigest() == f.fingerprint:
                return text[i:j]
    raise AssertionError(f"{f.rule}: fingerprint matches no substring")


@pytest.mark.parametrize(
    ("rule", "make"), POSITIVES, ids=[f"{r}-{i}" for i, (r, _) in enumerate(POSITIVES)]
)
def test_redaction_never_leaks_value(rule: str, make: Callable[[], str]) -> None:
    text = make()
    if len(text) > 600:
        text = text[:600]  # keeps the brute-force recovery below quick; keys start early
    findings = scan_text(text, path="x.md")
    assert findings
    outputs = [format_finding(f) for f in findings] + [repr(f) for f in findings]
    outputs.append(str(SecretFound(findings)))
    for f in findings:
        assert len(f.preview) <= 45 and f.preview.endswith("\u2026")
        value = _value_of(f, text)
        # At most a fixed vendor prefix (<= 12 chars) may show; nothing after it, anywhere.
        tail = value[12:]
        windows = {tail[i : i + 6] for i in range(max(0, len(tail) - 5))}
        leaked = [o for o in outputs for w in windows if w in o.replace(f.fingerprint, "")]
        assert not leaked, f"{rule}: output shows part of the secret"


@pytest.mark.parametrize(
    ("rule", "make"), POSITIVES, ids=[f"{r}-{i}" for i, (r, _) in enumerate(POSITIVES)]
)
def test_own_output_is_never_flagged_again(rule: str, make: Callable[[], str]) -> None:
    findings = scan_text(make(), path="memory/notes.md")
    report = "\n".join(format_finding(f) for f in findings)
    assert report
    assert not rules_in(report)
    assert not rules_in(str(SecretFound(findings)))


def test_inline_markers() -> None:
    value = "ghp_" + rnd(AN, 36)
    assert not scan_text(f"token={value}  # lean-memory: allow\n")
    assert not scan_text(f"token={value}  # pragma: allowlist secret\n")
    assert not scan_text(f"# pragma: allowlist nextline secret\ntoken={value}\n")
    assert not scan_text(f"<!-- lean-memory: allow-next-line -->\ntoken={value}\n")
    # A marker only covers its own line (or the next line for the nextline form).
    assert [f.line for f in scan_text(f"ok  # lean-memory: allow\ntoken={value}\n")] == [2]
    assert [
        f.line for f in scan_text(f"# pragma: allowlist nextline secret\n\ntoken={value}\n")
    ] == [3]


def test_config_allowlist() -> None:
    value = "ghp_" + rnd(AN, 36)
    other = "glpat-" + rnd(URLSAFE, 20)
    text = f"a={value}\nb={other}\n"
    assert {f.rule for f in scan_text(text)} == {"github-pat", "gitlab-pat"}
    assert [f.rule for f in scan_text(text, allow=Allowlist(rules=frozenset({"github-pat"})))] == [
        "gitlab-pat"
    ]
    fp = hashlib.sha256(other.encode()).hexdigest()
    assert [f.rule for f in scan_text(text, allow=Allowlist(fingerprints=frozenset({fp})))] == [
        "github-pat"
    ]
    globs = Allowlist(paths=("docs/*", "fixtures/"))
    assert not scan_text(text, allow=globs, path="docs/a/b.md")
    assert not scan_text(text, allow=globs, path="./fixtures/keys.txt")
    assert len(scan_text(text, allow=globs, path="src/app.py")) == 2
    assert len(scan_text(text, allow=globs)) == 2  # no path: globs cannot apply


def test_pathological_line_is_fast_and_still_scanned() -> None:
    # Shapes that would make naive patterns backtrack: long runs of almost-matching text.
    evil = ("a" * 1000 + "://" + "b:" * 500 + "=" * 300 + "password=" + "x" * 200) * 400
    evil = evil[:1_000_000]
    many_sep = ":" * 1_000_000
    b64ish = ("Ab1+" * 250_000)[:1_000_000]
    found: list[object] = []
    # the CPU time of this thread is bounded, not the wall clock (which load moves)
    assert cpu_seconds(lambda: found.extend(scan_text(t) for t in (evil, many_sep, b64ish))) \
        < 10.0
    assert found == [[], [], []]
    # A secret deep inside a 1 MB line is still found, with the right line number.
    value = "ghp_" + rnd(AN, 36)
    line = "q" * 600_000 + " " + value + " " + "q" * 400_000
    found = scan_text("first\n" + line + "\nlast\n")
    assert [(f.rule, f.line) for f in found] == [("github-pat", 2)]


def test_long_line_windows_do_not_duplicate() -> None:
    value = "ghp_" + rnd(AN, 36)
    # Place the token in the overlap of two windows.
    pos = S.MAX_LINE - S._OVERLAP + 10
    line = "q" * pos + " " + value + " " + "q" * 10_000
    found = scan_text(line)
    assert [(f.rule, f.line) for f in found] == [("github-pat", 1)]


def test_rule_table_is_well_formed() -> None:
    ids = {r.id for r in RULES} | set(GENERIC_KEYWORDS.values()) | {"kubernetes-secret"}
    assert ids == set(REFERENCES), "every rule id has a one-line reference, and only those"
    for rid in ids:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", rid), rid
    for r in RULES:
        rx = re.compile(r.pattern)
        assert "s" in rx.groupindex and "p" in rx.groupindex, r.id
        assert (
            r.keywords
            and r.check in S._VALIDATORS
            and r.scope in ("token", "keyed", "text", "runs")
        )
        if r.ci:
            assert all(k == k.lower() for k in r.keywords), r.id
        if r.scope in ("token", "runs"):  # keywords must be findable inside token runs
            assert all(re.fullmatch(r"[A-Za-z0-9_\-.+/=~%:$]{16,}", k * 16)
                       for k in r.keywords), r.id
        # Only bounded repetition: no `*`, `+` or `{n,}` quantifiers.
        assert not re.search(
            r"(?<!\\)[*+](?![^\[]*\])|\{\d+,\}", r.pattern.replace("[^\\n]", "")
        ), r.id


def test_import_is_lazy() -> None:
    code = (
        "import sys, lean_memory.secrets as s; "
        "assert s._COMPILED is None; "
        "assert 'lean_memory._secret_rules' not in sys.modules; "
        "s.scan_text('x'); assert s._COMPILED is not None"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent.parent)


def test_filters() -> None:
    assert S.is_uuid("123e4567-e89b-12d3-a456-426614174000")
    assert not S.is_uuid("123e4567e89b12d3a456426614174000")
    assert S.is_hash("sha256:" + rnd(HEX, 64)) and S.is_hash(rnd(HEX, 40))
    assert (
        S.is_placeholder("<YOUR_KEY>") and S.is_placeholder("changeme") and S.is_placeholder("xxxx")
    )
    assert not S.is_placeholder(PASSPHRASE)
    assert S.is_template("${TOKEN}") and S.is_template("{{ secret }}") and S.is_template("$TOKEN")
    assert S.is_reference('os.environ["API_KEY"]') and S.is_reference("process.env.X")
    assert S.is_reference("settings.SECRET_KEY") and S.is_reference("*db_password")
    assert S.is_identifier("password_field") and S.is_identifier("settings.SECRET_KEY")
    assert not S.is_identifier("a3b9e8704ea0b4b10e679386ae779fff2652b410")
    assert S.is_masked("ghp_\u2026") and S.is_masked("********")
    assert S.is_encrypted_blob("ENC[AES256_GCM,data:abc]") and S.is_encrypted_blob(
        "$ANSIBLE_VAULT;1.1"
    )
    assert S.is_public_material("ssh-ed25519 AAAA") and S.is_public_material("pk_live_abc")


# Scanning files and git's index: tests/test_scan_gate.py.


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_scan_staged_outside_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_dir = tmp_path / "not-a-repo"
    env_dir.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # undone after the test
    with pytest.raises(LeanMemoryError) as err:
        scan_staged(env_dir)
    assert "\n" not in str(err.value) and "not a git repository" in str(err.value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=3000), st.integers(0, 3000))
def test_random_text_with_an_embedded_token(noise: str, where: int) -> None:
    rng = random.Random(where)
    value = "ghp_" + "".join(rng.choice(AN) for _ in range(36))
    where = min(where, len(noise))
    text = noise[:where] + "\n" + value + "\n" + noise[where:]
    findings = scan_text(text)
    lines = text.count("\n") + 1
    assert all(1 <= f.line <= lines for f in findings)
    fp = hashlib.sha256(value.encode()).hexdigest()
    ours = [f for f in findings if f.fingerprint == fp]
    assert len(ours) == 1 and ours[0].line == text[: text.index(value)].count("\n") + 1
    assert all(value[4:16] not in format_finding(f) for f in findings)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=2000))
def test_scan_text_never_raises_and_rescan_is_clean(text: str) -> None:
    findings = scan_text(text)
    assert not scan_text("\n".join(format_finding(f) for f in findings))


def test_this_file_is_clean() -> None:
    res = scan_paths([__file__])
    assert not res.findings, [format_finding(f) for f in res.findings]


# ---------------------------------------------------------------------------------------------
# Private keys however they are pasted (tests/test_real_keys.py has the real tools' keys);
# here the look-alikes that must stay clean, and where a pasted key is reported.

_KEY_LOOKALIKES: list[tuple[str, Callable[[], str]]] = [
    (
        "header then a path",
        lambda: (
            "-----BEGIN RSA PRIVATE KEY----- goes in\n"
            "src/main/resources/keys/production/server/deploy\n"
        ),
    ),
    (
        "header then a long name",
        lambda: (
            'if line == "-----BEGIN PRIVATE KEY-----":\n'
            "    loadAbstractSingletonProxyFactoryBeanPrivateKey(line)\n"
        ),
    ),
    ("zero body", lambda: "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "A" * 70 + "\n"),
    ("x body", lambda: "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA" + "x" * 48 + "\n"),
    (
        "published example",
        lambda: (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + "\n".join(b64(48) for _ in range(3))
            + "\n"
            + rnd(B64, 20)
            + "EXAMPLE"
            + rnd(B64, 37)
            + "\n-----END RSA PRIVATE KEY-----\n"
        ),
    ),
    ("ssh.com public", lambda: "---- BEGIN SSH2 PUBLIC KEY ----\n" + b64(200) + "\n"),
    (
        "ppk public lines",
        lambda: (
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\n"
            + b64(48)
            + "\n"
        ),
    ),
    (
        "certificate der",
        lambda: base64.b64encode(b"\x30\x82\x03\x00\x30\x82" + _R.randbytes(300)).decode(),
    ),
]


@pytest.mark.parametrize(("name", "make"), _KEY_LOOKALIKES, ids=[n for n, _ in _KEY_LOOKALIKES])
def test_key_lookalike_is_clean(name: str, make: Callable[[], str]) -> None:
    for _ in range(5):
        assert not rules_in(make()), f"false positive on {name}"


def test_pasted_key_reported_on_its_header_line() -> None:
    block = pem_block("OPENSSH PRIVATE KEY")
    quoted = "\n".join("> " + ln for ln in block.rstrip("\n").split("\n"))
    for text in ("one\ntwo\n" + quoted + "\n", "one\ntwo\n" + json.dumps({"k": block}) + "\n"):
        assert [(f.rule, f.line) for f in scan_text(text)] == [("private-key", 3)]

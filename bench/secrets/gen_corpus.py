"""Generate a labelled, deterministic corpus of synthetic secrets and hard negatives.

Every secret is random in its family's shape and built at run time, so this file itself holds no
credential. One sample per file; ``manifest.json`` maps each file to its label and family.

    python bench/secrets/gen_corpus.py [OUT_DIR] [--per-family N] [--seed S] [--big-mb M]

The default OUT_DIR is under the system temp folder (the corpus is never committed).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import string
import tempfile
import uuid
from collections.abc import Callable

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DI = string.digits
AN = UP + LO + DI
HEX = "0123456789abcdef"
B64 = AN + "+/"
URLSAFE = AN + "-_"

R = random.Random(0)


def rs(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def pick(*xs: str) -> str:
    return R.choice(xs)


def ctx(name: str, value: str) -> str:
    """Put `value` under `name` in a random realistic setting."""
    forms = [
        f"{name.upper()}={value}\n",
        f'export {name.upper()}="{value}"\n',
        f"{name.lower()}: {value}\n",
        f'  {name.lower()}: "{value}"\n',
        f'{{"{name.lower()}": "{value}", "region": "eu-west-1"}}\n',
        f'{name.upper()} = "{value}"\n',
        f'config["{name.lower()}"] = "{value}"\n',
        f"- name: {name.upper()}\n  value: {value}\n",
        f"docker run -e {name.upper()}={value} app:latest\n",
        f"Set {name.upper()} to {value} in the CI settings.\n",
    ]
    return R.choice(forms)


def note(value: str) -> str:
    forms = [
        f"- 2025-03-02: used {value} for the deploy job\n",
        f"Quick note: {value}\n",
        f"| prod | {value} | rotated |\n",
        f"curl -H 'X-Api-Key: {value}' https://api.internal/v1/items\n",
        f"The key we use in staging is `{value}`.\n",
    ]
    return R.choice(forms)


def in_ctx_or_note(name: str, value: str) -> str:
    return ctx(name, value) if R.random() < 0.6 else note(value)


def b64_of(n_bytes: int) -> str:
    return base64.b64encode(R.randbytes(n_bytes)).decode()


def pem(kind: str) -> str:
    body = base64.b64encode(R.randbytes(R.choice([600, 900, 1200]))).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    extra = ""
    if kind == "RSA-ENC":
        kind = "RSA"
        extra = f"Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{rs(HEX.upper(), 32)}\n\n"
    if kind == "PGP":
        head = "-----BEGIN PGP PRIVATE KEY BLOCK-----"
        tail = "-----END PGP PRIVATE KEY BLOCK-----"
        extra = "Version: GnuPG v2\n\n"
    else:
        label = f"{kind} PRIVATE KEY" if kind else "PRIVATE KEY"
        head, tail = f"-----BEGIN {label}-----", f"-----END {label}-----"
    return head + "\n" + extra + "\n".join(lines) + "\n" + tail + "\n"


def pass_phrase() -> str:
    words = [
        "Tulip",
        "Rocket",
        "Canyon",
        "Falcon",
        "Maple",
        "Quartz",
        "Harbor",
        "Velvet",
        "Comet",
        "Ember",
        "Glacier",
        "Meadow",
        "Orbit",
        "Pepper",
        "Saffron",
        "Timber",
    ]
    ws = R.sample(words, R.choice([3, 4]))
    ws.insert(R.randrange(len(ws) + 1), str(R.randrange(10, 999)))
    return R.choice("-_.!").join(ws) if R.random() < 0.3 else "-".join(ws)


def random_password() -> str:
    return pick(
        pass_phrase(),
        rs(AN, 8) + R.choice("!@#%^&*") + rs(DI, 2),
        rs(AN + "!@#%^&*", 16),
        rs(LO, 5) + rs(DI, 3) + rs(UP, 2),
    )


def jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    payload = json.dumps(
        {
            "sub": str(R.randrange(10**9)),
            "iat": R.randrange(1_600_000_000, 1_800_000_000),
            "role": pick("admin", "service_role", "user"),
        }
    ).encode()
    body = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    return f"{head}.{body}.{rs(URLSAFE, 43)}"


def discord_token() -> str:
    uid = str(R.randrange(10**17, 10**19)).encode()
    first = base64.b64encode(uid).decode().rstrip("=")
    return f"{first}.{rs(URLSAFE, 6)}.{rs(URLSAFE, 38)}"


def sas_sig() -> str:
    sig = b64_of(32)
    return sig.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


# ----- positives: family -> generator of a sample text ----------------------------------------
POS: dict[str, Callable[[], str]] = {
    "aws-access-key-id": lambda: in_ctx_or_note(
        "aws_access_key_id", pick("AKIA", "ASIA") + rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    ),
    "aws-secret-access-key": lambda: pick(
        f"[default]\naws_access_key_id = AKIA{rs(UP + DI, 16)}\n"
        f"aws_secret_access_key = {rs(B64, 40)}\n",
        f"AWS_SECRET_ACCESS_KEY={rs(B64, 40)}\n",
        f'"SecretAccessKey": "{rs(B64, 40)}",\n',
        f"aws_secret_key: {rs(B64, 40)}\n",
    ),
    "aws-session-token": lambda: pick(
        f"aws_session_token = IQoJb3JpZ2luX2Vj{rs(B64, 300)}\n",
        f"AWS_SESSION_TOKEN=FwoGZXIvYXdzE{rs(B64, 250)}\n",
        f'"SessionToken": "IQoJb3JpZ2luX2Vj{rs(B64, 400)}"\n',
    ),
    "gcp-service-account": lambda: (
        json.dumps(
            {
                "type": "service_account",
                "project_id": "acme-prod",
                "private_key_id": rs(HEX, 40),
                "private_key": pem(pick("", "RSA")),
                "client_email": "svc@acme-prod.iam.gserviceaccount.com",
            },
            indent=2,
        )
        + "\n"
    ),
    "google-api-key": lambda: in_ctx_or_note("google_api_key", "AIza" + rs(URLSAFE, 35)),
    "google-oauth": lambda: pick(
        ctx("google_client_secret", "GOCSPX-" + rs(URLSAFE, 28)),
        note("ya29." + rs(URLSAFE, 120)),
        ctx("refresh_token", "1//0" + rs(URLSAFE, 100)),
    ),
    "azure-storage-key": lambda: (
        "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acme"
        f"{rs(LO, 4)};AccountKey={b64_of(64)};EndpointSuffix=core.windows.net\n"
    ),
    "azure-sas-token": lambda: (
        f"https://acme{rs(LO, 4)}.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o"
        f"&sp=r&se=2026-01-01T00:00:00Z&st=2025-01-01T00:00:00Z&spr=https&sig={sas_sig()}\n"
    ),
    "azure-connection-string": lambda: (
        f"Endpoint=sb://acme{rs(LO, 4)}.servicebus.windows.net/;SharedAccessKeyName="
        f"RootManageSharedAccessKey;SharedAccessKey={b64_of(32)}\n"
    ),
    "azure-ad-client-secret": lambda: ctx(
        "azure_client_secret", rs(AN, 3) + R.choice(DI) + "Q~" + rs(AN + "_~.-", 34)
    ),
    "github-pat": lambda: in_ctx_or_note("github_token", "ghp_" + rs(AN, 36)),
    "github-fine-grained-pat": lambda: in_ctx_or_note(
        "gh_token", "github_pat_" + rs(AN, 22) + "_" + rs(AN, 59)
    ),
    "github-oauth-app-refresh": lambda: in_ctx_or_note(
        "token", pick("gho_", "ghu_", "ghs_", "ghr_") + rs(AN, 36)
    ),
    "gitlab-token": lambda: in_ctx_or_note(
        "gitlab_token", pick("glpat-", "glpat-", "gldt-", "glrt-") + rs(URLSAFE, 20)
    ),
    "slack-token": lambda: in_ctx_or_note(
        "slack_bot_token", f"{pick('xoxb', 'xoxp', 'xoxa')}-{rs(DI, 12)}-{rs(DI, 13)}-{rs(AN, 24)}"
    ),
    "slack-webhook": lambda: in_ctx_or_note(
        "slack_webhook",
        f"https://hooks.slack.com/services/T{rs(UP + DI, 8)}/B{rs(UP + DI, 10)}/{rs(AN, 24)}",
    ),
    "discord-bot-token": lambda: in_ctx_or_note("discord_bot_token", discord_token()),
    "discord-webhook": lambda: in_ctx_or_note(
        "discord_webhook", f"https://discord.com/api/webhooks/{rs(DI, 18)}/{rs(URLSAFE, 68)}"
    ),
    "telegram-bot-token": lambda: pick(
        in_ctx_or_note("telegram_bot_token", f"{rs(DI, 10)}:AA{rs(URLSAFE, 33)}"),
        f"curl https://api.telegram.org/bot{rs(DI, 10)}:AA{rs(URLSAFE, 33)}/getMe\n",
    ),
    "stripe-secret-key": lambda: in_ctx_or_note(
        "stripe_key", pick("sk_live_", "sk_test_", "rk_live_") + rs(AN, R.choice([24, 99]))
    ),
    "twilio": lambda: pick(
        ctx("twilio_api_key", "SK" + rs(HEX, 32)),
        f"TWILIO_AUTH_TOKEN={rs(HEX, 32)}\n",
        f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC{rs(HEX, 32)}/Messages.json "
        f"-u AC{rs(HEX, 32)}:{rs(HEX, 32)}\n",
    ),
    "sendgrid-api-key": lambda: in_ctx_or_note(
        "sendgrid_api_key", f"SG.{rs(URLSAFE, 22)}.{rs(URLSAFE, 43)}"
    ),
    "mailgun-api-key": lambda: in_ctx_or_note(
        "mailgun_api_key", pick("key-" + rs(HEX, 32), f"{rs(HEX, 32)}-{rs(HEX, 8)}-{rs(HEX, 8)}")
    ),
    "mailchimp-api-key": lambda: in_ctx_or_note(
        "mailchimp_key", f"{rs(HEX, 32)}-us{R.randrange(1, 21)}"
    ),
    "openai-api-key": lambda: in_ctx_or_note(
        "openai_api_key",
        pick(
            "sk-proj-" + rs(URLSAFE, 74) + "T3BlbkFJ" + rs(URLSAFE, 74),
            "sk-" + rs(AN, 20) + "T3BlbkFJ" + rs(AN, 20),
            "sk-admin-" + rs(URLSAFE, 64),
            "sk-svcacct-" + rs(URLSAFE, 74) + "T3BlbkFJ" + rs(URLSAFE, 74),
        ),
    ),
    "anthropic-api-key": lambda: in_ctx_or_note(
        "anthropic_api_key", "sk-ant-api03-" + rs(URLSAFE, 93) + "AA"
    ),
    "huggingface-token": lambda: in_ctx_or_note("hf_token", "hf_" + rs(UP + LO, 34)),
    "other-ai-keys": lambda: in_ctx_or_note(
        "llm_api_key",
        pick(
            "gsk_" + rs(AN, 52),
            "r8_" + rs(AN, 37),
            "pplx-" + rs(AN, 48),
            "xai-" + rs(AN, 80),
            "sk-" + rs(HEX, 32),
            "sk-or-v1-" + rs(HEX, 64),
        ),
    ),
    "npm-token": lambda: pick(
        ctx("npm_token", "npm_" + rs(AN, 36)),
        f"//registry.npmjs.org/:_authToken=npm_{rs(AN, 36)}\n",
        f"//npm.pkg.github.com/:_authToken={uuid.UUID(int=R.getrandbits(128))}\n",
    ),
    "pypi-token": lambda: pick(
        ctx("pypi_token", "pypi-AgEIcHlwaS5vcmc" + rs(URLSAFE, 150)),
        f"[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc{rs(URLSAFE, 150)}\n",
    ),
    "private-key": lambda: pem(
        pick("RSA", "EC", "DSA", "OPENSSH", "PGP", "", "ENCRYPTED", "RSA-ENC")
    ),
    "pem-in-json": lambda: json.dumps({"private_key": pem(pick("", "RSA", "EC"))}) + "\n",
    "jwt": lambda: pick(note(jwt()), ctx("id_token", jwt()), f"Authorization: Bearer {jwt()}\n"),
    "url-password": lambda: (
        f"{pick('postgres', 'postgresql', 'mysql', 'mongodb+srv', 'redis', 'amqp', 'https')}://"
        f"{pick('app', 'admin', 'deploy', 'svc_user')}:{random_password().replace('@', '')}"
        f"@{pick('db.internal', 'cluster0.ab1cd.mongodb.net', '10.0.3.7:5432')}"
        f"/{pick('app', 'main', '')}\n"
    ),
    "http-auth-header": lambda: pick(
        f'curl -H "Authorization: Bearer {rs(AN, 40)}" https://api.example.org/v2/me\n',
        "Authorization: Basic "
        + base64.b64encode(f"deploy:{random_password()}".encode()).decode()
        + "\n",
        f"headers = {{'Authorization': 'Token {rs(HEX, 40)}'}}\n",
    ),
    "curl-basic-auth": lambda: (
        f"curl {pick('-u', '--user')} {pick('admin', 'ci-bot', 'ops')}:{random_password()} "
        "https://jenkins.internal/job/deploy/build\n"
    ),
    "cli-password": lambda: pick(
        f"PGPASSWORD={random_password()} psql -h db.internal -U app\n",
        f"mysql -u root -p{random_password()} app < dump.sql\n",
        f"sshpass -p '{random_password()}' ssh deploy@10.0.0.4\n",
        f"./manage.py createsuperuser --password {random_password()}\n",
    ),
    "kubernetes-secret": lambda: (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n"
        f"  username: {base64.b64encode(b'app').decode()}\n"
        f"  password: {base64.b64encode(random_password().encode()).decode()}\n"
    ),
    "docker-auths": lambda: (
        json.dumps(
            {
                "auths": {
                    "registry.acme.io": {
                        "auth": base64.b64encode(f"robot:{random_password()}".encode()).decode()
                    }
                }
            },
            indent=2,
        )
        + "\n"
    ),
    "credential-in-prose": lambda: pick(
        f"The staging root password is {random_password()}\n",
        f"FYI the password for the prod db is {random_password()} (rotate after launch).\n",
        f"Remember: admin passphrase is {pass_phrase()}.\n",
        f"The API key for the billing sandbox is {rs(AN, 32)}\n",
    ),
    "generic-assignment": lambda: pick(
        ctx("db_password", random_password()),
        ctx("secret_key", rs(AN + "!@#%^&*(-_=+)", 50)),
        ctx("api_key", rs(AN, 32)),
        ctx("auth_token", rs(HEX, 40)),
        ctx("client_secret", rs(URLSAFE, 40)),
        f"<password>{random_password()}</password>\n",
        f"app.run(secret='{rs(AN, 24)}')\n",
        f"--api-key={rs(AN, 32)}\n",
    ),
}


# ----- hard negatives -------------------------------------------------------------------------
def _neg_git() -> str:
    sha = rs(HEX, 40)
    return pick(
        f"commit {sha}\nAuthor: Dev <dev@acme.io>\n",
        f"Fixed in {sha[:7]} (see {sha}).\n",
        f"git checkout {sha}\n",
        f'"rev": "{sha}",\n',
    )


def _neg_uuid() -> str:
    u = str(uuid.UUID(int=R.getrandbits(128)))
    return pick(
        f"request_id={u}\n",
        f'  "id": "{u}",\n',
        f"trace {u} failed with HTTP 502\n",
        f"tenant_id: {u}\n",
        f'client_id = "{u}"\n',
        f"session {u} expired\n",
    )


def _neg_hash() -> str:
    return pick(
        f"sha256sum: {rs(HEX, 64)}  dist/app.tar.gz\n",
        f'    "integrity": "sha512-{b64_of(64)}",\n',
        f'hash = "sha256:{rs(HEX, 64)}"\n',
        f"golang.org/x/text v0.14.0 h1:{b64_of(32)}\n",
        f"    --hash=sha256:{rs(HEX, 64)}\n",
        f"md5: {rs(HEX, 32)}\n",
        f'"checksum": "{rs(HEX, 64)}"\n',
        f'etag: "{rs(HEX, 32)}"\n',
    )


def _neg_placeholder() -> str:
    return pick(
        "API_KEY=<YOUR_KEY>\n",
        "password: changeme\n",
        "TOKEN=xxxx\n",
        "GITHUB_TOKEN=${TOKEN}\n",
        "password: {{ secret }}\n",
        "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX\n",
        "OPENAI_API_KEY=sk-...\n",
        "token: ghp_" + "x" * 36 + "\n",
        'secret = "your-secret-here"\n',
        "STRIPE_KEY=sk_live_" + "0" * 24 + "\n",
        "DB_PASSWORD=\n",
        "password: <password>\n",
        "export SLACK_TOKEN=xoxb-your-token\n",
        "api_key: REPLACE_ME\n",
        "password = 'password'\n",
        "postgres://user:password@localhost:5432/db\n",
        "PASSWORD=P@ssw0rd\n",
        "curl -u $USER:$PASS https://api.acme.io\n",
        "Authorization: Bearer <token>\n",
        "client_secret: ${{ secrets.CLIENT_SECRET }}\n",
        "redis://:${REDIS_PASSWORD}@cache:6379\n",
    )


def _neg_reference() -> str:
    return pick(
        'api_key = os.environ["API_KEY"]\n',
        "const token = process.env.GITHUB_TOKEN;\n",
        "SECRET_KEY = settings.SECRET_KEY\n",
        'password = os.getenv("DB_PASSWORD")\n',
        "token: ${{ secrets.GITHUB_TOKEN }}\n",
        "password = get_password(user)\n",
        "secret_key = config.secret_key\n",
        'db_password: "{{ vault_db_password }}"\n',
        "password: !vault |\n",
        "api_key = self.api_key\n",
        "valueFrom:\n  secretKeyRef:\n    name: db\n    key: password\n",
        "password = keyring.get_password('svc', user)\n",
        'token = ENV["DEPLOY_TOKEN"]\n',
    )


def _neg_prose() -> str:
    return pick(
        "The API key lives in Vault under secret/billing.\n",
        "Rotate the token every 90 days; the password must be at least 12 characters.\n",
        "If the password is wrong the server returns 401.\n",
        "The secret is that we cache aggressively.\n",
        "Our token budget is 8000 and the password policy is strict.\n",
        "Never paste the private key into chat; store it in 1Password.\n",
        "The password was reset by the on-call engineer.\n",
        "Use a bearer token in the Authorization header.\n",
    )


def _neg_identifier() -> str:
    return pick(
        "password_field = forms.CharField(widget=forms.PasswordInput)\n",
        "token_count = 42\n",
        "def get_password(self):\n",
        "max_tokens = 4096\n",
        "for token in tokens:\n",
        "password_hash = bcrypt.hashpw(pw, salt)\n",
        "if token.type == TokenType.NAME:\n",
        "secret_name = 'prod/db'\n",
        "api_key_id = 'ak-1234'\n",
        "token_url = 'https://oauth2.googleapis.com/token'\n",
        "PASSWORD_MIN_LENGTH = 12\n",
        "public_key = load_pem_public_key(data)\n",
        "tokenizer = AutoTokenizer.from_pretrained('gpt2')\n",
        "passwordless: true\n",
        "secret_ref: db-credentials\n",
        "auth_token_header = 'X-Auth-Token'\n",
    )


def _neg_public() -> str:
    return pick(
        f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rs(B64, 43)} dev@laptop\n",
        f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{rs(B64, 300)} ci@runner\n",
        "-----BEGIN CERTIFICATE-----\n"
        + "\n".join(rs(B64, 64) for _ in range(6))
        + "\n-----END CERTIFICATE-----\n",
        "-----BEGIN PUBLIC KEY-----\n"
        + "\n".join(rs(B64, 64) for _ in range(4))
        + "\n-----END PUBLIC KEY-----\n",
        f"STRIPE_PUBLISHABLE_KEY=pk_live_{rs(AN, 24)}\n",
        f"account: {rs(DI, 12)}\narn: arn:aws:iam::{rs(DI, 12)}:role/deploy\n",
        f"Twilio account SID AC{rs(HEX, 32)}\n",
        f"stripe customer cus_{rs(AN, 14)} and charge ch_{rs(AN, 24)}\n",
    )


def _neg_encrypted() -> str:
    return pick(
        "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(rs(HEX, 80) for _ in range(5)) + "\n",
        f"password: ENC[AES256_GCM,data:{b64_of(12)},iv:{b64_of(32)},tag:{b64_of(16)},type:str]\n",
        "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nspec:\n  encryptedData:\n"
        f"    password: AgB{rs(B64, 600)}\n",
        f"db_password: vault:v1:{b64_of(48)}\n",
    )


def _neg_masked() -> str:
    return pick(
        "token: ghp_\u2026\n",
        "notes.md:3: aws-access-key-id: AKIA\u2026\n",
        "password: ********\n",
        "notes.md:12: generic-password: DB_PASSWORD=\u2026\n",
        "API key: sk-****************abcd\n",
        "Authorization: Bearer [REDACTED]\n",
        "key ending in ...x7Qz\n",
        "memory.md:4: url-password: postgres://\u2026\n",
    )


def _neg_examples() -> str:
    return pick(
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
        "AWS_ACCESS_KEY_ID=AKIAI44QH8DHBEXAMPLE\n",
    )


def _neg_base64() -> str:
    return pick(
        f"data:image/png;base64,{b64_of(300)}\n",
        f'"content": "{b64_of(120)}",\n',
        f"nonce: {b64_of(16)}\n",
        f'<img src="data:image/gif;base64,{b64_of(60)}">\n',
        f'cache_key = "{rs(HEX, 64)}"\n',
        f"  signature_algorithm: sha256WithRSAEncryption  serial: {rs(HEX, 32)}\n",
    )


def _neg_config() -> str:
    return pick(
        'apiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: debug\n  FEATURE_X: "true"\n',
        "apiVersion: v1\nkind: Secret\ndata:\n  password: {{ .Values.dbPassword | b64enc }}\n",
        '{"auths": {"ghcr.io": {}}, "credsStore": "desktop"}\n',
        "[database]\nhost = db.internal\nport = 5432\nuser = app\n"
        "password_file = /run/secrets/db\n",
        "PASSWORD_RESET_TIMEOUT=3600\nSESSION_TOKEN_TTL=900\nJWT_ALGORITHM=HS256\n",
        "git clone https://github.com/acme/app.git\nssh://git@github.com:22/acme/app.git\n",
        'url = "https://pypi.org/simple"\nmirror = http://10.0.0.5:3128/\n',
    )


NEG: dict[str, Callable[[], str]] = {
    "git-sha": _neg_git,
    "uuid": _neg_uuid,
    "hash-lockfile": _neg_hash,
    "placeholder": _neg_placeholder,
    "reference": _neg_reference,
    "prose": _neg_prose,
    "identifier": _neg_identifier,
    "public-material": _neg_public,
    "encrypted": _neg_encrypted,
    "masked": _neg_masked,
    "example-key": _neg_examples,
    "base64-payload": _neg_base64,
    "config": _neg_config,
}


def generate(out: str, per_family: int, seed: int, big_mb: float) -> dict[str, dict[str, str]]:
    R.seed(seed)
    os.makedirs(os.path.join(out, "samples"), exist_ok=True)
    manifest: dict[str, dict[str, str]] = {}
    for label, table in (("pos", POS), ("neg", NEG)):
        for family, gen in table.items():
            n = per_family if label == "pos" else per_family * 2
            for i in range(n):
                name = f"samples/{label}-{family}-{i:03d}.txt"
                with open(os.path.join(out, name), "w", encoding="utf-8") as fh:
                    fh.write(gen())
                manifest[name] = {"label": label, "family": family}
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
    # The throughput corpus: samples mixed with plain filler text, in 100 kB files.
    big = os.path.join(out, "big")
    os.makedirs(big, exist_ok=True)
    gens = list(POS.values()) + list(NEG.values())
    filler = (
        "Notes from the incident review: the worker pool was undersized, retries "
        "amplified the load and the queue backed up for forty minutes.\n"
    )
    target, written, k = int(big_mb * 1_000_000), 0, 0
    while written < target:
        parts, size = [], 0
        while size < 100_000:
            s = R.choice(gens)() if R.random() < 0.3 else filler
            parts.append(s)
            size += len(s)
        data = "".join(parts)
        with open(os.path.join(big, f"chunk{k:03d}.md"), "w", encoding="utf-8") as fh:
            fh.write(data)
        written += len(data.encode())
        k += 1
    return manifest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "out", nargs="?", default=os.path.join(tempfile.gettempdir(), "lean_memory_secret_corpus")
    )
    ap.add_argument("--per-family", type=int, default=60)
    ap.add_argument("--seed", type=int, default=20251130)
    ap.add_argument("--big-mb", type=float, default=10.0)
    a = ap.parse_args()
    m = generate(a.out, a.per_family, a.seed, a.big_mb)
    print(f"{len(m)} samples and a {a.big_mb} MB throughput corpus in {a.out}")


if __name__ == "__main__":
    main()

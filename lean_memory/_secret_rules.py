"""The rule table of the secret scanner: one small rule per credential family.

Each rule is data: a stable id (users allowlist by it), the literal keywords that must occur in
the text before its regex runs at all, and a regex with two named groups: ``s`` is the secret
value (fingerprinted, never shown) and ``p`` the recognisable, non-secret prefix kept in the
preview. ``check`` names the validator in ``secrets.py`` that judges the value.

Regexes use only bounded quantifiers, so no rule can backtrack badly even before the line cap.
Rules with ``ci=True`` run on the lower-cased text (keywords and regex must be lower case):
that keeps a literal prefix, which ``re`` searches far faster than an ``(?i)`` pattern.
The order matters: when two rules match the same value, the earlier one wins.
"""

from __future__ import annotations


class Rule:
    """One rule of the table (a plain class: a NamedTuple would import ``typing``)."""

    __slots__ = ("check", "ci", "id", "keywords", "pattern", "scope", "shape")

    def __init__(self, id: str, keywords: tuple[str, ...], pattern: str, check: str = "token",
                 ci: bool = False, scope: str = "token", shape: str = "") -> None:
        self.id = id
        self.keywords = keywords
        self.pattern = pattern
        self.check = check
        self.ci = ci
        # "token": a keyword lies inside the secret's own run of token characters (vendor
        # prefixes), so it is looked for in those runs only; "keyed": a keyword anywhere on
        # the line (key names, commands); "text": the regex runs over the whole text; "runs":
        # the regex runs over the long token runs only (shapes without a literal prefix).
        self.scope = scope
        # "runs" only: what every match contains, with each lowercase hex digit as "h"
        # (say "hhhh-hh"): a keyword as common as "-" then compiles nothing in prose.
        self.shape = shape


_B64 = r"A-Za-z0-9+/"
_URLSAFE = r"A-Za-z0-9_\-"
# The end of a token: the next character cannot continue the token's alphabet.
_END = r"(?![A-Za-z0-9_\-])"
_START = r"(?<![A-Za-z0-9_\-])"
# Between a key's header and its body: anything but another `-----` marker, up to 300
# characters; the body may not start right after a backslash (the `n` of a `\n` escape).
_KEY_GAP = r"(?:(?!-----)[\s\S]){0,300}?(?<!\\)"
# Between a .ppk line count and the key lines: newlines, escaped or CRLF, indentation, `> `,
# the quotes of one string literal per line.
_KEY_SEP = r"(?:\\{1,3}[rn]|[^A-Za-z0-9+/=\\]){0,16}(?<!\\)"

RULES: tuple[Rule, ...] = (
    # --- private keys (PEM, also inside JSON with escaped newlines) -----------------------
    # RFC 7468 / OpenSSH PROTOCOL.key / RFC 4880: the header names the kind; demand a body.
    # The body is the first long base64 run within _KEY_GAP characters of the header, before
    # any other `-----` marker: that steps over armor headers (Proc-Type, Comment), blank
    # lines, indentation, `> ` quoting, `\n` escapes (once or twice), CRLF and lines joined
    # with or without a space, without naming each of them.
    Rule(
        "private-key",
        ("PRIVATE KEY",),
        r"-----BEGIN (?P<p>[A-Z0-9]{0,12} ?[A-Z0-9]{0,12} ?PRIVATE KEY(?: BLOCK)?)-----"
        rf"{_KEY_GAP}(?P<s>[{_B64}=]{{40,200}})",
        "pem",
        scope="text",
    ),
    # ssh.com / RFC 4716-style private keys (`puttygen -O private-sshcom`): four dashes.
    Rule(
        "private-key",
        ("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----",),
        r"---- BEGIN (?P<p>SSH2 ENCRYPTED PRIVATE KEY) ----"
        rf"{_KEY_GAP}(?P<s>[{_B64}=]{{40,200}})",
        "pem",
        scope="text",
    ),
    # PuTTY .ppk files (PuTTY docs, appendix C): the private part follows "Private-Lines".
    Rule(
        "private-key",
        ("Private-Lines",),
        rf"(?P<p>Private-Lines): ?\d{{1,3}}{_KEY_SEP}(?P<s>[{_B64}=]{{40,200}})",
        "key",
        scope="keyed",
    ),
    # PKCS#12 (RFC 7292) pasted as base64 (`openssl pkcs12 -export | base64`): a PFX is
    # SEQUENCE { INTEGER 3, ContentInfo { id-data, [0] … } }, whose DER encodes to this shape.
    Rule(
        "private-key",
        ("CSqGSIb3DQEHAaCC",),
        rf"(?P<s>(?P<p>MII)[{_B64}]{{5}}AzCC[{_B64}]{{4}}CSqGSIb3DQEHAaCC[{_B64}]{{16,200}})",
        "key",
    ),
    # age (age-encryption.org/v1): bech32 secret keys.
    Rule("age-secret-key", ("AGE-SECRET-KEY-1",), r"(?P<s>(?P<p>AGE-SECRET-KEY-1)[0-9A-Z]{58})"),
    # --- AWS (IAM docs: unique id prefixes) -------------------------------------------
    Rule(
        "aws-access-key-id",
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        r"(?<![A-Z0-9])(?P<s>(?P<p>AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})(?![A-Z0-9])",
    ),
    # STS session tokens are base64 of a protobuf starting with these bytes.
    Rule(
        "aws-session-token",
        ("IQoJb3JpZ2lu", "FwoGZXIvYXdz", "FQoGZXIvYXdz"),
        rf"(?P<s>(?P<p>IQoJb3JpZ2lu|FwoGZXIvYXdz|FQoGZXIvYXdz)[{_B64}=]{{60,2000}})",
    ),
    Rule(
        "aws-session-token",
        ("session_token", "sessiontoken", "security_token"),
        r"(?P<p>aws_session_token|aws_security_token|sessiontoken|security_token)[\"']?\s{0,3}"
        r"[:=]\s{0,3}[\"']?(?P<s>[a-z0-9+/=]{100,2000})",
        "token",
        ci=True,
        scope="keyed",
    ),
    # Amazon Bedrock API keys: long-lived "ABSK" + base64("BedrockAPIKey-…"); short-lived
    # ones are "bedrock-api-key-" + base64 of a presigned "bedrock.amazonaws.com/…" URL.
    Rule(
        "aws-bedrock-api-key",
        ("ABSKQmVkcm9ja0FQSUtleS",),
        rf"{_START}(?P<s>(?P<p>ABSK)QmVkcm9ja0FQSUtleS[{_B64}]{{20,2000}}={{0,2}})",
    ),
    Rule(
        "aws-bedrock-api-key",
        ("bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",),
        rf"(?P<s>(?P<p>bedrock-api-key-)YmVkcm9jay5hbWF6b25hd3MuY29t[{_URLSAFE}+/%=&.]{{40,4000}})",
        "fixed",
    ),
    # The 40-character secret has no prefix: require an AWS-ish key name next to it.
    Rule(
        "aws-secret-access-key",
        ("secret",),
        r"(?P<p>(?:aws)?_?secret_?(?:access)?_?key|secretaccesskey|aws_?secret)[\"']?\s{0,3}"
        r"(?::=|=>|[:=])\s{0,3}[\"']?(?P<s>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        "aws_secret",
        ci=True,
        scope="keyed",
    ),
    # A bare 40-character secret written right after an access key id (notes, CSV exports).
    Rule(
        "aws-secret-access-key",
        ("AKIA", "ASIA"),
        r"(?:AKIA|ASIA)[A-Z0-9]{16}(?P<p>)[^A-Za-z0-9/+\n]{1,40}(?:[A-Za-z_ ]{1,40}[:=]\s{0,3})?"
        r"[\"']?(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        "aws_secret",
    ),
    # --- Google / GCP (cloud.google.com API keys, OAuth client docs) -------------------
    Rule("google-api-key", ("AIza",), rf"{_START}(?P<s>(?P<p>AIza)[{_URLSAFE}]{{35}}){_END}"),
    Rule(
        "google-oauth-client-secret",
        ("GOCSPX-",),
        rf"(?P<s>(?P<p>GOCSPX-)[{_URLSAFE}]{{28}}){_END}",
    ),
    Rule(
        "google-oauth-access-token",
        ("ya29.",),
        rf"{_START}(?P<s>(?P<p>ya29\.)[{_URLSAFE}]{{30,2000}})",
    ),
    Rule(
        "google-oauth-refresh-token",
        ("1//0",),
        rf"{_START}(?P<s>(?P<p>1//0)[{_URLSAFE}]{{40,500}})",
    ),
    # --- Azure (Storage, Service Bus, Entra ID client secrets, SAS) ---------------------
    Rule(
        "azure-storage-key",
        ("accountkey=",),
        r"(?P<p>accountkey=)(?P<s>[a-z0-9+/]{86}==)",
        ci=True,
    ),
    Rule(
        "azure-connection-string",
        ("sharedaccesskey=",),
        r"(?P<p>sharedaccesskey=)(?P<s>[a-z0-9+/=]{20,100})",
        ci=True,
    ),
    # Entra ID client secrets since 2022 carry "Q~" after a 3-char id and a digit.
    Rule(
        "azure-ad-client-secret",
        ("Q~",),
        r"(?<![A-Za-z0-9_~.\-])(?P<s>(?P<p>)[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})"
        r"(?![A-Za-z0-9_~\-])",
    ),
    # Service SAS (learn.microsoft.com "Create a service SAS"): the signature is `sig=`.
    Rule(
        "azure-sas-token",
        ("sig=",),
        r"[?&;\s\"'](?P<p>sig=)(?P<s>[a-z0-9%+/]{30,200}(?:%3d|=){0,2})",
        "sas",
        ci=True,
    ),
    # --- GitHub (github.blog 2021-04 token format) -------------------------------------
    Rule("github-pat", ("ghp_",), rf"{_START}(?P<s>(?P<p>ghp_)[A-Za-z0-9]{{36}}){_END}"),
    Rule(
        "github-fine-grained-pat",
        ("github_pat_",),
        rf"(?P<s>(?P<p>github_pat_)[A-Za-z0-9_]{{50,255}}){_END}",
    ),
    Rule("github-oauth-token", ("gho_",), rf"{_START}(?P<s>(?P<p>gho_)[A-Za-z0-9]{{36}}){_END}"),
    # Installation tokens since April 2026: ghs_<app id>_<JWT>.
    Rule(
        "github-app-token",
        ("ghs_",),
        rf"{_START}(?P<s>(?P<p>ghs_)\d{{1,20}}_[{_URLSAFE}]{{10,4000}}\.[{_URLSAFE}]{{10,4000}}"
        rf"\.[{_URLSAFE}]{{10,1000}})",
    ),
    Rule(
        "github-app-token",
        ("ghu_", "ghs_"),
        rf"{_START}(?P<s>(?P<p>gh[us]_)[A-Za-z0-9]{{36}}){_END}",
    ),
    Rule(
        "github-refresh-token",
        ("ghr_",),
        rf"{_START}(?P<s>(?P<p>ghr_)[A-Za-z0-9]{{36,76}}){_END}",
    ),
    # --- GitLab (docs.gitlab.com "Token prefixes") -------------------------------------
    Rule("gitlab-pat", ("glpat-",), rf"{_START}(?P<s>(?P<p>glpat-)[{_URLSAFE}.]{{20,200}})"),
    Rule(
        "gitlab-token",
        (
            "gldt-",
            "glrt-",
            "glptt-",
            "glsoat-",
            "glcbt-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glft-",
            "glffct-",
            "glrtr-",
            "GR1348941",
        ),
        r"(?<![A-Za-z0-9])(?P<s>(?P<p>gldt-|glrt-|glrtr-|glptt-|glsoat-|glcbt-|glimt-|glagent-"
        rf"|gloas-|glft-|glffct-|GR1348941)[{_URLSAFE}.]{{20,200}})",
    ),
    # --- Slack (api.slack.com "Token types"; webhooks embed their secret) ---------------
    Rule(
        "slack-token",
        ("xox", "xapp-"),
        r"(?<![A-Za-z0-9_\-.])(?P<s>(?P<p>xox[abposer]-|xoxe\.xox[bp]-|xoxe-|xapp-)"
        r"[A-Za-z0-9\-]{20,250})",
    ),
    Rule(
        "slack-webhook",
        ("hooks.slack.com/",),
        r"(?P<p>hooks\.slack\.com/(?:services|workflows|triggers)/)(?P<s>[A-Za-z0-9+/_\-]{20,200})",
    ),
    # X/Twitter app-only bearer tokens: 22 "A"s, then the URL-encoded token.
    Rule(
        "twitter-bearer-token",
        ("AAAAAAAAAAAAAAAAAAAAA",),
        r"(?<![A-Za-z0-9%])(?P<s>(?P<p>A{21,23})[A-Za-z0-9%]{60,200})(?![A-Za-z0-9%])",
    ),
    # --- Discord / Telegram (bot token shapes from their developer docs) ----------------
    Rule(
        "discord-webhook",
        ("/api/webhooks/",),
        r"(?P<p>discord(?:app)?\.com/api/webhooks/)(?P<s>\d{15,21}/[A-Za-z0-9_\-]{60,80})",
    ),
    # base64(user id) . base64(timestamp) . HMAC: a user id (17-20 digits, first 1-9) encodes
    # to one of these two-letter starts.
    Rule(
        "discord-bot-token",
        ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"),
        r"(?<![A-Za-z0-9_\-.])(?P<s>(?P<p>)(?:M[Tjz]|N[DTjz]|O[DT])[A-Za-z0-9_\-]{22,26}\.[A-Za-z0-9_\-]{6}"
        r"\.[A-Za-z0-9_\-]{27,40})(?![A-Za-z0-9_\-.])",
        scope="runs",
    ),
    Rule(
        "telegram-bot-token",
        (":AA",),
        r"(?<![0-9])(?P<s>(?P<p>)\d{8,10}:AA[A-Za-z0-9_\-]{32,33})(?![A-Za-z0-9_\-])",
    ),
    # --- payments -------------------------------------------------------------------
    # Stripe (docs.stripe.com/keys): sk_/rk_ are secret; pk_ is publishable and not flagged.
    Rule(
        "stripe-secret-key",
        ("sk_live_", "sk_test_"),
        rf"{_START}(?P<s>(?P<p>sk_(?:live|test)_)[A-Za-z0-9]{{16,247}}){_END}",
    ),
    Rule(
        "stripe-restricted-key",
        ("rk_live_", "rk_test_", "rk_prod_"),
        rf"{_START}(?P<s>(?P<p>rk_(?:live|test|prod)_)[A-Za-z0-9]{{16,247}}){_END}",
    ),
    Rule(
        "stripe-webhook-secret",
        ("whsec_",),
        rf"{_START}(?P<s>(?P<p>whsec_)[A-Za-z0-9+/=]{{24,100}})",
    ),
    # Square (developer.squareup.com): access tokens and OAuth secrets.
    Rule(
        "square-token",
        ("sq0atp-", "sq0csp-"),
        r"(?<![A-Za-z0-9])(?P<s>(?P<p>sq0atp-|sq0csp-)[A-Za-z0-9_\-]{22,60})",
    ),
    # Flutterwave secret and encryption keys (FLWPUBK_ public keys are not secret).
    Rule(
        "flutterwave-secret-key",
        ("FLWSECK",),
        r"(?<![A-Za-z0-9])(?P<s>(?P<p>FLWSECK(?:_TEST)?-)[a-fA-F0-9]{12,64}(?:-X)?)(?![A-Za-z0-9])",
    ),
    # Braintree/PayPal access tokens.
    Rule(
        "paypal-braintree-token",
        ("access_token$",),
        r"(?P<s>(?P<p>access_token\$)(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32})",
    ),
    # --- messaging / email ----------------------------------------------------------
    # Twilio API key SIDs are "SK" + 32 hex; auth tokens are 32 hex next to "twilio".
    Rule("twilio-api-key", ("SK",), r"(?<![A-Za-z0-9])(?P<s>(?P<p>SK)[0-9a-f]{32})(?![A-Za-z0-9])"),
    Rule(
        "twilio-auth-token",
        ("twilio",),
        r"(?P<p>twilio[a-z0-9_.\- ]{0,20}(?:auth|token|secret)[a-z0-9_ ]{0,10})[\"']?\s{0,3}"
        r"(?::=|=>|[:=])\s{0,3}[\"']?(?P<s>[0-9a-f]{32})(?![0-9a-z])",
        ci=True,
        scope="keyed",
    ),
    # SendGrid: "SG." + 22 + "." + 43 (docs.sendgrid.com API keys).
    Rule(
        "sendgrid-api-key",
        ("SG.",),
        rf"(?<![A-Za-z0-9])(?P<s>(?P<p>SG\.)[{_URLSAFE}]{{22}}\.[{_URLSAFE}]{{43}})",
    ),
    # Mailgun: legacy "key-" + 32, current private keys are 32hex-8hex-8hex.
    Rule(
        "mailgun-api-key",
        ("key-",),
        r"(?<![A-Za-z0-9\-])(?P<s>(?P<p>key-)[0-9a-zA-Z]{32})(?![A-Za-z0-9])",
    ),
    # No prefix: the regex runs over the long token runs only (see scope "runs").
    Rule(
        "mailgun-api-key",
        ("-",),
        r"(?<![A-Za-z0-9\-])(?P<s>(?P<p>)[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})(?![A-Za-z0-9\-])",
        scope="runs",
        shape="-".join(("h" * 32, "h" * 8, "h" * 8)),
    ),
    # Mailchimp: 32 hex + "-us" + datacenter.
    Rule(
        "mailchimp-api-key",
        ("-us",),
        r"(?<![A-Za-z0-9])(?P<s>(?P<p>)[0-9a-f]{32}-us\d{1,2})(?![A-Za-z0-9])",
    ),
    Rule(
        "postmark-token",
        ("postmark",),
        r"(?P<p>postmark[a-z0-9_.\-]{0,30})[\"']?\s{0,3}(?::=|=>|[:=])\s{0,3}[\"']?"
        r"(?P<s>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
        ci=True,
        scope="keyed",
    ),
    # --- AI providers -----------------------------------------------------------------
    Rule(
        "anthropic-api-key",
        ("sk-ant-",),
        rf"(?P<s>(?P<p>sk-ant-)[a-z]{{2,8}}\d{{2}}-[{_URLSAFE}]{{32,200}})",
    ),
    Rule(
        "openrouter-api-key",
        ("sk-or-",),
        r"(?P<s>(?P<p>sk-or-v\d-)[0-9a-f]{64})",
    ),
    # OpenAI (platform.openai.com): project, admin, service-account and legacy user keys.
    Rule(
        "openai-api-key",
        ("sk-",),
        r"(?<![A-Za-z0-9_\-])(?P<s>(?P<p>sk-(?:proj|admin|svcacct|None)-)[A-Za-z0-9_\-]{40,250})",
    ),
    Rule(
        "openai-api-key",
        ("T3BlbkFJ",),
        r"(?<![A-Za-z0-9_\-])(?P<s>(?P<p>sk-)[A-Za-z0-9_\-]{16,150}T3BlbkFJ[A-Za-z0-9_\-]{16,150})",
    ),
    # Plain "sk-" keys: legacy OpenAI (48), DeepSeek, Moonshot and other compatible APIs.
    Rule(
        "ai-api-key",
        ("sk-",),
        r"(?<![A-Za-z0-9_\-])(?P<s>(?P<p>sk-)[A-Za-z0-9]{32,64})(?![A-Za-z0-9_\-])",
    ),
    Rule(
        "huggingface-token",
        ("hf_", "api_org_"),
        r"(?<![A-Za-z0-9_])(?P<s>(?P<p>hf_|api_org_)[A-Za-z0-9]{30,40})(?![A-Za-z0-9_])",
    ),
    Rule("groq-api-key", ("gsk_",), r"(?<![A-Za-z0-9_])(?P<s>(?P<p>gsk_)[A-Za-z0-9]{48,56})"),
    Rule("replicate-api-token", ("r8_",), r"(?<![A-Za-z0-9_])(?P<s>(?P<p>r8_)[A-Za-z0-9]{37})"),
    Rule("perplexity-api-key", ("pplx-",), r"(?P<s>(?P<p>pplx-)[A-Za-z0-9]{40,56})"),
    Rule("xai-api-key", ("xai-",), r"(?<![A-Za-z0-9_\-])(?P<s>(?P<p>xai-)[A-Za-z0-9]{70,90})"),
    Rule("fireworks-api-key", ("fw_",), r"(?<![A-Za-z0-9_])(?P<s>(?P<p>fw_)[A-Za-z0-9]{24,40})"),
    Rule(
        "langsmith-api-key",
        ("lsv2_",),
        r"(?P<s>(?P<p>lsv2_(?:pt|sk)_)[0-9a-f]{32}_[0-9a-f]{10})",
    ),
    Rule("pinecone-api-key", ("pcsk_",), r"(?P<s>(?P<p>pcsk_)[A-Za-z0-9_]{40,100})"),
    # --- package registries -----------------------------------------------------------
    Rule("npm-token", ("npm_",), r"(?<![A-Za-z0-9_])(?P<s>(?P<p>npm_)[A-Za-z0-9]{36})"),
    # .npmrc: `//registry/:_authToken=...` (legacy tokens are UUIDs, so no UUID filter here).
    Rule(
        "npm-token",
        ("_authtoken", "_auth=", "_password="),
        r"(?m)(?:^|:)(?P<p>_authtoken|_auth|_password)\s{0,3}=\s{0,3}[\"']?"
        r"(?P<s>[a-z0-9+/=._\-]{16,300})",
        "npmrc",
        ci=True,
        scope="keyed",
    ),
    Rule("pypi-token", ("pypi-AgE",), rf"(?P<s>(?P<p>pypi-)AgE[{_URLSAFE}]{{50,300}})"),
    Rule("rubygems-token", ("rubygems_",), r"(?P<s>(?P<p>rubygems_)[0-9a-f]{48})"),
    Rule("nuget-api-key", ("oy2",), r"(?<![A-Za-z0-9])(?P<s>(?P<p>oy2)[a-z0-9]{43})(?![a-z0-9])"),
    Rule("docker-hub-token", ("dckr_pat_",), rf"(?P<s>(?P<p>dckr_pat_)[{_URLSAFE}]{{27,40}})"),
    # --- other developer platforms with fixed prefixes --------------------------------
    Rule(
        "shopify-token",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
        r"(?P<s>(?P<p>shp(?:at|ca|pa|ss)_)[a-fA-F0-9]{32})",
    ),
    Rule(
        "digitalocean-token",
        ("dop_v1_", "doo_v1_", "dor_v1_"),
        r"(?P<s>(?P<p>do[opr]_v1_)[a-f0-9]{64})",
    ),
    Rule("linear-api-key", ("lin_api_",), r"(?P<s>(?P<p>lin_api_)[A-Za-z0-9]{40})"),
    Rule(
        "notion-token",
        ("ntn_", "secret_"),
        r"(?<![A-Za-z0-9_])(?P<s>(?P<p>ntn_|secret_)[A-Za-z0-9]{43,46})(?![A-Za-z0-9])",
    ),
    Rule("atlassian-api-token", ("ATATT3",), r"(?P<s>(?P<p>ATATT3)[A-Za-z0-9_=\-]{150,250})"),
    Rule(
        "hashicorp-vault-token",
        ("hvs.", "hvb.", "hvr."),
        r"(?<![A-Za-z0-9])(?P<s>(?P<p>hv[sbr]\.)[A-Za-z0-9_\-]{24,200})",
    ),
    Rule(
        "terraform-cloud-token",
        (".atlasv1.",),
        r"(?P<s>(?P<p>)[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70})",
    ),
    Rule("databricks-token", ("dapi",), r"(?<![A-Za-z0-9])(?P<s>(?P<p>dapi)[a-f0-9]{32}(?:-\d)?)"),
    Rule("postman-api-key", ("PMAK-",), r"(?P<s>(?P<p>PMAK-)[a-f0-9]{24}-[a-f0-9]{34})"),
    Rule(
        "doppler-token",
        ("dp.pt.", "dp.st.", "dp.sa.", "dp.ct."),
        r"(?P<s>(?P<p>dp\.(?:pt|st|sa|ct)\.)[A-Za-z0-9]{40,50})",
    ),
    Rule(
        "grafana-token",
        ("glc_", "glsa_"),
        r"(?<![A-Za-z0-9_])(?P<s>(?P<p>glc_|glsa_)[A-Za-z0-9_=+/]{32,200})",
    ),
    Rule(
        "sentry-token", ("sntrys_", "sntryu_"), r"(?P<s>(?P<p>sntry[su]_)[A-Za-z0-9_=+/]{40,300})"
    ),
    Rule("newrelic-api-key", ("NRAK-",), r"(?P<s>(?P<p>NRAK-)[A-Z0-9]{27})"),
    Rule("supabase-token", ("sbp_",), r"(?P<s>(?P<p>sbp_)[a-f0-9]{40})"),
    Rule(
        "planetscale-token",
        ("pscale_",),
        r"(?P<s>(?P<p>pscale_(?:tkn|pw|oauth)_)[A-Za-z0-9_=.\-]{32,64})",
    ),
    Rule("pulumi-token", ("pul-",), r"(?<![A-Za-z0-9])(?P<s>(?P<p>pul-)[a-f0-9]{40})"),
    Rule(
        "mapbox-secret-token",
        ("sk.eyJ",),
        rf"(?P<s>(?P<p>sk\.eyJ)[{_URLSAFE}]{{20,200}}\.[{_URLSAFE}]{{20,100}})",
    ),
    Rule(
        "flyio-token",
        ("fo1_", "fm1a_", "fm1r_", "fm2_"),
        rf"(?<![A-Za-z0-9_\-+/])(?P<s>(?P<p>fo1_|fm1[ar]_|fm2_)[{_URLSAFE}+/=]{{40,1000}})",
    ),
    # EasyPost (production EZAK, test EZTK), Sourcegraph (sgp_), 42 intra (s-s4t2…),
    # Dynatrace (dt0c01.), Airtable personal access tokens, Alibaba Cloud access key ids
    # (LTAI), Adobe client secrets (p8e-), OpenShift user tokens (sha256~), 1Password account
    # secret keys (A3-), Heroku v2 keys (HRKU-AA), Facebook page tokens (EAA…).
    Rule(
        "easypost-api-key",
        ("EZAK", "EZTK"),
        r"(?<![A-Za-z0-9])(?P<s>(?P<p>EZ[AT]K)[A-Za-z0-9]{54})(?![A-Za-z0-9])",
    ),
    Rule(
        "sourcegraph-token",
        ("sgp_",),
        r"(?<![A-Za-z0-9_])(?P<s>(?P<p>sgp_)(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40})"
        r"(?![A-Za-z0-9_])",
    ),
    Rule(
        "intra42-client-secret",
        ("s-s4t2",),
        r"(?<![A-Za-z0-9\-])(?P<s>(?P<p>s-s4t2(?:ud|af)-)[a-f0-9]{64})(?![A-Za-z0-9])",
    ),
    Rule(
        "dynatrace-token",
        ("dt0c01.",),
        r"(?<![A-Za-z0-9])(?P<s>(?P<p>dt0c01\.)[A-Za-z0-9]{24}\.[A-Za-z0-9]{64})(?![A-Za-z0-9])",
    ),
    Rule(
        "airtable-token",
        ("pat",),
        r"(?<![A-Za-z0-9_])(?P<s>(?P<p>pat)[A-Za-z0-9]{14}\.[a-f0-9]{64})(?![A-Za-z0-9])",
        scope="runs",  # "pat" starts many words: the regex runs over the token runs alone
    ),
    Rule(
        "alibaba-access-key-id",
        ("LTAI",),
        r"(?<![A-Za-z0-9])(?P<s>(?P<p>LTAI)[A-Za-z0-9]{20})(?![A-Za-z0-9])",
    ),
    Rule(
        "adobe-client-secret",
        ("p8e-",),
        r"(?<![A-Za-z0-9\-])(?P<s>(?P<p>p8e-)[A-Za-z0-9]{32})(?![A-Za-z0-9])",
    ),
    Rule(
        "openshift-token",
        ("sha256~",),
        r"(?<![A-Za-z0-9_\-])(?P<s>(?P<p>sha256~)[A-Za-z0-9_\-]{43})(?![A-Za-z0-9_\-])",
    ),
    Rule(
        "1password-secret-key",
        ("A3-",),
        r"(?<![A-Za-z0-9\-])(?P<s>(?P<p>A3-)[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})"
        r"(?:-[A-Z0-9]{5}){3})(?![A-Za-z0-9])",
    ),
    Rule(
        "heroku-api-key",
        ("HRKU-AA",),
        r"(?<![A-Za-z0-9\-])(?P<s>(?P<p>HRKU-)AA[A-Za-z0-9_\-]{58})(?![A-Za-z0-9_\-])",
    ),
    Rule(
        "facebook-access-token",
        ("EAA",),
        r"(?<![A-Za-z0-9])(?P<s>(?P<p>EAA)[MC][A-Za-z0-9]{100,400})(?![A-Za-z0-9])",
    ),
    # Microsoft Teams incoming webhooks: the URL is the credential.
    Rule(
        "teams-webhook",
        ("/webhookb2/",),
        r"(?P<p>\.webhook\.office\.com/webhookb2/)(?P<s>[A-Za-z0-9@\-]{36,200}/IncomingWebhook"
        r"/[A-Za-z0-9]{32}/[A-Za-z0-9\-]{20,80})",
        "fixed",
    ),
    # --- structural: JWTs, URLs with passwords, HTTP auth, CLI flags ----------------------
    # RFC 7519 compact form: two base64url JSON parts starting with '{"' -> "eyJ", signature.
    Rule(
        "jwt",
        ("eyJ",),
        rf"(?<![A-Za-z0-9_\-.])(?P<s>(?P<p>eyJ)[{_URLSAFE}]{{10,4000}}\.eyJ[{_URLSAFE}]{{10,4000}}"
        rf"\.[{_URLSAFE}]{{16,1000}})",
        "jwt",
    ),
    # A JWT base64-encoded once more (Kubernetes Secret data, env files): "eyJ" -> "ZXlK".
    Rule(
        "jwt",
        ("ZXlK",),
        rf"(?<![{_B64}])(?P<s>(?P<p>ZXlK)[{_B64}]{{60,8000}}={{0,2}})",
        "jwt_b64",
    ),
    # RFC 3986 userinfo: scheme://user:password@host (DSNs, git remotes, proxies).
    Rule(
        "url-password",
        ("://",),
        r"(?P<p>[A-Za-z][A-Za-z0-9+.\-]{1,20}://)(?P<u>[^\s:/?#@\"'<>`]{0,100}):"
        r"(?P<s>[^\s/@\"'<>`]{1,200})@[^\s/?#@\"'<>`:]",
        "url",
        scope="keyed",
    ),
    # RFC 7617 / RFC 6750 Authorization headers.
    Rule(
        "http-auth-header",
        ("authorization", "bearer "),
        r"(?P<p>(?:authorization[\"']?\s{0,3}[:=]\s{0,3}[\"']?)?(?:bearer|basic|token|bot))"
        r"\s{1,3}(?P<s>[a-z0-9._~+/=\-]{8,2000})",
        "header",
        ci=True,
        scope="keyed",
    ),
    # curl/wget credentials: `curl -u user:pass`, `--user user:pass`.
    Rule(
        "curl-basic-auth",
        ("-u", "--user"),
        r"(?:^|\s)(?P<p>-u|--user)(?:\s{1,3}|=)?[\"']?(?P<u>[^\s\"':]{0,100}):[\"']?"
        r"(?P<s>[^\s\"']{1,200})",
        "url",
        scope="keyed",
    ),
    # mysql -pPASS (no space), sshpass -p PASS, redis-cli -a PASS.
    Rule(
        "cli-password",
        ("mysql", "mariadb"),
        r"(?P<p>(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]{0,200}?\s-p)"
        r"[\"']?(?P<s>[^\s\"'\-][^\s\"']{2,100})",
        "password",
        scope="keyed",
    ),
    # sshpass -p PASS, redis-cli -a PASS, docker login -p PASS.
    Rule(
        "cli-password",
        ("sshpass", "redis-cli", "docker"),
        r"(?P<p>(?:sshpass\s{1,3}-p|(?:redis-cli|docker\s{1,3}login)\b[^\n|;&]{0,200}?\s-[ap])"
        r"\s{0,3})[\"']?(?P<s>[^\s\"']{3,100})",
        "password",
        scope="keyed",
    ),
    # MongoDB shells and tools, SQL Server's sqlcmd/bcp: `-p PASS`, `--password PASS`, `-P PASS`.
    Rule(
        "cli-password",
        ("mongo", "sqlcmd", "bcp "),
        r"(?P<p>(?:mongo(?:sh|dump|restore|export|import|stat|top)?\b[^\n|;&]{0,200}?\s(?:-p|--password)"
        r"|(?:sqlcmd|bcp)\b[^\n|;&]{0,200}?\s-P)(?:\s{1,3}|=))[\"']?(?P<s>[^\s\"'\-][^\s\"']{2,100})",
        "password",
        scope="keyed",
    ),
    # htpasswd -b FILE USER PASSWORD (the password is on the command line in batch mode).
    Rule(
        "cli-password",
        ("htpasswd",),
        r"(?P<p>htpasswd\s{1,3}-[a-zA-Z]{0,5}b[a-zA-Z]{0,5}\s{1,3}(?:-[a-zA-Z]{1,5}\s{1,3}){0,3}"
        r"\S{1,200}\s{1,3}\S{1,100}\s{1,3})[\"']?(?P<s>[^\s\"']{3,100})",
        "password",
        scope="keyed",
    ),
    # .NET appSettings: <add key="ApiKey" value="…" />.
    Rule(
        "generic-secret",
        ("key=",),
        r"key\s{0,3}=\s{0,3}\"(?P<p>[a-z0-9_.:\-]{0,40}(?:password|passwd|pwd|secret|token|apikey"
        r"|api_key|accesskey|connectionstring)[a-z0-9_.:\-]{0,20})\"\s{1,5}value\s{0,3}=\s{0,3}\""
        r"(?P<s>[^\"\n]{6,300})\"",
        "password",
        ci=True,
        scope="keyed",
    ),
    # Kubernetes/compose env lists: `- name: DB_PASSWORD` then `value: …` on the next line.
    Rule(
        "generic-secret",
        ("name:",),
        r"name:\s{0,3}[\"']?(?P<p>[a-z0-9_]{0,40}(?:password|passwd|secret|token|api_?key)"
        r"[a-z0-9_]{0,20})[\"']?[ \t]{0,5}\r?\n[ \t]{0,40}value:[ \t]{0,3}[\"']?"
        r"(?P<s>[^\s\"']{6,300})",
        "password",
        ci=True,
        scope="keyed",
    ),
    # .pgpass lines (PostgreSQL docs, "The Password File"): host:port:database:user:password.
    Rule(
        "pgpass-password",
        (":0", ":1", ":2", ":3", ":4", ":5", ":6", ":7", ":8", ":9", ":*"),
        # From the `:port:` on (a literal start is far faster to search); the validator
        # checks the host before it. The keywords are every start of `:port`: prose with a
        # colon ("Title: text") compiles nothing.
        r"(?m)(?P<p>:(?:\d{2,5}|\*):[\w.\-*]{1,100}:[\w.\-*@]{1,100}:)(?P<s>[^\s:]{4,200})$",
        "pgpass",
        scope="text",
    ),
    # A key passed positionally to a client's constructor: `SendGridAPIClient("…")`,
    # `TwilioRestClient("AC…", "…")`: the class name says what the string is.
    Rule(
        "client-constructor-key",
        ("client(", "api(", "sdk("),
        r"(?P<p>(?<![A-Za-z0-9_])(?:[A-Z][A-Za-z0-9_]{0,40})?(?:Client|API|Api|SDK|Sdk))\(\s{0,3}"
        r"(?:[\"'][^\"'\n]{1,100}[\"']\s{0,3},\s{0,3})?[\"'](?P<s>[^\"'\s]{20,300})[\"']",
        "client_key",
        scope="keyed",
    ),
    # A storage account key (64 bytes, base64) stated without `AccountKey=`: `--account-key`,
    # `storage key: …`; the line must name storage, an account, Azure or blobs. Looked for
    # from its "==" end, which sits inside a long run (code's `a == b` does not).
    Rule(
        "azure-storage-key",
        ("==",),
        r"(?P<p>(?:storage|account|azure|blob))[^\n]{0,80}?(?<![a-z0-9+/=_\-])"
        r"(?P<s>[a-z0-9+/]{86}==)(?![a-z0-9+/=])",
        "aws_secret",
        ci=True,
    ),
    # Credentials by position: a user and a password as the two strings a login call or an
    # auth object takes, `smtp.login("ops@acme.io", "…")`, `HTTPBasicAuth("u", "…")`,
    # `auth=("u", "…")`, `NetworkCredential("u", "…")`; `connect("host", "user", "…")`.
    Rule(
        "positional-credential",
        ("login(", "auth", "credential", "connect("),
        # Each branch starts with a literal: the regex runs on every line with `connect(`.
        r"(?P<p>\.login\(|Auth\(|Credentials?\(|(?<![A-Za-z0-9_])auth[ \t]{0,3}=[ \t]{0,3}\("
        r"|(?<![A-Za-z0-9_])connect\([ \t]{0,3}[\"'][^\"'\n]{1,100}[\"'][ \t]{0,3},)"
        r"[ \t]{0,3}[\"'](?P<u>[^\"'\n]{1,100})[\"'][ \t]{0,3},[ \t]{0,3}"
        r"[\"'](?P<s>[^\"'\n]{3,200})[\"'][ \t]{0,3}[,)]",
        "login_call",
        scope="keyed",
    ),
    # Credentials stated in a sentence: "Login: admin / P4ss…", "creds are deploy:P4ss…",
    # "Login for the vendor portal: ops@acme.io / …".
    Rule(
        "credential-in-prose",
        ("login", "credential", "creds", "user:", "username:", "user is"),
        r"(?<![a-z0-9_/.@\-])(?P<p>(?:login|credentials?|creds|user(?:name)?)"
        r"(?:[ \t][^\n:=]{0,40}?)?(?:[ \t]{0,3}(?::[ \t]|=)|[ \t](?:is|are)[ \t]))[ \t]{0,3}"
        r"[\"'`]?(?P<u>[a-z0-9_.@+\-]{1,64})"
        r"(?:[ \t]{0,2}/[ \t]{0,2}|:)(?P<s>[^\s\"'`/]{4,100})",
        "prose_login",
        ci=True,
        scope="keyed",
    ),
    # Vault unseal keys, recovery keys and codes printed once at init ("Unseal Key 1: …").
    Rule(
        "recovery-key",
        ("unseal key", "recovery key", "recovery code"),
        r"(?P<p>(?:unseal|recovery)[ \t](?:key|code)s?(?:[ \t]\d{1,2})?)[ \t]{0,3}[:=][ \t]{0,3}"
        r"(?P<s>[a-z0-9+/=\-]{16,200})",
        "recovery",
        ci=True,
        scope="keyed",
    ),
    # Docker ~/.docker/config.json "auths": base64("user:password").
    Rule(
        "docker-auth",
        ('"auth"',),
        r"(?P<p>\"auth\")\s{0,3}:\s{0,3}\"(?P<s>[A-Za-z0-9+/=]{8,1000})\"",
        "basic",
        scope="keyed",
    ),
)

# Generic assignments are matched by one regex per keyword (separate literal-prefix regexes
# measured far faster than one alternation). Keyword -> rule id of what it guards.
# Each key is a regex over lower-cased text that starts with a literal (its prefilter).
_KEY = r"[_.\-]?key"
# Names that share a literal start share one regex: each literal costs a pass over the text.
GENERIC_KEYWORDS: dict[str, str] = {
    "pass" + r"(?:word|wd|phrase)?": "generic-password",
    "pw" + r"(?:d)?": "generic-password",
    "secret": "generic-secret",
    "token": "generic-token",
    "api" + r"(?:[_.\- ]?key)": "generic-api-key",
    "access" + _KEY: "generic-api-key",
    "private" + _KEY: "generic-secret",
    "signing" + _KEY: "generic-secret",
    "encryption" + _KEY: "generic-secret",
    "master" + _KEY: "generic-secret",
    "storage" + _KEY: "generic-api-key",
    "account" + _KEY: "generic-api-key",
    "auth" + _KEY: "generic-api-key",
    "app" + _KEY: "generic-api-key",
    "shared" + _KEY: "generic-api-key",
    "service" + _KEY: "generic-api-key",
    "admin" + _KEY: "generic-api-key",
    "license" + _KEY: "generic-api-key",
    "primary" + _KEY: "generic-api-key",
    "cred" + r"(?:ential|s)": "generic-secret",
    # Names people use: AZURE_OPENAI_KEY, AZURE_DEVOPS_PAT (personal access token).
    "openai" + _KEY: "generic-api-key",
    "_pat": "generic-api-key",
    # A bare `key` (`Using Key=…`, `X-Acme-Key: …`): only a value random beyond doubt counts.
    "key" + r"(?=[a-z0-9_.\-]{0,30}[\"'`\]]?[=:])": "generic-api-key",
}

# What each generic keyword's `kw` group can match, spelled out: ``secrets`` looks for these
# with `str` methods and compiles a generic regex only where one could make a finding.
_KEY_SPELLINGS = ("_key", ".key", "-key", "key")
GENERIC_SPELLINGS: dict[str, tuple[str, ...]] = {
    kw: (tuple(kw[: -len(_KEY)] + k for k in _KEY_SPELLINGS) if kw.endswith(_KEY) else {
        "pass" + r"(?:word|wd|phrase)?": ("password", "passwd", "passphrase", "pass"),
        "pw" + r"(?:d)?": ("pwd", "pw"),
        "api" + r"(?:[_.\- ]?key)": ("api_key", "api.key", "api-key", "api key", "apikey"),
        "cred" + r"(?:ential|s)": ("credential", "creds"),
        "key" + r"(?=[a-z0-9_.\-]{0,30}[\"'`\]]?[=:])": ("key",),
    }.get(kw, (kw,)))
    for kw in GENERIC_KEYWORDS
}

# One line per rule id: where the token shape is documented (users read this when allowlisting).
REFERENCES: dict[str, str] = {
    "private-key": "RFC 7468 PEM labels; OpenSSH PROTOCOL.key; RFC 4880 armor; PuTTY .ppk; "
    "PKCS#12 in base64",
    "age-secret-key": "age-encryption.org/v1: Bech32 AGE-SECRET-KEY-1…",
    "aws-access-key-id": "AWS IAM docs, 'Unique identifiers': AKIA (user), ASIA (STS) …",
    "aws-session-token": "AWS STS GetSessionToken/AssumeRole responses (SessionToken)",
    "aws-secret-access-key": "AWS IAM access keys: 40-char secret beside the key id",
    "aws-bedrock-api-key": "Amazon Bedrock API keys: ABSK… (long-lived), bedrock-api-key-… (short)",
    "google-api-key": "Google Cloud 'API keys': AIza + 35 chars",
    "google-oauth-client-secret": "Google OAuth client secrets since 2021: GOCSPX-",
    "google-oauth-access-token": "Google OAuth 2.0 access tokens: ya29.",
    "google-oauth-refresh-token": "Google OAuth 2.0 refresh tokens: 1//0",
    "azure-storage-key": "Azure Storage connection strings: AccountKey=<88 base64>",
    "azure-connection-string": "Azure Service Bus / Event Hubs: SharedAccessKey=",
    "azure-ad-client-secret": "Microsoft Entra ID client secrets: 3 chars, digit, Q~",
    "azure-sas-token": "Azure Storage 'Create a service SAS': sv=…&sig=",
    "github-pat": "GitHub token formats (github.blog 2021-04): ghp_ + 36",
    "github-fine-grained-pat": "GitHub fine-grained personal access tokens: github_pat_",
    "github-oauth-token": "GitHub token formats: gho_ (OAuth app user token)",
    "github-app-token": "GitHub token formats: ghu_, ghs_ (installation; ghs_<app id>_<JWT>)",
    "github-refresh-token": "GitHub token formats: ghr_ (refresh token)",
    "gitlab-pat": "GitLab docs 'Token prefixes': glpat-",
    "gitlab-token": "GitLab docs 'Token prefixes': gldt-, glrt-, glptt-, glsoat-, GR1348941 …",
    "slack-token": "Slack 'Token types': xoxb-, xoxp-, xoxa-, xoxe., xapp-",
    "slack-webhook": "Slack incoming webhooks: hooks.slack.com/services/T…/B…/secret",
    "discord-webhook": "Discord webhooks: discord.com/api/webhooks/<id>/<token>",
    "discord-bot-token": "Discord bot tokens: base64(user id).timestamp.HMAC",
    "telegram-bot-token": "Telegram Bot API: <bot id>:AA…",
    "stripe-secret-key": "Stripe 'API keys': sk_live_ / sk_test_ (pk_ is public)",
    "stripe-restricted-key": "Stripe restricted keys: rk_live_ / rk_test_",
    "stripe-webhook-secret": "Stripe webhook signing secrets: whsec_",
    "flutterwave-secret-key": "Flutterwave secret / encryption keys: FLWSECK-, FLWSECK_TEST-",
    "twitter-bearer-token": "X/Twitter app-only bearer tokens: 22 'A's + URL-encoded token",
    "square-token": "Square access tokens and OAuth secrets: sq0atp-, sq0csp-",
    "paypal-braintree-token": "Braintree/PayPal access tokens: access_token$production$…",
    "twilio-api-key": "Twilio API keys: SK + 32 hex (AC… account SIDs are not secret)",
    "twilio-auth-token": "Twilio auth tokens: 32 hex beside a Twilio name",
    "sendgrid-api-key": "SendGrid API keys: SG.<22>.<43>",
    "mailgun-api-key": "Mailgun API keys: key-<32> (legacy), <32 hex>-<8>-<8>",
    "mailchimp-api-key": "Mailchimp API keys: <32 hex>-us<datacenter>",
    "postmark-token": "Postmark server/account tokens: UUIDs beside a Postmark name",
    "anthropic-api-key": "Anthropic Console keys: sk-ant-api03-, sk-ant-admin01-",
    "openrouter-api-key": "OpenRouter keys: sk-or-v1- + 64 hex",
    "openai-api-key": "OpenAI keys: sk-proj-, sk-admin-, sk-svcacct-, legacy sk-…T3BlbkFJ…",
    "ai-api-key": "OpenAI-compatible providers (DeepSeek, Moonshot …): sk- + 32-64 alnum",
    "huggingface-token": "Hugging Face user access tokens: hf_; org tokens: api_org_",
    "groq-api-key": "Groq API keys: gsk_",
    "replicate-api-token": "Replicate API tokens: r8_",
    "perplexity-api-key": "Perplexity API keys: pplx-",
    "xai-api-key": "xAI API keys: xai-",
    "fireworks-api-key": "Fireworks AI API keys: fw_",
    "langsmith-api-key": "LangSmith keys: lsv2_pt_ / lsv2_sk_",
    "pinecone-api-key": "Pinecone API keys: pcsk_",
    "npm-token": "npm access tokens: npm_; .npmrc _authToken / _auth / _password",
    "pypi-token": "PyPI API tokens: pypi- + macaroon (AgE…)",
    "rubygems-token": "RubyGems API keys: rubygems_ + 48 hex",
    "nuget-api-key": "NuGet API keys: oy2 + 43",
    "docker-hub-token": "Docker Hub personal access tokens: dckr_pat_",
    "shopify-token": "Shopify tokens: shpat_, shpca_, shppa_, shpss_",
    "digitalocean-token": "DigitalOcean tokens: dop_v1_, doo_v1_, dor_v1_",
    "linear-api-key": "Linear API keys: lin_api_",
    "notion-token": "Notion integration secrets: ntn_, secret_",
    "atlassian-api-token": "Atlassian API tokens: ATATT3",
    "hashicorp-vault-token": "Vault tokens: hvs., hvb., hvr.",
    "terraform-cloud-token": "Terraform Cloud tokens: <14>.atlasv1.<…>",
    "databricks-token": "Databricks personal access tokens: dapi + 32 hex",
    "postman-api-key": "Postman API keys: PMAK-",
    "doppler-token": "Doppler tokens: dp.pt., dp.st., dp.sa., dp.ct.",
    "grafana-token": "Grafana Cloud tokens: glc_; service accounts: glsa_",
    "sentry-token": "Sentry auth tokens: sntrys_, sntryu_",
    "newrelic-api-key": "New Relic user API keys: NRAK-",
    "supabase-token": "Supabase personal access tokens: sbp_",
    "planetscale-token": "PlanetScale: pscale_tkn_, pscale_pw_, pscale_oauth_",
    "pulumi-token": "Pulumi access tokens: pul- + 40 hex",
    "mapbox-secret-token": "Mapbox secret tokens: sk.eyJ (pk.eyJ is public)",
    "flyio-token": "Fly.io tokens: fo1_, fm1a_, fm1r_, fm2_",
    "easypost-api-key": "EasyPost API keys: EZAK (production), EZTK (test) + 54",
    "sourcegraph-token": "Sourcegraph access tokens: sgp_[<16 hex>_|local_]<40 hex>",
    "intra42-client-secret": "42 intra client secrets: s-s4t2ud- / s-s4t2af- + 64 hex",
    "dynatrace-token": "Dynatrace API tokens: dt0c01.<24>.<64>",
    "airtable-token": "Airtable personal access tokens: pat<14>.<64 hex>",
    "alibaba-access-key-id": "Alibaba Cloud AccessKey ids: LTAI + 20",
    "adobe-client-secret": "Adobe client secrets: p8e- + 32",
    "openshift-token": "OpenShift user tokens: sha256~ + 43",
    "1password-secret-key": "1Password account secret keys: A3-XXXXXX-…",
    "heroku-api-key": "Heroku API keys v2: HRKU-AA + 58",
    "facebook-access-token": "Facebook/Meta access tokens: EAAM / EAAC + 100+",
    "teams-webhook": "Microsoft Teams incoming webhooks: …webhook.office.com/webhookb2/…",
    "jwt": "RFC 7519 compact JWS: eyJ….eyJ….signature (also base64-wrapped: ZXlK…)",
    "url-password": "RFC 3986 userinfo: scheme://user:password@host",
    "http-auth-header": "RFC 7617 Basic, RFC 6750 Bearer Authorization headers",
    "curl-basic-auth": "curl -u/--user user:password",
    "cli-password": "mysql -pPASS, sshpass -p, redis-cli -a, docker login -p, htpasswd -b",
    "generic-secret": "secret / client_secret / private_key / signing_key … = value",
    "pgpass-password": "PostgreSQL .pgpass: host:port:database:user:password",
    "client-constructor-key": 'a key passed positionally to an SDK client: FooClient("…")',
    "positional-credential": 'a user and password passed by position: .login("u", "…")',
    "credential-in-prose": "a login and its password in a sentence: 'Login: admin / …'",
    "recovery-key": "Vault unseal keys, recovery keys and codes: 'Unseal Key 1: …'",
    "docker-auth": "Docker config.json auths.<registry>.auth = base64(user:password)",
    "generic-password": "password / passwd / pwd / passphrase = value, or stated in a sentence",
    "generic-token": "…_token = value (auth, access, refresh, bot …)",
    "generic-api-key": "api_key / access_key / storage_key … = value",
    "kubernetes-secret": "Kubernetes Secret manifests: data (base64) and stringData values",
}

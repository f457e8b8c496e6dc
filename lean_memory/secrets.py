"""Secret scanning: find credentials in text, files and git's index before they are stored.

Design notes (why, not what):

* Vendor tokens with fixed prefixes give most of the recall at almost no false positives, so
  every rule first checks cheap literal keywords and only then runs its own small regex.
* Generic ``password = …`` assignments are judged by their *value*: placeholders, references,
  identifiers, hashes and masked text are rejected by named filters; entropy alone never flags.
* Lines are capped (long lines are cut into overlapping windows) and every quantifier is
  bounded, so no input can make a regex backtrack for long.
* A :class:`Finding` carries only a recognisable prefix and a SHA-256 fingerprint of the value;
  the secret itself is never stored, printed or raised.
"""

from __future__ import annotations

import os
import sys

from ._record import Record
from ._secret_gate import _HEX_SHAPE  # the runs and their shape, shared with the gate
from ._secret_gate import run_spans as _run_spans

# Imported inside the functions that need them on purpose: a clean text's scan (each prompt's
# ask) runs without `re`, `math`, `base64`, `urllib` (ADR 0027, tests/test_hot_lines.py).

# Not typing.TYPE_CHECKING: `typing` (and `collections.abc`, `dataclasses`) would cost a
# `put` more than its whole scan.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any

__all__ = [
    "Allowlist",
    "Finding",
    "format_finding",
    "is_encrypted_blob",
    "is_hash",
    "is_identifier",
    "is_masked",
    "is_placeholder",
    "is_public_material",
    "is_reference",
    "is_template",
    "is_uuid",
    "redact",
    "redact_path",
    "scan_text",
]

ELLIPSIS = "\u2026"
MAX_LINE = 4096  # longer lines are scanned in overlapping windows of this size
_OVERLAP = 512  # longer than any single token we look for, so none is cut in two everywhere
_ALLOW_MARKERS = ("lean-memory: allow", "pragma: allowlist secret")
_ALLOW_NEXT_MARKERS = ("lean-memory: allow-next-line", "pragma: allowlist nextline secret")


class Finding(Record):
    """One detected secret, already redacted (immutable; equal when every field is)."""

    _fields = ("rule", "line", "preview", "fingerprint", "path")
    __slots__ = _fields
    rule: str
    line: int
    preview: str
    fingerprint: str
    path: str | None

    def __init__(self, rule: str, line: int, preview: str, fingerprint: str,
                 path: str | None = None) -> None:
        self._init(rule, line, preview, fingerprint, path)


class Allowlist(Record):
    """What to ignore: rule ids, path globs (posix, fnmatch) and value fingerprints."""

    _fields = ("rules", "paths", "fingerprints")
    __slots__ = _fields
    rules: frozenset[str]
    paths: tuple[str, ...]
    fingerprints: frozenset[str]

    def __init__(self, rules: frozenset[str] = frozenset(), paths: tuple[str, ...] = (),
                 fingerprints: frozenset[str] = frozenset()) -> None:
        self._init(rules, paths, fingerprints)


def format_finding(f: Finding) -> str:
    """``path:line: rule-id: preview``, the one-line form used by the CLI."""
    return f"{f.path if f.path is not None else '<text>'}:{f.line}: {f.rule}: {f.preview}"


# ---------------------------------------------------------------------------------------------
# Named false-positive filters. Each takes a candidate value (already unquoted).

# fmt: off
_REFERENCE_HINTS = (
    "os.environ", "os.getenv", "getenv(", "process.env", "env(", "env[", "env.", "settings.",
    "config.", "conf.", "cfg.", "self.", "this.", "secrets.", "vars.", "params.", "options.",
    "args.", "context.", "ctx.", "request.", "keyring.", "vault:", "vault(", "ref+", "op://",
    "arn:aws", "arn:aws-", "@microsoft.keyvault", "keyvault", "/secrets/",
    "secretkeyref", "valuefrom", "secretref", "sm://", "awssm://", "gcp:secretmanager",
)
# fmt: on
# fmt: off
_SELF_NAMING = (
    "password", "passwd", "secret", "token", "apikey", "api_key", "api-key", "access_key",
    "accesskey", "private_key", "privatekey", "credential",
)
# fmt: on
# fmt: off
_PLACEHOLDER_WORDS = (
    "mock", "example", "changeme", "change_me", "change-me", "changeit", "placeholder",
    "your_", "your-", "yourpass", "yoursecret", "yourtoken", "yourkey", "xxxx", "redacted",
    "dummy", "replace", "insert", "todo", "fixme", "sample", "notreal", "not-real", "not_real",
    "fake", "lorem", "foobar", "secret_here", "here>", "<your",
)
# fmt: on
# Short words turn up by chance inside long random tokens; only long ones mark a placeholder.
_VENDOR_PLACEHOLDER_WORDS = tuple(w for w in _PLACEHOLDER_WORDS if len(w) >= 6)
# fmt: off
_WEAK_WORDS = frozenset({
    "password", "passwd", "passw", "passphrase", "pass", "pwd", "secret", "secrets", "token",
    "apikey", "key", "admin", "administrator", "root", "test", "tests", "testing", "tester",
    "default", "none", "null", "nil", "true", "false", "yes", "no", "on", "off", "undefined",
    "empty", "hidden", "masked", "string", "str", "value", "values", "example", "sample",
    "dummy", "fake", "foo", "bar", "baz", "foobar", "qux", "changeme", "changeit", "letmein",
    "qwerty", "welcome", "guest", "user", "username", "login", "postgres", "postgresql",
    "mysql", "mariadb", "redis", "mongo", "mongodb", "rabbitmq", "oracle", "sa", "demo", "dev",
    "development", "local", "localhost", "required", "optional", "mypassword", "mysecret",
    "mytoken", "secretpassword", "supersecret", "abc", "abcdef", "xyz", "todo", "tbd", "na",
    "unknown", "unset", "dbpassword", "pw", "hunter", "your", "yourpassword", "insecure",
    "django", "blah", "asdf", "qwer", "abcd", "prompt", "stdin", "interactive", "keyring",
    "generate", "generated", "random", "ask",
})
# fmt: on
_LEET = str.maketrans({"@": "a", "0": "o", "1": "i", "3": "e", "$": "s", "5": "s", "4": "a"})
# fmt: off
_ENCRYPTED_PREFIXES = (
    "$ansible_vault", "enc[", "enc(", "!vault", "vault:v", "-----begin pgp message",
    "-----begin age encrypted", "age-encryption.org", "gaaaaa", "!secret", "!encrypted",
)
# fmt: on
# fmt: off
_PUBLIC_PREFIXES = (
    "ssh-rsa ", "ssh-ed25519 ", "ssh-dss ", "ecdsa-sha2-", "sk-ssh-", "sk-ecdsa-",
    "-----begin public key", "-----begin rsa public key", "-----begin certificate",
    "-----begin pgp public", "-----begin openssh public", "pk_live_", "pk_test_", "pk.eyj",
    "npub1", "age1",
)
# fmt: on
_MASK_CHARS = ("\u2026", "***", "\u2022", "###", "...")
_EXAMPLE_VALUES = frozenset(
    {
        # Documented example keys (AWS, Stripe docs, jwt.io), kept as fingerprints so the repo
        # itself does not contain them in full.
        "2cafc0970149a84f3b9e62eaf169f36f59907a3b3e31f7b82e68c69cd27f7326",  # Stripe docs test key
        # The Azurite / storage emulator account key (learn.microsoft.com, "Use Azurite").
        "0011cc25eb4320717494d2703e8cba85743e71b500283c21c8b88147992f9059",
        # Telegram's Bot API documentation tokens (core.telegram.org/bots).
        "0b5dd075ccdd03c42f4edda8e299e6838e2a75d3486a2a8d86940ed1541e9178",
        "731fa294d036e54f19df879bfcd4fe72d967dc6327800c5f74a48414a3f258c9",
        # Example API keys committed in github.com/firebase/firebase-android-sdk (as listed by
        # gitleaks' gcp-api-key allowlist): restricted, published on purpose.
        "2037abcaffb2b77785da716cf7ccff4ff4d00c4ea930db0167b7d71f50af7eb4",
        "3f370c9dd8225c63b5c77de1f785edc9712958f18bb612d5fa2e0ae33aeca682",
        "e4a5542bb7fd7b67e943c71ad29c34b5972c9840597e7eda53e666f44d5da0b9",
        "a19f89ab3555eac10c40741f6df79ecf0935998f15569f8db9d67bce0181fff6",
        "0b476bdf9acf2123d547b5ae76f1e59884d8ec9553ee0c47e9f31fd4768f3f3c",
        "eb540d2b6ee2a0a47c5779bc8a0141784c6b753840d4c6f4e2428a6e86e9e0b1",
        "37f8f09bdf12c2f2eae4ead7273a62ddb0c23459cbf902892f282b57f7ed6619",
        "8731261cb72d86267a32a532ebd3df429e2144e5e4ced7e13568bc9e6c8fb1b1",
        "49f777db995e8260da7ca9ffdf0c08d66f0453e97ec967018baf2cdfe3b582d0",
        "27a9a42931dff7eb2f8434e20a9bce976ea364e7bee49187f19d5cfeca9c7045",
        "dc0fcf046c61640cbd1e8b999ada3262d722c2ca4bf42dceac999020ffdbb614",
        "4c98242dcadc8b29005c6b4aad526552d5ea1842149154c0694adeec75847583",
        "ea9bb1082cf95663f5faca23b8b15ef2aa0fce0a5c6df9c32dcb85b2e0a4513d",
        "3a8b61d0f636b007840c0d40ba12bcf48465dc054cdc1a68704a33521d84b665",
        "a6c814bc555ae62c7bd8b58ec07bf559c7ed3a009976a1e0acc9cef0d4473b41",
    }
)


class _Regexes:
    """The filters' regexes, each compiled on first use: a clean text needs few of them,
    and compiling them all costs more than the rest of a scan."""

    def __init__(self) -> None:
        # One alternation per word list: on short values it beats a loop of `in` tests.
        import re

        def alt(words: Iterable[str]) -> str:
            return "|".join(map(re.escape, words))

        specs: dict[str, str | tuple[str, int]] = {}

        specs["reference_re"] = alt(_REFERENCE_HINTS)
        specs["placeholder_re"] = alt(_PLACEHOLDER_WORDS + _SELF_NAMING)
        specs["vendor_placeholder_re"] = alt(_VENDOR_PLACEHOLDER_WORDS)
        specs["uuid_re"] = (
            r"\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}?"
        )
        specs["hex_re"] = r"[0-9a-fA-F]+"
        specs["hash_prefix_re"] = (
            r"(?i)(?:sha1|sha224|sha256|sha384|sha512|md5|blake2[bs]?|xxh\d*|h1)[:\-=]"
        )
        specs["template_re"] = (
            r"\$\{[^}]*\}?|\{\{.*\}\}|\{%.*%\}|\$\([^)]*\)?|<%=?.*%>|#\{[^}]*\}|%\([A-Za-z_]\w*\)s"
            r"|(?<![A-Za-z0-9])%[A-Za-z_][A-Za-z0-9_]*%(?![A-Za-z0-9])|^@[A-Za-z_][A-Za-z0-9_]*@$"
            r"|^\$[A-Za-z_][A-Za-z0-9_]*$"
            r"|^__[A-Za-z0-9_]+__$|\{[A-Za-z_][\w.]*[}(\[!:]|^%s$|\{\}|^\?$"
        )
        specs["method_call_re"] = r"[\w\])}]\.[A-Za-z_]\w*\("
        specs["call_start_re"] = r"[A-Za-z_][\w.:\->]*[(\[]"
        # snake_case, dotted paths, camelCase and PascalCase made of real (2+ letter) words.
        specs["name_re"] = (
            r"_*(?:[a-z][a-z0-9_]*|(?:[A-Z][a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+|[A-Z][A-Z0-9_]*)"
            r"(?:(?:\.|->|::)[A-Za-z_]\w*)*"
        )
        specs["call_re"] = r"[A-Za-z_][\w.:\->]*(?:\(.*\)|\[.*\])"
        # YAML aliases, CloudFormation/ansible tags, `@var`: a sigil before a name.
        specs["sigil_ref_re"] = r"[*&!@%][A-Za-z_][A-Za-z_.\-]*(?:\([^)]*\))?"
        # Random tokens contain "xxx" often enough; a placeholder has a longer run.
        specs["x_run_re"] = r"(?i)x{5,}|(.)\1{7,}|123456|a1b2c3|abcdef|abcd1234"
        # In a key body: a run of one character other than the zero byte's `A` (or `/`, 0xff).
        specs["key_run_re"] = r"([^A/])\1{7,}"
        # snake_case, kebab-case, camelCase, CONSTANT_CASE (digits are judged separately).
        specs["ident_re"] = (
            r"[a-z_][a-z0-9_]*|[a-z]+(?:-[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z]+)+|[A-Z]+"
            r"|_*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
        )
        specs["path_re"] = r"[~.]{0,2}/[\w.\-/@+]*"
        # src/auth/login.py: folders, then a file name with an extension (no key has one)
        specs["relpath_re"] = r"(?:[\w\-]+/)+[\w\-.]*\.[A-Za-z][A-Za-z0-9]{0,5}"
        # Dotted, namespaced or `::` paths whose every part is a name: code, not a literal.
        specs["path_ident_re"] = r"[A-Za-z_][\w\-]*(?:(?:\.|->|::|:)[A-Za-z_][\w\-]*)+"
        # Words glued in PascalCase or camelCase ("AWSAccessKeyId", "IAmSensitive").
        specs["camel_re"] = r"(?:[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+)+"
        # With digits, only inside capitalised words or acronyms ("PKCS7PrivateKey", "X509Store").
        specs["camel_digit_re"] = (
            r"(?:[A-Z]{2,}[0-9]*(?![a-z])|[A-Z][a-z]{2,})(?:[A-Z]{2,}[0-9]*(?![a-z])|[A-Z][a-z]{2,})+"
        )
        specs["version_re"] = r"v?\d+(?:\.\d+){1,3}(?:[-+.][0-9A-Za-z.]+)?"
        specs["number_re"] = r"[-+]?\d+(?:[.,_]\d+)*(?:[eE][-+]?\d+)?[a-zA-Z%]{0,3}"
        specs["date_re"] = r"\d{4}-\d\d-\d\d(?:[T ][0-9:.+\-Z]*)?"
        specs["word_re"] = r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])"
        specs["k8s_kind_re"] = (
            r"^\s*[\"']?kind[\"']?\s*:\s*[\"']?Secret[\"']?\s*,?\s*$", re.M
        )
        specs["jwt_re"] = r"eyJ[\w\-]{10,4000}\.eyJ[\w\-]{10,4000}\.[\w\-]{16,1000}"
        specs["part_sep_re"] = r"[-_.]"
        specs["words_re"] = r"(?:[A-Z][a-z]{2,}){3,}"
        specs["ascending_re"] = alt(
            seq[i : i + 6]
            for seq in ("abcdefghijklmnopqrstuvwxyz", "0123456789")
            for i in range(len(seq) - 5)
        )
        specs["host_re"] = r"[A-Za-z0-9*][\w.\-]{0,100}"
        specs["printf_re"] = r"%[-+ #0-9.]{0,4}[sdifrxXeEgGcoua]"
        specs["escapes_re"] = r"(?:\\{1,2}(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[0-7]{3}))+"
        specs["k8s_kind_hint_re"] = r"kind[\"']?\s{0,3}:\s{0,3}[\"']?Secret\b"
        specs["k8s_block_re"] = r"^(\s*)(data|stringData)\s*:\s*$"
        specs["k8s_item_re"] = (
            r"^(\s+)[\"']?([\w.\-]{1,100})[\"']?\s*:\s*[\"']?([^\s\"']{1,4000})[\"']?\s*$"
        )
        specs["path_joins_re"] = r"[-/\\]"
        specs["path_parts_re"] = r"[^/\\]+"
        specs["word_joins_re"] = r"[-._ ]"
        self._specs = specs

    def __getattr__(self, name: str) -> re.Pattern[str]:
        import re

        spec = self.__dict__["_specs"].get(name)
        if spec is None:
            raise AttributeError(name)
        compiled = re.compile(spec) if isinstance(spec, str) else re.compile(*spec)
        setattr(self, name, compiled)
        return compiled


_REGEXES: _Regexes | None = None


def _rx() -> _Regexes:
    global _REGEXES
    if _REGEXES is None:
        _REGEXES = _Regexes()
    return _REGEXES


def is_uuid(value: str) -> bool:
    """A UUID (object and request ids, not secrets)."""
    return len(value) in (36, 38) and _rx().uuid_re.fullmatch(value) is not None


def is_hash(value: str) -> bool:
    """A digest: ``sha256:…``/``sha512-…`` (lock files, SRI) or bare hex of a digest length."""
    if _rx().hash_prefix_re.match(value):
        return True
    return len(value) in (32, 40, 56, 64, 96, 128) and _rx().hex_re.fullmatch(value) is not None


def is_template(value: str) -> bool:
    """An interpolation that a tool fills in later: ``${TOKEN}``, ``{{ secret }}``, ``$VAR``."""
    return _rx().template_re.search(value) is not None


def is_reference(value: str) -> bool:
    """Code or config that points at a secret instead of containing it."""
    low = value.lower()
    if _rx().reference_re.search(low):
        return True
    if _code_start(value) and _rx().call_re.fullmatch(value):
        return True  # get_password(user), os.environ["X"]
    return _rx().sigil_ref_re.fullmatch(value) is not None


def _code_start(value: str) -> bool:
    """`name(` or `name[` at the start, with a name a programmer would write."""
    m = _rx().call_start_re.match(value)
    return m is not None and _rx().name_re.fullmatch(m.group(0)[:-1]) is not None


def is_masked(value: str) -> bool:
    """An already redacted preview, including lean_memory's own ``prefix…`` output."""
    low = value.lower()
    return (
        any(c in value for c in _MASK_CHARS)
        or "xxxx" in low
        or "[filtered]" in low
        or value.count("*") >= 6
    )


def is_placeholder(value: str) -> bool:
    """Text a human writes in place of a secret: ``<YOUR_KEY>``, ``changeme``, ``xxxx``."""
    import re

    low = value.lower()
    # Placeholder words, and values that name themselves ("my-secret-password").
    if _rx().placeholder_re.search(low) or _rx().x_run_re.search(value):
        return True
    if (value[:1] in "<[" and value[-1:] in ">]") or ("<" in value and ">" in value):
        return True
    letters = re.sub(r"[^a-z]", "", low)
    leet = re.sub(r"[^a-z]", "", low.translate(_LEET))
    if low in _WEAK_WORDS:
        return True
    # "Password123!", "s3cr3t": a weak word dressed up; only when letters dominate the value.
    if 2 * len(letters) >= len(value) and (letters in _WEAK_WORDS or leet in _WEAK_WORDS):
        return True
    return len(set(low)) <= 2 or _is_sequence(low)


def is_encrypted_blob(value: str) -> bool:
    """Ciphertext meant to be committed: ansible-vault, SOPS ``ENC[…]``, sealed secrets."""
    low = value.lower()
    if low.startswith(_ENCRYPTED_PREFIXES):
        return True
    # Bitnami sealed secrets: long base64 that starts with the version byte "Ag".
    return len(value) >= 300 and value.startswith("Ag") and "=" not in value[:-3]


def is_public_material(value: str) -> bool:
    """Public keys, certificates and publishable keys."""
    return value.lower().startswith(_PUBLIC_PREFIXES)


def is_identifier(value: str) -> bool:
    """A variable, attribute or constant name rather than a literal secret."""
    import re

    if _rx().path_ident_re.fullmatch(value):
        # ... unless a part is random: Vault's legacy `s.<24 random>` tokens.
        return not any(map(_random_part, re.split(r"[.:\->]+", value)))
    if _rx().camel_re.fullmatch(value) or (
        _rx().camel_digit_re.fullmatch(value) and not value[-1].isdigit()
    ):
        return True
    if _rx().ident_re.fullmatch(value) is None:
        return False
    if _random_lower(value):
        return False
    # Names carry few digits; a digit-dense lowercase string is a random value.
    return sum(c.isdigit() for c in value) < 3 or _entropy(value) < 3.0


def _random_part(part: str) -> bool:
    return (
        len(part) >= 16
        and any(c.isdigit() for c in part)
        and not part.islower()
        and not part.isupper()
        and _entropy(part) >= 3.5
    )


def _random_lower(value: str) -> bool:
    """Lower-case letters and digits no name is made of: a digit between letters and a run of
    four consonants ("clrvsr0oztx3sfc"); names put digits in known places (utf8mb4,
    x509certificate) and read as words."""
    import re

    if len(value) < 15 or not value.isalnum() or not value.islower():
        return False
    if not re.search(r"[a-z][0-9]+[a-z]", value):
        return False
    return re.search(r"[bcdfghjklmnpqrstvwxz]{4}", value) is not None


_SEQUENCES = "abcdefghijklmnopqrstuvwxyz 0123456789 1234567890 qwertyuiop asdfghjkl zxcvbnm"


def _is_sequence(low: str) -> bool:
    """A value typed as a run of the alphabet, the digits or a keyboard row."""
    return len(low) >= 6 and low[:6] in _SEQUENCES


def _entropy(value: str) -> float:
    import math
    from collections import Counter

    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def _classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def _fingerprint(value: str) -> str:
    import hashlib  # lazily: hashlib costs milliseconds at import time

    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def _is_example(value: str) -> bool:
    return "EXAMPLE" in value.upper() or _fingerprint(value) in _EXAMPLE_VALUES


def _rejected_common(value: str) -> bool:
    """Filters that apply to every free-form value (passwords, tokens, URL passwords)."""
    return (
        is_masked(value)
        or is_template(value)
        or is_placeholder(value)
        or is_encrypted_blob(value)
        or is_public_material(value)
        or _is_example(value)
    )


def _shortest_value(kind: str) -> int:
    """The shortest value of ``kind`` that may be a secret."""
    return {"password": 6, "secret": 8}.get(kind, 12)


def _looks_secret(value: str, kind: str, *, quoted: bool, literal: bool = False) -> bool:
    """Judge a value assigned to a secret-looking name.

    ``literal``: the context says the value is typed in, not named (a command-line flag, a
    shell variable before a command): a word is then a password too, unless it is weak.
    """
    import re

    min_len = _shortest_value(kind)
    # Quoted, a value may be long (Entra refresh tokens run past 1,000 characters).
    if len(value) < min_len or len(value) > (4000 if quoted else 300):
        return False
    words = value.split()
    if len(words) != 1:
        # A quoted password may hold spaces ("Blue 7 Horse!"); judged without them, and never
        # a sentence or code: at most five words, a digit, no placeholder, no format string.
        joined = "".join(words)
        return (
            quoted
            and kind == "password"
            and len(words) <= 5
            and not is_placeholder(value)
            and not any(c in value for c in "%(){}[]<>,;=\"'\\")
            and any(c.isdigit() for c in value)
            and _classes(joined) >= 3
            and _looks_secret(joined, kind, quoted=True)
        )
    if len(_rx().printf_re.findall(value)) >= 2:
        return False  # a format string: "%d,%d-%d,%d:"
    if _rx().escapes_re.fullmatch(value):
        return False  # escaped bytes in a test string ("\\xa1\\xa2"), not a typed secret
    if _rejected_common(value) or is_reference(value) or _rx().hash_prefix_re.match(value):
        return False
    # Unquoted, a value that starts or calls code is code, cut at a quote or a space:
    # `config['password']` -> `config[`, `{"a": 8}.get(kind)` -> `8}.get(kind`.
    if not quoted and (
        _code_start(value)
        or _rx().method_call_re.search(value)
        or value.startswith(("[", "{", "("))
    ):
        return False
    if is_uuid(value):
        # Heroku, HubSpot, Snyk … keys are UUIDs; the name (not `*_id`, not `request_token`)
        # decides, and the callers have judged it already.
        return True
    if value.isdigit() and 24 <= len(value) <= 40:
        # No count, timestamp or id runs this long: a random number (Discord client secret).
        return _vendor_ok(value, "")
    low = value.lower()
    if (
        _rx().number_re.fullmatch(value)
        or _rx().date_re.fullmatch(value)
        or _rx().version_re.fullmatch(value)
        or "://" in value  # a URL: its password, if any, is the url-password rule's
        or _is_path(value)
        or re.match(r"[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,6}(?:/|:\d|$)", value)
        or re.fullmatch(r"[\w.+\-]+@[\w\-]+\.[\w.\-]+", value)
        or re.fullmatch(r"[A-Za-z][\w.\-]*[-_]v?\d+(?:\.\d+){1,3}", value)  # jjwt-api-0.11.2
        or re.fullmatch(r"[\w\-./]+\.(?:txt|json|ya?ml|pem|key|env|ini|cfg|conf|toml|crt|p12)", low)
    ):
        return False
    if literal and kind == "password":
        return len(value) >= 8 or not value.isalpha()
    if (
        is_identifier(value)
        and (not quoted or not any(c.isdigit() for c in value))
        and not (kind == "password" and _wordlike_password(value))
    ):
        return False
    if value.isalpha():
        # Plain words are prose or names; only long random-looking letters count.
        if _rx().camel_re.fullmatch(value) or value.isupper() or value.islower():
            return False
        return len(value) >= 8 and _entropy(value) >= 2.8
    has_letter = any(c.isalpha() for c in value)
    return has_letter and _classes(value) >= 2 and (len(value) < 16 or _entropy(value) >= 2.8)


def _wordlike_password(value: str) -> bool:
    """Words run together with a digit ("sunflower42", "correcthorse7battery"): typed, not a
    name. Names join their words with `_`, and a word with a digit or two ("utf8", "md5sum",
    "base64") is short."""
    return (
        len(value) >= 8
        and value.isalnum()
        and any(c.isdigit() for c in value)
        and sum(c.isalpha() for c in value) >= 4
    )


def _is_path(value: str) -> bool:
    """A file path or file URL (random base64 may start with a slash too)."""
    if value.lower().startswith("file:"):
        return True
    if value.startswith(("/", "./", "../", "~/")):
        shaped = _rx().path_re.fullmatch(value)
    else:
        shaped = _rx().relpath_re.fullmatch(value)
    return shaped is not None and (len(value) < 20 or _entropy(value) < 4.5)


def _vendor_ok(value: str, prefix: str) -> bool:
    """Tokens with a fixed prefix: reject only obvious placeholders and documented examples."""
    body = value[len(prefix) :] if value.startswith(prefix) else value
    low = body.lower()
    if (
        _is_example(value)
        or _rx().vendor_placeholder_re.search(low)
        or low.startswith(("your", "fake", "dummy", "todo"))
        or _rx().x_run_re.search(body)
    ):
        return False
    if any(c in body for c in _MASK_CHARS) or _is_typed_filler(body):
        return False
    distinct = len(set(low))
    return distinct >= min(8, len(body) // 3) and not _is_sequence(low)


def _ascending_run(low: str) -> bool:
    """A run of six letters or digits in alphabet order ("klmnop", "456789")."""
    return _rx().ascending_re.search(low) is not None


def _is_typed_filler(body: str) -> bool:
    """A token body a human typed in place of a real one.

    Random tokens have no alphabet runs, no part repeated three times, no part spelled in
    words: "abc123xyz-456def789ghij-klmnopqrstuvwx", "1234-1234-1234-…",
    "SlackAppConfigurationAccessTokenHere". (A part in capitals alone is not enough: base32
    alphabets, as in AWS key ids, make those by chance.)
    """
    if _ascending_run(body.lower()):
        return True
    parts = [p for p in _rx().part_sep_re.split(body) if p]
    if len(parts) >= 3:
        from collections import Counter

        if any(n >= 3 and len(p) >= 3 for p, n in Counter(parts).items()):
            return True
    return any(len(p) >= 12 and _rx().words_re.fullmatch(p) is not None for p in parts)


# ---------------------------------------------------------------------------------------------
# Validators named by the rules' ``check`` field. Each returns whether the match is a secret.

if TYPE_CHECKING:
    _Validator = Callable[["re.Match[str]", str, str, str], bool]


def _check_token(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    after = text[m.end() : m.end() + 3]
    if after[:1] in ("#", "*", ELLIPSIS) or after == "...":
        return False  # the visible start of a masked token: "xoxb-1234…####"
    return _vendor_ok(value, prefix)


def _check_pem(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    end = text.find("-----END", m.end(), m.end() + 8000)
    body = text[m.end() : end if end >= 0 else m.end() + 200]
    if "..." in body or ELLIPSIS in body or "EXAMPLE" in body:
        return False  # an elided or published example in documentation (AWS docs)
    return _check_key(m, value, prefix, text)


def _check_key(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    """A key body (base64 of DER or of an SSH wire blob) that is not a placeholder.

    Zero bytes encode as runs of ``A`` (every unencrypted OpenSSH key starts with a dozen),
    so the token test of repeated characters does not apply: a placeholder body is told by
    few distinct characters, a run of any other character, or a placeholder word. Random
    base64 of 40+ characters practically always holds a digit, `+` or `=`.
    """
    low = value.lower()
    return not (
        len(set(value)) < 16
        or _rx().key_run_re.search(value)
        or _rx().vendor_placeholder_re.search(low)
        or "xxxxx" in low
        or _is_example(value)
        or value.replace("/", "").isalpha()  # a path or a long name, not random base64
    )


def _check_aws_secret(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    return (
        _classes(value) >= 3
        and not _is_example(value)
        and _vendor_ok(value, "")
        and not is_hash(value)
    )


def _check_sas(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    start = max(0, text.rfind("\n", 0, m.start()) + 1, m.start() - 1000)
    before = text[start : m.start()].lower()
    return any(k in before for k in ("sv=", "se=", "sp=", "srt=", "sr=")) and _vendor_ok(value, "")


def _check_url(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    user = m.group("u") or ""
    host = text[m.end() - 1 : m.end() + 40].lower()
    if "%" in value:
        from urllib.parse import unquote

        value = unquote(value)  # userinfo is percent-encoded: `P%40SSWORD` is `P@SSWORD`
    if (host.startswith(("example.", "host", "server")) or ".example" in host.split("/")[0]) and (
        len(value) < 8 or not any(c.isdigit() for c in value)
    ):
        return False  # RFC 2606 documentation hosts: "user:secret@example.com"
    return _literal_password(value, user)


def _literal_password(value: str, user: str) -> bool:
    """A password its place states (URL userinfo, `curl -u`, a login call's second string):
    a credential whatever its entropy, unless a placeholder, a variable or the user again."""
    if value == user or len(value) < 3 or (value.isdigit() and len(value) <= 5):
        return False
    return not (_rejected_common(value) or value.startswith("$"))


def _check_login_call(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    # Code passes a word as a password in tests ("testpw", "doesnotexist"): a typed one
    # has a digit, a capital or a symbol.
    return not value.isalpha() and _literal_password(value, m.group("u") or "")


def _check_header(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    scheme = prefix.lower().rsplit(None, 1)[-1].rsplit('"', 1)[-1]
    if scheme.endswith("basic"):
        decoded = _b64decode(value)
        if decoded is not None and ":" in decoded:
            user, _, pw = decoded.partition(":")
            return bool(pw) and pw != user and len(pw) >= 3 and not _rejected_common(pw)
    return len(value) >= 16 and _looks_secret(value, "api", quoted=True)


def _check_basic(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    decoded = _b64decode(value)
    if decoded is None or ":" not in decoded:
        return False
    user, _, pw = decoded.partition(":")
    return bool(pw) and pw != user and len(pw) >= 3 and not _rejected_common(pw)


def _check_npmrc(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    return not _rejected_common(value) and _classes(value) >= 2


def _check_jwt(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    if not _vendor_ok(value, "eyJ"):
        return False
    payload = _b64decode(value.split(".")[1])
    # Supabase "anon" keys are public by design; jwt.io's sample names John Doe.
    return payload is None or ('"anon"' not in payload and '"John Doe"' not in payload)


def _check_jwt_b64(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    inner = _b64decode(value)
    if inner is None:
        return False
    jwt = _rx().jwt_re.fullmatch(inner.strip())
    return jwt is not None and _check_jwt(jwt, jwt.group(0), "eyJ", inner)


def _check_fixed(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    """A prefix that is itself proof (it encodes the issuing service): only examples fail."""
    return not _is_example(value)


def _check_password(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    return _looks_secret(value, "password", quoted=True)


def _check_pgpass(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    host = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
    return _rx().host_re.fullmatch(host) is not None and _check_password(m, value, prefix, text)


def _check_client_key(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    if _entropy(value) < 3.0:
        return False
    if value.startswith("AC") and len(value) == 34:
        return False  # a Twilio account SID: an account's public id
    if _rx().hex_re.fullmatch(value):
        return _vendor_ok(value, "")  # a Twilio auth token beside its SID, not a digest
    return _looks_secret(value, "api", quoted=True)


def _check_prose_login(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    user = (m.group("u") or "").lower()
    if value.lower() == user or user.isdigit() or not any(c.isdigit() for c in value):
        return False  # "account: 1234/5678", "user: root:root"
    return any(c.isalpha() for c in value) and _looks_secret(value, "password", quoted=True)


def _check_recovery(m: re.Match[str], value: str, prefix: str, text: str) -> bool:
    return any(c.isdigit() for c in value) and _vendor_ok(value, "") and not is_uuid(value)


_VALIDATORS: dict[str, _Validator] = {
    "token": _check_token,
    "pem": _check_pem,
    "key": _check_key,
    "aws_secret": _check_aws_secret,
    "sas": _check_sas,
    "url": _check_url,
    "header": _check_header,
    "basic": _check_basic,
    "npmrc": _check_npmrc,
    "jwt": _check_jwt,
    "jwt_b64": _check_jwt_b64,
    "fixed": _check_fixed,
    "client_key": _check_client_key,
    "pgpass": _check_pgpass,
    "prose_login": _check_prose_login,
    "recovery": _check_recovery,
    "password": _check_password,
    "login_call": _check_login_call,
}


def _b64decode(value: str) -> str | None:
    import base64
    import binascii

    raw = value.strip().replace("-", "+").replace("_", "/")
    try:
        data = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True)
        return data.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


# ---------------------------------------------------------------------------------------------
# Generic `name = value` assignments and credentials stated in a sentence.

# fmt: off
_NON_SECRET_LAST = frozenset({
    "window", "interval", "period", "delay", "retries", "attempts", "duration", "seconds",
    "minutes", "secs", "days", "bytes", "timestamp", "ts", "id", "ids", "url", "urls", "uri",
    "uris", "endpoint", "host", "hostname", "port", "path", "paths", "file", "files",
    "filename", "dir", "directory", "name", "names", "field", "fields", "type", "types",
    "count", "counts", "len", "length", "size", "limit", "limits", "max", "min", "tokens",
    "header", "headers", "env", "var", "vars", "variable", "prefix", "suffix", "regex", "re",
    "pattern", "policy", "policies", "expiry", "expires", "expiration", "expire", "ttl",
    "timeout", "lifetime", "age", "version", "hint", "help", "label", "placeholder", "text",
    "message", "msg", "prompt", "enabled", "enable", "disabled", "required", "mode", "format",
    "kind", "style", "class", "provider", "manager", "store", "backend", "source", "location",
    "ref", "reference", "arn", "index", "idx", "hash", "hashed", "digest", "sha", "sha1",
    "sha256", "sha512", "md5", "checksum", "fingerprint", "rotation", "created", "updated",
    "at", "date", "time", "strength", "rules", "validator", "validation", "check", "link",
    "service", "usage", "used", "budget", "rate", "user", "username", "login", "email", "flag",
    "option", "options", "param", "params", "schema", "method", "algorithm", "alg", "counter",
    "number", "num", "spec", "cache", "table", "column", "col", "attr", "attribute",
    "property", "prop", "type_", "list", "dict", "map", "set", "input", "output", "widget",
    "form", "button", "char", "chars", "box", "dialog", "scope", "scopes", "audience",
    "issuer", "uid", "bits", "cost", "rounds", "iterations", "salt_length", "mgr", "handler",
    "generator", "factory", "builder", "reader", "writer", "loader", "parser", "class_", "cls",
    "keyword", "keywords", "callback", "fn", "func", "function", "reset", "changed",
    "confirmation", "confirm", "complexity", "visible", "visibility", "toggle", "length_",
    "error", "errors", "exception", "status", "state", "doc", "docs", "info", "description",
    "desc", "comment", "note", "notes", "example", "examples", "test", "tests", "sample",
    "samples", "template", "default_", "module", "modules", "key_id", "stdin", "stdout",
    "command", "cmd", "parameter", "range",
})
# fmt: on
# fmt: off
_NON_SECRET_ANY = frozenset({
    "public", "publishable", "pub", "tokenizer", "tokenize", "tokenizers", "example", "sample",
    "hashed",
})
# fmt: on
# fmt: off
_TOKEN_NON_SECRET = frozenset({
    "change", "update", "policy", "unit", "product", "subject", "client", "marker",
    "notification", "work", "copy", "continue", "csrf", "xsrf", "next", "page", "pagination",
    "continuation", "cursor", "sync", "cancel", "cancellation", "idempotency", "request",
    "max", "num", "total", "input", "output", "prompt", "completion", "completions", "eos",
    "bos", "pad", "unk", "sep", "cls", "mask", "special", "start", "end", "stop", "lexer",
    "parse", "parser", "ast", "syntax", "type", "kind", "bucket", "reasoning",
    "cached", "cache", "image", "audio", "text", "word", "char", "count", "verification",
    "lookahead", "current", "last", "first", "prev", "previous", "peek", "sequence",
})
# fmt: on
# A bare `key` after these names a key of a table or an order, not a secret.
# fmt: off
_KEY_NON_SECRET = frozenset({
    "sort", "cache", "idempotency", "partition", "row", "lookup", "map", "object", "s3",
    "dict", "hash", "primary", "foreign", "public", "pub", "group", "routing", "shard",
    "unique", "composite", "index", "table", "column", "hot", "short", "i18n", "translation",
    "message", "label", "dedup", "join", "field", "name", "entry", "registry", "react", "list",
    "item", "node", "cursor", "next", "last", "start", "end", "range", "dedupe", "bucket",
    "ssh", "gpg", "pgp", "host", "known", "signing_public", "verify", "verification",
})
# fmt: on
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-$@")


def _generic_pattern(kw: str) -> str:
    return (
        f"(?P<kw>{kw})" + r"(?P<rest>[a-z0-9_.\-]{0,30})(?P<q>[\"'`]?\]?\)?)"
        r"(?P<for>[ \t](?:for|of|on|in)[ \t][^\n.:=;,\"'`]{1,40}?)?"
        # Go `var k string = …`, Kotlin/TS `k: String = …`: a type between name and `=`.
        r"(?P<type>:?[ \t]{1,3}(?:string|str|\[\]byte|char\*?|text)(?=[ \t]{0,3}=))?"
        # `:=` (Go), `::=`/`:::=`/`?=` (make), `.=` (PHP), `=>`, `->`, `=`, `:`, and `>` of an
        # XML element, whose value may sit on its own line.
        r"(?P<sep>[ \t]{0,3}(?::{1,3}=|[?.]=|=>|->|=(?!=)|:(?!:)|>(?:[ \t]*\r?\n)?)[ \t]{0,40}"
        # A quoted name then a quoted value: `setProperty("K", "v")`, `setenv("K", "v")`.
        r"|(?<=[\"'])[ \t]{0,3},[ \t]{0,3}(?=[\"'])"
        r"|[ \t]{1,3}(?:is|was|are|will be|set to|changed to|to)[ \t]{1,3}(?:now |still )?:?"
        r"[ \t]{0,2}"
        r"|(?(for)(?!)|[ \t]{1,3}))"
        r"(?P<v>\"[^\"\n]{1,4000}\"|'[^'\n]{1,4000}'|`[^`\n]{1,300}`|[^\s\"'`,;<]{1,300})"
    )


def _kind_of(rule_id: str) -> str:
    return {
        "generic-password": "password",
        "generic-secret": "secret",
        "generic-api-key": "api",
    }.get(rule_id, "token")


def _judge_generic(
    kw: str, rule_id: str, m: _Shifted, text: str
) -> tuple[str, str, int, int] | None:
    """Return (key, value, start, end) of a real secret assignment, or None."""
    import re

    kstart, kend = m.span("kw")
    after = text[kend : kend + 1]
    if after.islower():
        return None  # the keyword is the start of a longer word: "tokenizer", "passage"
    b = kstart
    while b > 0 and text[b - 1] in _KEY_CHARS and kstart - b < 60:
        b -= 1
    sep_words = m.group("sep").split()
    if kw == "pass" and (not sep_words or sep_words[0] not in ("=", ":", ":=", "=>")):
        return None  # "pass" is an English verb: only `pass = …` / `pass: …` count
    if "to" in sep_words and not re.search(
        r"(?i)\b(?:set|change|update|rotate)\b[^\n]{0,40}$", text[max(0, b - 60) : b]
    ):
        return None  # "set X to VALUE", not "compare the token to …"
    if kw in ("pass", "pwd", "pw", "_pat") and (
        (b < kstart and text[kstart - 1].isalpha() and kw != "_pat"
         and not (kw == "pwd" and text[b:kend].isupper()))  # ACRPWD, DB_PWD
        or m.group("rest")
        or after.isalpha()
    ):
        return None  # "bypass", "pass_fds", "PASSTHROUGH": only a whole-word name
    if text[b - 2 : b] == "::":
        return None  # a namespaced type name such as AWS::ApiGateway::ApiKey
    key = text[b : m.end("rest")]
    sep = m.group("sep")
    bare = sep.strip() == "" and not key.startswith("-")
    if sep.strip() == ">" and (
        text[b - 1 : b] != "<" or not re.match(r"\s{0,40}</", text[m.end("v") : m.end("v") + 44])
    ):
        return None  # `<password>VALUE</password>` only; not `<password>@host` in a URL
    if sep.strip() == "," and not (
        re.search(r"\w\([ \t]{0,3}[\"']$", text[max(0, b - 8) : b])
        and re.match(r"[ \t]{0,3}\)", text[m.end("v") : m.end("v") + 4])
    ):
        return None  # only a call with the two: `setProperty("K", "v")`, not a tuple or list
    words = [w.lower() for w in _rx().word_re.findall(key.lstrip("$@-"))]
    if not words or words[-1] in _NON_SECRET_LAST or _NON_SECRET_ANY.intersection(words):
        return None
    kind = _kind_of(rule_id)
    if kw == "key" and (
        not (words == ["key"] or (words[0] == "x" and words[-1] == "key"))
        or _KEY_NON_SECRET.intersection(words)
        or sep[:1] in " \t,"
    ):
        # A bare `key`, or an `X-…-Key` header, written as logs, queries and headers write
        # it, with nothing before its `=` or `:` (`Using Key=…`, `?key=…`, `X-Acme-Key: …`):
        # `key = …` is code, and result_key, sort_key, Sec-WebSocket-Key name other things.
        return None
    if kind == "token" and _TOKEN_NON_SECRET.intersection(words[:-1]):
        return None
    if kind == "token" and not _token_name(words):
        return None  # "token" in the middle: token_endpoint_auth_method, token_type_hint
    raw = m.group("v")
    vstart, vend = m.start("v"), m.end("v")
    quoted = raw[:1] in "\"'`" and raw[-1:] == raw[:1] and len(raw) >= 2
    if quoted:
        value, vstart, vend = raw[1:-1], vstart + 1, vend - 1
    else:
        value = raw
        if value.endswith(("...", ELLIPSIS)):
            return None  # elided: `OP_TOKEN=ops_eyJzaWdu...` in documentation
        while value.endswith(("\\n", "\\r", "\\t")):
            value, vend = value[:-2], vend - 2  # an escape at the end of a string literal
        # Closing brackets of the code around, sentence punctuation: not part of the value.
        while value and (value[-1] in ".,:;" or (value[-1] in ")]}" and not _balanced(value))):
            value, vend = value[:-1], vend - 1
        if len(value) > 2 and value[0] == value[-1] and value[0] in "*_":
            value, vstart, vend = value.strip(value[0]), vstart + 1, vend - 1
    if (
        "{" in value
        and quoted
        and raw[:1] in "\"'"
        and text[m.start("v") - 1 : m.start("v")] in "fr"
    ):
        return None
    literal = kind == "password" and (key.startswith("-") or _shell_assignment(text, b, key, sep))
    if not _looks_secret(value, kind, quoted=quoted, literal=literal):
        return None
    if kw == "key" and not _random_key(value):
        return None
    if kw == "_pat" and not (len(value) >= 20 and _classes(value) >= 2 and _entropy(value) >= 3.5):
        return None  # `*_PAT` is also a pattern: a personal access token is long and random
    if bare and not (_strong(value, kind) or _netrc_field(text, b)):
        return None  # "password reset", "token budget": a bare space needs a random value
    return _shown_key(key, text[kstart : m.end("rest")]), value, vstart, vend


def _shell_assignment(text: str, key_start: int, key: str, sep: str) -> bool:
    """`PGPASSWORD=… psql`, `export DB_PASS=…`, `docker run -e PW=…`: a shell variable, whose
    unquoted value is a literal (in code, `PASSWORD = name` may be a name)."""
    if sep != "=" or not key.isupper():
        return False
    before = text[text.rfind("\n", 0, key_start) + 1 : key_start].rstrip()
    return not before or before.endswith(("export", "set", "ENV", "env", "-e", "--env", ";", "&&"))


def _random_key(value: str) -> bool:
    """A value under a bare `key` name: random beyond doubt (keys also name dictionary
    entries, columns and sort orders, whose values are words, paths and digests)."""
    return (
        len(value) >= 20
        and any(c.isdigit() for c in value)
        and not value.islower()
        and not value.isupper()
        and _entropy(value) >= 3.5
        and not is_hash(value)
        and not any(c in value for c in ".:\\ ")
        and _vendor_ok(value, "")
    )


def _token_name(words: list[str]) -> bool:
    """`…_TOKEN`, or a token name qualified after it: `AWS_BEARER_TOKEN_BEDROCK`."""
    last = max((i for i, w in enumerate(words) if w.endswith("token")), default=-1)
    if last < 0 or last == len(words) - 1:
        return last >= 0
    after = words[last + 1 :]
    return len(after) <= 2 and not any(
        w in _NON_SECRET_LAST or w in _TOKEN_NON_SECRET or w == "auth" for w in after
    )


def _netrc_field(text: str, key_start: int) -> bool:
    """`password X` right after `machine H` / `login U` (.netrc): a field, not a sentence."""
    import re

    before = text[max(0, key_start - 200) : key_start]
    return re.search(r"\b(?:machine|login|account)[ \t]+\S{1,100}\s{1,40}$", before) is not None


def _shown_key(key: str, keyword: str) -> str:
    """The key as the preview shows it: never a long or token-like run (it may be a secret)."""
    import re

    if len(key) > 40 or any(
        any(c.isdigit() for c in run) for run in re.findall(r"[A-Za-z0-9]{16,}", key)
    ):
        return keyword
    return key


def _strong(value: str, kind: str) -> bool:
    """A value random enough to count without an `=` or `is` before it (netrc, prose)."""
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    digits = any(c.isdigit() for c in value)
    return mixed and digits and len(value) >= (8 if kind == "password" else 20)


def _balanced(value: str) -> bool:
    closing = value[-1]
    opening = {")": "(", "]": "[", "}": "{"}.get(closing)
    return opening is not None and value.count(opening) >= value.count(closing)


# ---------------------------------------------------------------------------------------------
# Kubernetes Secret manifests: `data:` values are base64, so judge the decoded value.

# fmt: off
_K8S_PLAIN_KEYS = frozenset({
    "username", "user", "host", "hostname", "port", "database", "db", "name", "namespace",
    "url", "uri", "endpoint", "region", "email", "ca.crt", "tls.crt", "service",
})
# fmt: on


def _scan_k8s(text: str) -> Iterator[tuple[str, int, int, str, str]]:
    """Yield (rule, start, end, value, preview) for secret values in `kind: Secret` documents."""
    import re

    offset = 0
    for doc in re.split(r"(?m)^---[^\n]*\n", text):
        start_of_doc = text.find(doc, offset) if doc else offset
        offset = start_of_doc + len(doc)
        if not _rx().k8s_kind_re.search(doc):
            continue
        block: str | None = None
        indent = -1
        pos = start_of_doc
        for line in doc.split("\n"):
            line_start = pos
            pos += len(line) + 1
            head = _rx().k8s_block_re.match(line)
            if head:
                block, indent = head.group(2), len(head.group(1))
                continue
            item = _rx().k8s_item_re.match(line)
            if block is None or item is None or len(item.group(1)) <= indent:
                if line.strip() and (len(line) - len(line.lstrip())) <= indent:
                    block = None
                continue
            key, raw = item.group(2), item.group(3)
            if key.lower() in _K8S_PLAIN_KEYS:
                continue
            value = _b64decode(raw) if block == "data" else raw
            if value is None:
                continue
            value = value.strip()
            if key.endswith((".dockerconfigjson", ".dockercfg")):
                ok = '"auth"' in value or '"password"' in value
            elif "PRIVATE KEY" in value:
                ok = True
            else:
                ok = _looks_secret(value, "password", quoted=True)
            if ok:
                vstart = line_start + item.start(3)
                shown = _shown_key(key, "data")
                yield "kubernetes-secret", vstart, vstart + len(raw), raw, f"{shown}: {ELLIPSIS}"


# ---------------------------------------------------------------------------------------------
# The engine.


class _Compiled:
    """The rule table, each regex compiled only when its keywords first appear in a text:
    a put of ordinary prose then compiles none of them (compiling all costs ~50 ms)."""

    def __init__(self) -> None:
        from ._secret_rules import GENERIC_KEYWORDS, GENERIC_SPELLINGS, RULES

        # Each rule's keywords split once into those looked for in the lower-cased text and
        # the rest, so the test of a rule is two `any(map(…))` (no generator per rule).
        self.rules = [
            (r.id, r.keywords, _Lazy(r.pattern), _VALIDATORS[r.check], r.ci, r.scope,
             tuple(k for k in r.keywords if k.islower()),
             tuple(k for k in r.keywords if not k.islower()), r.shape)
            for r in RULES
        ]
        self.generic = [
            (_literal_prefix(kw), rid, _Lazy(_generic_pattern(kw)),
             20 if kw.startswith("key") else _shortest_value(_kind_of(rid)))
            for kw, rid in GENERIC_KEYWORDS.items()
        ]
        # The spellings of each keyword's `kw` group, for _may_judge (same order as generic).
        self.spellings = [GENERIC_SPELLINGS[kw] for kw in GENERIC_KEYWORDS]
        # Every keyword once, by the haystack a rule looks for it in, with the rules (by
        # index; generic ones after the table's) it lets run: a scan looks for each keyword
        # once (_Keywords.found), not once per rule that names it.
        n = len(self.rules)
        self.in_runs_low = _Keywords()
        self.in_runs_cased = _Keywords()
        self.in_text_low = _Keywords()
        self.in_text_cased = _Keywords()
        for i, (_id, _kws, _rx, _v, _ci, scope, low, cased, _shape) in enumerate(self.rules):
            in_runs = scope in ("token", "runs")
            for k in low:
                (self.in_runs_low if in_runs else self.in_text_low).add(k, i)
            for k in cased:
                (self.in_runs_cased if in_runs else self.in_text_cased).add(k, i)
        for j, (kw, *_rest) in enumerate(self.generic):
            self.in_text_low.add(kw, n + j)

    def chosen(self, text: str, lower: str, runs: _Runs) -> tuple[list[int], set[str]]:
        """The rules (indices; ``len(rules) + j`` for generic ``j``), in table order, one of
        whose keywords occurs where the rule looks for it, and those keywords (a few more
        on a long text): a rule left out, or a keyword, would find nothing
        (tests/test_secrets_one_pass.py holds the scan equal to running every rule)."""
        long = len(text) >= _DISTINCT_FROM
        d_lower = _distinct(lower) if long else None
        d_runs = _distinct(runs.joined) if long else None
        picked: set[int] = set()
        present: set[str] = set()
        for hay, d, kws in ((runs.lower, d_runs and d_runs.lower(), self.in_runs_low),
                            (runs.joined, d_runs, self.in_runs_cased),
                            (lower, d_lower, self.in_text_low)):
            for k in kws.found(hay, d):
                picked.update(kws.rules[k])
                present.add(k)
        # A cased keyword (ASCII) occurs in the text only where its lower case occurs in
        # `lower`: looked for there first (one pass shared with the rest), then in the text.
        for k in self.in_text_cased.found(lower, d_lower, lowered=True):
            if k in text:
                picked.update(self.in_text_cased.rules[k])
                present.add(k)
        return sorted(picked), present


# Past this length, keywords are looked for in a text's distinct pieces (see _distinct).
_DISTINCT_FROM = 16_384


def _distinct(hay: str) -> bytes:
    """The distinct pieces of ``hay`` between white space, as ASCII (anything else becomes
    ``?``), joined by newlines. A keyword (ASCII) without white space occurs in ``hay`` only
    where it occurs in one piece, so it is looked for in these instead: prose repeats its
    words, and the pieces are several times shorter than the text (one split, then each
    keyword's ``in`` on the short string)."""
    return b"\n".join(set(hay.encode("ascii", "replace").split()))


class _Keywords:
    """Keywords looked for in one kind of haystack, each with the rules it lets run."""

    def __init__(self) -> None:
        self.rules: dict[str, list[int]] = {}
        # (keyword, what is looked for: the keyword or its lower case, the same in ASCII
        # bytes, the parts of the latter between white space or None when it is one part)
        self._forms: list[tuple[str, str, bytes, tuple[bytes, ...] | None]] = []
        self._lowered: list[tuple[str, str, bytes, tuple[bytes, ...] | None]] = []

    def add(self, keyword: str, rule: int) -> None:
        if keyword not in self.rules:
            self.rules[keyword] = []
            for forms, want in ((self._forms, keyword), (self._lowered, keyword.lower())):
                raw = want.encode("ascii")
                parts = tuple(raw.split())
                forms.append((keyword, want, raw, None if parts == (raw,) else parts))
        self.rules[keyword].append(rule)

    def found(self, hay: str, distinct: bytes | None, *, lowered: bool = False) -> list[str]:
        """The keywords that occur in ``hay`` (``lowered``: whose lower case does), a few
        more when ``distinct`` (``_distinct(hay)``) stands for it: a character outside
        ASCII reads as ``?`` there. A keyword with white space needs each of its parts in
        a piece, then is looked for in ``hay`` itself."""
        forms = self._lowered if lowered else self._forms
        if distinct is None:
            return [k for k, want, _raw, _parts in forms if want in hay]
        out: list[str] = []
        for k, want, raw, parts in forms:
            if parts is None:
                if raw in distinct:
                    out.append(k)
            elif all(p in distinct for p in parts) and want in hay:
                out.append(k)
        return out


class _Lazy:
    """A regex compiled on its first ``finditer``."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def finditer(self, text: str, pos: int = 0,
                 endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.pattern)
        return self._compiled.finditer(text, pos, endpos)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.pattern)
        return self._compiled.search(text, pos)


def _literal_prefix(pattern: str) -> str:
    """The literal start of a generic keyword's regex (all of it if that is empty)."""
    n = 0
    while n < len(pattern) and pattern[n] in "abcdefghijklmnopqrstuvwxyz ":
        n += 1
    return pattern[:n] if n else pattern


# `kw` spellings whose finding must be a whole word (_judge_generic's "bypass" test).
_WHOLE_WORD = frozenset({"pass", "pwd", "pw", "_pat"})
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")


def _key_lookahead(lower: str, at: int) -> bool:
    r"""The bare `key` regex's lookahead at ``at``, ``[a-z0-9_.\-]{0,30}["'`\]]?[=:]``, by
    `str` tests: a quote, `]`, `=` or `:` is no name character, so only the whole run of
    name characters can precede it."""
    end = at
    while end < len(lower) and lower[end] in _NAME_CHARS:
        end += 1
    if end - at > 30:
        return False
    if lower[end : end + 1] in ("\"", "'", "`", "]"):
        end += 1
    return lower[end : end + 1] in ("=", ":")


def _may_judge(text: str, lower: str, literal: str, spellings: tuple[str, ...]) -> bool:
    """Whether a generic rule could report anything in ``text``: some occurrence of its
    keyword passes the first tests ``_judge_generic`` makes of the keyword alone.

    Every match of the rule's regex starts with one of ``spellings`` (its ``kw`` group) at
    an occurrence of ``literal``, so when this is False the regex can be left uncompiled
    and unrun: each of its matches would be rejected. Ordinary prose ("tokens", "bypass",
    "keyboard", "passed") is told here with `str.find`.
    """
    i = lower.find(literal)
    while i >= 0:
        for kw in spellings:
            if not lower.startswith(kw, i):
                continue
            after = text[i + len(kw) : i + len(kw) + 1]
            if after.islower():
                continue  # "tokenizer", "passage"
            if kw == "key" and not _key_lookahead(lower, i + 3):
                continue  # "key_runner is", "keyed by"
            if kw in _WHOLE_WORD:
                if after.isalpha():
                    continue  # "PASSTHROUGH", "passé"
                before = text[i - 1 : i]
                if (kw in ("pass", "pw") and before in _KEY_CHARS and before.isalpha()):
                    continue  # "bypass": a key character, a letter, before the keyword
            return True
        i = lower.find(literal, i + 1)
    return False


_COMPILED: _Compiled | None = None


def _compiled() -> _Compiled:
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = _Compiled()
    return _COMPILED


def _prepare(text: str) -> tuple[str, list[int] | None]:
    """Cut lines longer than MAX_LINE into overlapping windows; map new lines to original."""
    if len(text) <= MAX_LINE:
        return text, None
    lines = text.split("\n")
    if max(map(len, lines)) <= MAX_LINE:
        return text, None
    out: list[str] = []
    line_map: list[int] = []
    step = MAX_LINE - _OVERLAP
    for number, line in enumerate(lines, 1):
        if len(line) <= MAX_LINE:
            out.append(line)
            line_map.append(number)
            continue
        for i in range(0, len(line) - _OVERLAP, step):
            out.append(line[i : i + MAX_LINE])
            line_map.append(number)
    return "\n".join(out), line_map


class _Claims:
    """Value spans already reported: a later, weaker rule may not report them again."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        from bisect import bisect_right  # not imported by a clean text's scan

        i = bisect_right(self.starts, start)
        return (i > 0 and self.ends[i - 1] > start) or (
            i < len(self.starts) and self.starts[i] < end
        )

    def add(self, start: int, end: int) -> None:
        from bisect import bisect_right  # not imported by a clean text's scan

        i = bisect_right(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)


def _raw_matches(text: str, claims: _Claims) -> Iterator[tuple[str, int, int, str, str, int]]:
    """Yield (rule, start, end, value, preview, line anchor) candidates, by rule priority.

    Candidates whose value an earlier rule already claimed are not judged at all.
    """
    comp = _compiled()
    lower = text.lower()
    if len(lower) != len(text):  # a character whose lower case is longer: keep offsets aligned
        lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    # Vendor prefixes sit inside long runs of token characters; ordinary text has few such
    # runs, so looking for the many prefixes there is several times cheaper.
    runs = _Runs(text)
    chosen, present = comp.chosen(text, lower, runs)
    n_rules = len(comp.rules)
    for i in chosen:
        if i >= n_rules:
            break
        rule_id, keywords, regex, validator, ci, scope, low_kws, cased_kws, shape = comp.rules[i]
        hay = lower if ci else text
        if scope in ("token", "runs"):
            if not (any(map(runs.lower.__contains__, low_kws))
                    or any(map(runs.joined.__contains__, cased_kws))):
                continue
            if scope == "runs":
                if shape and shape not in runs.hex_shape():
                    continue
                for m in regex.finditer(runs.joined):
                    start = runs.to_text(m.start("s"))
                    end = start + len(m.group("s"))
                    if claims.overlaps(start, end):
                        continue
                    value = text[start:end]
                    if validator(m, value, "", text):
                        yield rule_id, start, end, value, _preview(m.group("p")), start
                continue
        if scope == "text":
            if not (any(map(lower.__contains__, low_kws))
                    or any(map(text.__contains__, cased_kws))):
                continue
            spans: Iterable[tuple[int, int]] = ((0, len(text)),)
        else:
            # only the keywords found: each other one would cost a pass over the text
            spans = _windows(text, lower, tuple(k for k in keywords if k in present),
                             runs if scope == "token" else None)
        for m in (m for ws, we in spans for m in regex.finditer(hay, ws, we)):
            start, end = m.span("s")
            if claims.overlaps(start, end):
                continue
            value = text[start:end]
            prefix = text[m.start("p") : m.end("p")]
            if validator(m, value, prefix, text):
                # A key block is reported on its BEGIN line, other secrets where they start.
                at = m.start() if validator is _check_pem else start
                yield rule_id, start, end, value, _preview(prefix), at
    # Before the generic rules: a Secret manifest's `password:` is judged decoded.
    if "Secret" in text and _rx().k8s_kind_hint_re.search(text):
        for rule_id, start, end, value, preview in _scan_k8s(text):
            yield rule_id, start, end, value, preview, start
    for i in chosen:
        if i < n_rules:
            continue
        (kw, rule_id, regex, shortest) = comp.generic[i - n_rules]
        spellings = comp.spellings[i - n_rules]
        if kw not in lower or not _may_judge(text, lower, kw, spellings):
            continue
        pos = 0
        while (gm := regex.search(lower, pos)) is not None:
            vstart, vend = gm.span("v")
            # The next match may be this one's value: `-passout pass:…`.
            pos = vstart if lower.startswith(kw, vstart) else gm.end()
            # Most matches are prose with a short word after the keyword: told at once.
            if vend - vstart < shortest or _hopeless(gm, text, vstart, vend):
                continue
            if claims.overlaps(vstart, vend):
                continue
            judged = _judge_generic(
                lower[gm.start("kw") : gm.end("kw")], rule_id, _Shifted(gm, text), text
            )
            if judged is not None:
                key, value, start, end = judged
                yield rule_id, start, end, value, _preview(key + "="), start


def _hopeless(m: re.Match[str], text: str, vstart: int, vend: int) -> bool:
    """A generic match, its value long enough for its kind (``_looks_secret``'s first
    test, on a part of group ``v`` at ``vstart:vend``), that ``_judge_generic`` is sure to
    reject, told by cheap tests: prose such as "token src/a.py" is most of what matches,
    and judging it costs tens of times more. Each test is a necessary condition of a
    finding, checked on what contains the judged text (the value lies within group ``v``,
    the key starts at most 60 characters before the keyword)."""
    s, e = m.span("sep")
    if text[s:e].strip():
        return False  # `=`, `:`, `is`, …: judged in full
    # A bare space: a finding needs a key starting with "-" (a flag), a value of mixed
    # case with a digit (_strong), or a .netrc field before the key (_netrc_field).
    kstart = m.start("kw")
    if "-" in text[max(0, kstart - 60):kstart]:
        return False
    raw = text[vstart:vend]
    if (any(c.isupper() for c in raw) and any(c.islower() for c in raw)
            and any(c.isdigit() for c in raw)):
        return False
    before = text[max(0, kstart - 260):kstart]
    return "machine" not in before and "login" not in before and "account" not in before




class _Runs:
    """The maximal runs of token characters (16+ long) of a text, joined by newlines."""

    def __init__(self, text: str) -> None:
        self._spans = _run_spans(text)
        self.joined = "\n".join([text[a:b] for a, b in self._spans])
        self.lower = self.joined.lower()
        self._starts: list[int] = []  # where each run starts in `joined`: on first use, as
        # most texts have no keyword in their runs
        self._hex_shape: str | None = None

    def hex_shape(self) -> str:
        """``joined`` with each lowercase hex digit as ``h`` (see ``Rule.shape``)."""
        if self._hex_shape is None:
            self._hex_shape = self.joined.translate(_HEX_SHAPE)
        return self._hex_shape

    def to_text(self, pos: int) -> int:
        if not self._starts:
            starts, at = self._starts, 0
            for a, b in self._spans:
                starts.append(at)
                at += b - a + 1
        from bisect import bisect_right

        i = bisect_right(self._starts, pos) - 1
        return self._spans[i][0] + pos - self._starts[i]


def _windows(
    text: str, lower: str, keywords: tuple[str, ...], runs: _Runs | None = None
) -> list[tuple[int, int]]:
    """The lines (each with the next line) that hold a keyword: the only places a rule runs.

    Running a regex only there keeps the cost near that of `str.find`, whatever the regex.
    Keywords that lie inside token runs are looked for in the (shorter) runs.
    """
    found: list[int] = []
    for k in keywords:
        if runs is not None:
            hay = runs.lower if k.islower() else runs.joined
        else:
            hay = lower if k.islower() else text
        pos = hay.find(k)
        while pos >= 0:
            found.append(runs.to_text(pos) if runs is not None else pos)
            pos = hay.find(k, pos + 1)
    if not found:
        return []
    found.sort()
    spans: list[tuple[int, int]] = []
    n = len(text)
    for pos in found:
        if spans and pos < spans[-1][1]:
            continue
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = n if end < 0 else text.find("\n", end + 1)
        end = n if end < 0 else end
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


class _Shifted:
    """A match on the lower-cased text that reads its groups from the original text."""

    def __init__(self, m: re.Match[str], text: str) -> None:
        self._m = m
        self._text = text

    def group(self, name: str) -> Any:
        s, e = self._m.span(name)
        return None if s < 0 else self._text[s:e]

    def start(self, name: str | int = 0) -> int:
        return self._m.start(name)

    def end(self, name: str | int = 0) -> int:
        return self._m.end(name)

    def span(self, name: str | int = 0) -> tuple[int, int]:
        return self._m.span(name)


def _preview(prefix: str) -> str:
    """The recognisable, non-secret start of a finding, then an ellipsis."""
    import re

    words = prefix.split()
    if len(prefix) > 24 and len(words) > 2:
        words = [words[0], ELLIPSIS, words[-1]]  # `mysql -h db -u root -p` -> `mysql … -p`
    # Never a long token-like run: it could be another secret sitting in the prefix.
    words = [
        ELLIPSIS if any(any(c.isdigit() for c in r) for r in re.findall(r"[A-Za-z0-9]{16,}", w))
        else w
        for w in words
    ]  # fmt: skip
    return " ".join(words)[:40] + ELLIPSIS


def _line_bounds(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end < 0 else end


def _inline_allowed(text: str, pos: int) -> bool:
    start, end = _line_bounds(text, pos)
    line = text[start:end]
    if any(mk in line for mk in _ALLOW_MARKERS) and not any(
        mk in line for mk in _ALLOW_NEXT_MARKERS
    ):
        return True
    if start == 0:
        return False
    pstart, _ = _line_bounds(text, start - 1)
    prev = text[pstart : start - 1]
    return any(mk in prev for mk in _ALLOW_NEXT_MARKERS)


def _path_allowed(path: str, allow: Allowlist) -> bool:
    from fnmatch import fnmatchcase

    posix = path.replace(os.sep, "/")
    while posix.startswith("./"):
        posix = posix[2:]
    return any(
        fnmatchcase(posix, g) or fnmatchcase(posix, g.rstrip("/") + "/*") for g in allow.paths
    )


def scan_text(
    text: str, *, allow: Allowlist | None = None, path: str | None = None
) -> list[Finding]:
    """Find secrets in ``text``; each finding is redacted and carries a 1-based line number."""
    if not text:
        return []
    if allow is not None and path is not None and allow.paths and _path_allowed(path, allow):
        return []
    scanned, line_map = _prepare(text)
    claims = _Claims()
    raw: list[tuple[int, str, str, str]] = []
    for rule_id, start, end, value, preview, at in _raw_matches(scanned, claims):
        if allow is not None and rule_id in allow.rules:
            continue
        if claims.overlaps(start, end):
            continue
        claims.add(start, end)
        raw.append((at, rule_id, value, preview))
    if not raw:
        return []
    raw.sort()
    findings: list[Finding] = []
    seen: set[tuple[str, int, str]] = set()
    line_no, last = 1, 0
    for start, rule_id, value, preview in raw:
        line_no += scanned.count("\n", last, start)
        last = start
        if _inline_allowed(scanned, start):
            continue
        fp = _fingerprint(value)
        if allow is not None and fp in allow.fingerprints:
            continue
        line = line_map[line_no - 1] if line_map is not None else line_no
        if (rule_id, line, fp) in seen:
            continue  # the same value seen twice through overlapping windows
        seen.add((rule_id, line, fp))
        findings.append(Finding(rule_id, line, preview, fp, path))
    return findings


# ---------------------------------------------------------------------------------------------
# Redaction of messages. (Files and git's index are scanned in :mod:`lean_memory.scanfiles`.)

_WITHHELD = "(message withheld: it quoted a credential)"


# Punctuation at the edges of a word (`--ghp_…`, `ghp_…-`) and escapes from repr() (a tag
# `\x01ghp_…` shows as `'\\x01ghp_…'`) hide a token from rules that want a boundary; a copy
# with these blanked (same length, so offsets hold) is scanned too.


def _spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, preview) of every credential value in ``text``, allowlists ignored."""
    yield from _spans_of(text)
    blanked = _blank_edges(_blank_escapes(text))
    if blanked != text:
        yield from _spans_of(blanked)


_HEX = frozenset("0123456789abcdefABCDEF")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _escape_end(text: str, at: int) -> int:
    r"""Where the repr() escape at the backslash ``at`` ends (``at``: none there): regex
    ``\(?:x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}``
    ``|[0abfnrtv\'"])``. Its classes are disjoint, so reading each greedily is exact."""
    if text.startswith("x1b[", at + 1):
        end = at + 5
        while end < len(text) and end - at - 5 < 32 and text[end] in "0123456789;?":
            end += 1
        stop = end + 4
        while end < min(stop, len(text)) and " " <= text[end] <= "/":
            end += 1
        if end < len(text) and "@" <= text[end] <= "~":
            return end + 1
    kind = text[at + 1:at + 2]
    size = {"x": 2, "u": 4, "U": 8}.get(kind)
    if size is not None:
        digits = text[at + 2:at + 2 + size]
        if len(digits) == size and all(c in _HEX for c in digits):
            return at + 2 + size
    return at + 2 if kind and kind in "0abfnrtv\\'\"" else at


def _blank_escapes(text: str) -> str:
    r"""``text`` with the escapes repr() writes (``\x01``, ``\n``, a terminal colour)
    blanked, the same length: punctuation at a word's edge, and such escapes (a tag
    ``\x01ghp_…`` shows as ``'\\x01ghp_…'``), hide a token from rules that want a boundary."""
    at = text.find("\\")
    if at < 0:
        return text
    out: list[str] = []
    last = 0
    while at >= 0:
        end = _escape_end(text, at)
        if end == at:
            at = text.find("\\", at + 1)
            continue
        out.append(text[last:at])
        out.append(" " * (end - at))
        last = end
        at = text.find("\\", end)
    out.append(text[last:])
    return "".join(out)


def _blank_edges(text: str) -> str:
    r"""``text`` with the punctuation at each word's edges blanked, the same length: regex
    ``(?:(?<=\s)|^)[^\sA-Za-z0-9]+|[^\sA-Za-z0-9]+(?=\s|$)`` (``\s`` is white space as
    ``str.split`` reads it), which matches the leading and trailing runs of characters
    other than ASCII letters and digits of each white-space-free chunk."""
    out: list[str] = []
    last = pos = 0
    for word in text.split():
        at = text.find(word, pos)  # only white space before it: found where it is
        n = len(word)
        pos = at + n
        if word.isalnum() and word.isascii():
            continue
        lead = 0
        while lead < n and word[lead] not in _ALNUM:
            lead += 1
        trail = n
        while trail > lead and word[trail - 1] not in _ALNUM:
            trail -= 1
        if lead or trail < n:
            out.append(text[last:at])
            out.append(" " * lead + word[lead:trail] + " " * (n - trail))
            last = at + n
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _spans_of(text: str) -> Iterator[tuple[int, int, str]]:
    if _prepare(text)[1] is None:
        parts: Iterable[tuple[int, str]] = ((0, text),)
    else:  # a line too long to scan whole: flat windows that overlap, as _prepare cuts lines
        parts = ((i, text[i : i + MAX_LINE])
                 for i in range(0, max(len(text) - _OVERLAP, 1), MAX_LINE - _OVERLAP))
    for offset, part in parts:
        claims = _Claims()
        for _rule, start, end, _value, preview, _at in _raw_matches(part, claims):
            if not claims.overlaps(start, end):
                claims.add(start, end)
                yield offset + start, offset + end, preview


def redact(text: str) -> str:
    """``text`` with every credential the scanner finds replaced by its preview (``ghp_…``).

    For messages that may quote user input: every error message passes through it. If a
    credential still shows after replacing (it cannot be located), the whole text is withheld.
    """
    if not isinstance(text, str) or not text:
        return text
    for _ in range(3):
        spans = sorted(_spans(text))
        if not spans:
            return text
        text = _replace(text, spans)
    return _WITHHELD if any(True for _ in _spans(text)) else text




def redact_path(path: str) -> str:
    """``path`` redacted as :func:`redact` does, where a folder separator, or a hyphen, dot
    or underscore before it, also bounds a credential: a cloned repository may hold
    ``deploy-ghp_….txt``, ``deploy-xoxb-….txt`` or ``notes/glpat-…``."""
    if not isinstance(path, str) or not path:
        return path
    # The same length, so its spans are the path's: hyphens end a token (`ghp_…-x`) ...
    spans = list(_spans(_rx().path_joins_re.sub(" ", path)))
    # ... and each name read from every word start finds hyphenated tokens (`xoxb-1-2-…`)
    # whose rules want no word character before them (`deploy-xoxb-…`).
    for part in _rx().path_parts_re.finditer(path):
        starts = [0, *(j.end() for j in _rx().word_joins_re.finditer(part.group()))][:64]
        for start in starts:
            offset = part.start() + start
            found = _spans(path[offset : part.end()])
            spans.extend((offset + a, offset + b, p) for a, b, p in found)
    return redact(_replace(path, sorted(spans)) if spans else path)


def _replace(text: str, spans: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end, preview) span, in order, replaced by its preview."""
    out: list[str] = []
    last = 0
    for start, end, preview in spans:
        if end <= last:
            continue
        start = max(start, last)
        stem = preview.rstrip(ELLIPSIS)
        value = text[start:end]
        out.append(text[last:start])
        out.append(preview if stem and value.startswith(stem) else ELLIPSIS)
        last = end
    out.append(text[last:])
    return "".join(out)


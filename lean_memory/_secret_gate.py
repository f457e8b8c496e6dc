"""Whether the secret scanner could find anything in a text, told without loading it.

The prompt hook keeps every prompt as an ask, redacted first; importing the scanner
(:mod:`lean_memory.secrets`, 1,700 lines) and running its rule loop cost ~2 ms of every
prompt (ADR 0039). Every rule of the scanner runs only where one of its keywords occurs:
a rule of scope ``token`` or ``runs`` in the runs of 16+ token characters, the others
(``keyed``, ``text``) and the generic assignments (their spellings) anywhere, and the
Kubernetes manifest check where ``Secret`` occurs; a ``runs`` rule with a ``shape`` also
needs that shape of hex digits in the runs. :func:`may_hold` is False only when
none of that can happen: then the scanner finds nothing, and redacting changes nothing
(``tests/test_hot_lines.py`` holds this against the scan).

A keyword is looked for by its pieces between spaces: the scanner also scans a copy with
punctuation blanked to spaces, where ``bcp:`` reads ``bcp `` (every piece is still there,
unchanged, in the text itself). Text beyond ASCII is always scanned (its lower case may
shift offsets).
"""

from __future__ import annotations

# The runs of token characters the scanner's ``token`` and ``runs`` rules look in.
_RUN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=~%:$"
# ASCII bytes to b"a" (a character of a run: [A-Za-z0-9_\-.+/=~%:$]) or b" " (any other).
_RUN_TABLE = bytes(0x61 if c in _RUN_CHARS else 0x20 for c in range(256))
_RUN_SEED = b"a" * 16


def run_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the runs of 16 or more token characters in ``text``, found by
    ``bytes.find`` on the text mapped to two bytes: several times faster than a regex, and
    nothing to compile. A character outside ASCII (in no run) becomes one ``?`` (so offsets
    hold), then a space."""
    marks = text.encode("ascii", "replace").translate(_RUN_TABLE)
    spans: list[tuple[int, int]] = []
    start = marks.find(_RUN_SEED)
    while start >= 0:
        # The first 16 marks in a row after the last run start a run (a shorter run
        # before them would end on a non-mark); the run goes on to the next non-mark.
        end = marks.find(b" ", start + 16)
        end = len(marks) if end < 0 else end
        spans.append((start, end))
        start = marks.find(_RUN_SEED, end)
    return spans


# The keywords' pieces between spaces, as (looked for in the lower-cased text, looked for as
# they are), the way the scanner looks for a keyword: written out, so that a prompt loads
# neither the rule table nor works these out (0.6 ms). :func:`tables` derives them from the
# table; tests/test_secret_gate.py holds the two equal (a new rule fails it until written
# here: ``python -c "from lean_memory._secret_gate import tables; print(tables())"``).
_ALWAYS = False  # a rule without keywords: every text is scanned
_RUNS = (
    (
        '-us', '.atlasv1.', '/api/webhooks/', '/webhookb2/', 'access_token$', 'accountkey=',
        'api_org_', 'dapi', 'dckr_pat_', 'doo_v1_', 'dop_v1_', 'dor_v1_', 'dp.ct.', 'dp.pt.',
        'dp.sa.', 'dp.st.', 'dt0c01.', 'fm1a_', 'fm1r_', 'fm2_', 'fo1_', 'fw_', 'gho_', 'ghp_',
        'ghr_', 'ghs_', 'ghu_', 'github_pat_', 'glagent-', 'glc_', 'glcbt-', 'gldt-', 'glffct-',
        'glft-', 'glimt-', 'gloas-', 'glpat-', 'glptt-', 'glrt-', 'glrtr-', 'glsa_', 'glsoat-',
        'gsk_', 'hf_', 'hooks.slack.com/', 'hvb.', 'hvr.', 'hvs.', 'key-', 'lin_api_', 'lsv2_',
        'npm_', 'ntn_', 'oy2', 'p8e-', 'pat', 'pcsk_', 'pplx-', 'pscale_', 'pul-', 'r8_',
        'rk_live_', 'rk_prod_', 'rk_test_', 'rubygems_', 's-s4t2', 'sbp_', 'secret_', 'sgp_',
        'sha256~', 'sharedaccesskey=', 'shpat_', 'shpca_', 'shppa_', 'shpss_', 'sig=', 'sk-',
        'sk-ant-', 'sk-or-', 'sk_live_', 'sk_test_', 'sntrys_', 'sntryu_', 'sq0atp-', 'sq0csp-',
        'whsec_', 'xai-', 'xapp-', 'xox', 'ya29.'
    ),
    (
        '1//0', ':AA', '==', 'A3-', 'A3T', 'AAAAAAAAAAAAAAAAAAAAA', 'ABIA',
        'ABSKQmVkcm9ja0FQSUtleS', 'ACCA', 'AGE-SECRET-KEY-1', 'AIza', 'AKIA', 'ASIA', 'ATATT3',
        'CSqGSIb3DQEHAaCC', 'EAA', 'EZAK', 'EZTK', 'FLWSECK', 'FQoGZXIvYXdz', 'FwoGZXIvYXdz',
        'GOCSPX-', 'GR1348941', 'HRKU-AA', 'IQoJb3JpZ2lu', 'LTAI', 'MT', 'Mj', 'Mz', 'ND',
        'NRAK-', 'NT', 'Nj', 'Nz', 'OD', 'OT', 'PMAK-', 'Q~', 'SG.', 'SK', 'T3BlbkFJ', 'ZXlK',
        'bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t', 'eyJ', 'pypi-AgE', 'sk.eyJ'
    ),
)
# a ``runs`` rule with a shape runs only where its shape of hex digits occurs too
_SHAPED = (
    (((), ('-',)),
     'hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh-hhhhhhhh-hhhhhhhh'),
)
_TEXT = (
    (
        '"auth"', '--user', '-u', '_auth=', '_authtoken', '_password=', '_pat', 'access-key',
        'access.key', 'access_key', 'accesskey', 'account-key', 'account.key', 'account_key',
        'accountkey', 'admin-key', 'admin.key', 'admin_key', 'adminkey', 'api', 'api(',
        'api-key', 'api.key', 'api_key', 'apikey', 'app-key', 'app.key', 'app_key', 'appkey',
        'auth', 'auth-key', 'auth.key', 'auth_key', 'authkey', 'authorization', 'bcp', 'bearer',
        'client(', 'code', 'connect(', 'credential', 'creds', 'docker', 'encryption-key',
        'encryption.key', 'encryption_key', 'encryptionkey', 'htpasswd', 'is', 'key', 'key=',
        'license-key', 'license.key', 'license_key', 'licensekey', 'login', 'login(', 'mariadb',
        'master-key', 'master.key', 'master_key', 'masterkey', 'mongo', 'mysql', 'name:',
        'openai-key', 'openai.key', 'openai_key', 'openaikey', 'pass', 'passphrase', 'passwd',
        'password', 'postmark', 'primary-key', 'primary.key', 'primary_key', 'primarykey',
        'private-key', 'private.key', 'private_key', 'privatekey', 'pw', 'pwd', 'recovery',
        'redis-cli', 'sdk(', 'secret', 'security_token', 'service-key', 'service.key',
        'service_key', 'servicekey', 'session_token', 'sessiontoken', 'shared-key',
        'shared.key', 'shared_key', 'sharedkey', 'signing-key', 'signing.key', 'signing_key',
        'signingkey', 'sqlcmd', 'sshpass', 'storage-key', 'storage.key', 'storage_key',
        'storagekey', 'token', 'twilio', 'unseal', 'user', 'user:', 'username:'
    ),
    (
        '----', ':*', '://', ':0', ':1', ':2', ':3', ':4', ':5', ':6', ':7', ':8', ':9',
        'BEGIN', 'ENCRYPTED', 'KEY', 'PRIVATE', 'Private-Lines', 'SSH2', 'Secret'
    ),
)
_HEX_SHAPE = str.maketrans(dict.fromkeys("0123456789abcdef", "h"))


def _pieces(keywords: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    low: set[str] = set()
    cased: set[str] = set()
    for keyword in keywords:
        (low if keyword.islower() else cased).update(p for p in keyword.split(" ") if p)
    return tuple(sorted(low)), tuple(sorted(cased))


def tables() -> tuple[object, ...]:
    """(_ALWAYS, _RUNS, _SHAPED, _TEXT) derived from the rule table."""
    from ._secret_rules import GENERIC_SPELLINGS, RULES  # the table: not on a prompt's path

    return (
        any(not r.keywords for r in RULES),
        _pieces([k for r in RULES if r.scope == "token" or (r.scope == "runs" and not r.shape)
                 for k in r.keywords]),
        tuple((_pieces(list(r.keywords)), r.shape) for r in RULES
              if r.scope == "runs" and r.shape),
        _pieces([*(k for r in RULES if r.scope not in ("token", "runs") for k in r.keywords),
                 *(s for spellings in GENERIC_SPELLINGS.values() for s in spellings),
                 "Secret"]),  # the Kubernetes manifest check
    )


def may_hold(text: str) -> bool:
    """Whether the scanner could report a credential in ``text`` (False: it reports none)."""
    if _ALWAYS or not text.isascii():
        return True
    if _held(_TEXT, text, text.lower()):
        return True
    spans = run_spans(text)
    if not spans:
        return False
    joined = "\n".join([text[a:b] for a, b in spans])
    lower = joined.lower()
    if _held(_RUNS, joined, lower):
        return True
    shaped = joined.translate(_HEX_SHAPE) if _SHAPED else ""
    return any(shape in shaped and _held(pieces, joined, lower) for pieces, shape in _SHAPED)


def _held(pieces: tuple[tuple[str, ...], tuple[str, ...]], text: str, lower: str) -> bool:
    low, cased = pieces
    return any(map(lower.__contains__, low)) or any(map(text.__contains__, cased))

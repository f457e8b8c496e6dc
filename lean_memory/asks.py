"""Asks: what the person asked, and the two things learnt from them (pure, no I/O).

An **ask** is one prompt of one agent session, as the prompt hook saw it: scanned first (a
credential is cut out, never kept), bounded to :data:`MAX_ASK_BYTES`, with an id derived from
what it is, so capturing the same prompt twice gives the same record.

:func:`propose` finds requests that came back in :data:`MIN_SESSIONS` or more separate
sessions, paraphrases included, and proposes each as a one-line rule with its evidence. Only a
sentence that reads as a standing rule is considered (a preference, a policy, a prohibition,
marked by a cue such as *always*, *never*, *don't*, *remember*, *prefer*, *instead of*, *X not
Y*); a task asked again ("run the tests") is not a rule however often it comes back. Each such
sentence becomes a set of **signed terms**: content words, stemmed, each +1 when the sentence
wants it and -1 when it rejects it ("use uv not pip" is uv+ pip-; "uninstall uv" is uv-, so it
never meets "use uv"). Two sentences say the same thing when the idf-weighted cosine of their
signed terms is high and they do not each name something the other lacks ("always run ruff
before committing" and "always run the tests before committing" share a frame, not a rule).
Clusters are the connected components of that relation, built in a fixed order.

:func:`distill` folds one quiet session into a summary: what was asked, what was decided
(entries written during it), what is still open (asks nothing written afterwards answers) and
dead ends (entries in the failures shard), each line carrying its ask or entry id.

Everything here is deterministic: no model, no clock, no randomness; inputs in any order give
the same output.
"""

from __future__ import annotations

import math
import unicodedata
from collections import defaultdict
from datetime import datetime, timedelta

from ._askrecord import (  # the ask as the prompt hook keeps it (re-exported)
    CUT_MARK,
    MAX_ASK_BYTES,
    MAX_ASKS_PER_SESSION,
    SUMMARY_SHARD,
    Ask,
    _order,
    _unique_asks,
    bound_session,
    bound_text,
    clean_session_id,
    make_ask,
)
from ._hash import blake2b
from ._record import Record, lazy
from ._stem import stem_inflected
from .bm25 import STOP_WORDS

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence
    from datetime import datetime


__all__ = [
    "CUT_MARK",
    "MAX_ASKS_PER_SESSION",
    "MAX_ASK_BYTES",
    "MIN_SESSIONS",
    "Ask",
    "Evidence",
    "Proposal",
    "Summary",
    "Written",
    "bound_session",
    "bound_text",
    "clean_session_id",
    "distill",
    "make_ask",
    "propose",
    "quiet_sessions",
    "rule_clauses",
    "same_request",
    "summary_id",
]

MIN_SESSIONS = 3
MAX_RULE_CHARS = 200
MAX_LINE_CHARS = 160
MAX_SECTION_LINES = 20  # per part of a summary; the rest are named by id

# Tuned on the train split of bench/promote only (see its README).
LINK_COSINE = 0.35  # signed, idf-weighted cosine at or above which two rule sentences link
DISTINCT_SHARE = 0.7  # an unshared term this heavy (vs the sentence's heaviest) names a thing
KEY_SHARE = 0.2  # of what a sentence is about (by weight), the share another must also say
ANCHOR_IDF = 0.6  # of the rarest word's idf: a key word at least this rare is an anchor
ANCHOR_COVER = 0.4  # of each one's anchors (by weight, words said once aside), the share agreed
MAX_ANCHOR_BUCKET = 64  # rule sentences past which a word is too common to be an anchor
TYPO_MIN_LEN = 5  # a rare term this long one letter away from a common one is a typo of it
CONFLICT_SHARE = 0.25  # shared weight with opposite signs above this share: they disagree

# -- reading a request -------------------------------------------------------------------------

# Phrases rewritten to one cue word before tokenising; order matters ("don't forget" first).
# (pattern, replacement, words one of which the text must hold for the pattern to apply: a
# substring test in C spares most texts most of the regular expressions)
_PHRASES = [(lazy("(?i)" + p), r, keys) for p, r, keys in (
    (r"\b(?:do not|don'?t|dont) forget\b|\bkeep in mind\b|\bbear in mind\b|\bas i said\b"
     r"|\blike i said\b|\bi told you\b", " remember ", ("forget", "mind", "said", "told")),
    (r"\bfrom now on\b|\bgoing forward\b|\bin (?:the )?future\b|\bby default\b|\bevery time\b"
     r"|\beach time\b|\bas a rule\b|\bat all times\b|\ball the time\b"
     # a convention: "as in the rest of the API", "like everywhere else"
     r"|\b(?:as|like) (?:in |for |with )?(?:the rest of|everywhere else|(?:all )?the other)\b",
     " always ",
     ("now on", "forward", "future", "default", "time", "rule", "rest of", "else", "other")),
    (r"\bno more\b|\bnever ever\b|\bnever again\b|\bno longer\b|\benough (?:with|of)\b"
     r"|\brefrain from\b|\bquit\b|\bcut it out with\b", " never ",
     ("no more", "never", "no longer", "enough", "refrain", "quit", "cut it")),
    (r"\b(?:any ?more|any longer)\b", " ", ("more", "longer")),
    # German, French, Spanish and Italian: the words a rule turns on (a small table, no model)
    (r"\b(?:immer|stets|toujours|siempre|sempre)\b", " always ",
     ("immer", "stets", "toujours", "siempre", "sempre")),
    (r"\b(?:nie|niemals|jamais|nunca|jamas)\b|\bnon\b(?=[^,.!?]*\bmai\b)", " never ",
     ("nie", "jamais", "nunca", "jamas", "mai")),
    (r"\bmai\b", " ", ("mai",)),
    (r"\bau lieu d(?:e\b|')|\bplutot que?\b|\b(?:an)?statt\b|\banstelle von\b"
     r"|\ben (?:lugar|vez) de\b|\binvece di\b|\bal posto di\b|\banziche\b", " instead ",
     ("lieu", "plutot", "statt", "anstelle", "lugar", "vez de", "invece", "posto", "anziche")),
    (r"\bpas d(?:e\b|')|\bkein(?:e|en|em|er|es)?\b|\baucune?\b|\bnada de\b|\bningun[oa]?\b"
     r"|\bniente\b|\bnessun[oa]?\b", " no ",
     ("pas d", "kein", "aucun", "nada de", "ningun", "niente", "nessun")),
    (r"\bnon\b(?=\s+[a-z])", " not ", ("non",)),
    (r"\bpor favor\b|\bper favore\b|\bperfavore\b|\bporfa\b", " please ",
     ("favor", "porfa")),
    (r"\b(?:usamos|usiamo|utilizamos|utilizziamo)\b", " we use ",
     ("usamos", "usiamo", "utiliz")),
    (r"\b(?:usa|usar|usad|usate|usare|utiliza|utilizar|utilizza|utilizzate|utilizzare)\b",
     " use ", ("usa", "usar", "utiliz")),
    (r"\b(?:prefiero|preferimos|preferisco|preferiamo)\b", " prefer ", ("prefer",)),
    (r"\b(?:evita|evitar|evitad|evitare|evitate)\b", " avoid ", ("evit",)),
    (r"\bantes de\b|\bprima di\b", " before ", ("antes de", "prima di")),
    (r"\bdespues de\b|\bdopo\b", " after ", ("despues", "dopo")),
    (r"\b(?:sin|senza)\b", " without ", ("sin", "senza")),
    (r"\b(?:cada|ogni)\b", " every ", ("cada", "ogni")),
    (r"\b(?:solo|solamente|soltanto|unicamente)\b", " only ", ("solo", "solamente",
                                                               "soltanto", "unicamente")),
    (r"\bn(?:e\b|')", " ", ("ne", "n'")),
    (r"\bnicht\b|\bpas\b", " not ", ("nicht", "pas")),
    (r"\bbitte\b|\bs'il (?:te|vous) plait\b|\bstp\b|\bsvp\b|\bdanke\b|\bmerci\b", " please ",
     ("bitte", "plait", "stp", "svp", "danke", "merci")),
    (r"\blieber\b|\bbevorzug\w*|\bprefer(?:e|es|ons|ez)\b", " prefer ",
     ("lieber", "bevorzug", "prefer")),
    (r"\b(?:on|wir) (?:utilise|nutzen|verwenden|benutzen|nehmen)\b", " we use ",
     ("on ", "wir ")),
    (r"\b(?:nimm|nehmt?|nehmen|verwende[nt]?|benutze[nt]?|nutze[nt]?|utilise[zr]?|utilisons)\b",
     " use ", ("nimm", "nehm", "verwende", "benutze", "nutze", "utilis")),
    (r"\binstead of\b|\brather than\b|\bin place of\b|\bas opposed to\b", " instead ",
     ("instead", "rather", "place of", "opposed")),
    # "mix format first, then commit" is an order, one rule: not two requests (and "first
    # explain the plan then write code", "primero el plan, luego el codigo")
    (r"\b(?:primero|prima)\b", " first ", ("primero", "prima")),
    (r"\b(?:luego|poi)\b", " then ", ("luego", "poi")),
    (r"\bfirst\s*,?\s*(?:and\s+)?(?:then|second|after(?:wards)?)\b", " before ",
     ("then", "second", "after")),
    (r"^\s*first\b([^.!?;]*?)\s*,?\s*then\b", r" \1 before ", ("then",)),
    # a complaint says what is wanted: "you keep leaving out the specs", "you keep adding
    # comments"
    (r"\byou (?:keep|always|constantly) (?:leav(?:e|ing) out|forget(?:ting)?|skip(?:ping)?"
     r"|drop(?:ping)?|omit(?:ting)?)\b", " always add ", ("you",)),
    (r"\byou (?:keep|constantly) (?=\w+ing\b)", " never ", ("you",)),
    (r"\b(?:leav(?:e|ing)|left) out\b", " no ", ("out",)),
    (r"\bg[eo]t(?:ting)? rid of\b|\brip(?:ped)? out\b", " remove ", ("rid of", "rip")),
    (r"\bpull requests?\b|\bmerge requests?\b", " pr ", ("request",)),
    (r"\bhands off\b", " never touch ", ("hands off",)),
    (r"\bleave ((?:[\w./-]+ ){0,3}?[\w./-]+) alone\b", r" never touch \1 ", ("alone",)),
    (r"\bstick (?:to|with)\b|\bstay with\b|\bgo with\b|\bopt for\b|\breach for\b"
     r"|\bresort to\b|\bturn to\b|\bfall back (?:to|on)\b|\bgo for\b|\bbet on\b", " use ",
     ("stick", "stay with", "go with", "opt for", "reach for", "resort", "turn to",
      "fall back", "go for", "bet on")),
    # "keep emojis out of commit messages", "leave the hints out": what is kept out is refused
    (r"\b(?:keep|leave) ((?:[\w./-]+ ){0,3}?[\w./-]+) out of\b", r" no \1 in ",
     ("out",)),
    (r"\b(?:keep|leave) ((?:[\w./-]+ ){0,3}?[\w./-]+) out\b", r" no \1 ", ("out",)),
    (r"\bleave out\b|\bcut out\b|\bdrop the\b", " no ", ("leave out", "cut out", "drop the")),
    (r"\b(?:ca|wo|sha)n'?t\b", " not ", ("can", "won", "shan")),
    # typed without the apostrophe: "dont use var ever"
    (r"\b(do|does|did|should|must|is|are|was|were|would|could|have|has|had)nt\b", r"\1 not",
     ("nt",)),
    (r"n't\b|\bcannot\b", " not ", ("n't", "cannot")),
)]
# A sentence ends at its punctuation, and where a second request is joined on ("fix X, and
# please use uv"), so the task's words never become part of the rule's.
_SENTENCE = lazy(
    r"(?i)([.!?;]+(?=\s|$)|\n+|(?<!first),\s*(?:and|then|also|plus)\b"
    r"|\band\s+(?=please\b|remember\b|also\b|always\b|never\b|do not\b|i prefer\b))")
_FIRST_THEN = lazy(r"(?i)(\bfirst\b[^.!?;\n]*?),\s*(?=then\b)")
# A pasted error message says nothing about what the person wants.
_ERROR = lazy(r"\b[A-Z]\w*(?:Error|Exception|Warning): [^\n!?;]*")
# A line a program printed, pasted before the request: a log level or a compiler's, linter's or
# test runner's prefix at its head, or a place in a file (path:line), a stack frame, an arrow
_OUTPUT_LINE = lazy(
    r"^\s*(?:\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL|FAIL(?:ED)?|PASS(?:ED)?|CRITICAL"
    r"|SEVERE|PANIC|E\d{4})\b"
    r"|(?i:\[?(?:error|warning|warn|info|debug|fatal|panic|note|ld|fatal error)\b[\[:(]"
    r"|traceback\b|at [\w.$<>]+\(|npm err|e\s+[\w.]+error\b|>>>|\$ ))"
    r"|[\w./-]+\.[a-z]{1,5}:\d+|(?i:\bline \d+\b|\s-->\s|\bexit (?:code|status) \d+)")


def _without_output(text: str) -> str:
    """``text`` without the lines a program printed, and without what a "<-" points at."""
    lines = []
    for line in text.split("\n"):
        if "<-" in line:  # "Prelude.head: empty list  <- this is why we don't use head"
            line = line.rsplit("<-", 1)[1]
        elif _OUTPUT_LINE.search(line) and not _ASKING.search(line):
            continue
        lines.append(line)
    return "\n".join(lines)


# a line that also asks something is kept whatever it quotes ("the build fails with exit code 2,
# always run make clean first")
_ASKING = lazy(r"(?i)\b(?:please|pls|always|never|don'?t|do not|stop|use|prefer|remember"
               r"|make sure|we)\b")
# A date or a time in a pasted log line names no rule ("2026-11-03 12:00:01 ERROR …")
_STAMP = lazy(r"\b\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?Z?)?\b"
              r"|\b\d\d?:\d\d(?::\d\d)?(?:[.,]\d+)?\b")
_FILE_EXT = lazy(r"\.(?:[a-z]{1,4})$")
_CODE_NAME = lazy(r"\b[a-z]+[A-Z][A-Za-z0-9]*|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*")
_HYPHEN_JOIN = lazy(r"\b(re|pre|non|un|co|sub|anti|post|semi|multi|[a-z])-(?=[a-z])")
_HYPHEN = lazy(r"(?<=[a-z])-(?=[a-z])")
_FLAG = lazy(r"(?<![\w-])(--?)([a-z][a-z0-9]*(?:-[a-z0-9]+)+)")
_SUBCLAUSE = lazy(r",|:|\(|\)|\s-+\s|\s\u2014\s|\bbut\b|\bthough\b|\bhowever\b")
_SUBCLAUSE_KEEP = lazy(r"(,|:|\(|\)|\s-+\s|\s\u2014\s|\bbut\b|\bthough\b|\bhowever\b)")
_NAMING_STYLE = lazy(r"(?i)(camel|pascal|snake|kebab)[_ -]?cased?")
_TOKEN = lazy(r"[a-z0-9#@$~][a-z0-9_+#./@-]*")
_TRAILING = ".-/@"


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NEGATE = frozenset({"not", "never", "no", "avoid", "stop", "without", "nor", "hate", "nothing"})


def _inflected(words: str) -> frozenset[str]:
    """Each verb with its -s, -ed and -ing forms."""
    out: set[str] = set()
    for w in words.split():
        base = w[:-1] if w.endswith("e") else w
        dbl = base + base[-1] if w in _DOUBLING else base
        out.update((w, w + "s" if not w.endswith(("sh", "ch", "x")) else w + "es",
                    (w + "d" if w.endswith("e") else dbl + "ed"), dbl + "ing"))
    return frozenset(out)


_DOUBLING = frozenset({"drop", "strip", "ban", "stop"})
_INVERT = _inflected(
    "remove uninstall delete drop disable ditch ban strip eliminate deprecate clear")
_MARKERS = _inflected("ban deprecate ditch")
_REPLACE = _inflected("replace")
_SWITCH = _inflected("switch migrate move port convert change")
_CONTRAST = frozenset({"instead", "over"})
_CUES = frozenset({"always", "never", "remember", "prefer", "prefers", "preferred", "instead",
                   "avoid", "stop", "only", "hate"})
# Words that carry no content of a rule: the cues themselves, politeness, light verbs of
# preference ("use uv" and "uv" ask the same), generic nouns of the workplace.
_FILLER = _wordset("""
always never remember prefer prefers preferred preference instead avoid stop only hate not no
nor without nothing please pls kindly again also just ok okay hey btw oh well really seriously
actually already still even ever make sure want wanna like love use using used uses usage
stick keep mind note say said says told mention first mentioned thanks thank problem worries
repo repository project codebase code here thing things stuff whenever every each time rule
rules going forward get got let go need needs favour favor choose pick rely opt habit default
yourself whatever okay yes yeah sure cool great good fine one ones bring back kind sort way
form style ahead purpose case stuff wherever possible everywhere suggest suggesting
recommend recommending
der die das den dem des ein eine einen einem und oder ist sind zu zum zur mit fur von auf im
el los las una unos unas del al para con por en es son su sus este esta estos esas muy mas
il gli da per che sono tu io li mi ti ci vi dei delle della dello nel nella nei al alla ai sul
sulla questo questa
es ich du wir le la les un une et ou pour avec de du en dans est sont ce ca on nous je tu il
elle que qui au aux sur par re ve ll
""")
_WH = frozenset({"why", "what", "how", "where", "which", "who", "whats", "hows", "whos",
                 "whether"})
_SUBJECTS = frozenset({"i", "we", "you", "please", "and", "also", "just", "so", "then", "but",
                       "always", "remember", "pls", "kindly", "oh", "btw", "ok", "okay", "again"})
_DOISH = frozenset({"do", "does", "did", "should", "would", "could", "must", "will", "shall",
                    "can", "need", "to"})
_OTHER_SUBJECTS = frozenset({"it", "this", "that", "there", "he", "she", "they", "which",
                             "its", "thats", "theres", "something", "everything"})
# Where a contrast's object ends: "use uv, not pip, for installs".
_SCOPE_END = frozenset({"for", "in", "when", "on", "at", "to", "before", "after", "during",
                        "while", "if", "unless", "because", "since", "so", "then", "inside",
                        "within", "across", "and"})
# Words of the workplace that name one thing (a general table, not one fitted to the bench).
_SYNONYMS = {
    "delete": "remove", "erase": "remove", "rm": "remove", "uninstall": "remove",
    "modify": "edit", "alter": "edit", "touch": "edit",
    "prs": "pr", "deps": "dependency", "db": "database", "dbs": "database",
    "directory": "folder", "dir": "folder", "directories": "folder",
    "reply": "answer", "replies": "answer", "response": "answer", "responses": "answer",
    "shorter": "short", "longer": "long", "smaller": "small", "simpler": "simple",
    "cleaner": "clean", "clearer": "clear", "straight": "direct", "directly": "direct",
    "brief": "short", "concise": "short", "terse": "short", "succinct": "short",
    "kurz": "short", "kurze": "short", "kurzer": "short", "knapp": "short", "court": "short",
    "courte": "short", "courtes": "short", "courts": "short", "logger": "log", "logging": "log",
    "bulleted": "bullet", "bulletpoint": "bullet", "bulletpoints": "bullet",
    "annotation": "hint", "annotations": "hint", "annotate": "hint", "typed": "type",
    # the same word in the other languages of a prompt (German, French)
    "englisch": "english", "anglais": "english", "deutsch": "german", "allemand": "german",
    "francais": "french", "franzosisch": "french", "doku": "docs", "dokumentation": "docs",
    "documentation": "docs", "doc": "docs", "test": "tests", "tests": "tests",
    "antwort": "answer", "antworte": "answer", "antworten": "answer", "reponds": "answer",
    "repondre": "answer", "reponse": "answer", "reponses": "answer",
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "eight": "8",
    "ten": "10", "zwei": "2", "vier": "4", "deux": "2", "quatre": "4",
    "nachricht": "message", "nachrichten": "message", "texte": "text", "textes": "text",
    "kommentar": "comment", "kommentare": "comment", "commentaire": "comment",
    "commentaires": "comment", "fichier": "file", "fichiers": "file", "datei": "file",
    "dateien": "file", "msg": "message", "msgs": "message",
    "recap": "summary", "recaps": "summary", "sorry": "apology", "pixel": "px", "pixels": "px",
    "tldr": "summary", "summaries": "summary", "emojis": "emoji", "emoticons": "emoji",
    "emoticon": "emoji", "mr": "pr", "mrs": "pr", "configuration": "config",
    "settings": "config", "environment": "env", "variable": "var", "variables": "var",
    "vars": "var", "func": "function", "funcs": "function", "args": "argument",
    "params": "parameter", "param": "parameter", "k8s": "kubernetes", "js": "javascript",
    "ts": "typescript", "py": "python", "postgresql": "postgres", "pg": "postgres",
    "libs": "library", "lib": "library", "explanation": "explain", "explanations": "explain",
    "prose": "explain",
    "excuse": "apology", "excuses": "apology",
    # languages and naming styles, the values of a setting (see _VALUE_CLASSES)
    "espanol": "spanish", "castellano": "spanish", "spanisch": "spanish",
    "espagnol": "spanish", "spagnolo": "spanish", "ingles": "english", "inglese": "english",
    "italiano": "italian", "italienisch": "italian", "italien": "italian",
    "snake_case": "snake", "snakecase": "snake", "camelcase": "camel", "pascalcase": "pascal",
    "kebabcase": "kebab", "tabs": "tab", "spaces": "space",
    # Spanish and Italian nouns of the workplace
    "comentario": "comment", "comentarios": "comment", "commento": "comment",
    "commenti": "comment", "codigo": "code", "codice": "code", "nombre": "name",
    "nombres": "name", "nome": "name", "nomi": "name", "columna": "column",
    "columnas": "column", "colonna": "column", "colonne": "column", "prueba": "tests",
    "pruebas": "tests", "dependencia": "dependency", "dependencias": "dependency",
    "dipendenza": "dependency", "dipendenze": "dependency", "libreria": "library",
    "librerias": "library", "librerie": "library", "paquete": "package",
    "paquetes": "package", "pacchetto": "package", "pacchetti": "package",
    "archivo": "file", "archivos": "file", "mensaje": "message", "mensajes": "message",
    "messaggio": "message", "messaggi": "message", "respuesta": "answer",
    "respuestas": "answer", "risposta": "answer", "risposte": "answer", "corta": "short",
    "cortas": "short", "corto": "short", "cortos": "short", "breve": "short",
    "brevi": "short", "clase": "class", "clases": "class", "classe": "class",
    "classi": "class", "funcion": "function", "funciones": "function",
    "funzione": "function", "funzioni": "function", "nuevo": "new", "nueva": "new",
    "nuevos": "new", "nuevas": "new", "nuovo": "new", "nuova": "new", "nuovi": "new",
    "nuove": "new", "tabla": "table", "tablas": "table", "tabella": "table",
    "tabelle": "table", "chiave": "key", "chiavi": "key", "clave": "key", "claves": "key",
    "spiegazione": "explain", "spiegazioni": "explain", "explicacion": "explain",
    "explicaciones": "explain",
}
# Words that say the opposite of a word above: "no long answers" asks for short ones, so "long"
# is read as "short" with its sign turned (a small table of the words people use about the
# size and manner of code and answers, not one fitted to a bench).
_ANTONYMS = {
    "long": "short", "lengthy": "short", "verbose": "short", "wordy": "short",
    "rambling": "short", "essay": "short", "essays": "short", "novel": "short",
    "novels": "short", "wall": "short", "walls": "short",
    "big": "small", "bigger": "small", "large": "small", "larger": "small",
    "huge": "small", "giant": "small", "massive": "small", "passive": "active",
    "longue": "short", "larga": "short", "largas": "short", "lunga": "short",
    "lunghe": "short",
    "longues": "short", "longs": "short",
}
_WORD_MEMO: dict[str, str] = {}
_STEM_SYNONYMS: dict[str, str] = {}  # the table by stem, filled on first use


# Every phrase's words in one pattern: one pass tells which phrases can apply.
_TRIGGER = lazy("|".join(sorted({k for _, _, keys in _PHRASES for k in keys},
                                key=lambda k: (-len(k), k))))


def _normalize(text: str) -> str:
    got = _NORM_MEMO.get(text)
    if got is None:
        got = _normalized(text)
        if len(_NORM_MEMO) >= 20_000:  # bounded: a long-lived process reads many prompts
            _NORM_MEMO.clear()
        _NORM_MEMO[text] = got
    return got


_NORM_MEMO: dict[str, str] = {}


def _cue_typos() -> dict[str, str]:
    """The words a rule turns on, each typed wrong: two letters swapped, one left out, one
    doubled (a fixed table: no other word of English is among them)."""
    out: dict[str, str] = {}
    for cue in ("always", "never", "please", "prefer", "remember", "instead", "should",
                "avoid", "every", "without", "forget", "default"):
        wrong = {cue[:i] + cue[i + 1] + cue[i] + cue[i + 2:] for i in range(len(cue) - 1)}
        wrong |= {cue[:i] + cue[i + 1:] for i in range(1, len(cue))}
        wrong |= {cue[:i] + cue[i] + cue[i:] for i in range(1, len(cue))}
        out.update((w, cue) for w in wrong if w != cue)
    for real in ("ever", "preferred", "forge", "defaults", "shoulder", "neve", "avid",
                 "instea", "pease", "lease", "alway"):
        out.pop(real, None)  # words in their own right (or harmless as they are)
    return out


_CUE_TYPOS = _cue_typos()
_CUE_TYPO = lazy(r"\b(?:" + "|".join(sorted(_CUE_TYPOS, key=lambda k: (-len(k), k))) + r")\b")


def _normalized(text: str) -> str:
    if not text.isascii():
        # accents folded ("préfère" is "prefere"), so a word written with or without them
        # is one word; letters without an ASCII base stay
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text.replace("\u2019", "'"))
                       if not unicodedata.combining(ch))
        text = unicodedata.normalize("NFKC", text)
    text = _STAMP.sub(" ", _ERROR.sub(" ", text)).lower()
    if "-" in text:
        # a command-line flag is one name ("-fno-exceptions" is not "exceptions")
        text = _FLAG.sub(lambda m: m.group(1) + m.group(2).replace("-", "_"), text)
        # "bullet-point" is "bullet point"; "pre-commit" is one word
        text = _HYPHEN_JOIN.sub(r"\1", text)
        text = _HYPHEN.sub(" ", text)
    if "case" in text:
        text = _NAMING_STYLE.sub(r" \1case ", text)
    if _CUE_TYPO.search(text):  # "alwasy", "nevr", "plase": the rule word it was meant as
        text = _CUE_TYPO.sub(lambda m: _CUE_TYPOS[m.group(0)], text)
    found = set(_TRIGGER.findall(text))
    if found:
        for rx, repl, keys in _PHRASES:
            if not found.isdisjoint(keys):
                text = rx.sub(repl, text)
    return text


def _term(word: str) -> str:
    """The term a word stands for: its stem when it is a plain word, else the name."""
    got = _WORD_MEMO.get(word)
    if got is None:
        if not _STEM_SYNONYMS:
            _STEM_SYNONYMS.update((stem_inflected(k), stem_inflected(v))
                                  for k, v in _SYNONYMS.items() if k.isalpha())
        name = _SYNONYMS.get(word, word)
        if name.isalpha() and name.isascii():
            got = stem_inflected(name)
            got = _STEM_SYNONYMS.get(got, got)  # "deleting" as "delete": "remove"
        else:
            got = name
        if len(_WORD_MEMO) < 100_000:
            _WORD_MEMO[word] = got
    return got


def _words(clause: str) -> list[str]:
    words: list[str] = []
    for tok in _TOKEN.findall(clause):
        # ("@spec", "@Autowired": an annotation is its name)
        tok = tok.rstrip(_TRAILING).replace("'", "").lstrip("@")
        if "." in tok and not _FILE_EXT.search(tok):
            words.extend(p for p in tok.split(".") if p)  # "str.format()" is "format()"
        elif tok.count("/") == 1 and tok.replace("/", "").isalpha():
            words.extend(p for p in tok.split("/") if p)  # "async/await", "CI/CD"
        elif tok:
            words.append(tok)
    return words


def _is_content(word: str) -> bool:
    # a number is a word ("indent with 2 spaces" is not "with 4"); a task's numbers point
    # at one thing ("the last 3 commits"), which keeps the task from reading as a rule
    return word not in STOP_WORDS and word not in _FILLER and word not in _NEGATE \
        and word not in _INVERT and word not in _REPLACE and word not in _SWITCH \
        and word not in _CONTRAST and (len(word) > 1 or word.isdigit())


_WHERE = frozenset({"for", "in", "when", "on", "at", "before", "after", "during", "while", "if",
                    "unless", "inside", "within", "across", "whenever", "until", "outside",
                    "under", "below", "above"})


def _signed(words: list[str], replacing: bool) -> tuple[dict[str, int], bool, set[str]]:
    """(term -> +1 wanted / -1 rejected, whether the clause holds a rule cue, the terms that
    only say where or when: after a preposition or a condition).

    A prohibition at the head ("never", "don't", "no") turns the whole clause; a contrast
    ("instead of X", "over X", "uv not X") turns only what follows, up to a preposition
    ("use uv not pip for installs": installs stays wanted); a removal verb turns its object
    ("uninstall uv", and "never remove the hints" wants the hints)."""
    terms: dict[str, int] = {}
    base = sign = 1
    cue = switching = False
    prev = ""
    lead = True  # still before the clause's first content word
    other_subject = False  # "it does not work": a subject that is not the person
    prohibits = condition = scoped = False
    turned = False  # a prohibition of an opposite: "don't write long answers" wants short ones
    where: set[str] = set()
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in _WHERE:
            scoped = True
        if w in _CUES:
            cue = cue or w != "only" or nxt == "use" or prev == "use"
        if lead and w in _OTHER_SUBJECTS:
            other_subject = True
        if w == "over" and prev in {"go", "look", "read", "all", "went", "over"}:
            pass
        elif w in _CONTRAST:
            sign = -base
        elif w in _NEGATE:
            if lead and not other_subject and w != "without" and (
                    prev in _SUBJECTS or prev in _DOISH or prev == ""):
                cue = prohibits = True
                base = sign = -base
            else:
                condition = condition or w == "without"
                if (w == "not" and _is_content(prev) and _is_content(nxt)
                        and not nxt.endswith(("ing", "ed"))):
                    cue = True  # "uv not pip", "tabs, not spaces"
                sign = -base
        elif w in _REPLACE:
            sign = -sign  # "replace X with Y": X is rejected, up to "with"
        elif w in _INVERT:
            if w not in _MARKERS:  # "X is banned" is about X, never about banning
                terms.setdefault(_term(w), sign)
            if lead:
                # the action of the clause turns its object ("uninstall uv" rejects uv); later
                # it is only a word ("ask before removing files" wants files asked about)
                sign = -sign
                lead = False
        elif w in _SWITCH:
            switching = True
        elif switching and w == "from":
            sign = -base  # ("never switch from X to Y" keeps X)
        elif switching and w in {"to", "into"}:
            sign = base
        elif w in {"with", "by"} and terms and sign == -1 and replacing:
            sign = 1  # "replace X with Y"
        elif w in _SCOPE_END and not switching:
            condition = condition or w == "unless"
            # where a prohibition holds is not what it refuses: "no emojis in commit
            # messages" refuses emojis, as "commit messages without emojis" does ("to" is
            # still the act's: "never push to main")
            # ("to" is still the act's until it has an object: "never push to main", but
            # "don't add emojis to commit messages")
            placed = w != "to" or len(terms) >= 2
            sign = 1 if prohibits and not lead and placed else base
            scoped = scoped or (w == "to" and prohibits and placed)
        elif w in {"we", "i"} and nxt in {"use", "like", "love", "prefer", "always", "never"}:
            cue = True
        elif _is_content(w):
            t = _term(w)
            flip = w in _ANTONYMS
            if flip:
                t = _term(_ANTONYMS[w])
                turned = turned or (prohibits and sign == -1)
            if t not in terms:
                terms[t] = -sign if flip else sign
                if scoped:
                    where.add(t)
            lead = False
        prev = w
    # "tabs are banned", "pushing to main is not ok": what came before is what is refused
    for i in range(1, len(words)):
        w, prev = words[i], words[i - 1]
        # (and "with cell outputs stripped": a removal said after its object, as a manner;
        # "the precision dropped" is a fact)
        stripped = w in _INVERT and w.endswith("ed") and _is_content(prev) \
            and "with" in words[:i]
        if (w in _REVERSING and prev in _FINITE | {"be", "been"}) or (
                w in _ACCEPTED and prev == "not" and i > 1 and words[i - 2] in _FINITE) \
                or stripped:
            before = _signed(words[:i - (w in _ACCEPTED)], replacing)[0]
            terms = {t: (-s if t in before else s) for t, s in terms.items()}
            cue = cue or not stripped
            break
    if turned:
        terms = dict.fromkeys(terms, 1)
    if prohibits and condition:
        # "never commit without running the tests" asks what "always run the tests before
        # committing" asks: every part of it is wanted, and what it is about is the part
        # after "without" (the rest says when)
        terms = dict.fromkeys(terms, 1)
        if "without" in words:
            after = _signed(words[words.index("without") + 1:], replacing)[0]
            where = set(terms) - set(after)
            terms = {**dict.fromkeys(after, 1), **terms}  # in the order "Y before X" says it
    return terms, cue, where


class _Clause(Record):
    _fields = ("ask", "nth", "text", "terms", "marked", "keys")
    __slots__ = _fields
    ask: Ask
    nth: int  # which sentence of the ask
    text: str
    terms: dict[str, int]
    marked: bool  # reads as a standing rule by itself (see _read)
    keys: frozenset[str]  # the terms that say what, not where or when

    def __init__(self, ask: Ask, nth: int, text: str, terms: dict[str, int],
                 marked: bool, keys: frozenset[str]) -> None:
        self._init(ask, nth, text, terms, marked, keys)


_Reading = tuple[str, dict[str, int], bool, frozenset[str]]


# -- what a sentence is: steering, a one-time limit, a statement, a rule ----------------------

# A tag question asks for agreement, not information: "use uv, ok?" is "use uv."
_TAG_QUESTION = lazy(
    r"(?i)[\s,]+\u00bf?(?:ok|okay|right|yeah|yes|alright|all right|got it|understood|agreed|deal"
    r"|yep|ja|oder|gell|nicht wahr|d'accord|non|hein|oui|compris|capisce|verdad|vale|si|claro"
    r"|vero|va bene|capito|chiaro|intesi)\s*\?+")
# "could you always use uv?" is a request; what it asks is the rest
_POLITE = lazy(r"(?i)^(?:(?:please|pls)\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?")
# Steering the conversation at a sentence's head: never a rule, whatever words follow
# ("never mind, revert that", "no, that's wrong", "stop.", "don't worry about the docs").
_CONTROL = lazy(
    r"^(?:never ?mind|nvm|forget (?:it|that|about)|stop\b(?!\s+(?:\w+\s+)?\w+ing\b)|wait\b|hold on"
    r"|hang on|cancel\b|undo\b|revert\b|nope\b|wrong\b|no\s*(?:[,.!:]|$)|no\s+(?:wait|stop|no)\b"
    r"|(?:that|this|it)(?:'?s| is| was) (?:wrong|not|incorrect|broken)\b"
    r"|not (?:now|yet|right now|like that|what|this|that|quite)\b"
    r"|do not (?:worry|bother)|no need\b|skip\b|try again|again\b|sorry|oops|my bad"
    r"|nein\b|nochmal|vergiss|halt\b|stopp\b|egal\b|falsch\b|non\s*(?:[,.!:]|$)"
    r"|laisse tomber|annule|recommence|arrete|c'est faux|c'est pas|not comme|not ca\b|oublie"
    r"|attends|warte|moment\b|not so\b|lass es|das stimmt not|stimmt not)")
# Limited to now: "don't commit yet", "skip the docs for now" (one-time, not standing)
_LIMITED = lazy(
    r"\b(?:for now|this time|yet|right now|at the moment|for the moment|for the time being"
    r"|today|tonight|this once|just once|for this (?:one|pr|branch|task|file|change|commit)"
    r"|jetzt|erstmal|diesmal|noch not|pour l'instant|pour le moment|cette fois|not encore"
    r"|maintenant|later|spater|plus tard|demain|morgen|now)\b")
_PERSON = frozenset({"i", "we", "you", "please", "pls", "lets", "let", "kindly"})
# words before an instruction's verb ("please always use …")
_LEAD_WORDS = _PERSON | {"and", "so", "also", "remember", "always", "never", "not", "no", "do",
                         "just", "then", "ok", "okay", "oh", "btw", "again"}
_FREQUENCY = frozenset({"always", "never", "usually", "sometimes", "often", "constantly",
                        "still", "rarely", "randomly"})
_FINITE = frozenset({"is", "are", "was", "were", "has", "have", "had", "does", "did", "do",
                     "keeps", "seems", "gets", "got", "isnt", "arent", "wasnt", "werent",
                     "ist", "sind", "war", "waren", "hat", "wird", "geht", "est", "sont",
                     "etait", "ont", "plante", "echoue", "marche", "schlagt", "lauft"})
_EVENT_VERBS = frozenset({"work", "fail", "break", "take", "pass", "crash", "hang", "run",
                          "time", "get", "seem", "look", "happen", "come", "go", "show",
                          "been", "be", "ran", "got", "went", "broke", "took"})
# the same verbs as a subject's present tense: "pytest hangs on windows" is a report, not a
# setting said as a noun phrase
_EVENT_VERBS_3RD = frozenset({"works", "fails", "breaks", "takes", "passes", "crashes", "hangs",
                              "runs", "seems", "looks", "happens", "comes", "goes"})
_PAST = frozenset({"broke", "ran", "went", "took", "got", "fell", "came", "stopped", "failed",
                   "crashed", "hung", "died", "worked", "passed", "began", "left", "lost"})
_MODALS = frozenset({"should", "must", "shall", "shouldnt", "mustnt", "need", "needs", "have",
                     "has", "ought", "may", "can", "cannot", "will", "would", "could"})
# A statement that says how things must be ("tabs are banned", "lodash is fine")
_NORMATIVE = frozenset({"banned", "forbidden", "prohibited", "allowed", "required", "mandatory",
                        "fine", "ok", "okay", "acceptable", "preferred", "default", "only",
                        "welcome", "encouraged", "discouraged", "expected"})
_ACCEPTED = frozenset({"ok", "okay", "fine", "acceptable", "allowed", "welcome", "wanted"})
_REVERSING = frozenset({"banned", "forbidden", "prohibited", "discouraged", "deprecated"})
# A condition or a manner makes an instruction general ("squash commits before merging",
# "answer in short bullet points"); a pointer to one thing makes it a task ("squash the last
# 3 commits", "open a PR for this").
_CONDITION = frozenset({"before", "after", "when", "whenever", "while", "until", "unless",
                        "if", "once"})
_GENERIC_PREP = frozenset({"in", "for", "with", "without", "across", "inside", "as"})
_STYLE_VERBS = frozenset({"answer", "reply", "respond", "keep", "be", "talk", "speak", "use",
                          "write", "format", "name", "indent", "store", "put", "prefix",
                          "commit", "squash", "add", "ask", "check", "run", "document",
                          "pin", "log", "test", "install", "make", "wrap", "avoid",
                          "prefer", "stay", "limit", "cap"})
_POINTERS = frozenset({"this", "that", "these", "those", "it", "here", "again", "a", "an",
                       "last", "next", "previous", "above", "below", "current", "my"})
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "my", "your",
                          "our", "its", "it", "his", "her", "their", "some",
                          "der", "die", "das", "den", "dem", "des", "ein", "eine", "es",
                          "le", "la", "les", "un", "une", "ce", "cette", "ces", "ca", "il",
                          "elle", "mon", "ma", "mes"})


def _is_fact(words: list[str]) -> bool:
    """A statement about the world, not a wish: "it always fails on CI", "the arm64 build
    never worked", "test_sync is flaky" (a subject that is not the person, then a verb)."""
    if words[0] in _TASK_VERBS - _FINITE or words[0] in {"ensure", "always", "never"}:
        return False  # an instruction: "make sure clippy is clean before committing"
    for i, w in enumerate(words):
        if w in _PERSON or w in _MODALS - {"have", "has"} or w in _INVERT:
            return False
        if w in {"have", "has"} and i + 1 < len(words) and words[i + 1] == "to":
            return False  # "clippy has to pass before every commit"
        if i > 0 and words[0] in _DETERMINERS and (w in _PAST or (
                len(w) > 4 and w.endswith("ed") and w not in _INVERT)):
            return True  # "the build broke", "the deploy failed again"
        if w in _FREQUENCY or w in _FINITE:
            if i == 0:
                return False
            rest = words[i + 1:]
            if any(r in _NORMATIVE or r in _MODALS - {"have", "has"} for r in rest):
                return False
            if w in _FINITE:
                return True
            nxt = rest[0] if rest else ""
            return words[i - 1] in _FINITE or nxt in _EVENT_VERBS or nxt in _FINITE or (
                len(nxt) > 3 and nxt.endswith(("s", "ed")) and not nxt.endswith("ss"))
    return False


def _is_general(words: list[str]) -> bool:
    """Whether an instruction without a rule word is still general (a condition, a manner or
    a class of things) and points at nothing in particular."""
    cond = next((i for i, w in enumerate(words) if w in _CONDITION and i > 0), len(words))
    if any(w in _POINTERS or w in _WH or _FILE_EXT.search(w) or "/" in w or "_" in w
           for w in words[:cond]) or _one_thing(words[:cond]):
        return False  # (a question inside a task: "explain why the precision dropped after…")
    head = next((w for w in words if w not in _LEAD_WORDS), "")
    if head in _DETERMINERS:  # "the build broke after the upgrade": a subject, no instruction
        return False
    for i, w in enumerate(words[:-1]):
        nxt = words[i + 1]
        if w in _CONDITION and i > 0:
            return True  # what follows a condition is a class of times: "before you merge a PR"
        if w in _GENERIC_PREP and i > 0 and nxt not in _DETERMINERS and head in _STYLE_VERBS \
                and head != "add":
            return True
    # "keep answers short", "use conventional commits": a class of things, not "the" one
    # ("keep your answers short": the person's own things are a class too)
    return head in _STYLE_VERBS and len(words) >= 2 and not any(
        w in _DETERMINERS and w not in {"your", "our"} for w in words) and head not in {
            "add", "run", "check", "commit", "test", "put", "log", "install"}


# Verbs a task starts with; a sentence that starts with none of them and holds no verb at all
# is a setting said as a noun phrase ("SQL keywords in uppercase", "uv for installs").
_TASK_VERBS = _wordset("""
run fix add make write explain check update commit push open create delete remove rename
refactor move continue look show tell find debug test build deploy install upgrade bump merge
rebase squash revert undo format lint review document profile translate convert migrate split
set get try help implement clean generate regenerate describe list print read go start stop do
use put change replace see compare investigate figure call send pull fetch release tag publish
ship kill restart retry rerun redo finish complete wrap edit modify keep give let can could
would will is are was were be been has have had does did done take takes took
mach mache lass fuhr fuhre schreib teste bau prufe zeig erklar korrigier aktualisier losch
entfern starte fais lance relance corrige ajoute supprime ecris montre explique verifie mets
regarde deploie
""")
# German puts a task's verb last ("Migrationen ausführen", "die Tests laufen lassen")
_VERB_LAST = lazy(r"(?:ieren|[^e]en|eln|ern)$")
_NOT_VERB_LAST = frozenset({"screen", "screens", "token", "tokens", "kitchen", "between",
                            "hidden", "broken", "written", "golden", "driven", "often",
                            "pattern", "modern", "western", "eastern", "concern", "intern",
                            "lantern", "govern", "return", "open", "seven", "eleven"})
_NOUN_AFTER_VERB = frozenset({"message", "messages", "msg", "msgs", "hook", "hooks", "history",
                              "log", "logs", "title", "titles", "style", "format", "size"})


def _is_setting(words: list[str]) -> bool:
    """A verbless noun phrase that names a setting: nothing pointed at, no verb anywhere."""
    body = [w for w in words if w not in _LEAD_WORDS]
    # two words are a command as often as a setting ("terraform plan please")
    if len(body) < 3 or len([w for w in body if _is_content(w)]) < 2 or body[0] in _WH:
        return False
    if body[0] in _TASK_VERBS and not (len(body) > 1 and body[1] in _NOUN_AFTER_VERB):
        return False
    if any(w in _DETERMINERS or w in _POINTERS for w in body):
        return False
    last = body[-1]
    if len(last) >= 6 and last not in _NOT_VERB_LAST and _VERB_LAST.search(last):
        return False
    return not any(
        w in _DETERMINERS or w in _POINTERS or w in _EVENT_VERBS or w in _EVENT_VERBS_3RD
        or w in _FINITE
        or w in _TASK_VERBS
        or w in _MODALS or w in _PERSON or w in {"keep", "keeps"} or _FILE_EXT.search(w)
        or "/" in w or "_" in w or (w.endswith(("ing", "ed")) and len(w) > 5)
        for w in body[1:])


def _strong(words: list[str]) -> bool:
    """A word that makes a sentence a standing rule whatever else it says."""
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in {"should", "must", "shouldnt", "mustnt", "every", "each", "whenever"}:
            return True
        if w in {"have", "has"} and nxt == "to" and i > 0:
            return True
        if i == 0 and w in {"all", "any"} and nxt not in _DETERMINERS:
            return True  # "all new functions need type hints"
        if w in {"need", "needs", "require", "requires"} and i > 0 and words[0] not in (
                _DETERMINERS | _PERSON | _OTHER_SUBJECTS | _POINTERS) \
                and words[i - 1] not in _PERSON and nxt != "to":
            return True  # "TODO comments need a ticket", "PRs need two approvals"
        if w in _NORMATIVE and w != "only" and i > 0 and words[i - 1] in {
                "is", "are", "be", "not", "always", "never", "stay", "remain", "thats", "its"}:
            return True
        if w == "only" and (nxt == "" or nxt not in _DETERMINERS):
            return True
        if w == "we" and nxt and nxt not in _FINITE and not nxt.endswith("ed") \
                and nxt not in {"removed", "got", "had", "need", "can", "could", "should"}:
            return True
        if w == "i" and nxt in {"want", "like", "prefer", "love", "hate", "expect", "need"}:
            return True
    return False


def _read(text: str) -> list[_Reading]:
    """Each sentence of ``text`` that could be a standing rule: (the person's words, its
    signed terms, whether it reads as a rule by itself, its key terms). Steering, questions,
    what is limited to now and statements of fact are left out; a task reads as no rule by
    itself."""
    out = []
    text = _without_output(text)
    if "?" in text:
        text = _TAG_QUESTION.sub(".", text)
    if "first" in text.lower():  # "first X, then Y" is one order, not two requests
        text = _FIRST_THEN.sub(r"\1 then", text)
    for shown, mark in _sentences(text):
        polite = _POLITE.match(shown)
        if polite:
            shown, mark = shown[polite.end():], "."
        sentence = " ".join(_normalize(shown).split())
        words = _words(sentence)
        if not words or words[0] in _WH or "?" in mark or _CONTROL.match(sentence) \
                or _LIMITED.search(sentence):
            continue
        has_replace = any(w in _REPLACE for w in words)
        terms: dict[str, int] = {}
        marked = general = standalone = False
        pointer = False
        where: set[str] = set()
        after_fact = False  # "the build broke after the upgrade: exit code 137"
        # a name in code ("handleLogin", "ParseHeader") points at one thing
        # (a naming style is no code name: "JSON fields in camelCase")
        names = {n.lower() for n in _CODE_NAME.findall(shown)
                 if not _NAMING_STYLE.match(n)} if not shown.islower() else set()
        parts: list[tuple[dict[str, int], bool]] = []  # (terms, whether a task's)
        pieces = _SUBCLAUSE_KEEP.split(sentence)
        for n, part in enumerate(pieces[0::2]):
            # what follows "fix this:" is what to fix, not a rule beside the task
            told = n > 0 and pieces[2 * n - 1] == ":" and pointer
            pw = _words(part)
            if not pw or _is_fact(pw):
                after_fact = after_fact or bool(pw)
                continue
            got, cue, at = _signed(pw, has_replace)
            where |= at - terms.keys()
            strong = cue or _strong(pw)
            marked = marked or strong  # "…, never bring it back" has no terms
            task = False
            if got and not after_fact and not names.intersection(pw):
                if _is_general(pw) or _is_setting(pw):
                    # (a general part is a rule beside a task: "Document the smoothing
                    # function — comments in Spanish")
                    general = True
                    # (not a pasted log line: short, no long numbers)
                    standalone = standalone or not (told or _points(pw) or len(pw) > 6 or any(
                        w.isdigit() and len(w) > 3 for w in pw))
                elif not cue:
                    task = _points(pw)
                    pointer = pointer or task
            # ("use Ecto.Query for it, we don't do raw SQL": a wish is no task)
            parts.append((got, task and not strong and pw[0] not in {"use", "prefer"}))
            for t, sign in got.items():
                terms.setdefault(t, sign)
        marked = marked or (general and not pointer) or standalone
        if marked and any(got and not task for got, task in parts):
            # "Add the mapstruct dependency — in Gradle, not Maven": the rule is the second
            # part; the task's words would link it to every rule about dependencies
            terms = {t: s for t, s in terms.items()
                     if any(t in got for got, task in parts if not task)}
        if terms and (marked or not pointer):  # a task pointing at one thing: never evidence
            out.append((shown, terms, marked, frozenset(terms.keys() - where)))
    return out


# Nouns that name one thing after "the", "this" or "my" ("format the file you just changed")
_ONE_THING = frozenset({"file", "function", "class", "method", "test", "bug", "error", "branch",
                        "commit", "pr", "diff", "line", "module", "script", "query", "endpoint",
                        "page", "component", "migration", "issue", "ticket", "build", "job"})


def _one_thing(words: list[str]) -> bool:
    """"the file", "my branch": one thing, not a class of things."""
    return any(w in {"the", "my", "our"} and i + 1 < len(words) and words[i + 1] in _ONE_THING
               for i, w in enumerate(words))


def _points(words: list[str]) -> bool:
    """Whether a task's words point at one thing ("this", "the last", "the file", "add the
    mapstruct dependency": a task's verb, then "the")."""
    return any(w in _POINTERS for w in words) or _one_thing(words) or (
        words[0] in _TASK_VERBS and not {"the", "my", "our"}.isdisjoint(words))


def rule_clauses(text: str) -> list[tuple[str, dict[str, int]]]:
    """Each sentence of ``text`` that reads as a standing rule, with its signed terms."""
    return [(s, terms) for s, terms, marked, _ in _read(text) if marked]


def _sentences(text: str) -> list[tuple[str, str]]:
    """(sentence, the punctuation that ends it), blank sentences left out."""
    parts = _SENTENCE.split(text)
    pairs = zip(parts[0::2], [*parts[1::2], ""], strict=True)
    return [(s.strip(), mark) for s, mark in pairs if s.strip()]


def _clauses(asks: Iterable[Ask]) -> list[_Clause]:
    read: dict[str, list[_Reading]] = {}  # a task comes back verbatim
    out: list[_Clause] = []
    for ask in asks:
        got = read.get(ask.text)
        if got is None:
            got = read[ask.text] = _read(ask.text)
        out.extend(_Clause(ask, nth, *reading) for nth, reading in enumerate(got))
    return out


def _weights(asks: Sequence[Ask]) -> dict[str, float]:
    """idf of each term over all asks (a word in every prompt says little)."""
    return _idf(_doc_freq(asks), len(asks))


def _idf(df: dict[str, int], n: int) -> dict[str, float]:
    return {t: math.log((n + 1) / (d + 0.5)) + 1.0 for t, d in df.items()}


def _doc_freq(asks: Sequence[Ask]) -> dict[str, int]:
    """In how many asks each term is said."""
    df: dict[str, int] = defaultdict(int)
    seen: dict[str, set[str]] = {}
    for ask in asks:
        got = seen.get(ask.text)
        if got is None:
            got = seen[ask.text] = {_term(w) for w in _words(_normalize(ask.text))
                                    if _is_content(w)}
        for t in got:
            df[t] += 1
    return df


def _typos(df: dict[str, int]) -> dict[str, str]:
    """Each rare term (said in fewer asks than a rule needs sessions) that is a common one
    typed wrong: two letters swapped ("fromat"), one left out ("fomat") or one too many
    ("formmat"), the first letter right; with that common term, the most said first. A letter
    changed is not taken: real words differ so ("allow" / "alloc", "spring" / "string")."""
    def deletes(t: str) -> set[str]:
        return {t[:i] + t[i + 1:] for i in range(1, len(t))}

    common = {t for t, d in df.items() if d >= MIN_SESSIONS and len(t) >= TYPO_MIN_LEN
              and t.isalpha()}
    shorter: dict[str, list[str]] = defaultdict(list)  # a common term, one letter left out
    for t in sorted(common):
        for k in deletes(t):
            shorter[k].append(t)
    fix: dict[str, str] = {}
    for t, d in df.items():
        if d >= MIN_SESSIONS or len(t) < TYPO_MIN_LEN or not t.isalpha():
            continue
        near = {t[:i] + t[i + 1] + t[i] + t[i + 2:] for i in range(1, len(t) - 1)} & common
        near.update(shorter.get(t, ()))
        if len(t) > TYPO_MIN_LEN:
            near.update(deletes(t) & common)
        near.discard(t)
        if near:
            fix[t] = max(near, key=lambda c: (df[c], c))
    return fix


def _respelled(c: _Clause, fix: dict[str, str]) -> _Clause:
    if fix.keys().isdisjoint(c.terms):
        return c
    terms: dict[str, int] = {}
    for t, sign in c.terms.items():
        terms.setdefault(fix.get(t, t), sign)
    return _Clause(c.ask, c.nth, c.text, terms, c.marked,
                   frozenset(fix.get(t, t) for t in c.keys))


def _similar(a: dict[str, int], b: dict[str, int], w: dict[str, float]) -> bool:
    """Whether two rule sentences ask the same thing (see the module docstring)."""
    shared = a.keys() & b.keys()
    generic = _generic_terms()
    if not shared or (len(shared) < 2 and shared <= generic
                      and not (a.keys() <= generic and b.keys() <= generic)):
        return False  # (two sentences that share only "text", "file" or "commit")
    # a setting's value: "2 spaces" and "4 spaces" are two rules, however alike the rest
    if _other_value(a, b):
        return False
    agree = sum(w.get(t, 1.0) ** 2 for t in shared if a[t] == b[t])
    clash = sum(w.get(t, 1.0) ** 2 for t in shared if a[t] != b[t])
    if clash > CONFLICT_SHARE * (agree + clash):
        return False
    # the same thing wanted and the same thing rejected: the same preference, whatever else
    pair = {a[t] for t in shared if a[t] == b[t]} == {1, -1}
    norm_a = math.sqrt(sum(w.get(t, 1.0) ** 2 for t in a))
    norm_b = math.sqrt(sum(w.get(t, 1.0) ** 2 for t in b))
    if (agree - clash) / (norm_a * norm_b) < LINK_COSINE:
        return False
    # each naming something the other lacks in the same place of the same sentence frame
    # ("always run ruff / mypy before committing"): two rules; a paraphrase says its words
    # in another order or adds some of its own
    # (or one refuses a thing the other never names: "commit messages without emojis" and
    # "conventional commit messages" are two rules about one place)
    return pair or not (_names_more(a, b, w) and _names_more(b, a, w) and (
        _frame(a, b) == _frame(b, a) or _names_more(a, b, w, -1)
        or _names_more(b, a, w, -1)))


# Values of one setting: two sentences that want different ones are two rules, however alike
# the rest ("comments in English" / "comments in Spanish", "snake_case" / "camelCase").
_VALUE_CLASSES = tuple(_wordset(words) for words in (
    "english german french spanish italian portuguese dutch polish russian japanese chinese",
    "snake camel kebab pascal",
    "american british",
    "single double",
    "tab space",
))


def _other_value(a: dict[str, int], b: dict[str, int]) -> bool:
    """Whether ``a`` and ``b`` each want a value of one setting and no value in common (a
    number is a value: "2 spaces" / "4 spaces")."""
    for values in (*_value_terms(), None):
        va = {t for t, s in a.items() if (t.isdigit() if values is None else t in values)
              and (s > 0 or values is None)}
        vb = {t for t, s in b.items() if (t.isdigit() if values is None else t in values)
              and (s > 0 or values is None)}
        if va and vb and not va & vb:
            return True
    return False


_VALUE_TERMS: list[frozenset[str]] = []


def _value_terms() -> list[frozenset[str]]:
    if not _VALUE_TERMS:
        _VALUE_TERMS.extend(frozenset(_term(x) for x in c) for c in _VALUE_CLASSES)
    return _VALUE_TERMS


def _frame(a: dict[str, int], b: dict[str, int]) -> tuple[str, ...]:
    """``a``'s terms in order, each run of terms ``b`` lacks as one blank."""
    out: list[str] = []
    for t in a:
        if t in b:
            out.append(t)
        elif not out or out[-1] != "":
            out.append("")
    return tuple(out)


def _names_more(a: dict[str, int], b: dict[str, int], w: dict[str, float],
                sign: int = 0) -> bool:
    """Whether ``a`` has a heavy term ``b`` lacks (with ``sign``: one it wants or refuses)."""
    top = max(w.get(t, 1.0) for t in a)
    return any(w.get(t, 1.0) >= DISTINCT_SHARE * top for t in a
               if t not in b and t not in _LIGHT and (not sign or a[t] == sign))


# Verbs that carry the act, not the thing: "never run things with sudo" and "don't use sudo in
# scripts" name nothing more than each other.
_LIGHT = frozenset({"run", "do", "make", "put", "get", "take", "set", "go", "have",
                    "give", "let", "leav"})


def same_request(a: str, b: str) -> bool:
    """Whether two texts hold a rule sentence each that asks the same (weights from the two)."""
    asks = [Ask("x", "x", "2000-01-01T00:00:00Z", a), Ask("y", "y", "2000-01-01T00:00:00Z", b)]
    w = _weights(asks)
    return any(_similar(x.terms, y.terms, w) and not _opposed(x, y)
               for x in _rule_readings(asks[0]) for y in _rule_readings(asks[1]))


def _rule_readings(ask: Ask) -> list[_Clause]:
    return [_Clause(ask, i, *r) for i, r in enumerate(_read(ask.text)) if r[2]]



# -- proposals ---------------------------------------------------------------------------------


class Evidence(Record):
    _fields = ("ask", "session", "date", "text")
    __slots__ = _fields
    ask: str  # the ask id
    session: str
    date: str
    text: str  # the phrasing, one line

    def __init__(self, ask: str, session: str, date: str, text: str) -> None:
        self._init(ask, session, date, text)


class Proposal(Record):
    _fields = ("key", "rule", "sessions", "projects", "evidence")
    __slots__ = _fields
    key: str  # stable over runs while the same asks stand behind it
    rule: str  # the proposed one-line rule
    sessions: tuple[str, ...]
    projects: tuple[str, ...]
    evidence: tuple[Evidence, ...]

    def __init__(self, key: str, rule: str, sessions: tuple[str, ...],
                 projects: tuple[str, ...], evidence: tuple[Evidence, ...]) -> None:
        self._init(key, rule, sessions, projects, evidence)

    @property
    def suggest_global(self) -> bool:
        """Asked in two or more projects: a rule for the person, not for one project."""
        return len(self.projects) >= 2


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


_LEAD_FILLER = lazy(
    r"(?i)^(?:(?:please|pls|kindly|remember|reminder|also|and|oh|btw|ok|okay|hey|again|so|just"
    r"|note|as i said|like i said)\b[\s,:;!-]*)+")
_TAIL_FILLER = lazy(r"(?i)(?:[\s,]+(?:please|pls|thanks|thank you|again))+[\s.!]*$")


def _rule_text(text: str) -> str:
    line = _LEAD_FILLER.sub("", _one_line(text, MAX_RULE_CHARS * 2)).strip(" ,;:-")
    line = _TAIL_FILLER.sub("", line)
    head = line.split(" ", 1)[0].replace("'", "").replace("\u2019", "")
    # "Always …", "Install …", but "uv, not pip" and "pnpm over npm" keep a tool's spelling
    if head.isalpha() and head.islower() and (len(head) >= 3 or head in {"no", "do", "i"}) \
            and any(v in head for v in "aeiouy"):
        line = line[:1].upper() + line[1:]
    line = _one_line(line, MAX_RULE_CHARS - 1)
    return line if line.endswith((".", "!", "…")) else line + "."


def _representative(members: list[_Clause], core: dict[str, int], w: dict[str, float]) -> str:
    """The phrasing that covers most of what the members agree on, then the shortest."""
    def rank(c: _Clause) -> tuple[float, int, str, str, int]:
        covered = sum(w.get(t, 1.0) for t, s in core.items() if c.terms.get(t) == s)
        extra = sum(w.get(t, 1.0) for t in c.terms if t not in core)
        return (-(covered - 0.5 * extra), len(c.text), c.ask.at, c.ask.id, c.nth)
    return _rule_text(min((c for c in members if c.marked), key=rank).text)


def _core(members: list[_Clause]) -> dict[str, int]:
    """Terms that at least half the members hold, with the sign most of them give it."""
    votes: dict[str, int] = defaultdict(int)
    count: dict[str, int] = defaultdict(int)
    for c in members:
        for t, s in c.terms.items():
            votes[t] += s
            count[t] += 1
    need = len(members) / 2
    # a term half want and half refuse is no part of what they agree on
    return {t: (1 if votes[t] > 0 else -1) for t in sorted(count)
            if count[t] >= need and votes[t]}


def _links(a: _Clause, b: _Clause, w: dict[str, float]) -> bool:
    """Whether two sentences say the same; one that reads as a rule and one that does not
    (a task?) only when neither names anything the other lacks."""
    if _opposed(a, b) or not _similar(a.terms, b.terms, w) or not (
            _covers(a, b, w) and _covers(b, a, w)):
        return False
    return a.marked == b.marked or not (_names_more(a.terms, b.terms, w)
                                        or _names_more(b.terms, a.terms, w))


def _opposed(a: _Clause, b: _Clause) -> bool:
    """Whether what one of them is about, the other wants the other way ("use lodash for
    collections" / "no lodash for collections": the place agrees, the thing does not)."""
    return any(a.terms[t] != b.terms[t] for t in (a.keys | b.keys)
               if t in a.terms and t in b.terms)


def _covers(a: _Clause, b: _Clause, w: dict[str, float]) -> bool:
    """Whether ``b`` says at least half (by weight) of what ``a`` is about: two rules in one
    place ("no emojis in commit messages", "conventional commit messages") share only where."""
    total = sum(w.get(t, 1.0) for t in a.keys)
    return sum(w.get(t, 1.0) for t in a.keys if t in b.terms) >= KEY_SHARE * total


def _components(clauses: list[_Clause], w: dict[str, float],
                strict: bool = False) -> list[list[_Clause]]:
    """Linked sentences; ``strict``: anchored ones that clash on any anchor never link."""
    parent = list(range(len(clauses)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # Candidate pairs through an inverted index of the sentences that read as rules: two
    # sentences that do not (tasks, mostly) are never compared, as their group could never
    # be proposed; that keeps the work near-linear in the asks.
    # A sentence said again word for word reads the same: it joins its first instance, and
    # only first instances are compared.
    first: dict[tuple[object, ...], int] = {}
    distinct: list[int] = []
    for i, c in enumerate(clauses):
        sig = (tuple(c.terms.items()), c.marked, c.keys)
        j = first.setdefault(sig, i)
        if j != i:
            parent[i] = j
        else:
            distinct.append(i)
    postings: dict[str, list[int]] = defaultdict(list)
    for i in distinct:
        if clauses[i].marked:
            for t in clauses[i].terms:
                postings[t].append(i)
    norm = {i: math.sqrt(sum(w.get(t, 1.0) ** 2 for t in clauses[i].terms)) for i in distinct}
    for i in distinct:
        c = clauses[i]
        # the shared weight of each candidate, an upper bound of the cosine's numerator: a
        # pair that cannot reach LINK_COSINE is never looked at
        shared: dict[int, float] = defaultdict(float)
        for t in c.terms:
            wt = w.get(t, 1.0) ** 2
            for j in postings.get(t, ()):
                if j > i or not c.marked:
                    shared[j] += wt
        for j, dot in shared.items():
            if dot >= LINK_COSINE * norm[i] * norm[j] and find(i) != find(j) \
                    and _links(c, clauses[j], w):
                parent[max(find(i), find(j))] = min(find(i), find(j))
    # Paraphrases share their object ("pnpm", "squash", "bullet points") and little else: two
    # rule sentences that say the same distinctive word the same way link (see _anchor_links)
    floor = ANCHOR_IDF * max(w.values(), default=1.0)
    anchors = {i: _anchors(clauses[i], w, floor) for i in distinct if clauses[i].marked}
    buckets: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, got in anchors.items():
        for t in got:
            buckets[(t, clauses[i].terms[t])].append(i)
    for key in sorted(buckets):
        said = buckets[key]
        if len(said) > MAX_ANCHOR_BUCKET:  # said that often, a word is no anchor
            continue
        for x, i in enumerate(said):
            for j in said[x + 1:]:
                if find(i) != find(j) and _anchor_links(clauses[i], clauses[j], anchors[i],
                                                        anchors[j], w, strict):
                    parent[max(find(i), find(j))] = min(find(i), find(j))
    groups: dict[int, list[_Clause]] = defaultdict(list)
    for i, c in enumerate(clauses):
        groups[find(i)].append(c)
    return [groups[k] for k in sorted(groups)]


def _rides_along(t: str, said: _Clause, a: _Clause, b: _Clause) -> bool:
    """Whether ``t`` is refused in ``said`` next to a word that both ``a`` and ``b`` refuse."""
    terms = list(said.terms)
    i = terms.index(t)
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(terms) and said.terms[terms[j]] < 0:
            u = terms[j]
            if a.terms.get(u) == b.terms.get(u) == -1:
                return True
            j += step
    return False


def _unshared(a: _Clause, other: dict[str, int], w: dict[str, float]) -> float:
    """The weight of what ``a`` is about that ``other`` does not say: generic words aside, and
    words too rare to be a rule of their own (said in fewer asks than a rule needs sessions)
    at half their weight: more often a manner of saying ("no obvious comments" / "no
    comments that restate the code") than a thing ("never log the request body")."""
    rare = _rare_weight(w)
    return sum(w.get(t, 1.0) * (0.5 if w.get(t, 1.0) >= rare else 1.0)
               for t in _about(a) - other.keys() if t not in _GENERIC_TERMS)


def _rare_weight(w: dict[str, float]) -> float:
    """The idf (see _weights) of a word said in MIN_SESSIONS asks: the rarest has df 1."""
    return max(w.values(), default=1.0) + math.log(1.5 / (MIN_SESSIONS + 0.5)) + 1e-9


def _about(c: _Clause) -> Collection[str]:
    """What a sentence is about: its key terms, or when those are only a generic act ("write
    in active voice", "answer in German") all its terms: then the manner is the rule."""
    if not c.keys - _generic_terms():
        return c.terms.keys()
    # the value a setting wants is what it is about, wherever it is said ("comments in
    # Spanish")
    values = {t for t, s in c.terms.items() if s > 0 and any(t in v for v in _value_terms())}
    return c.keys | values if values else c.keys


def _anchors(c: _Clause, w: dict[str, float], floor: float) -> frozenset[str]:
    """What a rule sentence is about that few asks say: its distinctive key terms."""
    return frozenset(t for t in _about(c) if w.get(t, 1.0) >= floor and not t.isdigit()
                     and t not in _GENERIC_TERMS)


# Verbs and nouns of any coding session: a rule is never about them alone, so they are never
# its anchor however rarely a small store has seen them.
_GENERIC_WORDS = _wordset("""
add run write make put get take set go have give let keep do create update fix change check
show tell try see look find help start call move open close read edit build test tests file
files code function functions change changes branch thing new old all any every real whole
commit commits anything everything something nothing always answer answers reply respond ask
based
message messages text per via
""")
_GENERIC_TERMS: set[str] = set()


def _generic_terms() -> set[str]:
    if not _GENERIC_TERMS:
        _GENERIC_TERMS.update(_term(x) for x in _GENERIC_WORDS)
    return _GENERIC_TERMS


def _anchor_links(a: _Clause, b: _Clause, an_a: frozenset[str], an_b: frozenset[str],
                  w: dict[str, float], strict: bool = False) -> bool:
    """Two rule sentences that share a distinctive word, wanted or refused the same way, and
    disagree on none (their other words may differ: "pnpm, never npm" / "we use pnpm here")."""
    both = (an_a | an_b) & a.terms.keys() & b.terms.keys()
    agree = sum(w.get(t, 1.0) for t in both if a.terms[t] == b.terms[t])
    # a clash on what both are about is an opposite ("always indent with tabs" / "never
    # tabs"), unless the word is refused together with a word both refuse (read inside a
    # refused name: "no pip install" / "install deps with uv", "no class components" /
    # "hooks, not classes, for components")
    clashing = {t for t in both & a.keys & b.keys if a.terms[t] != b.terms[t]}
    if not agree:
        return False
    if clashing and (strict or sum(w.get(t, 1.0) for t in clashing) > agree or any(
            not _rides_along(t, a if a.terms[t] < 0 else b, a, b) for t in clashing)):
        return False
    # each says more the other lacks than they share: two rules ("ask before adding
    # dependencies" / "ask before deleting files")
    if min(_unshared(a, b.terms, w), _unshared(b, a.terms, w)) > agree:
        return False
    # and what they agree on is a fair part of each one's anchors that are common enough to
    # be a rule's ("dependencies come in through the constructor" is not "ask before adding
    # a dependency"; a word said once is a manner of saying)
    rare = _rare_weight(w)
    for an in (an_a, an_b):
        main = sum(w.get(t, 1.0) for t in an if w.get(t, 1.0) < rare)
        if agree < ANCHOR_COVER * main:
            return False
    if _other_value(a.terms, b.terms):
        return False
    # one frame, a different anchor in the same place: two rules ("run ruff / mypy …")
    rare = _rare_weight(w)
    return not ({t for t in an_a - b.terms.keys() if w.get(t, 1.0) < rare}
                and {t for t in an_b - a.terms.keys() if w.get(t, 1.0) < rare}
                and _frame(a.terms, b.terms) == _frame(b.terms, a.terms))


def _core_clause(group: list[_Clause], nth: int = 0) -> _Clause:
    """What a group agrees on, in the words' order, as one sentence."""
    if len(group) == 1:
        c = group[0]
        return _Clause(c.ask, nth, "", c.terms, c.marked, c.keys)
    core = _core(group)
    core = {t: core[t] for c in group for t in c.terms if t in core}
    keys = frozenset(t for t in core if any(t in c.keys for c in group))
    return _Clause(group[0].ask, nth, "", core, any(c.marked for c in group), keys)


def _regroup(groups: list[list[_Clause]], w: dict[str, float]) -> list[list[_Clause]]:
    """Groups whose cores say the same, joined: paraphrases that link only through what most
    of each group agrees on ("uv, not pip, for adding packages" and "we install with uv")."""
    # a group no sentence of which reads as a rule (a task) never joins one that does
    ruled = [i for i, g in enumerate(groups) if any(c.marked for c in g)]
    cores = [_core_clause(groups[i], i) for i in ruled]
    # (what a group agrees on is already read: a clash there is an opposite)
    joined = _components([c for c in cores if c.terms], w, strict=True)
    out = [[m for c in j for m in groups[c.nth]] for j in joined]
    kept = {c.nth for c in cores if c.terms}
    out += [g for i, g in enumerate(groups) if i not in kept]
    return [sorted(g, key=lambda c: (_order(c.ask), c.nth)) for g in out]


def propose(asks: Iterable[Ask], known: Sequence[str] = (),
            min_sessions: int = MIN_SESSIONS) -> list[Proposal]:
    """Requests that came back in ``min_sessions`` or more sessions, as proposed rules, most
    sessions first. ``known`` holds rules already written and proposals already dismissed:
    a request that says the same as one of them is not proposed again."""
    unique = _unique_asks(asks)
    df = _doc_freq(unique)
    w = _idf(df, len(unique))
    clauses = sorted(_clauses(unique), key=lambda c: (_order(c.ask), c.nth))
    fix = _typos(df)  # a word typed wrong once is the word
    if fix:
        clauses = [_respelled(c, fix) for c in clauses]
    known_said = [c for k in known
                  for c in _rule_readings(Ask("k", "k", "2000-01-01T00:00:00Z", k))]
    out: list[Proposal] = []
    taken: set[str] = set()
    for members in _regroup(_components(clauses, w), w):
        sessions = sorted({c.ask.session for c in members})
        if len(sessions) < min_sessions:
            continue
        # a task asked again is no rule: most sessions must have said it as one
        ruled = {c.ask.session for c in members if c.marked}
        if len(ruled) < 2 or 2 * len(ruled) < len(sessions):
            continue
        core = _core(members)
        said = _core_clause(members)
        if _split_direction(members, said.keys):
            continue
        if not core or any(_similar(core, k.terms, w) and not _opposed(said, k)
                           for k in known_said):
            continue
        rule = _representative(members, core, w)
        if any(same_request(rule, k) for k in known):
            continue
        key_src = "\n".join(f"{'+' if s > 0 else '-'}{t}" for t, s in core.items())
        key = "p-" + blake2b(key_src.encode(), digest_size=5).hexdigest()
        if key in taken:  # two requests that agree on the same words: keep both numbers apart
            key_src += "\n" + members[0].ask.id
            key = "p-" + blake2b(key_src.encode(), digest_size=5).hexdigest()
        taken.add(key)
        evidence = tuple(Evidence(c.ask.id, c.ask.session, c.ask.date,
                                  _one_line(c.text, MAX_LINE_CHARS)) for c in members)
        out.append(Proposal(
            key=key,
            rule=rule,
            sessions=tuple(sessions),
            projects=tuple(sorted({c.ask.project for c in members if c.ask.project})),
            evidence=evidence,
        ))
    out.sort(key=lambda p: (-len(p.sessions), -_last_date_key(p), p.key))
    return out


def _split_direction(members: list[_Clause], keys: Collection[str]) -> bool:
    """Whether the sessions of a group disagree on what it is about: two or more of them,
    and a third or more of those that say it, want a key term the other way ("always
    squash" and "never squash" chained together through what else they say)."""
    for t in keys:
        sides: dict[int, set[str]] = {1: set(), -1: set()}
        for c in members:
            if t in c.keys and t in c.terms:
                sides[c.terms[t]].add(c.ask.session)
        few = min(len(sides[1] - sides[-1]), len(sides[-1] - sides[1]))
        if few >= 2 and 3 * few >= len(sides[1] | sides[-1]):
            return True
    return False


def _last_date_key(p: Proposal) -> int:
    return int(max(e.date for e in p.evidence).replace("-", ""))


# -- distill -----------------------------------------------------------------------------------

DEAD_END_SHARD = "failures"


class Written(Record):
    """An entry written to memory during a session (``at`` as for asks; None: time unknown,
    taken as after every ask)."""

    _fields = ("id", "shard", "title", "text", "at")
    __slots__ = _fields
    id: str
    shard: str
    title: str
    text: str
    at: str | None

    def __init__(self, id: str, shard: str, title: str, text: str = "",
                 at: str | None = None) -> None:
        self._init(id, shard, title, text, at)


class Summary(Record):
    _fields = ("id", "session", "title", "text", "asked", "decided", "open", "dead_ends")
    __slots__ = _fields
    id: str
    session: str
    title: str
    text: str
    asked: tuple[tuple[str, str], ...]  # (ask or entry id, line)
    decided: tuple[tuple[str, str], ...]
    open: tuple[tuple[str, str], ...]
    dead_ends: tuple[tuple[str, str], ...]

    def __init__(self, id: str, session: str, title: str, text: str,
                 asked: tuple[tuple[str, str], ...], decided: tuple[tuple[str, str], ...],
                 open: tuple[tuple[str, str], ...],
                 dead_ends: tuple[tuple[str, str], ...]) -> None:
        self._init(id, session, title, text, asked, decided, open, dead_ends)


def _fields(e: Written) -> tuple[str, str, str, str]:
    return (e.at or "~", e.shard, e.title, e.text)


def summary_id(session: str) -> str:
    """The id of a session's summary: one per session, so distilling again replaces it."""
    return "s-" + blake2b(clean_session_id(session).encode(), digest_size=5).hexdigest()


def _content(text: str) -> set[str]:
    return {_term(w) for w in _words(_normalize(text)) if _is_content(w)}


def _answers(ask: Ask, terms: set[str], later: list[tuple[str, set[str]]]) -> bool:
    """Whether an entry written at or after the ask covers at least half its content words."""
    need = max(1, math.ceil(len(terms) / 2))
    return any(len(terms & got) >= need for when, got in later if when >= ask.at)


def distill(session: str, asks: Iterable[Ask], written: Iterable[Written],
            settled: Collection[str] = ()) -> Summary:
    """One session folded into its summary entry. Deterministic and idempotent: the summary
    itself, or another summary, among ``written`` is ignored, and the order of the inputs
    does not matter. ``settled``: ids of asks that are never open (a routine task asked in
    other sessions too, a preference a proposal rests on)."""
    sid = clean_session_id(session)
    mine = tuple(_unique_asks(a for a in asks if a.session == sid))
    sid_summary = summary_id(sid)
    by_id: dict[str, Written] = {}
    for e in written:  # an entry recorded twice: the same record whatever the order
        if e.id != sid_summary and e.shard != SUMMARY_SHARD and (
                e.id not in by_id or _fields(e) > _fields(by_id[e.id])):
            by_id[e.id] = e
    entries = sorted(by_id.values(), key=lambda e: (e.at or "~", e.id))
    asked = tuple((a.id, _one_line(a.text, MAX_LINE_CHARS)) for a in mine)
    decided = tuple((e.id, f"{_one_line(e.title, MAX_LINE_CHARS)} [{e.shard}]")
                    for e in entries if e.shard != DEAD_END_SHARD)
    dead = tuple((e.id, _one_line(e.title, MAX_LINE_CHARS)) for e in entries
                 if e.shard == DEAD_END_SHARD)
    # a dead end is an attempt, not an answer: only what was decided closes an ask
    later = [(e.at or "~", _content(e.title + "\n" + e.text)) for e in entries
             if e.shard != DEAD_END_SHARD]
    still = []
    for a in mine:
        terms = _content(a.text)
        # chit-chat ("continue", "thanks") and standing rules are not open questions
        if len(terms) < 2 or a.id in settled or rule_clauses(a.text):
            continue
        if not _answers(a, terms, later):
            still.append((a.id, _one_line(a.text, MAX_LINE_CHARS)))
    # the title names the session's first real request: not chit-chat, not a standing rule
    first = next((line for (_, line) in asked
                  if len(_content(line)) >= 2 and not rule_clauses(line)),
                 asked[0][1] if asked else "no asks")
    day = mine[0].date if mine else (entries[0].at or "")[:10]
    title = _one_line(f"Session {day}: {first}".replace(": :", ":"), 80)
    return Summary(sid_summary, sid, title, _render(sid, mine, asked, decided, tuple(still),
                                                    dead), asked, decided, tuple(still), dead)


def _render(sid: str, mine: tuple[Ask, ...], asked: tuple[tuple[str, str], ...],
            decided: tuple[tuple[str, str], ...], still: tuple[tuple[str, str], ...],
            dead: tuple[tuple[str, str], ...]) -> str:
    span = f"{mine[0].at} to {mine[-1].at}" if mine else "no asks"
    lines = [f"Session {sid}, {span}: {len(mine)} asks, {len(decided)} decided, "
             f"{len(still)} open, {len(dead)} dead ends.", ""]
    for head, items in (("Asked", asked), ("Decided", decided), ("Still open", still),
                        ("Dead ends", dead)):
        lines.append(f"**{head}**")
        shown = items[:MAX_SECTION_LINES]
        lines.extend(f"- {line} ({ref})" for ref, line in shown)
        if not items:
            lines.append("- none")
        elif len(shown) < len(items):
            lines.append(f"- and {len(items) - len(shown)} more: "
                         + ", ".join(ref for ref, _ in items[len(shown):]))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _parse_at(at: str) -> datetime:
    return datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ")


def quiet_sessions(asks: Iterable[Ask], now: str, after_seconds: float = 7200,
                   ended: Iterable[str] = ()) -> tuple[str, ...]:
    """Sessions whose last ask is ``after_seconds`` or more before ``now``, or that ended."""
    last: dict[str, str] = {}
    for a in asks:
        last[a.session] = max(last.get(a.session, ""), a.at)

    cutoff = _parse_at(now) - timedelta(seconds=after_seconds)
    done = set(ended)
    return tuple(s for s in sorted(last) if s in done or _parse_at(last[s]) <= cutoff)

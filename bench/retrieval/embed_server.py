"""A local Ollama-compatible ``/api/embed`` server for the benchmarks: a real static
embedding model (wordllama, 256-d, weights inside its wheel, offline) or a deterministic
fake, so the product's own ``ollama`` retriever is exercised exactly as a user configures
it (``[memory] retrievers = ["bm25", "ollama"]``, ``[ollama] host``/``model``).

    /tmp/i22venv/bin/python bench/retrieval/embed_server.py [--port 0] [--fake]

(wordllama needs numpy, tokenizers, safetensors: ``pip install wordllama-*.whl`` in a venv.)
Prints ``http://127.0.0.1:PORT`` on its first line, then serves until killed. Any model
name is accepted. ``--fake``: hashed bag of words (stdlib only), for tests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Embed = Callable[[list[str]], list[list[float]]]
FAKE_DIM = 64


def fake(texts: list[str]) -> list[list[float]]:
    """Deterministic: each lower-cased word adds a hashed ±1 pattern; unit length."""
    out = []
    for text in texts:
        v = [0.0] * FAKE_DIM
        for word in re.findall(r"\w+", text.lower()):
            h = hashlib.blake2b(word.encode(), digest_size=16).digest()
            for i in range(FAKE_DIM):
                v[i] += 1.0 if h[i % 16] >> (i // 16) & 1 else -1.0
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        out.append([x / norm for x in v])
    return out


def wordllama() -> Embed:
    import pathlib

    import wordllama as pkg
    from wordllama import WordLlama

    # The weights and tokenizer ship in the wheel; never download.
    model = WordLlama.load(cache_dir=pathlib.Path(pkg.__file__).parent, disable_download=True)

    def embed(texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in v] for v in model.embed(texts, norm=True)]

    return embed


def serve(embed: Embed, port: int = 0) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path != "/api/embed":
                self._answer(404, {"error": "not found"})
                return
            try:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                texts: Sequence[str] = body["input"]
                if isinstance(texts, str):
                    texts = [texts]
                vectors = embed(list(texts))
            except (ValueError, KeyError, TypeError) as exc:
                self._answer(400, {"error": type(exc).__name__})
                return
            self._answer(200, {"model": body.get("model", ""), "embeddings": vectors})

        def _answer(self, code: int, obj: object) -> None:
            raw = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--fake", action="store_true", help="the deterministic fake embedder")
    args = ap.parse_args()
    server = serve(fake if args.fake else wordllama(), args.port)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()

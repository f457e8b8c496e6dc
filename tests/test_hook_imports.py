"""The prompt hook runs before every prompt: it answers without importing ``threading``
(its worker is a ``_thread`` thread)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import lean_memory
from lean_memory import agents


def test_the_hook_does_not_import_threading(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    mem.put_entry("conventions", "Always run ruff before a commit.")
    mem.put_entry("failures", "The deploy failed: the socket timeout was too short.")
    mem.search("deploy")  # indexed: a hook that indexes starts the warm-up (subprocess)
    payload = json.dumps({"cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
                          "prompt": "why did the deploy fail"})
    code = ("import io, sys; from lean_memory import agents; out = io.StringIO(); "
            f"agents.run_hook('user-prompt-submit', None, io.StringIO({payload!r}), out); "
            "print('threading' in sys.modules); "
            "print(out.getvalue())")
    # -S: no site, which imports threading itself; the package from its own folder
    package_root = str(Path(agents.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": package_root}
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, check=True, env=env).stdout
    modules, printed = out.split("\n", 1)
    assert modules == "False"
    assert "socket timeout" in json.loads(printed)["hookSpecificOutput"]["additionalContext"]

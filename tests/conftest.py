from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import lean_memory

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def mem(tmp_path: Path) -> lean_memory.Memory:
    m = lean_memory.Memory(tmp_path)
    m.init()
    return m


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` except the volatile cache, as bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".cache" not in p.parts}


def run_cli(*args: str, cwd: Path, stdin: bytes | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("LEAN_MEMORY_ROOT", None)
    return subprocess.run([sys.executable, "-m", "lean_memory", *args], cwd=cwd, input=stdin,
                          capture_output=True, env=full_env, timeout=60)

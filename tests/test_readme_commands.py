"""The README's two commands are what CI runs (issue 35 item 7): `.ci/run` runs exactly the
second one, and it makes its own virtual environment, so a PEP 668 system Python (Debian's)
that refuses a plain `pip install` still passes it."""

from __future__ import annotations

from .conftest import ROOT


def _two_commands() -> list[str]:
    text = (ROOT / "README.md").read_text("utf-8")
    block = text.split("## Two commands", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_ci_runs_the_readmes_second_command_exactly() -> None:
    demo, tests = _two_commands()
    assert demo.endswith("-m lean_memory demo")
    ci = (ROOT / ".ci" / "run").read_text("utf-8").replace("\\\n", " ")
    ci = " ".join(ci.split())
    assert " ".join(tests.split()) in ci


def test_the_test_command_installs_into_its_own_venv() -> None:
    _demo, tests = _two_commands()
    steps = [s.strip() for s in tests.split("&&")]
    assert steps[0].startswith("python3 -m venv ")
    venv = steps[0].split()[-1]
    assert all(s.startswith(f"{venv}/bin/python -m ") for s in steps[1:])

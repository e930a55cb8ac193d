"""scripts/check_sizes.py: modules and functions over their budgets, and the exceptions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_sizes.py"


@pytest.fixture(scope="module")
def check_sizes():
    spec = importlib.util.spec_from_file_location("check_sizes", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def function(name: str, lines: int, indent: str = "") -> str:
    """Return the source of a function of `lines` lines, its `def` line included."""
    return f"{indent}def {name}():\n" + f"{indent}    x = 1\n" * (lines - 1)


def make_tree(root: Path, files: dict[str, str], exceptions: str = "") -> Path:
    (root / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_packages = ["app"]\n\n'
        "[tool.webclip.sizes]\nmodule_lines = 500\nfunction_lines = 60\n"
        'exempt = ["*/migrations/*"]\n'
        f"exceptions = [{exceptions}]\n"
    )
    for name, text in files.items():
        path = root / "app" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_it_reports_a_function_of_61_lines_and_not_one_of_60(check_sizes, tmp_path, capsys):
    make_tree(tmp_path, {"short.py": function("fits", 60), "long.py": function("grown", 61)})

    assert check_sizes.main([str(tmp_path)]) == 1

    assert capsys.readouterr().out == "app/long.py:1 grown: 61 lines (budget 60)\n"


def test_it_measures_methods_and_nested_functions_by_their_dotted_names(check_sizes, tmp_path):
    source = (
        "class Box:\n    def outer(self):\n" + function("inner", 61, "        ") + "        x = 2\n"
    )
    make_tree(tmp_path, {"box.py": source})

    assert check_sizes.offences(tmp_path) == [
        "app/box.py:2 Box.outer: 63 lines (budget 60)",
        "app/box.py:3 Box.outer.inner: 61 lines (budget 60)",
    ]


def test_it_reports_a_module_of_501_lines_but_not_a_migration(check_sizes, tmp_path):
    make_tree(
        tmp_path,
        {
            "big.py": "x = 1\n" * 501,
            "fits.py": "x = 1\n" * 500,
            "migrations/0001_initial.py": "x = 1\n" * 900,
        },
    )

    assert check_sizes.offences(tmp_path) == ["app/big.py:1 <module>: 501 lines (budget 500)"]


def test_it_honours_an_exception_up_to_its_lines(check_sizes, tmp_path):
    exceptions = (
        '{ path = "app/long.py", name = "grown", lines = 70, reason = "being reshaped" },'
        '{ path = "app/big.py", lines = 600, reason = "being reshaped" },'
    )
    make_tree(
        tmp_path,
        {"long.py": function("grown", 70), "big.py": "x = 1\n" * 601},
        exceptions,
    )

    assert check_sizes.offences(tmp_path) == ["app/big.py:1 <module>: 601 lines (budget 600)"]


def test_it_reports_an_exception_no_longer_needed(check_sizes, tmp_path):
    exceptions = (
        '{ path = "app/long.py", name = "grown", lines = 70, reason = "being reshaped" },'
        '{ path = "app/gone.py", name = "split", lines = 90, reason = "being reshaped" },'
    )
    make_tree(tmp_path, {"long.py": function("grown", 60)}, exceptions)

    assert check_sizes.main([str(tmp_path)]) == 1

    assert check_sizes.offences(tmp_path) == [
        "app/long.py:1 grown: 60 lines, within the budget of 60: its exception is no longer needed",
        "app/gone.py split: not found: its exception is no longer needed",
    ]


def test_it_reports_an_exception_without_a_reason(check_sizes, tmp_path):
    exceptions = '{ path = "app/long.py", name = "grown", lines = 70 },'
    make_tree(tmp_path, {"long.py": function("grown", 70)}, exceptions)

    assert check_sizes.offences(tmp_path) == ["app/long.py grown: its exception gives no reason"]

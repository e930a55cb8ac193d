"""Print every product module and function over its size budget; exit 1 if there is any.

The packages are import-linter's root packages; the budgets, the files left out (migrations,
generated code) and the justified exceptions live in pyproject.toml's [tool.webclip.sizes].
A function is measured from its `def` line to its last line, nested functions and methods
too. An exception that is no longer needed is reported as well, so the list never rots.
"""

from __future__ import annotations

import ast
import fnmatch
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE = "<module>"  # the name of a whole module, in reports and exceptions


@dataclass(frozen=True)
class Measure:
    """One module's or function's size."""

    path: str  # relative to the root, with forward slashes
    line: int
    name: str  # MODULE, or the function's dotted name inside its module ("Frontier.add")
    lines: int


def load_config(root: Path) -> tuple[list[str], dict]:
    """Return the root packages and the [tool.webclip.sizes] table of the root's pyproject.toml."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    tool = config["tool"]
    return list(tool["importlinter"]["root_packages"]), tool["webclip"]["sizes"]


def modules(root: Path, packages: list[str], exempt: list[str]) -> Iterator[Path]:
    """Yield the Python files of the packages, but for the exempt ones."""
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if "__pycache__" in path.parts:
                continue
            if any(fnmatch.fnmatch(relative, pattern) for pattern in exempt):
                continue
            yield path


def functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.AST]]:
    """Yield each function under `tree` with its dotted name, nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = prefix + node.name
            if not isinstance(node, ast.ClassDef):
                yield name, node
            yield from functions(node, name + ".")
        else:
            yield from functions(node, prefix)


def measure(root: Path, path: Path) -> Iterator[Measure]:
    """Yield the size of a module and of every function in it."""
    relative = path.relative_to(root).as_posix()
    text = path.read_text(encoding="utf-8")
    yield Measure(relative, 1, MODULE, len(text.splitlines()))
    for name, node in functions(ast.parse(text, filename=relative)):
        yield Measure(relative, node.lineno, name, node.end_lineno - node.lineno + 1)


def offences(root: Path) -> list[str]:
    """Return a line for each measure over its budget and each exception no longer needed."""
    packages, sizes = load_config(root)
    budgets = {True: sizes["module_lines"], False: sizes["function_lines"]}
    allowed = {(e["path"], e.get("name", MODULE)): e["lines"] for e in sizes.get("exceptions", [])}
    found = [
        f"{e['path']} {e.get('name', MODULE)}: its exception gives no reason"
        for e in sizes.get("exceptions", [])
        if not e.get("reason")
    ]
    seen: set[tuple[str, str]] = set()
    for path in modules(root, packages, sizes.get("exempt", [])):
        for item in measure(root, path):
            key = (item.path, item.name)
            budget = budgets[item.name == MODULE]
            if key in allowed:
                seen.add(key)
                if item.lines <= budget:
                    found.append(
                        f"{item.path}:{item.line} {item.name}: {item.lines} lines, within the "
                        f"budget of {budget}: its exception is no longer needed"
                    )
                    continue
                budget = allowed[key]
            if item.lines > budget:
                found.append(
                    f"{item.path}:{item.line} {item.name}: {item.lines} lines (budget {budget})"
                )
    for path, name in sorted(allowed.keys() - seen):
        found.append(f"{path} {name}: not found: its exception is no longer needed")
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the offences of the tree at the given root (the repository's by default)."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else ROOT
    found = offences(root)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""Print every import circle between the modules of one app; exit 1 if there is any.

The apps are import-linter's root packages (pyproject.toml). Imports made only for type
checkers (under `if TYPE_CHECKING:`) run at no time, so they make no circle here.
"""

from __future__ import annotations

import sys
import tomllib
from collections import deque
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent


def root_packages() -> list[str]:
    """Return the packages import-linter checks, from pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(config["tool"]["importlinter"]["root_packages"])


def components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(sorted(members))
    return found


def shortest_cycle(graph: dict[str, set[str]], start: str, members: set[str]) -> list[str]:
    """Return a shortest path from `start` back to itself inside `members`."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(graph[node] & members):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [start, *reversed(path[:-1]), start] if node != start else [start, start]
            if child not in came_from:
                came_from[child] = node
                queue.append(child)
    return [start]


def app_tangles(package: str, graph: grimp.ImportGraph) -> list[tuple[list[str], list[str]]]:
    """Return (members, one shortest circle) for each tangle of modules inside `package`."""
    modules = {m for m in graph.modules if m == package or m.startswith(package + ".")}
    inside = {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}
    return [
        (tangle, shortest_cycle(inside, tangle[0], set(tangle))) for tangle in components(inside)
    ]


def main() -> int:
    """Print the circles of every app."""
    sys.path.insert(0, str(ROOT))
    packages = root_packages()
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=True)
    tangles = [tangle for package in packages for tangle in app_tangles(package, graph)]
    for members, cycle in tangles:
        print("import circle: " + " -> ".join(cycle))
        if len(members) > len(cycle) - 1:
            print(f"  tangled with it: {', '.join(m for m in members if m not in cycle)}")
    return 1 if tangles else 0


if __name__ == "__main__":
    sys.exit(main())

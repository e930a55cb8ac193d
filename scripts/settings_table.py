"""Print the README's table of the apps' settings, generated from their conf modules.

Usage: scripts/settings_table.py [--check | --write] [README.md]
  (no option)  print the table
  --check      exit 1 if the table between the markers in README.md is not the current one
  --write      replace the table between the markers in README.md
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- settings table: begin (scripts/settings_table.py --write) -->"
END = "<!-- settings table: end -->"


def table() -> str:
    """Return the markdown table: one row per setting, one heading row per section."""
    import django
    from django.utils.module_loading import import_string

    django.setup()
    from base.checks import app_sections

    rows = ["| variable | default | meaning |", "| --- | --- | --- |"]
    for section in app_sections():
        summary = (section.__doc__ or section.__name__).strip().splitlines()[0]
        title = summary.split(";")[0].split(":")[0].rstrip(".")
        module = section.__module__.replace(".", "/") + ".py"
        rows.append(f"| **{title}** (`{module}`) | | |")
        defaults = import_string(section.defaults_of) if section.defaults_of else None
        for name, spec in section.declared():
            if spec.default is None and defaults is not None:
                spec = type(spec)(**{**spec.__dict__, "default": getattr(defaults, name)})
            meaning = spec.help.replace("|", "\\|")
            rows.append(f"| `{spec.name}` | `{spec.shown_default}` | {meaning} |")
    return "\n".join(rows) + "\n"


def replaced(text: str, new_table: str) -> str:
    """Return the README text with the table between the markers replaced."""
    head, found, rest = text.partition(BEGIN + "\n")
    _, found_end, tail = rest.partition(END)
    if not (found and found_end):
        raise SystemExit(f"README has no {BEGIN!r} ... {END!r} markers")
    return head + BEGIN + "\n" + new_table + END + tail


def main() -> int:
    """Print, check or write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    parser.add_argument("readme", nargs="?", default=str(ROOT / "README.md"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    new_table = table()
    if not (args.check or args.write):
        sys.stdout.write(new_table)
        return 0
    readme = Path(args.readme)
    text = readme.read_text()
    wanted = replaced(text, new_table)
    if args.write:
        readme.write_text(wanted)
        return 0
    if wanted != text:
        print(f"{readme}: the settings table is stale; run scripts/settings_table.py --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

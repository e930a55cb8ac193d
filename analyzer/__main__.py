"""Command line: python -m analyzer FILE.html [--url URL] [--terms "a,b"] [--json|--explain]

Without --json or --explain it prints a short summary and the clips for --terms. Exit
status 2 (with a message on stderr) when the file cannot be read or is not HTML.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from analyzer.clips import extract_clips, extract_follow_hints
from analyzer.errors import AnalyzerError
from analyzer.explain import explain
from analyzer.pipeline import run


def main(argv: Sequence[str] | None = None) -> int:
    """Analyse one HTML file and print the result; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m analyzer", description=__doc__)
    parser.add_argument("file", help="HTML file to analyse ('-' for standard input)")
    parser.add_argument("--url", help="URL the page came from (resolves its links)")
    parser.add_argument("--encoding", help="charset from the HTTP header, if known")
    parser.add_argument("--terms", default="", help='comma-separated terms: "solar, rail strike"')
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--json", action="store_true", help="print the whole analysis as JSON")
    mode.add_argument("--explain", action="store_true", help="print the area tree and reasons")
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        print(f"analyzer: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        result = run(data, args.url, declared_encoding=args.encoding)
    except AnalyzerError as exc:
        print(f"analyzer: {args.file}: {exc}", file=sys.stderr)
        return 2
    analysis = result.analysis
    terms = [term.strip() for term in args.terms.split(",") if term.strip()]
    clips = extract_clips(analysis, terms)
    hints = extract_follow_hints(analysis, terms)
    if args.json:
        data_out = analysis.to_dict()
        data_out["clips"] = [clip.to_dict() for clip in clips]
        data_out["follow_hints"] = [hint.to_dict() for hint in hints]
        json.dump(data_out, sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    if args.explain:
        print(explain(result))
    else:
        print(f"{analysis.kind} page (score {analysis.kind_score:.2f}): {analysis.title}")
        print(
            f"language {analysis.language}; {len(analysis.informational_areas)} informational, "
            f"{len(analysis.hub_areas)} hub, {len(analysis.navigational_areas)} navigational "
            f"areas; {len(analysis.links)} links; main text {len(analysis.main_text)} chars"
        )
    for clip in clips:
        start, end = clip.span
        marked = f"{clip.summary[:start]}[{clip.summary[start:end]}]{clip.summary[end:]}"
        print(f"\nclip for {clip.term!r}: {clip.title}\n  {marked}\n  area {clip.area_path}")
    for hint in hints:
        print(f"\nfollow for {hint.term!r}: {hint.title} -> {hint.url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

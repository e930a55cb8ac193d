"""python -m analyzer: summary, --json, --explain, and exit status 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.analyzer.pages import article_page

ROOT = Path(__file__).resolve().parents[2]
URL = "https://daily.example/news/2024/council-solar"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "analyzer", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def article_file(tmp_path: Path) -> Path:
    path = tmp_path / "article.html"
    path.write_text(article_page(), encoding="utf-8")
    return path


def test_json_prints_the_whole_analysis_with_clips(article_file: Path) -> None:
    result = run_cli(str(article_file), "--url", URL, "--terms", "subsidy, levy", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "information"
    assert data["title"] == "Council backs solar subsidies"
    assert data["main_text"].startswith("The city council approved")
    assert {clip["term"] for clip in data["clips"]} == {"subsidy", "levy"}
    assert data["links"][0]["url"] == "https://daily.example/"
    assert data["navigational_areas"][0]["kind"] == "NavArea"


def test_explain_prints_the_area_tree_with_metrics_and_reasons(article_file: Path) -> None:
    result = run_cli(str(article_file), "--url", URL, "--explain")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "page kind: information" in out
    assert "thresholds: ThrIV" in out
    assert "[INFORMATION: article body] IV=" in out
    assert "[NAVIGATION]" in out and "[HUB]" in out
    assert "LTR=" in out and "LAR=" in out
    assert "why: HV 6 > ThrHV 4" in out


def test_the_plain_output_shows_clips_with_the_term_marked(article_file: Path) -> None:
    result = run_cli(str(article_file), "--terms", "levy")
    assert result.returncode == 0, result.stderr
    assert "information page" in result.stdout
    assert "[levy]" in result.stdout


def test_an_unreadable_file_exits_with_status_2(tmp_path: Path) -> None:
    result = run_cli(str(tmp_path / "missing.html"))
    assert result.returncode == 2
    assert "cannot read" in result.stderr
    assert result.stdout == ""


def test_a_binary_file_exits_with_status_2(tmp_path: Path) -> None:
    path = tmp_path / "image.html"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    result = run_cli(str(path))
    assert result.returncode == 2
    assert "not HTML" in result.stderr

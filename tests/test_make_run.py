"""`make run`: quiet, with ports of one's choosing, a favicon and a word on the admin password."""

from __future__ import annotations

import re
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import call_command

from tests.test_config import ROOT, last_line, run_embedded


def recipe(target: str) -> str:
    """Return the Makefile recipe of one target."""
    text = (ROOT / "Makefile").read_text()
    found = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", text, re.MULTILINE)
    assert found, target
    return found.group(1)


@pytest.mark.slow
def test_preparing_wordnet_warns_of_nothing(tmp_path):
    line = next(ln for ln in recipe("$(NLTK_DATA)/.ready").splitlines() if "nltk" in ln.lower())
    assert "-m analyzer.nltkdata" not in line  # runpy warns that the package imported it first
    script = re.search(r"\$\(PY\) (\S+) \$\(NLTK_DATA\)", line).group(1)
    result = subprocess.run(
        [sys.executable, "-W", "error", script, str(tmp_path / "data")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr
    assert (tmp_path / "data" / "corpora" / "wordnet" / "lexnames").is_file()


def test_the_ports_are_chosen_by_environment_variables():
    run = recipe("run")
    assert "--url http://127.0.0.1:$(WEBCLIP_DEMO_PORT)/" in run
    procfile = (ROOT / "Procfile.dev").read_text()
    assert "runserver 127.0.0.1:${WEBCLIP_PORT:-8000}" in procfile
    assert "--port ${WEBCLIP_DEMO_PORT:-8100}" in procfile
    assert "8000" not in run and "8100" not in run
    readme = (ROOT / "README.md").read_text()
    assert "| `WEBCLIP_PORT` | `8000` |" in readme
    assert "| `WEBCLIP_DEMO_PORT` | `8100` |" in readme


@pytest.mark.slow
def test_the_site_url_follows_the_chosen_port_and_a_bad_port_is_named(tmp_path):
    show = ("shell", "-c", "from django.conf import settings as s; print(s.SITE_URL)")
    result = run_embedded(tmp_path, *show, WEBCLIP_PORT="8080")
    assert result.returncode == 0, result.stderr
    assert last_line(result) == ["http://127.0.0.1:8080"]
    bad = run_embedded(tmp_path, *show, WEBCLIP_PORT="70000")
    assert bad.returncode != 0
    assert "WEBCLIP_PORT must be a TCP port" in bad.stderr


def test_the_favicon_is_found(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("/icons/icon-192.png")
    assert (ROOT / "static" / "icons" / "icon-192.png").is_file()


@pytest.mark.django_db
@pytest.mark.parametrize("times", [1, 2])
def test_bootstrap_says_how_to_reset_the_admin_password(settings, monkeypatch, times):
    settings.WEBCLIP_ADMIN_EMAIL = "root@example.org"
    monkeypatch.setenv("WEBCLIP_ADMIN_PASSWORD", "chosen-admin-pass-42")
    out = StringIO()
    for _ in range(times):
        call_command("bootstrap", stdout=out)
    said = out.getvalue().splitlines()[-1]
    assert said.endswith("manage.py changepassword root@example.org")

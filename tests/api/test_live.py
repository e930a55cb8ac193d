"""The API over real HTTP (httpx against the live server), and its docs page in Chromium."""

from __future__ import annotations

import httpx
import pytest

from tests.api.clients import token_for
from tests.factories import make_list

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_script_manages_its_lists_over_http(live_server, alice, bob):
    mine = {"Authorization": f"Bearer {token_for(alice)}"}
    with httpx.Client(base_url=live_server.url, timeout=10) as http:
        created = http.post(
            "/api/lists", headers=mine, json={"name": "Energy", "terms": ["solar", "-coal"]}
        )
        assert created.status_code == 201
        list_id = created.json()["id"]
        assert created.headers["Location"] == f"{live_server.url}/api/lists/{list_id}"
        assert http.get(created.headers["Location"], headers=mine).json() == created.json()

        listed = http.get("/api/lists", headers=mine).json()
        assert listed["count"] == 1 and listed["items"][0]["terms"] == ["solar", "-coal"]
        changed = http.patch(f"/api/lists/{list_id}", headers=mine, json={"active": False})
        assert changed.status_code == 200 and changed.json()["active"] is False
        clips = http.get("/api/clips", headers=mine).json()
        assert clips == {"items": [], "count": 0, "limit": 50, "offset": 0, "next_offset": None}

        bobs = {"Authorization": f"Bearer {token_for(bob)}"}
        assert http.get(f"/api/lists/{list_id}", headers=bobs).status_code == 404
        assert http.delete(f"/api/lists/{list_id}", headers=bobs).status_code == 404
        unauthenticated = http.get(f"/api/lists/{list_id}")
        assert unauthenticated.status_code == 401
        assert unauthenticated.headers["WWW-Authenticate"].startswith("Bearer")

        assert http.delete(f"/api/lists/{list_id}", headers=mine).status_code == 204
        assert http.get("/api/lists", headers=mine).json()["items"] == []


def test_the_rate_limit_holds_over_http(live_server, alice, settings):
    settings.WEBCLIP_API_RATE_LIMIT = 2
    settings.WEBCLIP_API_RATE_WINDOW = 3600
    mine = {"Authorization": f"Bearer {token_for(alice)}"}
    with httpx.Client(base_url=live_server.url, timeout=10) as http:
        statuses = [http.get("/api/lists", headers=mine).status_code for _ in range(3)]

    assert statuses == [200, 200, 429]


def test_the_docs_page_renders_under_the_content_security_policy(live_server, page, alice):
    make_list(alice, "Energy", "solar")
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("response", lambda r: problems.append(r.url) if r.status >= 400 else None)
    page.on(
        "request",
        lambda r: (
            problems.append(r.url)
            if not r.url.startswith(live_server.url) and not r.url.startswith("data:")
            else None
        ),
    )

    response = page.goto(f"{live_server.url}/api/docs")

    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector(".swagger-ui .info .title")
    assert "Webclip API" in page.locator(".swagger-ui .info .title").inner_text()
    page.wait_for_selector(".opblock-tag-section")
    assert page.locator(".opblock").count() == 28
    assert problems == []

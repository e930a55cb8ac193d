"""The OpenAPI schema is valid OpenAPI 3, served without a token, and names every endpoint."""

from __future__ import annotations

import pytest
from openapi_spec_validator import validate

pytestmark = pytest.mark.django_db

ENDPOINTS = {
    ("get", "/api/lists"),
    ("post", "/api/lists"),
    ("get", "/api/lists/{list_id}"),
    ("put", "/api/lists/{list_id}"),
    ("patch", "/api/lists/{list_id}"),
    ("delete", "/api/lists/{list_id}"),
    ("get", "/api/lists/{list_id}/terms"),
    ("put", "/api/lists/{list_id}/synonyms"),
    ("get", "/api/clips"),
    ("get", "/api/clips/search"),
    ("get", "/api/clips/{clip_id}"),
    ("post", "/api/clips/{clip_id}/read"),
    ("post", "/api/clips/{clip_id}/unread"),
    ("put", "/api/clips/{clip_id}/star"),
    ("delete", "/api/clips/{clip_id}/star"),
    ("get", "/api/deliveries"),
    ("get", "/api/deliveries/{delivery_id}"),
    ("get", "/api/sites"),
    ("get", "/api/sites/{site_id}"),
    ("post", "/api/sites"),
    ("delete", "/api/sites/{site_id}"),
    ("get", "/api/channels"),
    ("post", "/api/channels"),
    ("get", "/api/channels/{channel_id}"),
    ("delete", "/api/channels/{channel_id}"),
    ("post", "/api/channels/{channel_id}/test"),
    ("post", "/api/channels/{channel_id}/resume"),
    ("put", "/api/channels/{channel_id}/routes"),
}


def test_the_served_schema_is_valid_openapi_3_with_bearer_auth_on_every_operation(client):
    response = client.get("/api/openapi.json")

    assert response.status_code == 200
    schema = response.json()
    validate(schema)
    assert schema["openapi"].startswith("3.")
    operations = {
        (method, path): operation
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    }
    assert set(operations) == ENDPOINTS
    scheme = next(iter(schema["components"]["securitySchemes"].values()))
    assert scheme == {"type": "http", "scheme": "bearer"}
    assert all(operation.get("security") for operation in operations.values())


def test_the_docs_page_loads_its_assets_from_this_server(client):
    response = client.get("/api/docs")

    body = response.content.decode()
    assert response.status_code == 200
    assert (
        "/static/ninja/swagger-ui-bundle.js" in body and "/static/ninja/swagger-ui-init.js" in body
    )
    assert "cdn" not in body.lower() and "<script>" not in body

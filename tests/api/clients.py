"""What API tests import: a test client sending a bearer token, and token issuing."""

from __future__ import annotations

from accounts.models import ApiToken


class ApiClient:
    """Django's test client with a bearer token on every request (None: no header)."""

    def __init__(self, client, token: str | None) -> None:
        self.client = client
        self.token = token

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def get(self, path: str, params: dict | None = None):
        return self.client.get(path, params or {}, headers=self._headers())

    def send(self, method: str, path: str, body: object = None):
        call = getattr(self.client, method.lower())
        if body is None:
            return call(path, headers=self._headers())
        return call(path, body, content_type="application/json", headers=self._headers())


def token_for(user, name: str = "tests") -> str:
    """Issue an API token for the user; return its secret."""
    return ApiToken.issue(user, name)[1]

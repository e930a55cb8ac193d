"""What every endpoint of the REST API shares: one error shape and one way to page a list.

Errors: every 4xx answer is `{"detail": "<a sentence>", "errors": {"<field>": ["<why>"]}}`
(`errors` is empty when no field is to blame), whether a form, Pydantic, a missing object, the
token or the rate limit refused the request.

Lists: every collection answers `{"items": [...], "count": <total>, "limit", "offset",
"next_offset"}` and names its neighbours in a `Link` header (RFC 8288: first, prev, next,
last), so a client can follow pages without building URLs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

from django import forms
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from ninja import Field, Schema, Status

MAX_PAGE = 200
MAX_OFFSET = 100_000

Row = TypeVar("Row")


class ErrorOut(Schema):
    """Every error the API answers."""

    detail: str = Field(description="What went wrong, in a sentence.")
    errors: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Per field (dotted path for nested ones, `__all__` for the whole object), "
        "why its value was refused; empty when no field is to blame.",
    )


# The errors any authenticated operation can answer, for the OpenAPI schema.
ERRORS: dict[int, type[Schema]] = {401: ErrorOut, 404: ErrorOut, 422: ErrorOut, 429: ErrorOut}


def responses(ok: dict[int, Any] | Any, *, status: int = 200) -> dict[int, Any]:
    """Return an operation's response map: its own answers and the shared error answers."""
    own = ok if isinstance(ok, dict) else {status: ok}
    return {**ERRORS, **own}


def error(detail: str, errors: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Return an error body in the API's one shape."""
    return {"detail": detail, "errors": errors or {}}


def form_error(form: forms.BaseForm, message: str) -> Status[dict[str, Any]]:
    """Return the 422 answer to a form that refused the request, with its errors per field."""
    errors = {name: list(messages) for name, messages in form.errors.items()}
    return Status(422, error(message, errors))


def validation_errors(problems: Iterable[dict[str, Any]]) -> dict[str, list[str]]:
    """Return Pydantic's error list as field -> messages, the field a dotted path without the
    request part it came from (body, query, path) or the parameter's own name."""
    found: dict[str, list[str]] = {}
    for problem in problems:
        loc = [str(part) for part in problem.get("loc", ())]
        if loc and loc[0] in {"body", "query", "path", "header", "cookie", "form"}:
            loc = loc[1:]
        if len(loc) > 1 and loc[0] in {"payload", "filters", "page"}:
            loc = loc[1:]
        field = ".".join(loc) or "__all__"
        found.setdefault(field, []).append(str(problem.get("msg", "invalid")))
    return found


class PageIn(Schema):
    """The paging parameters of every list endpoint."""

    limit: int = Field(default=50, ge=1, le=MAX_PAGE, description="Items per page.")
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET, description="Items to skip.")


def page_of(
    request: HttpRequest,
    response: HttpResponse,
    rows: QuerySet[Any] | Sequence[Any],
    params: PageIn,
    out: Callable[[Any], dict[str, Any]],
) -> dict[str, Any]:
    """Return one page of `rows` in the API's list shape and set the `Link` header."""
    total = rows.count() if isinstance(rows, QuerySet) else len(rows)
    items = [out(row) for row in rows[params.offset : params.offset + params.limit]]
    more = params.offset + params.limit < total
    links = _links(request, total, params.limit, params.offset)
    if links:
        response["Link"] = ", ".join(f'<{url}>; rel="{rel}"' for rel, url in links)
    return {
        "items": items,
        "count": total,
        "limit": params.limit,
        "offset": params.offset,
        "next_offset": params.offset + params.limit if more else None,
    }


def page_schema(item: type[Schema], name: str) -> type[Schema]:
    """Return the page schema of a list endpoint whose items are `item`."""
    fields: dict[str, Any] = {
        "__annotations__": {
            "items": list[item],  # type: ignore[valid-type]
            "count": int,
            "limit": int,
            "offset": int,
            "next_offset": int | None,
        },
        "count": Field(description="Items in the whole list, over every page."),
        "next_offset": Field(description="The next page's offset; null on the last page."),
    }
    return type(name, (Schema,), fields)


def _links(request: HttpRequest, total: int, limit: int, offset: int) -> list[tuple[str, str]]:
    last = max(0, (total - 1) // limit * limit)
    wanted = [("first", 0)]
    if offset > 0:
        wanted.append(("prev", max(0, offset - limit)))
    if offset + limit < total:
        wanted.append(("next", offset + limit))
    wanted.append(("last", last))
    return [(rel, _url(request, limit, at)) for rel, at in wanted]


def _url(request: HttpRequest, limit: int, offset: int) -> str:
    query = {key: value for key, value in request.GET.items() if key not in {"limit", "offset"}}
    query.update({"limit": str(limit), "offset": str(offset)})
    return request.build_absolute_uri(f"{request.path}?{urlencode(query)}")


def created(request: HttpRequest, response: HttpResponse, path: str) -> None:
    """Name a new object's address in the `Location` header of a 201."""
    response["Location"] = request.build_absolute_uri(path)

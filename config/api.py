"""The REST API at /api/: each app's router behind personal API tokens, OpenAPI 3 schema at
/api/openapi.json and its Swagger UI at /api/docs (served from ninja's own static files)."""

from __future__ import annotations

import math

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser

from accounts.api import RateLimited, TokenAuth
from base.api import error, validation_errors
from base.bodies import check_json_depth
from clipping.api import router as clipping_router
from crawler.api import router as crawler_router


class BoundedParser(Parser):
    """ninja's JSON parser, refusing a body nested too deep before json recurses into it
    (ninja answers 400 "Cannot parse request body" for any error raised here)."""

    def parse_body(self, request: HttpRequest) -> dict[str, object]:
        check_json_depth(request.body)
        return super().parse_body(request)


api = NinjaAPI(
    title="Webclip API",
    version="1",
    description="Keyword lists, clips, deliveries, notification channels and watched sites. "
    "Authenticate with a personal API token (Account page) as `Authorization: Bearer <token>`. "
    "Every error answers `{detail, errors}` (errors: field -> messages); every list answers "
    "`{items, count, limit, offset, next_offset}` with a `Link` header naming first, prev, "
    "next and last pages; a 201 names the new object in `Location`.",
    auth=TokenAuth(),
    urls_namespace="api",
    parser=BoundedParser(),
)
api.add_router("", clipping_router)
api.add_router("", crawler_router)


@api.exception_handler(AuthenticationError)
def unauthorized(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = api.create_response(request, error("A valid API token is required."), status=401)
    response["WWW-Authenticate"] = 'Bearer realm="api"'
    return response


@api.exception_handler(RateLimited)
def rate_limited(request: HttpRequest, exc: RateLimited) -> HttpResponse:
    response = api.create_response(request, error(str(exc)), status=429)
    response["Retry-After"] = str(max(1, math.ceil(exc.wait)))
    return response


@api.exception_handler(RequestDataTooBig)
def too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    detail = f"The request body is larger than {limit} bytes."
    return api.create_response(request, error(detail), status=413)


@api.exception_handler(Http404)
def not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    """A missing object and someone else's answer alike, naming no model."""
    return api.create_response(request, error("Not found."), status=404)


@api.exception_handler(ValidationError)
def invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """Pydantic's refusals in the shape of the forms' (field -> messages)."""
    errors = validation_errors(exc.errors)
    return api.create_response(request, error("The request is not valid.", errors), status=422)


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return api.create_response(request, error(str(exc)), status=exc.status_code)


def unknown_endpoint(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Any /api/ address no operation serves: the API's 404, not the site's HTML page."""
    return JsonResponse(error("No such API endpoint."), status=404)

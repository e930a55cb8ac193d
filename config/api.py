"""The REST API at /api/: each app's router behind personal API tokens, OpenAPI 3 schema at
/api/openapi.json and its Swagger UI at /api/docs (served from ninja's own static files)."""

from __future__ import annotations

import math

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError
from ninja.parser import Parser

from accounts.api import RateLimited, TokenAuth
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
    description="Keyword lists, clips, deliveries and watched sites. Authenticate with a personal "
    "API token (Account page) as `Authorization: Bearer <token>`.",
    auth=TokenAuth(),
    urls_namespace="api",
    parser=BoundedParser(),
)
api.add_router("", clipping_router)
api.add_router("", crawler_router)


@api.exception_handler(AuthenticationError)
def unauthorized(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = api.create_response(
        request, {"detail": "A valid API token is required."}, status=401
    )
    response["WWW-Authenticate"] = 'Bearer realm="api"'
    return response


@api.exception_handler(RateLimited)
def rate_limited(request: HttpRequest, exc: RateLimited) -> HttpResponse:
    response = api.create_response(request, {"detail": str(exc)}, status=429)
    response["Retry-After"] = str(max(1, math.ceil(exc.wait)))
    return response


@api.exception_handler(RequestDataTooBig)
def too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    detail = f"The request body is larger than {limit} bytes."
    return api.create_response(request, {"detail": detail}, status=413)

"""Serve the real blog's dump on 127.0.0.1, as it is or with its hubs listed only in the sitemap.

`python -m bench.blog_dump PORT [--sitemap-only] [--log FILE]` serves
`../shared/eval/sites/andreagrandi`; with --log, one line per request ("GET /path 200"): the
request log a reviewer reads, to see what each fetch bought.
With --sitemap-only, every link to a category or tag page is taken out of the pages (those
pages stay served), and the sitemap names the served origin instead of the production
host: the hubs are reachable only through the sitemap.
"""

from __future__ import annotations

import argparse
import re
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BLOG = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "sites" / "andreagrandi"
PRODUCTION = "https://www.andreagrandi.it"
HUB_LINK = re.compile(rb"<a\b[^>]*href=\"/(?:categories|tags)/[^\"]*\"[^>]*>.*?</a>", re.S)


class Quiet(SimpleHTTPRequestHandler):
    """Serve the dump as it is; log each request to `log` when one is given."""

    log: Path | None = None

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if self.log is not None:
            with self.log.open("a") as out:
                out.write(f"{self.command} {self.path} {getattr(code, 'value', code)}\n")

    def log_message(self, format: str, *args: object) -> None:
        return None


class SitemapOnly(Quiet):
    """Serve the dump with category and tag links removed from its pages."""

    def send_head(self):  # type: ignore[no-untyped-def]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return super().send_head()  # the redirect to the address with a slash
            path = path / "index.html"
        if not path.is_file() or path.suffix not in {".html", ".xml"}:
            return super().send_head()
        body = path.read_bytes()
        origin = f"http://{self.headers.get('Host', '127.0.0.1')}".encode()
        if path.name == "sitemap.xml":
            body = body.replace(PRODUCTION.encode(), origin)
        elif path.suffix == ".html":
            body = HUB_LINK.sub(b"", body)
        self.send_response(200)
        kind = "text/html" if path.suffix == ".html" else "application/xml"
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return _Body(body)


class _Body:
    """The rewritten body, read like the file `send_head` usually returns."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def read(self, *_: object) -> bytes:
        body, self.body = self.body, b""
        return body

    def close(self) -> None:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port", type=int)
    parser.add_argument("--sitemap-only", action="store_true")
    parser.add_argument("--log", type=Path, help="append one line per request to this file")
    options = parser.parse_args()
    handler = SitemapOnly if options.sitemap_only else Quiet
    handler.log = options.log
    server = ThreadingHTTPServer(("127.0.0.1", options.port), partial(handler, directory=str(BLOG)))
    server.serve_forever()


if __name__ == "__main__":
    main()

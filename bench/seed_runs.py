"""The measures of bench/seed_measures.py that need a database: whole passes and runs.

- Submission efficiency (HiWE) per form: the hidden-web pass on the real blog's search form
  (its theme's search answered as the script renders it, bench/realblog.py) and on the
  demo's GET and POST searches.
- Teasers followed (Page Analyzer, Algorithm 2): a breadth-first run of the real blog with
  a small budget (the hidden-web pass off, so that only the crawl spends it) and a
  person's keyword list, with and without the keyword matcher:
  articles reached through teasers, and the keyword-holding posts fetched.
- Entity queries (He et al.): the extra queries bootstrapped from result pages, and the
  results new to the form's run they reached per extra query (printed with SE).
"""

from __future__ import annotations

import random
import re
import time

from bench.realblog import RealBlog

BLOG_KEYWORDS = ["python", "django", "metabase", "maemo", "kubernetes", "raspberry pi",
                 "zeppelin", "vaccine", "election", "espresso"]  # fmt: skip
PAGE_BUDGET = 30
TEASER_KEYWORDS = ["maemo", "nokia", "metabase", "claude"]


def blog_site(root_url: str, name: str, **extra: object):
    from crawler.models import Site

    values: dict[str, object] = {
        "name": name, "root_url": root_url, "allow_private_network": True,
        "crawl_delay": 0, "page_budget": 2000, "max_depth": 8,
    }  # fmt: skip
    values.update(extra)
    return Site.objects.create(**values)


def topic_of(keywords: list[str]):
    from analyzer.text import stems, tokenize
    from crawler.topic import Topic

    terms = {" ".join(stems(tokenize(k), "en")): 1.0 for k in keywords}
    return Topic(terms=terms, queries=dict.fromkeys(keywords, 1.0))


def print_forms(name: str, report) -> None:
    for form in report.forms:
        se = f"{form.efficiency:.2f}" if form.efficiency is not None else "-"
        print(
            f"   {name:10} {form.method:4} {form.action.split('/', 3)[-1]:26} {form.status:9} "
            f"submissions {form.submissions:3}  with results {form.with_results:3}  SE {se}"
            f"  results {len(form.results)}"
        )


def print_entities(name: str, report) -> None:
    """Print the entity queries a pass made per form and the new results they reached."""
    from crawler.hiddenweb.entities import ENTITY

    for form in report.forms:
        logs = [log for log in form.searches if log.form == ENTITY]
        if not logs:
            continue
        found = sum(len(log.results) for log in logs)
        print(
            f"   {name:10} {form.action.split('/', 3)[-1]:26} entity queries {len(logs)} "
            f"({', '.join(log.query for log in logs)}): {found} results new to the form's "
            f"run, {found / len(logs):.1f} per extra query"
        )


def submission_efficiency() -> dict:
    """Print SE per form on the real blog and the demo site; return the blog's report."""
    from crawler.hiddenweb.runner import search_now
    from demo import archive
    from demo.server import serve

    print("\n3. Submission efficiency (HiWE): submissions with results / submissions, per form")
    print("   paper: SE is its measure of a value source; its figures are not in our copy of "
          "the text")  # fmt: skip
    with RealBlog() as blog:
        site = blog_site(blog.url("/"), "real blog")
        started = time.perf_counter()
        report = search_now(site, topic=topic_of(BLOG_KEYWORDS), rng=random.Random(11))
        print(f"   real blog, keywords {', '.join(BLOG_KEYWORDS)} "
              f"({time.perf_counter() - started:.1f} s)")  # fmt: skip
        print_forms("real blog", report)
        print_entities("real blog", report)
    server, _ = serve(port=0)
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        site = blog_site(base + "/", "demo")
        demo = search_now(site, topic=topic_of(archive.KEYWORDS), rng=random.Random(11))
        print(f"   demo site, its users' keywords {', '.join(archive.KEYWORDS)}")
        print_forms("demo", demo)
        print_entities("demo", demo)
    finally:
        server.shutdown()
    return {"blog": report, "demo": demo}


def teasers_followed() -> bool:
    """Print what a small breadth-first run of the real blog reaches with and without teasers."""
    from django.test import override_settings

    from accounts.models import User
    from clipping.matching.live import refresh_index
    from clipping.models import KeywordList
    from crawler import topic as topic_seam
    from crawler.models import Page
    from crawler.run.loop import crawl

    owner = User.objects.create_user(email="reader@example.com", password="x" * 12)
    KeywordList.objects.create(owner=owner, name="Work", terms="\n".join(TEASER_KEYWORDS))
    refresh_index()
    print("\n5. Teasers followed (Page Analyzer, Algorithm 2): breadth-first run of the real "
          f"blog, budget {PAGE_BUDGET}, keywords {', '.join(TEASER_KEYWORDS)}")  # fmt: skip
    figures = {}
    saved = topic_seam._matcher
    for leg in ("teasers followed", "without teasers"):
        if leg == "without teasers":
            topic_seam.register_keyword_matcher(lambda site, texts: [False] * len(texts))
        with RealBlog() as blog, override_settings(DEEPWEB_ENABLED=False):
            site = blog_site(blog.url("/"), leg, strategy="bfs")
            run = crawl(site, max_pages=PAGE_BUDGET, seed=3, render_shells="off")
            wanted = {blog.url(post.path) for post in blog.posts if _holds(post)}
            posts = Page.objects.filter(site=site, url__contains="/posts/", versions__isnull=False)
            holding = [p for p in posts if p.url in wanted]
        figures[leg] = (run.teaser_articles, posts.count(), len(holding))
        print(f"   {leg:17} articles reached through teasers {run.teaser_articles:3}  "
              f"posts fetched {posts.count():3}  holding a keyword {len(holding):3}")  # fmt: skip
    topic_seam.register_keyword_matcher(saved)
    return figures["teasers followed"][2] > figures["without teasers"][2]


def _holds(post) -> bool:
    words = set(re.findall(r"[a-z]+", f"{post.title} {post.text}".lower()))
    return any(keyword in words for keyword in TEASER_KEYWORDS)

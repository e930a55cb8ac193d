"""Never submit a form that changes state: each kind is refused, and a real run proves it."""

from __future__ import annotations

import pytest

from crawler.hiddenweb.runner import search_now
from crawler.models import Site
from crawler.models.sitesearch import SiteSearch
from crawler.sitesearch.analysis import analyze_forms
from crawler.sitesearch.safety import has_search_signal, refusal
from crawler.topic import Topic
from tests.crawler.hiddenweb_site import DeepWebSite, build_stories

PAGE = "http://news.example/"

STATEFUL_FORMS = {
    "login": '<form action="/session" method="post"><input name="user"><input name="pw" type="password"><button>Log in</button></form>',
    "login-by-words": '<form class="login-form" action="/session" method="get"><input name="user"><button>Sign in</button></form>',
    "sign-up": '<form id="signupForm" action="/join" method="post"><input name="name" placeholder="Your name"><button>Create account</button></form>',
    "comment": '<form action="/articles/1/comments" method="post"><textarea name="body"></textarea><button>Post comment</button></form>',
    "comment-without-textarea": '<form action="/reply" method="get"><input name="text" placeholder="Add a comment"></form>',
    "contact": '<form action="/contact" method="post"><input name="subject"><button>Send message</button></form>',
    "newsletter": '<form class="newsletter" action="/subscribe" method="post"><input name="address" type="email"><button>Subscribe</button></form>',
    "newsletter-get": '<h3>Join our mailing list</h3><form action="/list" method="get"><input name="e"><button>Go</button></form>',
    "checkout": '<form action="/cart/checkout" method="post"><select name="qty"><option>1</option></select><button>Buy now</button></form>',
    "upload": '<form action="/files" method="post"><input type="file" name="f"></form>',
    "post-without-search": '<form action="/preferences" method="post"><select name="theme"><option>dark</option></select><button>Save</button></form>',
}

EXPECTED = {
    "login": "login",
    "login-by-words": "login",
    "sign-up": "sign-up",
    "comment": "comment",
    "comment-without-textarea": "comment",
    "contact": "contact",
    "newsletter": "newsletter",
    "newsletter-get": "newsletter",
    "checkout": "checkout",
    "upload": "upload",
    "post-without-search": "post-without-search",
}


@pytest.mark.parametrize("kind", sorted(STATEFUL_FORMS))
def test_each_kind_of_state_changing_form_is_refused(kind):
    (form,) = analyze_forms(STATEFUL_FORMS[kind], PAGE)
    assert refusal(form) == EXPECTED[kind]


@pytest.mark.parametrize(
    "markup",
    [
        '<form action="/search"><input name="q"><button>Search</button></form>',
        '<form role="search" action="/find" method="post"><input name="text"></form>',
        '<form action="/advanced" method="post"><input type="search" name="w"></form>',
        # "Sort order" and a "Most commented" option do not make a search form a checkout or a comment form.
        '<form action="/search"><input name="q"><label for="o">Sort order</label>'
        '<select id="o" name="o"><option>Newest</option><option>Most commented</option></select></form>',
    ],
)
def test_search_forms_are_allowed(markup):
    (form,) = analyze_forms(markup, PAGE)
    assert has_search_signal(form)
    assert refusal(form) is None


def test_a_get_form_without_search_words_is_left_to_the_lvs_rule():
    (form,) = analyze_forms(
        '<form action="/browse"><select name="year"><option>2031</option></select></form>', PAGE
    )
    assert not has_search_signal(form)
    assert refusal(form) is None


@pytest.mark.django_db(transaction=True)
def test_a_run_never_sends_anything_to_a_state_changing_form():
    extra = "".join(STATEFUL_FORMS.values())
    with DeepWebSite(build_stories(30), extra_home=extra) as web:
        site = Site.objects.create(
            name="Archive", root_url=web.url("/"), allow_private_network=True, crawl_delay=0
        )
        topic = Topic(terms={"elect": 1.0}, queries={"election": 1.0})
        report = search_now(site, topic=topic)
        stateful_paths = {
            "/account/login", "/newsletter", "/session", "/join", "/articles/1/comments",
            "/reply", "/contact", "/subscribe", "/list", "/cart/checkout", "/files", "/preferences",
        }  # fmt: skip
        assert [r for r in web.requests if r.path in stateful_paths] == []
        assert report.submissions > 0  # the search forms themselves were used
        refused = dict(
            SiteSearch.objects.filter(status=SiteSearch.Status.REFUSED).values_list(
                "action", "reason"
            )
        )
        assert refused[web.url("/account/login")] == "login"
        assert refused[web.url("/newsletter")] == "newsletter"
        assert refused[web.url("/preferences")] == "post-without-search"
        assert SiteSearch.objects.filter(status=SiteSearch.Status.REFUSED).count() == 13

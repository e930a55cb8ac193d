"""Which forms the crawler may submit: searches only, never a form that changes state.

A form is refused when it logs in, signs up, comments, contacts, subscribes to a newsletter,
checks out, uploads, or asks for a password, an email address, a file or free prose; and a
POST form is refused unless something says it searches. GET forms without a search signal
are left to the caller's rule (`crawler.sitesearch.detect`: a lone box labelled like a search
box; hidden-web: HiWE's, every text box matches an LVS label), since GET does not change
state by the HTTP contract.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from crawler.sitesearch.analysis import Form

# Words that mark a form as changing state or collecting personal data, with the reason given.
_STATEFUL = [
    ("login", r"\blog ?in|\bsign ?in|signin|\blogon|authenticat|passwor[dt]|forgot"),
    ("sign-up", r"\bsign ?up|signup|\bregist(er|ration)|create (an |your )?account|join (us|now)"),
    ("comment", r"\bcomment|\brepl(y|ies)\b|write a review|rate this|feedback|guestbook"),
    ("contact", r"\bcontact|\bmessage\b|enquir|inquir|get in touch|write to us"),
    ("newsletter", r"newsletter|\bsubscri|mailing list|\be ?-?mail\b|opt.?in\b"),
    (
        "checkout",
        r"check ?out|basket|\bcart\b|place (an |your )?order|payment|purchase|buy now|donat|billing",
    ),
    ("upload", r"\bupload|\battach"),
    ("delete", r"\bdelete\b|\bremove\b|unsubscribe|\blog ?out|\bsign ?out"),
    ("vote", r"\bvote\b|\bpoll\b|\bsurvey\b"),
]
_STATEFUL_RE = [(reason, re.compile(pattern, re.I)) for reason, pattern in _STATEFUL]
# Field types that only a state-changing form needs.
_SENSITIVE_REASONS = {
    "password": "login",
    "file": "upload",
    "email": "newsletter",
    "textarea": "comment",
}
_SEARCH_WORDS = re.compile(
    r"search|find|query|look ?up|lookup|results?|recherche|suche|busca", re.I
)
# Conventional names of a keyword box ("q" at Google, "s" in WordPress, "k" at some shops).
_SEARCH_NAMES = frozenset(
    {"q", "s", "k", "query", "search", "keyword", "keywords", "term", "terms", "qs", "searchterm"}
)


def refusal(form: Form) -> str | None:
    """Return why the crawler must not submit `form` ("login", "newsletter"...), or None.

    1. Fields only state-changing forms have (password, file, email, textarea) refuse it.
    2. Words in its id, class, name, action, legend, headings, buttons or labels that say
       log in, sign up, comment, contact, newsletter, checkout... refuse it.
    3. A POST form with no search signal is refused: POST may change state.
    """
    for kind in ("password", "file", "email", "textarea"):
        if kind in form.sensitive_types:
            return _SENSITIVE_REASONS[kind]
    words = _words(form)
    for reason, pattern in _STATEFUL_RE:
        if pattern.search(words):
            return reason
    if form.method == "POST" and not has_search_signal(form):
        return "post-without-search"
    return None


def has_search_signal(form: Form) -> bool:
    """Tell whether anything in the form says it searches (role, type, names, words, action)."""
    if form.role == "search":
        return True
    if any(e.input_type == "search" for e in form.elements):
        return True
    if any(e.name.lower() in _SEARCH_NAMES for e in form.text_elements):
        return True
    path = urlsplit(form.action).path
    return bool(_SEARCH_WORDS.search(f"{form.signals} {' '.join(form.buttons)} {path}")) or any(
        _SEARCH_WORDS.search(e.label) for e in form.text_elements
    )


def _words(form: Form) -> str:
    """Return the text that tells what a form is for (not its finite values: a "Sort" option
    called "Most commented" must not make a search form a comment form)."""
    labels = " ".join(f"{e.label} {e.name}" for e in form.elements)
    hidden = " ".join(name for name, _ in form.hidden)
    path = urlsplit(form.action).path
    text = f"{form.signals} {' '.join(form.buttons)} {labels} {hidden} {path}"
    # "newsletterSignup", "login_form", "sign-up": split words so boundaries are seen.
    return _SEPARATORS.sub(" ", _CAMEL.sub(r"\1 \2", text))


_CAMEL = re.compile(r"([a-z])([A-Z])")
_SEPARATORS = re.compile(r"[_\-/.]+")

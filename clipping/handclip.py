"""“Clip this page”: a page a person names is fetched and analysed now and added to My clips.

The clip belongs to the person's hidden “by hand” list (`KeywordList.by_hand`), which matches
nothing and mails nothing; the article's HTML, as the analyzer chose it, is kept for the
reader view (`HandClip`). Clipping the same address again refreshes that clip.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from urllib.parse import urlsplit

from django.db import transaction
from django.utils import timezone
from lxml.html import tostring

from analyzer.model import InfoArea, PageAnalysis
from analyzer.pipeline import read_input
from clipping.models import Clip, HandClip, KeywordList, Match
from clipping.reader import find_area, parse_stored
from clipping.safetext import one_line
from crawler.models.lessons import link_for_people
from crawler.usersites.single import SinglePage, fetch_page

SUMMARY_CHARS = 400
BY_HAND_NOTE = "Clipped by hand: not mailed."


@dataclass(frozen=True)
class Clipped:
    clip: Clip | None = None
    error: str = ""
    again: bool = False  # the person had clipped this address before


def clip_page(user: object, url: str) -> Clipped:
    """Fetch `url` for `user`, analyse it and add its article to their clips."""
    page = fetch_page(user, url)
    if page.error or page.analysis is None:
        return Clipped(error=page.error)
    area = main_area(page.analysis)
    html = _area_html(page, area)
    title = one_line((area.title if area else "") or page.analysis.title or page.final_url, 300)
    text = area.text if area is not None else page.analysis.main_text
    with transaction.atomic():
        by_hand = KeywordList.objects.by_hand_of(user)
        earlier = (
            Match.objects.filter(keyword_list=by_hand, clip__url=link_for_people(page.final_url))
            .select_related("clip")
            .first()
        )
        clip = earlier.clip if earlier is not None else Clip()
        clip.url = link_for_people(page.final_url)
        clip.host = (urlsplit(page.final_url).hostname or "")[:255]
        clip.title = title
        clip.summary = " ".join(text.split())[:SUMMARY_CHARS]
        clip.area_path = area.path if area is not None else ""
        clip.language = page.analysis.language or ""
        clip.seen_at = timezone.now()
        clip.save()
        if earlier is None:
            Match.objects.create(
                owner=user,
                keyword_list=by_hand,
                clip=clip,
                story=clip,
                summary=clip.summary,
                mail_status=Match.MailStatus.SKIPPED,
                mail_note=BY_HAND_NOTE,
                found_at=clip.seen_at,
            )
        else:
            Match.objects.filter(pk=earlier.pk).update(summary=clip.summary, found_at=clip.seen_at)
        stored = HandClip(clip=clip, owner=user)  # type: ignore[misc]
        stored.set_html(html)
        stored.save()
    return Clipped(clip=clip, again=earlier is not None)


def main_area(analysis: PageAnalysis) -> InfoArea | None:
    """Return the page's main informational area: the one marked main, else the longest."""
    areas = [area for area in analysis.informational_areas if not area.teaser]
    if not areas:
        return None
    marked = [area for area in areas if area.main]
    return marked[0] if marked else max(areas, key=lambda area: area.text_chars)


def _area_html(page: SinglePage, area: InfoArea | None) -> str:
    """Return the area's HTML from the fetched body (the reader sanitises it when shown)."""
    if area is not None:
        text, _codec = read_input(page.body, page.encoding)
        element = find_area(parse_stored(text), area.path)
        if element is not None:
            return tostring(element, encoding="unicode", method="html")
    text = page.analysis.main_text if page.analysis is not None else ""
    paragraphs = [line.strip() for line in text.split("\n") if line.strip()]
    return "".join(f"<p>{escape(line)}</p>" for line in paragraphs)

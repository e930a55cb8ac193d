"""Algorithm 2: term matching, summaries, the title heuristics in order, follow hints."""

from __future__ import annotations

import pytest

from analyzer import (
    analyze,
    clip_for_span,
    extract_clips,
    extract_follow_hints,
    find_terms,
    summarize,
)
from analyzer.model import InfoArea, PageAnalysis
from tests.analyzer.pages import PARAGRAPHS, article_page, front_page

URL = "https://daily.example/news/2024/council-solar"


def main_area(analysis: PageAnalysis) -> InfoArea:
    return next(area for area in analysis.informational_areas if area.main)


@pytest.fixture(scope="module")
def article() -> PageAnalysis:
    return analyze(article_page(), URL)


def test_a_term_matches_its_inflections_by_stem(article: PageAnalysis) -> None:
    clips = extract_clips(article, ["subsidy"])
    assert [clip.matched for clip in clips] == ["subsidies", "subsidies"]
    for clip in clips:
        start, end = clip.span
        assert clip.summary[start:end] == clip.matched
        assert clip.term == "subsidy"


def test_terms_match_case_insensitively_on_word_boundaries() -> None:
    text = "Solar power: SOLAR panels, solaria and insolar are other words."
    matches = find_terms(text, ["solar"], "en")
    assert [text[start:end] for _, start, end in matches] == ["Solar", "SOLAR"]


def test_a_phrase_matches_word_by_word() -> None:
    text = "Two rail strikes and a rail line strike were announced."
    assert [text[a:b] for _, a, b in find_terms(text, ["rail strike"], "en")] == ["rail strikes"]


def test_a_summary_is_the_sentence_before_the_one_with_the_term_and_the_one_after(
    article: PageAnalysis,
) -> None:
    [clip] = extract_clips(article, ["levy"])
    assert clip.summary == " ".join(PARAGRAPHS[0:3])
    assert clip.url == URL
    assert clip.area_path == main_area(article).path


def test_a_summary_at_the_start_of_an_area_has_no_sentence_before(
    article: PageAnalysis,
) -> None:
    [clip] = extract_clips(article, ["households"])
    assert clip.summary == " ".join(PARAGRAPHS[0:2])
    assert clip.summary[clip.span[0] : clip.span[1]] == "households"


def test_a_summary_at_the_end_of_an_area_has_no_sentence_after(article: PageAnalysis) -> None:
    [clip] = extract_clips(article, ["shortage"])
    assert clip.summary == " ".join(PARAGRAPHS[3:5])
    assert clip.summary[clip.span[0] : clip.span[1]] == "shortage"


def test_an_area_of_one_sentence_is_its_own_summary() -> None:
    summary, span = summarize("Only solar here.", 5, 10, "en")
    assert (summary, span) == ("Only solar here.", (5, 10))


def test_clip_for_span_serves_matches_found_by_another_index(article: PageAnalysis) -> None:
    area = main_area(article)
    start = area.text.index("12 million euros")
    clip = clip_for_span(article, area, start, start + len("12 million euros"), "cost")
    assert clip.summary == " ".join(PARAGRAPHS[0:3])
    assert clip.summary[clip.span[0] : clip.span[1]] == "12 million euros"
    assert (clip.term, clip.title) == ("cost", "Council backs solar subsidies")


def test_one_clip_per_term_and_sentence(article: PageAnalysis) -> None:
    clips = extract_clips(article, ["solar", "subsidies", "solar"])
    assert [(clip.term, clip.matched) for clip in clips] == [
        ("solar", "solar"),
        ("subsidies", "subsidies"),
        ("subsidies", "subsidies"),
    ]


def test_a_term_only_in_site_chrome_gives_no_clip(article: PageAnalysis) -> None:
    assert extract_clips(article, ["Weather", "Advertise"]) == []


def test_teasers_give_follow_hints_to_their_articles_instead_of_clips() -> None:
    analysis = analyze(front_page(), "https://daily.example/")
    assert extract_clips(analysis, ["solar subsidy"]) == []
    [hint] = extract_follow_hints(analysis, ["solar subsidy"])
    assert hint.url == "https://daily.example/news/2024/solar"
    assert hint.title == "Council backs solar subsidies for households"
    assert hint.page_url == "https://daily.example/"


def test_hub_links_whose_text_holds_a_term_give_follow_hints() -> None:
    analysis = analyze(article_page(), URL)
    [hint] = extract_follow_hints(analysis, ["bridge"])
    assert hint.url == "https://daily.example/news/2024/new-bridge-opens"
    assert hint.area_path == "html/body/main[1]/aside[1]/ul[1]"


# Title heuristics, in order: heading, rare style, first sentence.


def page_with_lead(lead: str, *, para_class: str = "para", extra_kicker_uses: int = 0) -> str:
    body = "".join(f'<p class="{para_class}">{text}</p>' for text in PARAGRAPHS)
    others = "".join('<span class="kicker">x</span>' for _ in range(extra_kicker_uses))
    return f'<html><body><div class="story">{lead}<div class="text">{body}</div></div>{others}</body></html>'


def test_the_title_is_a_heading_near_the_text() -> None:
    analysis = analyze(page_with_lead("<h2>Solar plan approved</h2>"), URL)
    assert main_area(analysis).title == "Solar plan approved"


def test_a_heading_wins_over_a_rarely_styled_short_text() -> None:
    lead = '<p class="kicker">Energy desk</p><h3>Solar plan approved</h3>'
    assert main_area(analyze(page_with_lead(lead), URL)).title == "Solar plan approved"


def test_without_a_heading_the_title_is_a_short_text_in_a_rare_style() -> None:
    lead = '<p class="kicker">Solar plan approved by council</p>'
    assert main_area(analyze(page_with_lead(lead), URL)).title == "Solar plan approved by council"


def test_an_inline_style_used_once_counts_as_rare() -> None:
    lead = '<div style="font-weight:bold;font-size:22px">Solar plan approved</div>'
    assert main_area(analyze(page_with_lead(lead), URL)).title == "Solar plan approved"


def test_a_style_used_often_is_no_title_hint_and_the_first_sentence_is_used() -> None:
    lead = '<p class="kicker">Solar plan approved by council</p>'
    analysis = analyze(page_with_lead(lead, extra_kicker_uses=3), URL)
    assert main_area(analysis).title == PARAGRAPHS[0]


def test_a_short_text_of_more_than_ten_words_is_no_title() -> None:
    lead = '<p class="kicker">One two three four five six seven eight nine ten eleven</p>'
    assert main_area(analyze(page_with_lead(lead), URL)).title == PARAGRAPHS[0]


def test_without_any_hint_the_title_is_the_first_sentence() -> None:
    analysis = analyze(page_with_lead(""), URL)
    assert main_area(analysis).title == PARAGRAPHS[0]


# A Greek page: language, stems, sentences and title.

GREEK = [
    "Το δημοτικό συμβούλιο ενέκρινε τη Δευτέρα ένα νέο σχέδιο που δίνει επιδοτήσεις για "
    "ηλιακά πάνελ στα νοικοκυριά της πόλης μέχρι το τέλος του επόμενου έτους.",
    "Ποιος θα πληρώσει το κόστος; Οι αρμόδιοι είπαν ότι το πρόγραμμα θα κοστίσει περίπου "
    "12 εκατομμύρια ευρώ και θα καλυφθεί από τις μεγάλες εταιρείες ενέργειας.",
    "Οι επικριτές υποστηρίζουν ότι η επιδότηση βοηθά κυρίως τους ιδιοκτήτες μεγάλων σπιτιών "
    "και όχι τους ενοικιαστές μικρών διαμερισμάτων της περιοχής.",
    "Ο δήμαρχος απάντησε ότι μια δεύτερη φάση θα καλύψει πολυκατοικίες και σχολεία μέσα στο "
    "επόμενο έτος, και ότι οι λεπτομέρειες θα ανακοινωθούν την άνοιξη.",
]
GREEK_TITLE = "Επιδοτήσεις για ηλιακή ενέργεια"


@pytest.mark.parametrize("lang", ["el", ""])
def test_a_greek_page_is_greek_by_its_lang_attribute_or_its_text(lang: str) -> None:
    html = article_page(GREEK_TITLE, GREEK, lang=lang)
    assert analyze(html, URL).language == "el"


def test_greek_terms_match_by_greek_stems_and_sentences_end_at_the_greek_question_mark() -> None:
    analysis = analyze(article_page(GREEK_TITLE, GREEK, lang="el"), URL)
    assert analysis.kind == "information"
    assert analysis.title == GREEK_TITLE
    clips = extract_clips(analysis, ["επιδότηση"])
    assert [clip.matched for clip in clips] == ["επιδοτήσεις", "επιδότηση"]
    assert all(clip.title == GREEK_TITLE for clip in clips)
    cost = extract_clips(analysis, ["κόστος"])[0]
    assert cost.matched == "κόστος"
    assert cost.summary == (
        GREEK[0] + " Ποιος θα πληρώσει το κόστος; " + GREEK[1].split("; ", 1)[1]
    )

"""main_text on the kinds of page an article extractor meets and tends to get wrong.

Each page is small real HTML of one pattern: bodies that are tables or lists, articles cut
by boxes, other scripts, landing pages, hub pages with some text, short items at the edges
of an article, the wrong block winning, and invisible characters.
"""

from __future__ import annotations

from analyzer import analyze
from tests.analyzer.pages import FOOTER, MENU, PARAGRAPHS, RELATED

URL = "https://daily.example/news/2024/page"


def page(main: str, *, lang: str = "en", before: str = "", after: str = "") -> str:
    """Return a page with the site's menu and footer around the given main element."""
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>Page</title>'
        f"</head><body>{before}{MENU}<main>{main}</main>{RELATED}{FOOTER}{after}</body></html>"
    )


def paragraphs(texts: list[str]) -> str:
    return "".join(f"<p>{text}</p>" for text in texts)


# Bodies that are mostly a table or a list.

STANDINGS = [
    ("1", "Rovers", "12", "30"),
    ("2", "United", "12", "27"),
    ("3", "Athletic", "12", "24"),
    ("4", "Wanderers", "12", "20"),
    ("5", "Harriers", "12", "17"),
    ("6", "Albion", "12", "12"),
]


def test_a_standings_table_that_is_the_whole_body_is_the_main_text() -> None:
    rows = "".join(
        f"<tr><td>{rank}</td><td>{team}</td><td>{played}</td><td>{points}</td></tr>"
        for rank, team, played, points in STANDINGS
    )
    main = (
        "<article><h1>League table</h1><p>Updated after round 12.</p>"
        "<table><thead><tr><th>Pos</th><th>Club</th><th>Played</th><th>Points</th></tr>"
        f"</thead><tbody>{rows}</tbody></table></article>"
    )
    text = analyze(page(main), URL).main_text
    for _, team, _, _ in STANDINGS:
        assert team in text
    assert "Harriers\n\n12\n\n17" in text
    assert "Privacy" not in text


def test_a_calendar_that_is_a_list_of_dates_is_the_main_text() -> None:
    events = [
        "3 May: Spring market on the town square",
        "10 May: Choir concert in St. Mary's church",
        "17 May: Guided walk along the old walls",
        "24 May: Open day at the fire station",
        "31 May: Night of the museums",
    ]
    items = "".join(f"<li>{event}</li>" for event in events)
    main = f"<article><h1>Events in May</h1><ul class='events'>{items}</ul></article>"
    text = analyze(page(main), URL).main_text
    assert text.split("\n\n") == events


# Bodies cut into several blocks by media, ads, pull quotes and newsletter forms.


def test_an_article_cut_by_a_newsletter_box_an_ad_and_a_video_keeps_both_parts() -> None:
    interruption = (
        '<div class="newsletter-box"><h3>Our morning briefing</h3>'
        "<p>Get the most important news of the day in your inbox every morning, free of "
        "charge and easy to cancel at any time.</p><form><label>Email address</label>"
        "<input name=email><button>Sign me up</button></form></div>"
        '<div class="ad-container"><span>Advertisement</span></div>'
        '<figure class="video"><video src="/v.mp4"></video><figcaption>Watch: the council '
        "debate on the new solar subsidies from Monday evening, in full.</figcaption></figure>"
        '<aside class="pull-quote"><p>"This is only the first step," the mayor said on '
        "Monday evening after the vote.</p></aside>"
    )
    main = (
        "<article><h1>Council backs solar subsidies</h1><div class='body'>"
        f"{paragraphs(PARAGRAPHS[:3])}{interruption}{paragraphs(PARAGRAPHS[3:4])}</div>"
        "</article>"
    )
    text = analyze(page(main), URL).main_text
    assert text == "\n\n".join(PARAGRAPHS[:4])


def test_a_list_of_other_articles_still_ends_the_article() -> None:
    related = (
        "<div class='more'><ul>"
        '<li><a href="/a">Rail strike ends after three days of talks</a></li>'
        '<li><a href="/b">New bridge opens to traffic across the river</a></li>'
        '<li><a href="/c">Schools reopen after the winter storm damage</a></li>'
        "</ul></div>"
    )
    promo = "Win two tickets for the summer festival: send us your best photo of the city."
    main = (
        "<article><h1>Council backs solar subsidies</h1><div class='body'>"
        f"{paragraphs(PARAGRAPHS)}{related}<p>{promo}</p></div></article>"
    )
    text = analyze(page(main), URL).main_text
    assert text == "\n\n".join(PARAGRAPHS)


# Other languages and scripts.


def test_a_hindi_article_of_one_sentence_paragraphs_is_prose() -> None:
    sentences = [
        "नगर परिषद ने सोमवार को घरों के लिए सौर सब्सिडी की नई योजना को मंज़ूरी दी।",
        "अधिकारियों ने कहा कि इस कार्यक्रम पर लगभग बारह करोड़ रुपये खर्च होंगे।",
        "आलोचकों का कहना है कि इससे ज़्यादातर बड़े घरों के मालिकों को ही लाभ मिलेगा।",
        "महापौर ने कहा कि दूसरे चरण में अपार्टमेंट इमारतें और स्कूल भी शामिल होंगे।",
    ]
    main = f"<article><h1>सौर सब्सिडी</h1>{paragraphs(sentences)}</article>"
    text = analyze(page(main, lang="hi"), URL).main_text
    assert text == "\n\n".join(sentences)


def test_an_advertisement_label_in_portuguese_is_not_article_text() -> None:
    texts = [
        "A câmara municipal aprovou na segunda-feira um novo plano que dá às famílias "
        "subsídios para painéis solares instalados até ao final do próximo ano.",
        "Os responsáveis disseram que o programa vai custar cerca de doze milhões de euros "
        "e será pago por uma taxa sobre as grandes empresas de energia da região.",
    ]
    main = (
        f"<article><h1>Subsídios solares</h1><p>{texts[0]}</p><div><span>Publicidade</span>"
        f"</div><p>{texts[1]}</p></article>"
    )
    text = analyze(page(main, lang="pt"), URL).main_text
    assert text == "\n\n".join(texts)


def test_one_sentence_paragraphs_of_few_long_words_are_prose() -> None:
    german = [
        "Die Stadtverordnetenversammlung beschließt umfangreiche Solarförderprogramme für Hauseigentümer.",
        "Verbraucherschützer kritisieren unzureichende Unterstützungsmaßnahmen für Mieterhaushalte.",
        "Energieversorgungsunternehmen finanzieren Investitionszuschüsse über Sonderabgaben.",
    ]
    russian = [
        "Правительство утвердило масштабную программу поддержки энергетических предприятий.",
        "Экономисты предупреждают о значительном увеличении государственных расходов.",
        "Региональные администрации получат дополнительные финансовые полномочия.",
    ]
    for lang, sentences in (("de", german), ("ru", russian)):
        main = f"<article><h1>Solar</h1>{paragraphs(sentences)}</article>"
        text = analyze(page(main, lang=lang), URL).main_text
        assert text == "\n\n".join(sentences)


# Short pages whose content is one area among similar ones.


def test_a_landing_page_of_short_sections_keeps_every_section() -> None:
    sections = [
        ("Web design", "We build fast and accessible websites for small firms."),
        ("Hosting", "Your site runs on our own servers in Frankfurt."),
        ("Support", "Call us on weekdays from eight to six."),
    ]
    blocks = "".join(
        f"<section class='service'><h2>{title}</h2><p>{text}</p></section>"
        for title, text in sections
    )
    main = f"<h1>Example Web Studio</h1><div class='services'>{blocks}</div>"
    text = analyze(page(main), "https://studio.example/").main_text
    for title, line in sections:
        assert title in text
        assert line in text


# Pages classed as hubs keep their main text.


def test_a_hub_page_with_an_informational_area_has_that_area_as_main_text() -> None:
    links = "".join(
        f'<li><a href="/club/team-{n}">Team {n} fixtures and results</a></li>' for n in range(40)
    )
    info = (
        "<div class='club-info'><h2>Visit us</h2>"
        "<div>Sports ground Am Hang 4<br>12345 Example Town<br>Training Tuesday and Thursday "
        "from 6 pm<br>Members pay 8 euros a month<br>Guests are always welcome</div></div>"
    )
    html = (
        "<!doctype html><html><body><nav><ul>"
        f"{links}</ul></nav><main>{info}</main>{FOOTER}</body></html>"
    )
    analysis = analyze(html, "https://club.example/")
    assert analysis.kind == "hub"
    assert "Training Tuesday and Thursday from 6 pm" in analysis.main_text
    assert "Members pay 8 euros a month" in analysis.main_text


# Short items at the edges of an article.


def test_the_lead_paragraph_in_the_article_header_is_kept_and_the_headline_is_not() -> None:
    lead = "Households will get money for panels installed before the end of next year."
    main = (
        "<article><header><h1>Council backs solar subsidies</h1>"
        f'<p class="lead">{lead}</p><p class="date">3 March 2024</p></header>'
        f"<div class='story'><div class='text'>{paragraphs(PARAGRAPHS)}</div></div></article>"
    )
    text = analyze(page(main), URL).main_text
    assert text == "\n\n".join([lead, *PARAGRAPHS])


def test_a_closing_list_of_short_items_is_kept() -> None:
    items = ["Panels on roofs", "Batteries in cellars", "Heat pumps in gardens"]
    main = (
        f"<article><h1>Solar</h1><div class='body'>{paragraphs(PARAGRAPHS[:3])}"
        f"<p>The subsidy covers:</p><ul>{''.join(f'<li>{i}</li>' for i in items)}</ul>"
        "</div></article>"
    )
    text = analyze(page(main), URL).main_text
    assert text.endswith("\n\n".join(items))


def test_a_recipe_keeps_its_ingredients_times_and_nutrition_lines() -> None:
    ingredients = ["250 g flour", "2 eggs", "500 ml milk", "1 pinch of salt"]
    steps = [
        "Whisk the flour, the eggs and half of the milk into a smooth batter without lumps.",
        "Stir in the rest of the milk and the salt, then let the batter rest for half an hour.",
        "Fry thin pancakes in a hot buttered pan until golden on both sides, and serve warm.",
    ]
    main = (
        "<article class='recipe'><h1>Pancakes</h1>"
        "<div class='recipe-meta'><span>Prep time 10 min</span><span> · Cook time 20 min</span>"
        "</div><h2>Ingredients</h2><table class='ingredients'>"
        + "".join(f"<tr><td>{item}</td></tr>" for item in ingredients)
        + f"</table><h2>Method</h2><div class='steps'>{paragraphs(steps)}</div>"
        "<div class='nutrition'>Per pancake: 120 kcal, 4 g protein, 3 g fat</div></article>"
    )
    text = analyze(page(main), URL).main_text
    for line in [*ingredients, *steps, "Per pancake: 120 kcal, 4 g protein, 3 g fat"]:
        assert line in text


def test_the_first_and_last_lines_of_a_transcript_are_kept() -> None:
    lines = [
        "HOST: Good morning.",
        "MAYOR: Thank you for having me on the programme this morning, it is a pleasure.",
        "HOST: Why did the council decide to pay for solar panels on private houses?",
        "MAYOR: Because every roof we cover now saves the city money for twenty years.",
        "HOST: Thank you.",
    ]
    main = f"<article><h1>Interview</h1><div class='transcript'>{paragraphs(lines)}</div></article>"
    text = analyze(page(main), URL).main_text
    assert text == "\n\n".join(lines)


# The wrong block winning.


def test_a_cookie_banner_longer_than_the_article_does_not_win() -> None:
    banner = (
        '<div id="cmplz-cookiebanner-container"><div class="cmplz-message">We use '
        "technologies such as cookies to store and access device information. We do this to "
        "improve the browsing experience and to show personalised advertising. Consenting to "
        "these technologies will allow us to process data such as browsing behaviour or "
        "unique IDs on this site. Not consenting or withdrawing consent may adversely affect "
        "certain features and functions of the site, and we will remember your choice for a "
        "year unless you change it in the privacy settings.</div></div>"
    )
    main = f"<article><h1>Solar</h1>{paragraphs(PARAGRAPHS[:2])}</article>"
    text = analyze(page(main, after=banner), URL).main_text
    assert text == "\n\n".join(PARAGRAPHS[:2])


def test_the_abstract_is_kept_beside_a_longer_reference_list() -> None:
    abstract = [
        "Purpose of the review: to summarise the drugs used in rheumatology that are known "
        "to cause severe skin reactions, and how often each of them does.",
        "Recent findings: allopurinol, sulfasalazine and minocycline carry the highest risk, "
        "followed by strontium ranelate and dapsone in most of the published case series.",
    ]
    references = "".join(
        f"<li>Author{n} A, Writer{n} B, Scholar{n} C. A study of drug reactions in patient "
        f"group number {n} treated in a rheumatology clinic. J Rheumatol. 2019;{n}:1-9.</li>"
        for n in range(12)
    )
    main = (
        "<article><h1>Drug reactions in rheumatology</h1><section class='abstract'>"
        f"<h2>Abstract</h2>{paragraphs(abstract)}</section>"
        f"<section class='references'><h2>References</h2><ol>{references}</ol></section>"
        "</article>"
    )
    text = analyze(page(main), URL).main_text
    assert text.startswith("\n\n".join(["Abstract", *abstract]))
    assert "Author11 A, Writer11 B" in text


def test_an_about_the_author_box_after_the_article_is_left_out() -> None:
    bio = (
        "Ann Writer has covered the city council for the Daily Example since 2015 and "
        "writes about energy, housing and transport."
    )
    main = (
        f"<article><h1>Solar</h1><div class='body'>{paragraphs(PARAGRAPHS)}"
        f"<div class='author-box'><p>{bio}</p></div></div></article>"
    )
    text = analyze(page(main), URL).main_text
    assert text == "\n\n".join(PARAGRAPHS)


def test_an_article_inside_a_wrapper_named_like_a_sidebar_is_found() -> None:
    main = (
        '<div class="sticky-sidebar"><article class="post">'
        f"<h1>Solar</h1><div class='entry'>{paragraphs(PARAGRAPHS[:3])}</div></article>"
        '<div class="widget"><p>Short note about the blog and its two authors.</p></div></div>'
    )
    about = (
        "<div class='site-info'><p>The Daily Example is an independent local newspaper, "
        "owned by its readers since 1998 and published every weekday morning, with a weekend "
        "magazine on Saturdays and a podcast about the city on Sundays, and it welcomes "
        "letters from readers on any subject that matters to the town and its people.</p></div>"
    )
    text = analyze(page(main, after=f"<footer>{about}</footer>"), URL).main_text
    assert text == "\n\n".join(PARAGRAPHS[:3])


def test_a_navigation_box_of_links_between_separators_is_not_prose() -> None:
    entries = [
        f'<a href="/wiki/s{n}">Spell {n}</a>' + (f" (Charm{n})" if n % 2 else "") for n in range(60)
    ]
    navbox = f"<div class='navbox'><div>{' · '.join(entries)}</div></div>"
    main = (
        f"<article><h1>Spell</h1><div class='body'>{paragraphs(PARAGRAPHS)}{navbox}</div></article>"
    )
    text = analyze(page(main), URL).main_text
    assert text == "\n\n".join(PARAGRAPHS)


# Invisible characters.


def test_soft_hyphens_and_zero_width_spaces_are_not_text() -> None:
    main = (
        "<article><h1>Staatsangehörige</h1><p>Deutschen Staats&shy;ange\u00adhöri&shy;gen "
        "wird empfohlen, sich unabhängig vom Land in die Krisen\u200bvorsorge\u00adliste "
        "einzutragen, bevor sie eine Reise antreten.</p></article>"
    )
    analysis = analyze(page(main, lang="de"), URL)
    assert analysis.main_text == (
        "Deutschen Staatsangehörigen wird empfohlen, sich unabhängig vom Land in die "
        "Krisenvorsorgeliste einzutragen, bevor sie eine Reise antreten."
    )
    assert "\u00ad" not in analysis.text

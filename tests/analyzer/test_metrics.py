"""T, L, Ltext, Ctext, IV, HV, LTR and LAR on a page small enough to compute by hand."""

from __future__ import annotations

import pytest

from analyzer.areas import characterize
from analyzer.model import Thresholds
from analyzer.tree import parse
from analyzer.walk import Node, Page, walk

# Non-space characters: "Alpha beta gamma." = 5 + 4 + 6 = 15; "One two" = 6;
# "Three" = 5 (in a link); "four" = 4 (outside).
PAGE = """<html><body><div id="news">
<p>Alpha beta gamma.</p>
<ul>
  <li><a href="/a">One two</a></li>
  <li><a href="/b">Three</a> four</li>
</ul>
</div></body></html>"""


def node(page: Page, path: str) -> Node:
    """Return the node at a path like "body/div/ul/li[2]" (position among same names)."""
    current = page.nodes[0]
    for step in path.split("/"):
        name, _, rest = step.partition("[")
        position = int(rest.rstrip("]")) if rest else 1
        current = next(
            candidate
            for candidate in page.nodes
            if candidate.parent is current and candidate.name == name and candidate.nth == position
        )
    return current


@pytest.fixture(scope="module")
def page() -> Page:
    return walk(parse(PAGE))


def test_a_paragraph_has_its_text_as_iv_and_no_links(page: Page) -> None:
    p = node(page, "body/div/p")
    assert (p.text, p.link_text, p.links, p.iv, p.hv) == (15, 0, 0, 15, 0)


def test_a_link_counts_one_in_hv_and_its_text_as_link_text(page: Page) -> None:
    a = node(page, "body/div/ul/li[2]/a")
    assert (a.text, a.link_text, a.links, a.iv, a.hv) == (5, 5, 1, 5, 1)


def test_list_items_double_the_sum_of_their_children(page: Page) -> None:
    assert node(page, "body/div/ul/li[1]").iv == 2 * 6
    assert node(page, "body/div/ul/li[2]").iv == 2 * (5 + 4)


def test_the_list_doubles_again_and_sums_links(page: Page) -> None:
    ul = node(page, "body/div/ul")
    assert ul.iv == 2 * (12 + 18)
    assert (ul.text, ul.link_text, ul.links, ul.hv) == (15, 11, 2, 2)


def test_the_container_adds_without_weight(page: Page) -> None:
    div = node(page, "body/div")
    assert div.iv == 15 + 60
    assert (div.text, div.link_text, div.clean_text, div.links, div.hv) == (30, 11, 19, 2, 2)


def test_every_node_has_ltr_and_lar(page: Page) -> None:
    div = node(page, "body/div")
    assert (div.ltr, div.lar) == (pytest.approx(19 / 11), pytest.approx(2 / 11))
    paragraph = node(page, "body/div/p")
    assert (paragraph.ltr, paragraph.lar) == (15.0, 0.0)


def test_ltr_and_lar_of_an_area_are_ctext_and_links_over_ltext() -> None:
    page = walk(parse(PAGE))
    [area] = characterize(page, Thresholds(iv=50, hv=10))
    assert area.node.name == "div"
    assert area.ltr == pytest.approx(19 / 11)
    assert area.lar == pytest.approx(2 / 11)


def test_ltr_and_lar_count_ltext_as_one_when_there_is_no_link_text() -> None:
    page = walk(parse(PAGE))
    [paragraph] = characterize(page, Thresholds(iv=10, hv=100))
    assert paragraph.node.name == "p"
    assert (paragraph.ltr, paragraph.lar) == (15.0, 0.0)
    images = walk(parse('<body><div><a href="1"><img></a><a href="2"></a><a href="3"></a></div>'))
    [links] = characterize(images, Thresholds(iv=10, hv=2))
    assert links.kind == "hub"
    assert (links.ltr, links.lar) == (0.0, 3.0)


def test_script_style_and_comments_carry_no_text() -> None:
    page = walk(
        parse(
            "<body><div><script>var secret = 1;</script><style>p{}</style>"
            "<!-- note --><noscript>x</noscript><template>t</template>"
            "<svg><text>s</text></svg><p>Seen</p></div></body>"
        )
    )
    assert node(page, "body/div").text == 4
    assert [block.text for block in page.blocks] == ["Seen"]

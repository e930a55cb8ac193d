"""Rendering decided per page: shells, inline state, "Load more", script lists and menus."""

from __future__ import annotations

from crawler.render.shell import (
    INLINE_STATE,
    LOAD_MORE,
    SCRIPT_LIST,
    SCRIPT_MENU,
    SHELL,
    RenderMemory,
    render_reason,
)

TEXT = "<p>" + "The harbour council met to discuss the ferry timetable. " * 8 + "</p>"


def page(body: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


def test_an_article_with_scripts_but_its_text_served_needs_no_browser():
    assert render_reason(page(TEXT + "<script>track()</script>")) == ("", "")
    assert render_reason(page(TEXT)) == ("", "")  # no script, nothing to build


def test_a_script_shell_and_a_page_made_from_inline_state_need_the_browser():
    assert render_reason(page('<div id="app"></div><script src="/app.js"></script>'))[0] == SHELL
    state = '<script id="__NEXT_DATA__" type="application/json">' + '{"a": 1}' * 400 + "</script>"
    assert render_reason(page(TEXT + state))[0] == INLINE_STATE


def test_a_load_more_button_and_an_empty_list_with_a_source_need_the_browser():
    more = TEXT + '<ul id="list"><li>One</li></ul><button type="button">Load more</button>'
    assert render_reason(page(more + "<script src=/l.js></script>"))[0] == LOAD_MORE
    listed = TEXT + '<ul data-api="/api/stories"></ul><script src="/l.js"></script>'
    assert render_reason(page(listed))[0] == SCRIPT_LIST


def test_a_script_menu_is_rendered_once_per_run_then_left_to_the_first_rendering():
    menu = '<nav><ul><li><a href="/">Home</a></li></ul><div id="more-menu"></div></nav>'
    html = page(menu + TEXT, '<script src="/menu.js"></script>')
    assert render_reason(html)[0] == SCRIPT_MENU
    memory = RenderMemory()
    assert memory.decide(html) == SCRIPT_MENU
    assert memory.decide(html.replace("ferry", "tram")) == ""  # the same menu, another page
    other = html.replace('id="more-menu"', 'id="desk-menu"')
    assert memory.decide(other) == SCRIPT_MENU  # another menu
    shell = page('<div id="app"></div><script src="/app.js"></script>')
    assert memory.decide(shell) == memory.decide(shell) == SHELL  # every shell, every time


def test_an_empty_list_named_as_one_outside_the_menus_needs_the_browser():
    listed = TEXT + '<div class="content"><ul id="stories"></ul></div><script src="/l.js"></script>'
    assert render_reason(page(listed))[0] == SCRIPT_LIST
    footer = TEXT + '<footer><ul class="link-list"></ul></footer><script src="/l.js"></script>'
    assert render_reason(page(footer)) == ("", "")

"""Each worker's index follows the database list by list, and shares compiled lines."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import cache

from clipping.matching import CompiledTerm, current_index, refresh_index
from clipping.matching.lines import COMPILE_VERSION, line_cache
from clipping.matching.live import SharedIndex, _line_key, lists_version
from clipping.matching.resolution import resolution
from clipping.matching.shared import resolution_entry
from clipping.models import KeywordList

pytestmark = pytest.mark.django_db


def make_list(owner, terms: str, **extra: object) -> KeywordList:
    return KeywordList.objects.create(
        owner=owner, name=f"List {KeywordList.objects.count()}", terms=terms, **extra
    )


def test_a_refresh_adds_new_lists_and_changes_edited_ones(alice, bob) -> None:
    shared = SharedIndex()
    elections = make_list(alice, "election", use_synonyms=False)
    assert shared.refresh() == (1, 0)
    assert shared.index.match("Election day.").keys() == {elections.id}

    budgets = make_list(bob, "budget", use_synonyms=False)
    elections.terms = "referendum"
    elections.save()
    assert shared.refresh() == (2, 0)
    assert shared.index.match("Election day, budget day.").keys() == {budgets.id}
    assert shared.index.match("A referendum.").keys() == {elections.id}


def test_a_refresh_without_changes_compiles_nothing(alice) -> None:
    shared = SharedIndex()
    make_list(alice, "election")
    shared.refresh()
    version = shared.index.version
    assert shared.refresh() == (0, 0)
    assert shared.index.version == version


def test_deactivated_deleted_and_cascaded_lists_leave_the_index(alice, bob, charlie) -> None:
    shared = SharedIndex()
    paused = make_list(alice, "election")
    deleted = make_list(bob, "election")
    cascaded = make_list(charlie, "election")
    kept = make_list(alice, "election day")
    shared.refresh()
    assert len(shared.index) == 4

    paused.active = False
    paused.save()
    deleted.delete()
    charlie.delete()  # the account goes, and its lists with it
    assert shared.refresh() == (0, 3)
    assert shared.index.list_ids() == {kept.id}
    assert cascaded.id not in shared.index

    paused.active = True
    paused.save()
    assert shared.refresh() == (1, 0)
    assert shared.index.list_ids() == {kept.id, paused.id}


def test_stored_text_that_no_longer_parses_matches_nothing_and_is_logged(alice, caplog) -> None:
    shared = SharedIndex()
    good = make_list(alice, "election")
    broken = make_list(alice, 'election\n"unclosed')  # written past the form
    with caplog.at_level(logging.WARNING, logger="clipping.matching.live"):
        shared.refresh()
    assert shared.index.list_ids() == {good.id}
    assert f"Keyword list {broken.id} does not parse" in caplog.text
    assert "Line 2: the quote is not closed." in caplog.text

    broken.terms = "election"
    broken.save()
    shared.refresh()
    assert shared.index.list_ids() == {good.id, broken.id}


def test_compiled_lines_are_shared_with_other_workers(alice) -> None:
    for line in ("Election", "-football"):  # compiled here by an earlier test: not shared again
        line_cache("en", False).pop(line, None)
    make_list(alice, "Election\n-football", use_synonyms=False)
    SharedIndex().refresh()
    shared = cache.get(_line_key("en", False, "Election"))
    assert shared == (0, "Election", (("en", "elect"),), ())  # plain tuples: quick to unpickle
    assert cache.get(_line_key("en", False, "-football"))[0] == 1


def test_a_worker_uses_a_line_another_worker_compiled(alice) -> None:
    # A line no process compiled before, planted as another worker would have shared it.
    line = "zyxwvut"
    line_cache("en", False).pop(line, None)
    planted = (0, line, (("en", "plant"),), ())  # a stem, as keys are
    cache.set(_line_key("en", False, line), planted)
    listed = make_list(alice, line, use_synonyms=False)
    shared = SharedIndex()
    shared.refresh()
    assert shared.index.match("Planted here.").keys() == {listed.id}
    assert shared.index.match("zyxwvut") == {}
    assert line_cache("en", False)[line] == (0, CompiledTerm(line, (("en", "plant"),)))
    assert COMPILE_VERSION >= 3


def test_a_worker_uses_the_synonyms_another_worker_resolved_for_a_list(alice) -> None:
    # As another worker would have shared them: what "car" resolved to in this list, and the
    # line so resolved. This worker reads both and looks nothing up in WordNet.
    text = "car\nzyxwvut planted"
    key = "car\x00planted"
    cache.set(resolution_entry(resolution(text, "en", True)), (key, "zyxwvut planted"))
    cache.set(_line_key("en", True, key), (0, "car", (("en", "car"), ("", "motor")), ("", "x")))
    listed = make_list(alice, text)
    SharedIndex().refresh()
    shared = SharedIndex()
    shared.refresh()
    assert shared.index.match("A motor.").keys() == {listed.id}


def test_a_list_resolution_is_shared_with_other_workers(alice) -> None:
    text = "doctor\nqwertyuiop"
    listed = make_list(alice, text)
    SharedIndex().refresh()
    keys = cache.get(resolution_entry(resolution(text, "en", True)))
    assert keys[0].startswith("doctor\x00")  # and a digest of its synonyms
    assert keys[1] is None  # a line without synonyms is its own key
    assert cache.get(_line_key("en", True, keys[0]))[1] == "doctor"
    assert SharedIndex().refresh() == (1, 0) and listed.id


@pytest.mark.parametrize(
    "planted",
    [
        (0, "zyxwvut"),
        (7, "zyxwvut", (("en", "plant"),), ()),
        (0, "zyxwvut", (), ()),
        (0, "zyxwvut", (("en", "plant"),)),  # the shape before notes
        (0, "zyxwvut", (("en", "plant"),), ("a", "b")),  # a note per key, or none
        "junk",
        None,
        5,
    ],
)
def test_a_malformed_shared_line_is_compiled_here_instead(alice, caplog, planted) -> None:
    line = "zyxwvut"
    line_cache("en", False).pop(line, None)
    cache.set(_line_key("en", False, line), planted)
    listed = make_list(alice, line, use_synonyms=False)
    shared = SharedIndex()
    shared.refresh()
    assert shared.index.match("Zyxwvut here.").keys() == {listed.id}
    assert shared.index.match("Planted here.") == {}
    assert cache.get(_line_key("en", False, line)) == (0, line, (("en", "zyxwvut"),), ())
    assert planted is None or "malformed compiled line" in caplog.text


def test_current_index_refreshes_when_the_interval_has_passed(alice, settings) -> None:
    settings.CLIPPING_INDEX_REFRESH_SECONDS = 0
    first = make_list(alice, "election")
    assert first.id in current_index()
    second = make_list(alice, "budget")
    assert second.id in current_index()


def test_current_index_waits_for_the_interval_unless_forced(alice, settings) -> None:
    settings.CLIPPING_INDEX_REFRESH_SECONDS = 3600
    refresh_index()
    listed = make_list(alice, "election")
    assert listed.id not in current_index()
    refresh_index()
    assert listed.id in current_index()


def test_a_refresh_without_changes_reads_only_the_lists_version(
    alice, django_assert_num_queries
) -> None:
    shared = SharedIndex()
    make_list(alice, "election")
    shared.refresh()
    with django_assert_num_queries(1):
        assert shared.refresh() == (0, 0)


def test_the_lists_version_changes_with_every_kind_of_change(alice, bob) -> None:
    first = make_list(alice, "election")
    second = make_list(bob, "budget")
    changes = [
        lambda: first.save(),  # an edit
        lambda: KeywordList.objects.filter(id=second.id).update(active=False),  # same updated_at
        lambda: KeywordList.objects.filter(id=second.id).update(active=True),
        lambda: second.delete(),
        lambda: make_list(bob, "budget"),
        lambda: bob.delete(),  # the list goes by cascade
    ]
    for change in changes:
        before = lists_version()
        change()
        assert lists_version() != before


def test_a_lists_synonym_switches_reach_the_index_when_saved(alice) -> None:
    listed = make_list(alice, "car", use_synonyms=True)
    shared = SharedIndex()
    shared.refresh()
    assert shared.index.match("A new automobile.").keys() == {listed.id}
    listed.synonym_choices = {"car": {"car|car.n.01|automobile": False}}
    listed.save()
    shared.refresh()
    assert shared.index.match("A new automobile.") == {}
    assert shared.index.match("A new motorcar.").keys() == {listed.id}

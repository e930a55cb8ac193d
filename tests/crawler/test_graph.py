"""The web graph and its link analysis against values worked out by hand."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import sparse

from crawler.strategies.xcrawl.graph import WebGraph, edge_weights, hits, node_weights, pagerank
from crawler.strategies.xcrawl.weights import GraphWeights, Variant


def matrix(n: int, edges: list[tuple[int, int]]) -> sparse.csr_matrix:
    rows, cols = zip(*edges, strict=True) if edges else ((), ())
    return sparse.csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(n, n))


# --- PageRank ---------------------------------------------------------------------------------


def test_pagerank_matches_the_hand_solved_linear_system():
    # 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 0 with c = 0.85 and uniform teleport (0.15 / 3 = 0.05):
    #   x1 = 0.05 + 0.425 x0
    #   x2 = 0.05 + 0.85 (x0 / 2 + x1) = 0.0925 + 0.78625 x0
    #   x0 = 0.05 + 0.85 x2  =>  x0 (1 - 0.6683125) = 0.128625
    x0 = 0.128625 / 0.3316875
    expected = [x0, 0.05 + 0.425 * x0, 0.0925 + 0.78625 * x0]
    ranking = pagerank(matrix(3, [(0, 1), (0, 2), (1, 2), (2, 0)]), damping=0.85, tol=1e-12)
    assert ranking.converged
    assert ranking.scores == pytest.approx(expected, abs=1e-9)
    assert ranking.scores.sum() == pytest.approx(1.0)


def test_topic_sensitive_pagerank_teleports_to_the_topic_pages_only():
    # Same graph, all teleport weight on node 0:
    #   x0 = 0.15 + 0.85 x2, x1 = 0.425 x0, x2 = 0.78625 x0  =>  x0 = 0.15 / 0.3316875
    x0 = 0.15 / 0.3316875
    ranking = pagerank(
        matrix(3, [(0, 1), (0, 2), (1, 2), (2, 0)]),
        teleport=np.array([1.0, 0.0, 0.0]),
        tol=1e-12,
    )
    assert ranking.scores == pytest.approx([x0, 0.425 * x0, 0.78625 * x0], abs=1e-9)


def test_a_dangling_page_hands_its_weight_back_along_the_teleport_vector():
    # 0 -> 1, node 1 has no links:  x0 = 0.075 + 0.85 * x1 / 2, x0 + x1 = 1  =>  x0 = 0.5 / 1.425
    ranking = pagerank(matrix(2, [(0, 1)]), tol=1e-12)
    assert ranking.scores == pytest.approx([0.5 / 1.425, 1 - 0.5 / 1.425], abs=1e-9)


def test_pagerank_stops_at_the_iteration_cap_and_says_so():
    ranking = pagerank(matrix(3, [(0, 1), (1, 2), (2, 0), (0, 2)]), tol=0.0, max_iter=3)
    assert ranking.iterations == 3 and not ranking.converged


def test_a_warm_start_converges_in_fewer_rounds():
    rng = np.random.default_rng(1)
    edges = list({(int(a), int(b)) for a, b in rng.integers(0, 300, (2000, 2)) if a != b})
    cold = pagerank(matrix(300, edges), tol=1e-10)
    warm = pagerank(matrix(300, edges), tol=1e-10, start=cold.scores)
    assert warm.iterations < cold.iterations / 3
    assert warm.scores == pytest.approx(cold.scores, abs=1e-9)


def test_bad_parameters_are_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="damping"):
        pagerank(matrix(2, [(0, 1)]), damping=1.0)
    with pytest.raises(ValueError, match="non-negative"):
        pagerank(matrix(2, [(0, 1)]), teleport=np.array([1.0, -1.0]))


# --- HITS -------------------------------------------------------------------------------------


def test_hits_with_fixed_authorities_reaches_the_hand_derived_fixed_point():
    # H1 -> {A1, A2, X}, H2 -> {A1}; A1 and A2 are authorities (pinned at 1, hub 0).
    # With r = hub(H2) (hub(H1) = 1 after max-normalising) and a = authority(X):
    #   a = hub(H1) / (hub(H1) + hub(H2)) = 1 / (1 + r)     (A1 collects 1 + r, the maximum)
    #   r = 1 / (2 + a)  =>  2r^2 + 2r - 1 = 0  =>  r = (sqrt(3) - 1) / 2, a = sqrt(3) - 1
    h1, h2, a1, a2, x = range(5)
    result = hits(
        matrix(5, [(h1, a1), (h1, a2), (h1, x), (h2, a1)]),
        authorities=np.array([False, False, True, True, False]),
        tol=1e-12,
        max_iter=1000,
    )
    assert result.converged
    assert result.hub == pytest.approx([1, (math.sqrt(3) - 1) / 2, 0, 0, 0], abs=1e-9)
    assert result.authority == pytest.approx([0, 0, 1, 1, math.sqrt(3) - 1], abs=1e-9)


def test_an_authority_never_becomes_a_hub_even_when_it_links_to_authorities():
    result = hits(
        matrix(3, [(0, 1), (1, 0), (2, 0)]),
        authorities=np.array([True, True, False]),
        tol=1e-12,
    )
    assert result.hub == pytest.approx([0, 0, 1])
    assert result.authority == pytest.approx([1, 1, 0])


# --- Node and edge weights --------------------------------------------------------------------


def test_a_node_weight_is_the_mean_of_its_non_zero_weights():
    authority = np.array([1.0, 0.0, 0.0, 0.5])
    hub = np.array([0.0, 0.5, 0.0, 0.0])
    rank = np.array([0.2, 0.4, 0.0, 0.5])
    assert node_weights(authority, hub, rank) == pytest.approx([0.6, 0.45, 0.0, 0.5])
    # The paper's own example: authority 1 and nothing else weighs 1.
    assert node_weights(np.array([1.0]), np.array([0.0]), np.array([0.0])) == pytest.approx([1])


def test_an_edge_weighs_its_source_weight_divided_by_the_source_out_degree():
    weights = edge_weights(matrix(3, [(0, 1), (0, 2), (1, 2)]), np.array([0.6, 0.3, 0.9]))
    assert weights.toarray() == pytest.approx(np.array([[0, 0.3, 0.3], [0, 0, 0.3], [0, 0, 0]]))


# --- The growing graph ------------------------------------------------------------------------


def test_the_incremental_adjacency_equals_a_rebuild_after_random_growth():
    rng = random.Random(7)
    graph = WebGraph()
    reference: dict[str, list[str]] = {}
    for step in range(300):
        url = f"p{rng.randrange(120)}"
        links = [f"p{rng.randrange(150)}" for _ in range(rng.randrange(6))]
        if rng.random() < 0.2:
            graph.add_links(url, links)  # probing adds links to a page
            reference.setdefault(url, [])
            reference[url] += [
                u for u in dict.fromkeys(links) if u != url and u not in reference[url]
            ]
        else:
            graph.add_page(url, links)  # a fetch replaces the page's links
            reference[url] = [u for u in dict.fromkeys(links) if u != url]
        if step % 25 == 0:
            graph.adjacency()
    expected = np.zeros((len(graph), len(graph)))
    for url, links in reference.items():
        for link in links:
            expected[graph.index[url], graph.index[link]] = 1
    assert graph.adjacency().toarray() == pytest.approx(expected)
    assert graph.edge_count == int(expected.sum())


def test_a_page_records_its_visit_and_verdict():
    graph = WebGraph()
    graph.add_page("a", ["b", "c", "a"], accepted=True)
    assert graph.successors(graph.index["a"]) == [graph.index["b"], graph.index["c"]]
    assert graph.visited().tolist() == [True, False, False]
    assert graph.accepted().tolist() == [True, False, False]
    graph.add_page("a", ["b"], accepted=False)
    assert graph.accepted().tolist() == [False, False, False]


# --- xCrawl's weights on a graph --------------------------------------------------------------


def hub_graph() -> WebGraph:
    """home -> {list, other}; list -> {p1, p2, p3, next}; p1, p2 authorities; other -> {q}."""
    graph = WebGraph()
    graph.add_page("home", ["list", "other"])
    graph.add_page("list", ["p1", "p2", "p3", "next"])
    graph.add_page("other", ["q"])
    graph.add_page("p1", ["list"], accepted=True)
    graph.add_page("p2", ["list"], accepted=True)
    return graph


def test_find_hubs_reports_a_list_of_authorities_once():
    graph = hub_graph()
    weights = GraphWeights(graph, variant=Variant.HITS)
    assert weights.find_hubs() == {graph.index["list"]}
    assert weights.find_hubs() == set()  # known already


def test_a_page_linked_from_a_hub_outweighs_one_linked_from_elsewhere_in_every_variant():
    for variant in Variant:
        graph = hub_graph()
        weights = GraphWeights(graph, variant=variant)
        weights.find_hubs()
        w = weights.weights()
        assert w[graph.index["p3"]] > w[graph.index["q"]], variant
        assert w[graph.index["next"]] > w[graph.index["q"]], variant
        assert w[graph.index["p1"]] == pytest.approx(1.0) or variant is not Variant.HITS


def test_hits_only_weights_are_the_mean_of_authority_and_hub():
    graph = hub_graph()
    weights = GraphWeights(graph, variant=Variant.HITS)
    weights.find_hubs()
    w = weights.weights()
    # p3 is linked by the only hub: authority estimate 1 (max-normalised), no hub weight.
    assert w[graph.index["p3"]] == pytest.approx(1.0)
    assert w[graph.index["p1"]] == pytest.approx(1.0)
    # q is linked from no hub: its weight decays to 0, within the iteration's tolerance.
    assert w[graph.index["q"]] == pytest.approx(0.0, abs=weights.tolerance)
    assert w[graph.index["list"]] == pytest.approx(1.0)  # the top hub, rejected as authority


def test_weights_are_recomputed_only_when_the_graph_changed():
    graph = hub_graph()
    weights = GraphWeights(graph)
    first = weights.weights()
    assert weights.weights() is first
    graph.add_page("next", ["p4", "p5"])
    assert weights.weights() is not first
    assert len(weights.weights()) == len(graph)

"""xCrawl focused crawling (Shchekotykhin, Jannach, Friedrich): hubs, authorities, restarts.

Registered strategies (strategy.py): "xcrawl" (HITS + topic-sensitive PageRank, the paper's
best), and for comparison "xcrawl-hits" (HITS only) and "xcrawl-pagerank" (HITS + plain
PageRank).

This package imports nothing: the analysing child (analyzer.isolation), which has no Django,
imports it to run `reading.read_page`.
"""

"""Hidden-web crawling: search every user's keywords through monitored sites' search forms.

HiWE (Raghavan and Garcia-Molina) and deep-web entity pages (He et al.), see PAPERS.md 3-4.

- `forms`: forms as elements, finite domains, labels (`labels`: DOM and visual adjacency);
- `safety`: which forms may be submitted (never login, sign-up, comment, contact, newsletter,
  checkout, or POST without a search signal);
- `lvs`: the Label Value Set table and fuzzy label matching (models in crawler.models.hiddenweb);
- `assignments`: value sets, rankings (fuzzy, average, probabilistic), Smax, alpha;
- `templates`: URL templates with {query} (`find_search_templates(html, url)`);
- `responses`: "no results" signatures learnt from nonsensical probes;
- `secondlevel`, `dedup`: result links, keyword-query filter, URL deduplication;
- `runner`: the pass a crawl run makes (`search_site`), or on its own (`search_now`).
"""

"""Hidden-web crawling: search every user's keywords through monitored sites' search forms.

HiWE (Raghavan and Garcia-Molina) and deep-web entity pages (He et al., "Crawling Deep Web Entity Pages").

The site's search forms themselves (analysis, labels, safety, URL templates, their
`SiteSearch` rows) are `crawler.sitesearch`, shared with xCrawl. Here:

- `lvs`: the Label Value Set table and fuzzy label matching (models in crawler.models.hiddenweb);
- `assignments`: value sets, rankings (fuzzy, average, probabilistic), Smax, alpha, and the
  requests and URL templates they make;
- `responses`: "no results" signatures learnt from nonsensical probes;
- `secondlevel`, `segments`: result links, keyword-query filter, URL deduplication;
- `browser`, `requester`: submissions by HTTP or in the process's Chromium (`crawler.render`);
- `session`, `store`: searching one form, and what is remembered of it;
- `runner`: the run pass each crawl run makes (`search_pass`), or on its own (`search_now`);
- `pageforms`: the page pass searching the forms of the pages a crawl fetches (`forms_pass`).
"""

"""A site's search, as xCrawl and hidden-web crawling both use it (this package imports neither).

- `analysis`: a page's forms as elements with domains and labels (`labels`: DOM and visual);
- `safety`: which forms may be submitted at all;
- `detect`: which form is the site's keyword search;
- `template`: the URL template with its one {query} slot, and the requests it makes;
- `records`: the `SiteSearch` rows (crawler.models.sitesearch) of what was found.
"""

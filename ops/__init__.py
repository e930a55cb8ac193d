"""The operator dashboard: crawl charts per site, live crawl progress, the mail queue and retries."""

"""Every crawler setting (CRAWLER_*, DEEPWEB_*, XCRAWL_*), each default stated once here.

Each is read from Django settings if set there, else from the environment variable of the
same name, else its default; a value that cannot work raises SettingError naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from base.env import Settings, parse_networks, setting

MIB = 1024 * 1024

# The values of crawler.strategies.xcrawl.weights.Variant (a test keeps the two equal).
VARIANTS = ("hits", "hits+pagerank", "hits+tspr")
RANKINGS = ("fuzzy", "average", "probabilistic")


@dataclass(frozen=True)
class CrawlerSettings(Settings):
    """Crawl runs."""

    concurrency: int = setting(
        "CRAWLER_RUN_CONCURRENCY",
        16,
        "fetches in flight in one crawl run (politeness per host is the fetcher's)",
        minimum=1,
    )
    run_seconds: float = setting(
        "CRAWLER_RUN_SECONDS",
        1200.0,
        "wall-clock cap of one crawl run, in seconds (keep it below CELERY_TASK_SOFT_TIME_LIMIT)",
        minimum=0,
    )
    heartbeat_timeout: float = setting(
        "CRAWLER_HEARTBEAT_TIMEOUT",
        300.0,
        "seconds without a heartbeat before another worker takes a run over",
        minimum=5,
    )
    versions_kept: int = setting(
        "CRAWLER_VERSIONS_KEPT",
        10,
        "newest versions per page that keep their body (older ones keep hash and summary)",
        minimum=1,
    )
    max_links_per_page: int = setting(
        "CRAWLER_MAX_LINKS_PER_PAGE", 1000, "links stored per page version", minimum=1
    )


@dataclass(frozen=True)
class FetchSettings(Settings):
    """Fetching and rendering; an unset value keeps the default of FetchPolicy."""

    defaults_of = "crawler.fetch.policy.FetchPolicy"

    user_agent: str | None = setting(
        "CRAWLER_USER_AGENT",
        None,
        "User-Agent: the crawler's name and a contact URL (set your own)",
        kind=str,
    )
    concurrency: int | None = setting(
        "CRAWLER_CONCURRENCY",
        None,
        "fetches in flight in one process over all hosts (one per host at a time)",
        kind=int,
        minimum=1,
    )
    max_body_bytes: int | None = setting(
        "CRAWLER_MAX_BODY_BYTES",
        None,
        "body cap after decompression (bombs are refused)",
        kind=int,
        minimum=1024,
    )
    connect_timeout: float | None = setting(
        "CRAWLER_CONNECT_TIMEOUT", None, "seconds to connect", kind=float, above=0
    )
    read_timeout: float | None = setting(
        "CRAWLER_READ_TIMEOUT",
        None,
        "longest silence between two reads, in seconds",
        kind=float,
        above=0,
    )
    total_timeout: float | None = setting(
        "CRAWLER_TOTAL_TIMEOUT",
        None,
        "seconds for a whole fetch, redirects and trickling servers included",
        kind=float,
        above=0,
    )
    max_redirects: int | None = setting(
        "CRAWLER_MAX_REDIRECTS", None, "redirect hops, each checked again", kind=int, minimum=1
    )
    robots_ttl: float | None = setting(
        "CRAWLER_ROBOTS_TTL", None, "seconds a robots.txt is cached", kind=float, above=0
    )
    retries: int | None = setting(
        "CRAWLER_RETRIES", None, "retries after a 429/503 whose wait is short", kind=int, minimum=0
    )
    max_retry_wait: float | None = setting(
        "CRAWLER_MAX_RETRY_WAIT",
        None,
        "longest Retry-After honoured, in seconds (longer: the site backs off)",
        kind=float,
        above=0,
    )
    max_crawl_delay: float | None = setting(
        "CRAWLER_MAX_CRAWL_DELAY", None, "cap on a robots.txt Crawl-delay", kind=float, above=0
    )
    host_lease: float | None = setting(
        "CRAWLER_HOST_LEASE",
        None,
        "seconds a worker's turn with a host outlives the worker if it dies mid-request",
        kind=float,
        minimum=1,
    )
    chromium_path: str | None = setting(
        "CRAWLER_CHROMIUM_PATH", None, "the browser for JavaScript pages", kind=str
    )
    render_timeout: float | None = setting(
        "CRAWLER_RENDER_TIMEOUT", None, "seconds per rendered page", kind=float, above=0
    )
    render_concurrency: int | None = setting(
        "CRAWLER_RENDER_CONCURRENCY",
        None,
        "pages rendered at once per process",
        kind=int,
        minimum=1,
    )

    def given(self) -> dict[str, Any]:
        """Return the values set by the operator, by fetch policy field."""
        return {
            name: getattr(self, name)
            for name, _ in self.declared()
            if getattr(self, name) is not None
        }


@dataclass(frozen=True)
class AnalysisSettings(Settings):
    """Page analysis in the workers: in a separate process, under caps (analyzer.isolation)."""

    memory_mb: int = setting(
        "CRAWLER_ANALYSIS_MEMORY_MB",
        1024,
        "address space of the process that analyses pages (and reads them for xCrawl), in "
        "MiB; a page needing more is refused (0: no cap)",
        minimum=0,
    )
    seconds: float = setting(
        "CRAWLER_ANALYSIS_SECONDS",
        20.0,
        "wall-clock cap on analysing (and reading) one page, in seconds; a slower page is "
        "refused (0: no cap; with both caps 0 pages are analysed in the worker itself)",
        minimum=0,
    )
    processes: int = setting(
        "CRAWLER_ANALYSIS_PROCESSES",
        2,
        "analysing processes of one crawl run: pages are analysed side by side as they arrive "
        "while the run stores earlier ones (set it to the worker's cores)",
        minimum=1,
    )


@dataclass(frozen=True)
class DeepWebSettings(Settings):
    """Hidden web: site search forms searched with the users' keywords."""

    enabled: bool = setting(
        "DEEPWEB_ENABLED", True, "search each site's search forms during its crawl runs"
    )
    label_threshold: float = setting(
        "DEEPWEB_LABEL_THRESHOLD",
        0.8,
        "least rapidfuzz similarity (0-1) between a form label and a label of the LVS table",
        minimum=0,
        maximum=1,
    )
    ranking: str = setting(
        "DEEPWEB_RANKING",
        "fuzzy",
        "value-assignment ranking: fuzzy (the least), average or probabilistic",
        choices=RANKINGS,
    )
    smax: int = setting(
        "DEEPWEB_SMAX", 50, "most submissions of one form in one run (HiWE's Smax)", minimum=1
    )
    alpha: int = setting(
        "DEEPWEB_ALPHA",
        1,
        "fewest matched elements a form needs to be submitted (HiWE's alpha)",
        minimum=1,
    )
    empty_threshold: float = setting(
        "DEEPWEB_EMPTY_THRESHOLD",
        0.85,
        'similarity to the "no results" signature that makes a result page empty',
        minimum=0,
        maximum=1,
    )
    dedup_prevalence: float = setting(
        "DEEPWEB_DEDUP_PREVALENCE",
        0.1,
        "URL arguments on more than this share of result links are noise (sort, tracking)",
        minimum=0,
        maximum=1,
    )
    result_depth: int = setting(
        "DEEPWEB_RESULT_DEPTH",
        1,
        "links followed from a result page (HiWE follows depth 1)",
        minimum=0,
    )
    result_pages: int = setting(
        "DEEPWEB_RESULT_PAGES",
        5,
        'pages of one result list walked ("next", page numbers)',
        minimum=1,
    )
    probes: int = setting(
        "DEEPWEB_PROBES", 2, 'nonsense queries sent to learn a form\'s "no results" page', minimum=1
    )
    entity_queries: int = setting(
        "DEEPWEB_ENTITY_QUERIES",
        5,
        "most names searched per form and run from each source: recurring on the site's "
        "articles beside a keyword (LVS values) and on its result pages (entity queries)",
        minimum=0,
    )
    second_level: int = setting(
        "DEEPWEB_SECOND_LEVEL", 100, "most second-level URLs fetched per form per run", minimum=0
    )
    browser_labels: bool = setting(
        "DEEPWEB_BROWSER_LABELS",
        True,
        "lay forms out in Chromium to label fields the DOM leaves bare",
    )
    time_share: float = setting(
        "DEEPWEB_TIME_SHARE",
        0.5,
        "share of CRAWLER_RUN_SECONDS the search pass may use",
        above=0,
        maximum=1,
    )


@dataclass(frozen=True)
class XcrawlSettings(Settings):
    """xCrawl, the focused strategy, with the paper's defaults."""

    restart_probability: float = setting(
        "XCRAWL_RESTART_PROBABILITY",
        0.15,
        "random-walk restart probability (the paper's best; it tried 0.05 to 0.3)",
        above=0,
        below=1,
    )
    max_iterations: int = setting(
        "XCRAWL_MAX_ITERATIONS",
        50,
        "restarts in a row that found no new hub (nor a new authority) before the run stops "
        "(noNewHubsFound)",
        minimum=1,
    )
    variant: str = setting(
        "XCRAWL_VARIANT",
        "hits+tspr",
        "node weights: hits, hits+pagerank or hits+tspr (HITS and topic-sensitive PageRank)",
        choices=VARIANTS,
    )
    damping: float = setting(
        "XCRAWL_DAMPING", 0.85, "PageRank damping factor c", minimum=0, below=1
    )
    tolerance: float = setting(
        "XCRAWL_TOLERANCE",
        1e-6,
        "PageRank / HITS stop: L1 (PageRank) or largest (HITS) change",
        above=0,
    )
    weight_iterations: int = setting(
        "XCRAWL_WEIGHT_ITERATIONS", 50, "PageRank / HITS iteration cap", minimum=1
    )
    hub_threshold: float = setting(
        "XCRAWL_HUB_THRESHOLD",
        0.1,
        "HITS hub weight (divided by the largest) that makes a hub",
        minimum=0,
    )
    hub_min_authorities: int = setting(
        "XCRAWL_HUB_MIN_AUTHORITIES", 2, "known authorities a hub links to at least", minimum=0
    )
    validator_min_score: float = setting(
        "XCRAWL_VALIDATOR_MIN_SCORE",
        2.0,
        "topic weight an authority's informational text needs",
        minimum=0,
    )
    free_moves: int = setting(
        "XCRAWL_FREE_MOVES",
        0,
        "moves over fetched pages to reach a new link; 0: a dead end jumps to the heaviest "
        "unfetched page of the whole graph",
        minimum=0,
    )
    walk_floor: float = setting(
        "XCRAWL_WALK_FLOOR",
        0.8,
        "the walk takes its page's best link only when it is worth this share of the best "
        "page the run knows; else the page is a dead end and the walk restarts (0: the "
        "paper's walk, which always takes the page's best link)",
        minimum=0,
        maximum=1,
    )
    sample_terms: int = setting(
        "XCRAWL_SAMPLE_TERMS",
        30,
        "TF-IDF tokens of the sample documents added to the topic",
        minimum=0,
    )
    search: bool = setting("XCRAWL_SEARCH", True, "run query generation on the site's own search")
    search_query_length: int = setting(
        "XCRAWL_SEARCH_QUERY_LENGTH", 3, "longest generated query, in tokens", minimum=1
    )
    search_results: int = setting(
        "XCRAWL_SEARCH_RESULTS", 10, "first results of each query that are fetched", minimum=0
    )
    search_max_iterations: int = setting(
        "XCRAWL_SEARCH_MAX_ITERATIONS",
        3,
        "queries in a row without a new authority end the search",
        minimum=0,
    )
    search_max_tokens: int = setting(
        "XCRAWL_SEARCH_MAX_TOKENS", 8, "tokens whose hit counts are measured", minimum=0
    )
    search_max_queries: int = setting(
        "XCRAWL_SEARCH_MAX_QUERIES", 12, "queries on the site's search per run at most", minimum=0
    )
    discovery_max_queries: int = setting(
        "XCRAWL_DISCOVERY_MAX_QUERIES",
        30,
        "queries to an external search engine per run at most",
        minimum=0,
    )
    graph_share: float = setting(
        "XCRAWL_GRAPH_SHARE",
        0.15,
        "share of a candidate's value its node weight (HITS, PageRank, TSPR) scales: "
        "evidence value x (1 - g + g x weight) (0: evidence only)",
        minimum=0,
        maximum=1,
    )
    explore_share: float = setting(
        "XCRAWL_EXPLORE_SHARE",
        0.0,
        "share of fetches taken in the frontier's breadth-first order besides the opening "
        "(which reads the seeds' newest items first)",
        minimum=0,
        below=1,
    )
    opening_pages: int = setting(
        "XCRAWL_OPENING_PAGES",
        2,
        "pages of a seed's own list (a blog's newest posts) read first with their items, as "
        "breadth-first reads them; the next pages' items once the first's validate (0: off)",
        minimum=0,
    )
    download_probe: int = setting(
        "XCRAWL_DOWNLOAD_PROBE",
        4,
        "items of a hub's subtree DownloadAllAuthorities fetches before judging it topical "
        "(and the most it has in flight)",
        minimum=1,
    )
    download_min_share: float = setting(
        "XCRAWL_DOWNLOAD_MIN_SHARE",
        0.35,
        "validated share of a hub subtree's probe below which its download stops (lower on a "
        "site where few pages validate: twice the run's share suffices)",
        minimum=0,
        maximum=1,
    )
    probe: bool = setting(
        "XCRAWL_PROBE", True, "probe links (hover, click) on pages of sites that need a browser"
    )
    probe_pages: int = setting("XCRAWL_PROBE_PAGES", 10, "pages probed per run at most", minimum=0)
    probe_states: int = setting(
        "XCRAWL_PROBE_STATES", 12, "page states explored per probed page", minimum=0
    )
    probe_seconds: float = setting(
        "XCRAWL_PROBE_SECONDS", 30.0, "time cap per probed page, in seconds", above=0
    )


USER_SITE_POLICIES = ("open", "approval", "admins-only")


@dataclass(frozen=True)
class UserSiteSettings(Settings):
    """Sites people add themselves on their Sites page."""

    policy: str = setting(
        "CRAWLER_USER_SITES",
        "approval",
        "who may add sites: open (crawled at once), approval (an admin approves each) or "
        "admins-only (people follow sites already watched)",
        choices=USER_SITE_POLICIES,
    )
    max_sites: int = setting(
        "CRAWLER_USER_SITES_MAX", 10, "sites one person may add or follow", minimum=0
    )
    pages_per_day: int = setting(
        "CRAWLER_USER_PAGES_PER_DAY",
        2000,
        "pages a day the private sites one person added may fetch together",
        minimum=0,
    )
    preview_pages: int = setting(
        "CRAWLER_USER_SITE_PREVIEW_PAGES",
        3,
        "article pages a site's preview fetches to show what it would clip",
        minimum=0,
    )
    previews_per_hour: int = setting(
        "CRAWLER_USER_PREVIEWS_PER_HOUR",
        10,
        "site previews one person may ask for in an hour (each fetches a few pages); refused "
        "previews count too",
        minimum=0,
    )
    preview_seconds: float = setting(
        "CRAWLER_USER_PREVIEW_SECONDS",
        20.0,
        "seconds one site preview may take as a whole, however slowly the site answers",
        minimum=0.1,
    )
    allowed_networks: str = setting(
        "CRAWLER_USER_SITE_NETWORKS",
        "",
        "private networks people's own sites may reach, comma-separated CIDRs (tests use "
        "127.0.0.1/32; empty: public addresses only)",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        self.networks()  # a bad CIDR fails at start-up, naming the variable

    def networks(self) -> tuple[str, ...]:
        """Return the networks of CRAWLER_USER_SITE_NETWORKS."""
        return parse_networks("CRAWLER_USER_SITE_NETWORKS", self.allowed_networks)


SECTIONS: tuple[type[Settings], ...] = (
    CrawlerSettings,
    FetchSettings,
    AnalysisSettings,
    DeepWebSettings,
    XcrawlSettings,
    UserSiteSettings,
)


def crawler_settings() -> CrawlerSettings:
    """Return the crawl-run settings in effect now."""
    return CrawlerSettings.load()


def fetch_settings() -> FetchSettings:
    """Return the fetch settings the operator gave (None where the policy's default holds)."""
    return FetchSettings.load()


def analysis_settings() -> AnalysisSettings:
    """Return the caps on analysing one page in effect now."""
    return AnalysisSettings.load()


def deepweb_settings() -> DeepWebSettings:
    """Return the hidden-web settings in effect now."""
    return DeepWebSettings.load()


def xcrawl_settings(**overrides: Any) -> XcrawlSettings:
    """Return the xCrawl settings in effect, with `overrides` given in code applied last."""
    return XcrawlSettings.load(**overrides)


def user_site_settings() -> UserSiteSettings:
    """Return the rules for sites people add, in effect now."""
    return UserSiteSettings.load()

"""Keyword lists, sites and a whole account in and out: JSON, CSV and OPML.

- `lists`: keyword lists as JSON or CSV, out and back in losslessly;
- `opml`: sites as OPML out, feed readers' OPML exports in;
- `account`: everything of one person as one JSON download.
"""

from clipping.exchange.account import ACCOUNT_FORMAT, account_document
from clipping.exchange.lists import (
    CSV_COLUMNS,
    FORMAT_VERSION,
    LISTS_FORMAT,
    ExchangeError,
    ImportReport,
    ListRecord,
    form_data,
    import_lists,
    lists_csv,
    lists_json,
    read_lists,
    read_lists_csv,
    read_lists_json,
)
from clipping.exchange.opml import (
    FeedEntry,
    FeedRow,
    FollowResult,
    feed_rows,
    feed_url_of,
    follow_feeds,
    read_opml,
    sites_of,
    sites_opml,
)

__all__ = [
    "ACCOUNT_FORMAT",
    "CSV_COLUMNS",
    "FORMAT_VERSION",
    "LISTS_FORMAT",
    "ExchangeError",
    "FeedEntry",
    "FeedRow",
    "FollowResult",
    "ImportReport",
    "ListRecord",
    "account_document",
    "feed_rows",
    "feed_url_of",
    "follow_feeds",
    "form_data",
    "import_lists",
    "lists_csv",
    "lists_json",
    "read_lists",
    "read_lists_csv",
    "read_lists_json",
    "read_opml",
    "sites_of",
    "sites_opml",
]

"""Template tags of import, export and feeds: the secret URL of a list's feed."""

from django import template

from clipping import feeds
from clipping.models import KeywordList

register = template.Library()


@register.simple_tag
def list_feed_url(keyword_list: KeywordList) -> str:
    return feeds.list_feed_url(keyword_list)

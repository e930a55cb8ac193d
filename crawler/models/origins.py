"""The origins each site crawls, one row each, so a site is found by origin with an index.

`Site.save` keeps a site's rows in step with its root URL, seeds and allowed hosts
(`Site.origins`); `SiteQuerySet.at_origin` reads them.
"""

from __future__ import annotations

from typing import Any

from django.db import models, transaction


class SiteOrigin(models.Model):
    site = models.ForeignKey("crawler.Site", on_delete=models.CASCADE, related_name="claims")
    origin = models.CharField(max_length=300, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["site", "origin"], name="one_row_per_site_origin")
        ]

    def __str__(self) -> str:
        return self.origin

    @classmethod
    def sync(cls, site: Any) -> None:
        """Make a saved site's rows the origins it crawls now."""
        wanted = site.origins()
        with transaction.atomic():
            cls.objects.filter(site=site).exclude(origin__in=wanted).delete()
            have = set(cls.objects.filter(site=site).values_list("origin", flat=True))
            cls.objects.bulk_create([cls(site=site, origin=o) for o in sorted(wanted - have)])

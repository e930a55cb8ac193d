"""One site-search model: hidden-web's found forms and xCrawl's search templates in one table.

Hidden-web's `SearchForm` table becomes `SiteSearch` (its rows, ids and form queries stay);
xCrawl's old one-per-site `SiteSearch` rows are carried over as rows of it: an admin's
template as source "admin", a detected one as source "found".
"""

import hashlib
import json
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from django.db import migrations, models

QUERY = "{query}"


def _describe(url_template):
    parts = urlsplit(url_template)
    fields = parse_qsl(parts.query, keep_blank_values=True)
    return {
        "action": urlunsplit((parts.scheme, parts.netloc, parts.path or "/", "", ""))[:2083],
        "query_arg": next((name for name, value in fields if QUERY in value), "")[:200],
        "fields": [list(pair) for pair in fields],
        "fingerprint": hashlib.sha256(json.dumps(["GET", url_template]).encode()).hexdigest(),
    }


def carry_templates_over(apps, schema_editor):
    """Copy each xCrawl search template into the one site-search table."""
    old = apps.get_model("crawler", "XcrawlSearchTemplate")
    new = apps.get_model("crawler", "SiteSearch")
    for row in old.objects.order_by("id"):
        admin = row.source == "admin"
        described = _describe(row.url_template)
        new.objects.update_or_create(
            site_id=row.site_id,
            fingerprint=described.pop("fingerprint"),
            defaults={
                **described,
                "source": "admin" if admin else "found",
                "method": "GET",
                "status": "search",
                "url_template": row.url_template,
            },
        )
    _check_now(schema_editor)


def carry_templates_back(apps, schema_editor):
    """Give xCrawl back one template per site (an admin's first) and drop the admins' rows."""
    old = apps.get_model("crawler", "XcrawlSearchTemplate")
    new = apps.get_model("crawler", "SiteSearch")
    rows = new.objects.filter(status="search", method="GET").exclude(url_template="")
    for row in rows.order_by("source", "-last_seen_at"):  # "admin" sorts before "found"
        old.objects.get_or_create(
            site_id=row.site_id,
            defaults={
                "url_template": row.url_template,
                "source": "admin" if row.source == "admin" else "detected",
            },
        )
    new.objects.filter(source="admin").delete()
    _check_now(schema_editor)


def _check_now(schema_editor):
    # PostgreSQL refuses to alter a table with deferred checks pending in the transaction.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        ("crawler", "0006_deepweb"),
    ]

    operations = [
        migrations.RenameModel("SiteSearch", "XcrawlSearchTemplate"),
        migrations.AlterModelOptions(name="xcrawlsearchtemplate", options={}),
        migrations.RemoveConstraint(model_name="searchform", name="deepweb_form_unique"),
        migrations.RenameModel("SearchForm", "SiteSearch"),
        migrations.RenameField("sitesearch", "template", "url_template"),
        migrations.AlterModelOptions(
            name="sitesearch",
            options={
                "ordering": ["site", "page_url", "id"],
                "verbose_name": "site search",
                "verbose_name_plural": "site searches",
            },
        ),
        migrations.AddField(
            model_name="sitesearch",
            name="source",
            field=models.CharField(
                choices=[("found", "Found on the site"), ("admin", "Set by an admin")],
                default="found",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="sitesearch",
            name="enctype",
            field=models.CharField(default="application/x-www-form-urlencoded", max_length=100),
        ),
        migrations.AddField(
            model_name="sitesearch",
            name="fields",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="[[name, value], ...] sent; {query} marks the keywords.",
            ),
        ),
        migrations.AlterField(
            model_name="sitesearch",
            name="fingerprint",
            field=models.CharField(
                help_text="Hash of action, method and fields (of the URL template if given).",
                max_length=64,
            ),
        ),
        migrations.AlterField(
            model_name="sitesearch",
            name="method",
            field=models.CharField(default="GET", max_length=4),
        ),
        migrations.AlterField(
            model_name="sitesearch",
            name="page_url",
            field=models.CharField(
                blank=True, help_text="Where the form was found.", max_length=2083
            ),
        ),
        migrations.AlterField(
            model_name="sitesearch",
            name="site",
            field=models.ForeignKey(
                on_delete=models.deletion.CASCADE, related_name="searches", to="crawler.site"
            ),
        ),
        migrations.AlterField(
            model_name="sitesearch",
            name="status",
            field=models.CharField(
                choices=[
                    ("search", "Searched"),
                    ("refused", "Refused (changes state)"),
                    ("unmatched", "Not filled (no LVS match)"),
                ],
                default="search",
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="sitesearch",
            name="url_template",
            field=models.CharField(
                blank=True,
                help_text="Search URL with {query} where the keywords go.",
                max_length=4000,
            ),
        ),
        migrations.AddConstraint(
            model_name="sitesearch",
            constraint=models.UniqueConstraint(
                fields=("site", "fingerprint"), name="sitesearch_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="sitesearch",
            constraint=models.UniqueConstraint(
                condition=models.Q(("source", "admin")),
                fields=("site",),
                name="sitesearch_one_admin_template",
            ),
        ),
        migrations.RunPython(carry_templates_over, carry_templates_back),
        migrations.DeleteModel(name="XcrawlSearchTemplate"),
    ]

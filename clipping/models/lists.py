"""Keyword lists: what each person wants to be told about."""

from __future__ import annotations

from django.conf import settings
from django.conf.locale import LANG_INFO
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy

from analyzer.text import SUPPORTED_LANGUAGES

# Every language with a Snowball stemmer the text tools support (analyzer.text), English
# and Greek first: word forms are matched in each, synonyms where a thesaurus exists.
# Names are Django's own (LANG_INFO), translated by its catalogue: "Englisch", not "English".
LANGUAGE_CHOICES = [
    (code, gettext_lazy(LANG_INFO.get(code, {}).get("name", name.title())))  # noqa: INT001
    for code, name in sorted(
        SUPPORTED_LANGUAGES.items(), key=lambda item: (item[0] not in ("en", "el"), item[1])
    )
]


class KeywordListQuerySet(models.QuerySet["KeywordList"]):
    def active(self) -> KeywordListQuerySet:
        return self.filter(active=True, by_hand=False)

    def owned_by(self, user: object) -> KeywordListQuerySet:
        """The lists a person made (not the one that holds the pages they clip by hand)."""
        return self.filter(owner=user, by_hand=False)

    def by_hand_of(self, user: object) -> KeywordList:
        """Return the person's list of pages clipped by hand, made when first needed."""
        found, _ = self.get_or_create(
            owner=user,
            by_hand=True,
            defaults={"name": "", "terms": "", "active": False, "mail_enabled": False},
        )
        return found


class KeywordList(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="keyword_lists"
    )
    name = models.CharField(max_length=100)
    active = models.BooleanField(
        default=True, help_text="Inactive lists match nothing and send nothing."
    )
    language = models.CharField(max_length=8, choices=LANGUAGE_CHOICES, default="en")
    terms = models.TextField(help_text="One term per line.")
    use_synonyms = models.BooleanField("match synonyms", default=True)
    synonym_choices = models.JSONField(
        default=dict,
        blank=True,
        help_text="The owner's synonym switches that differ from the defaults: "
        "{term line: {'word|sense' or 'word|sense|synonym': on}}.",
    )
    match_all = models.BooleanField("require every term", default=False)
    mail_enabled = models.BooleanField(
        "send mail",
        default=True,
        help_text="Mail me this list's clips (they always appear on my page).",
    )
    search_sites = models.BooleanField(
        "search watched sites for these words",
        default=True,
        help_text="Type this list's words into the search forms of the watched sites that have "
        "one, to find their articles sooner. Off: the words are only matched, never sent.",
    )
    by_hand = models.BooleanField(
        default=False,
        editable=False,
        help_text="The hidden list that holds the pages its owner clipped by hand: it matches "
        "nothing and is shown as “Clipped by hand”.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = KeywordListQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="unique_list_name_per_owner"),
            models.UniqueConstraint(
                fields=["owner"],
                condition=models.Q(by_hand=True),
                name="one_by_hand_list_per_owner",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("list_detail", args=[self.pk])

    def term_lines(self) -> list[str]:
        return [line.strip() for line in self.terms.splitlines() if line.strip()]

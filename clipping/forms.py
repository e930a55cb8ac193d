from django import forms
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from clipping import channels
from clipping.conf import channel_settings
from clipping.models import LANGUAGE_CHOICES, Channel, KeywordList
from clipping.terms import TermSyntaxError, parse_terms

_LANGUAGES = {code for code, _ in LANGUAGE_CHOICES}


class KeywordListForm(forms.ModelForm):
    language = forms.CharField(
        max_length=8,
        initial="en",
        widget=forms.Select(choices=LANGUAGE_CHOICES),
        label=_("Language"),
        help_text=_("Words are matched by their stems in this language."),
    )

    class Meta:
        model = KeywordList
        fields = [
            "name",
            "terms",
            "language",
            "use_synonyms",
            "match_all",
            "active",
            "mail_enabled",
        ]
        widgets = {"terms": forms.Textarea(attrs={"rows": 8, "spellcheck": "false"})}
        labels = {
            "name": _("Name"),
            "terms": _("Terms"),
            "use_synonyms": _("Match synonyms"),
            "match_all": _("Require every term"),
            "active": _("Active"),
            "mail_enabled": _("Send mail"),
        }
        help_texts = {
            "terms": _(
                'One term per line: a word, several words, a "quoted phrase", -exclusion,'
                " site:example.com or re:regular expression."
            ),
            "use_synonyms": _(
                "Also match WordNet synonyms of unquoted terms, in the senses they"
                " most likely mean (English lists); the list page lets you switch each on or off."
            ),
            "match_all": _("A clip must contain every term, not only one of them."),
            "active": _("Inactive lists match nothing and send nothing."),
            "mail_enabled": _("Mail me this list's clips (they always appear on my page)."),
        }

    def __init__(self, *args: object, owner: object, **kwargs: object) -> None:
        self.owner = owner
        super().__init__(*args, **kwargs)

    def clean_language(self) -> str:
        language = self.cleaned_data["language"].strip().lower()
        if language not in _LANGUAGES:
            raise forms.ValidationError(
                _("Unknown language %(language)r. Choose one from the list."),
                params={"language": language},
            )
        return language

    def clean_terms(self) -> str:
        text = self.cleaned_data["terms"]
        try:
            parse_terms(text)
        except TermSyntaxError as exc:
            raise forms.ValidationError(str(exc)) from None
        return "\n".join(line.strip() for line in text.splitlines() if line.strip())

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        clash = KeywordList.objects.owned_by(self.owner).filter(name__iexact=name)
        if self.instance.pk:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise forms.ValidationError(_("You already have a list with this name."))
        return name

    def save(self, commit: bool = True) -> KeywordList:
        self.instance.owner = self.owner
        # Synonym switches belong to term lines: a line edited away takes its switches along.
        lines = set(self.instance.term_lines())
        choices = self.instance.synonym_choices or {}
        self.instance.synonym_choices = {
            line: own for line, own in choices.items() if line in lines
        }
        return super().save(commit=commit)


class ChannelForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    url = forms.CharField(label=_("Apprise URL"), max_length=2000)

    def __init__(self, user: object, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.checked: channels.Checked | None = None

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if Channel.objects.owned_by(self.user).filter(name=name).exists():
            raise forms.ValidationError(gettext("You have a channel of this name already."))
        return name

    def clean_url(self) -> str:
        try:
            self.checked = channels.check_url(self.cleaned_data["url"])
        except channels.ChannelError as exc:
            raise forms.ValidationError(str(exc)) from None
        return self.checked.url

    def clean(self) -> dict[str, object]:
        limit = channel_settings().max_channels
        if Channel.objects.owned_by(self.user).count() >= limit:
            raise forms.ValidationError(
                ngettext(
                    "You have %(count)s channel, the most allowed.",
                    "You have %(count)s channels, the most allowed.",
                    limit,
                )
                % {"count": limit}
            )
        return self.cleaned_data

from typing import Any

from allauth.account.adapter import get_adapter
from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.hashers import make_password
from django.http import HttpRequest, HttpResponse
from django.utils.dates import WEEKDAYS
from django.utils.translation import gettext_lazy as _

from accounts.conf import mail_cap
from accounts.models import User
from accounts.timezones import canonical_time_zone, time_zone_choices


class PreferencesForm(forms.ModelForm):
    """Notification, time-zone and language preferences; digest fields form their own group."""

    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        choices=time_zone_choices,
        initial="UTC",
        help_text=_("Times on your pages and in your mail are shown in this zone."),
        # app.js adds a search box above the menu (these attributes name and label it).
        widget=forms.Select(
            attrs={
                "data-filterable": "",
                "data-filter-label": _("Search time zones"),
                "data-filter-placeholder": _("Search: city or region"),
            }
        ),
    )
    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        choices=lambda: [("", _("As my browser asks")), *settings.LANGUAGES],
        help_text=_("Pages and mail in this language."),
    )

    digest_fields = ("digest_hour", "digest_weekday")

    class Meta:
        model = User
        fields = [
            "delivery_mode",
            "instant_mails_per_hour",
            "over_limit",
            "over_limit_batch",
            "news_days",
            "digest_hour",
            "digest_weekday",
            "time_zone",
            "language",
            "mail_paused",
        ]
        labels = {
            "delivery_mode": _("How clips reach me"),
            "digest_hour": _("Digest time"),
            "digest_weekday": _("Weekly digest day"),
            "mail_paused": _("Pause all mail"),
        }
        widgets = {
            # Django's own day names (Monday first), translated with the page.
            "digest_weekday": forms.Select(choices=sorted(WEEKDAYS.items())),
            "digest_hour": forms.Select(choices=[(h, f"{h:02d}:00") for h in range(24)]),
        }

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        # An alias from an older menu (US/Eastern) shows as the zone it names.
        stored = self.instance.time_zone
        self.initial["time_zone"] = canonical_time_zone(stored) or "UTC"
        self._show_cap_in_force()
        # The mail cap is optional to send: a form without it keeps what the account has.
        self.fields["over_limit"].required = False
        self.fields["over_limit_batch"].required = False
        self.fields["news_days"].required = False

    def _show_cap_in_force(self) -> None:
        """Say the number of instant mails per hour in force, the site's default included."""
        field = self.fields["instant_mails_per_hour"]
        default = mail_cap(None)
        own = self.instance.instant_mails_per_hour
        field.widget.attrs["placeholder"] = str(default)
        if own:
            in_force = _("In force: %(number)s per hour, your choice.") % {"number": own}
        else:
            in_force = _("In force: %(number)s per hour, the site's default.") % {"number": default}
        field.help_text = " ".join(
            [
                str(in_force),
                str(_("Empty: the site's default (%(number)s).") % {"number": default}),
                str(
                    _(
                        "The first clip of each list in an hour always comes at once. What a new "
                        "or widened list finds in pages already crawled comes in one summary "
                        "mail, not counted."
                    )
                ),
            ]
        )

    def clean_over_limit(self) -> str:
        return self.cleaned_data.get("over_limit") or self.instance.over_limit

    def clean_over_limit_batch(self) -> int:
        value = self.cleaned_data.get("over_limit_batch")
        return self.instance.over_limit_batch if value is None else value

    def clean_news_days(self) -> int:
        value = self.cleaned_data.get("news_days")
        return self.instance.news_days if value is None else value

    def other_fields(self) -> list[forms.BoundField]:
        """Every visible field but the delivery mode and the digest group, in Meta order."""
        shown_apart = {"delivery_mode", *self.digest_fields}
        return [field for field in self.visible_fields() if field.name not in shown_apart]

    def digest_group(self) -> list[forms.BoundField]:
        return [self[name] for name in self.digest_fields]


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label=_("Password"),
        widget=forms.PasswordInput,
        help_text=_("Type your password to confirm."),
    )

    def __init__(self, user: User, *args: object, **kwargs: object) -> None:
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your password."))
        return password


class SignupForm(AllauthSignupForm):
    """Sign-up whose answer takes as long for a taken address as for a new one.

    A new account costs one password hash; allauth's path for a taken address (a mail saying
    the account exists, the same redirect) skips it, so the response time alone told whether an
    address has an account. The taken path hashes the password too and throws the hash away.
    """

    def try_save(self, request: HttpRequest) -> tuple[User | None, HttpResponse | None]:
        if self.account_already_exists:
            make_password(self.cleaned_data.get("password1"))
        return super().try_save(request)


class AdminLoginForm(AdminAuthenticationForm):
    """Admin login that counts failures in the same cache buckets as the allauth login."""

    def clean(self) -> dict[str, Any]:
        email = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if email is not None and password:
            # The adapter refuses once "login_failed" is spent for this address or REMOTE_ADDR
            # (X-Forwarded-For counts only with ALLAUTH_TRUSTED_PROXY_COUNT set).
            adapter = get_adapter(self.request)
            self.user_cache = adapter.authenticate(self.request, email=email, password=password)
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data

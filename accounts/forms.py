from typing import Any

from allauth.account.adapter import get_adapter
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm

from accounts.models import User, time_zone_choices


class PreferencesForm(forms.ModelForm):
    time_zone = forms.ChoiceField(choices=time_zone_choices, initial="UTC")

    class Meta:
        model = User
        fields = ["delivery_mode", "digest_hour", "digest_weekday", "time_zone", "mail_paused"]
        labels = {"mail_paused": "Pause all mail", "digest_weekday": "Weekly digest day"}
        widgets = {
            "digest_weekday": forms.Select(
                choices=list(
                    enumerate(
                        [
                            "Monday",
                            "Tuesday",
                            "Wednesday",
                            "Thursday",
                            "Friday",
                            "Saturday",
                            "Sunday",
                        ]
                    )
                )
            ),
            "digest_hour": forms.Select(choices=[(h, f"{h:02d}:00") for h in range(24)]),
        }


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        widget=forms.PasswordInput, help_text="Type your password to confirm."
    )

    def __init__(self, user: User, *args: object, **kwargs: object) -> None:
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password.")
        return password


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

from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    # allauth's own app is "Accounts" in the admin; ours holds the people themselves.
    verbose_name = _("People")

    def ready(self) -> None:
        from accounts.sites import name_the_site

        post_migrate.connect(name_the_site, sender=self, dispatch_uid="accounts.name_the_site")

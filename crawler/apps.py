from django.apps import AppConfig


class CrawlerConfig(AppConfig):
    name = "crawler"
    verbose_name = "Crawler"

    def ready(self) -> None:
        # Wired here so the run loop never imports hidden-web: it runs whatever is registered.
        from crawler.hiddenweb.pageforms import forms_pass
        from crawler.hiddenweb.runner import search_pass
        from crawler.run.passes import register_page_pass, register_run_pass

        register_run_pass("hidden-web", search_pass)
        register_page_pass("hidden-web", forms_pass)

        # However an account goes (its own page, the admin), its sites lose a follower first.
        from django.conf import settings
        from django.db.models.signals import pre_delete

        pre_delete.connect(
            _leave_sites, sender=settings.AUTH_USER_MODEL, dispatch_uid="crawler-leave-sites"
        )


def _leave_sites(sender: object, instance: object, **kwargs: object) -> None:
    from crawler.usersites.follow import leave_all_sites

    leave_all_sites(instance)

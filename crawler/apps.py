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

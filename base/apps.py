from django.apps import AppConfig


class BaseConfig(AppConfig):
    name = "base"
    verbose_name = "Webclip base"

    def ready(self) -> None:
        """Register the start-up checks of Webclip's settings and of a production setup."""
        from base import checks  # noqa: F401

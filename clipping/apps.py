from django.apps import AppConfig


class ClippingConfig(AppConfig):
    name = "clipping"
    verbose_name = "Clipping"

    def ready(self) -> None:
        """Wire clipping in: page handler, topic, list backfill, anymail tracking events."""
        from anymail.signals import tracking
        from django.db.models.signals import post_init, post_save

        from clipping.backfill import list_loaded, list_saved
        from clipping.models import KeywordList
        from clipping.tasks import enqueue_ingest
        from clipping.topic import topic_for_site
        from clipping.webhooks import handle_tracking
        from crawler.hooks import register_page_handler
        from crawler.topic import register_topic_provider

        register_page_handler(enqueue_ingest)
        register_topic_provider(topic_for_site)
        post_init.connect(list_loaded, sender=KeywordList, dispatch_uid="clipping.backfill.loaded")
        post_save.connect(list_saved, sender=KeywordList, dispatch_uid="clipping.backfill.saved")
        tracking.connect(handle_tracking, dispatch_uid="clipping.webhooks.handle_tracking")

from django.apps import AppConfig


class ClippingConfig(AppConfig):
    name = "clipping"
    verbose_name = "Clipping"

    def ready(self) -> None:
        """Wire clipping in: batch handler of page versions, topic, anymail tracking events."""
        from anymail.signals import tracking

        from clipping.tasks import enqueue_ingest
        from clipping.topic import topic_for_site
        from clipping.webhooks import handle_tracking
        from crawler.hooks import register_batch_handler
        from crawler.topic import register_topic_provider

        register_batch_handler(enqueue_ingest)
        register_topic_provider(topic_for_site)
        tracking.connect(handle_tracking, dispatch_uid="clipping.webhooks.handle_tracking")

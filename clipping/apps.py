from django.apps import AppConfig


class ClippingConfig(AppConfig):
    name = "clipping"
    verbose_name = "Clipping"

    def ready(self) -> None:
        """Wire clipping in: version batches, topic, keyword matcher, anymail tracking events."""
        from anymail.signals import tracking

        from clipping.tasks import enqueue_ingest
        from clipping.topic import keyword_hits, topic_for_site
        from clipping.webhooks import handle_tracking
        from crawler.hooks import register_batch_handler
        from crawler.topic import register_keyword_matcher, register_topic_provider

        register_batch_handler(enqueue_ingest)
        register_topic_provider(topic_for_site)
        register_keyword_matcher(keyword_hits)
        tracking.connect(handle_tracking, dispatch_uid="clipping.webhooks.handle_tracking")

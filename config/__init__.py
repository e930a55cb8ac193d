"""Project wiring: settings, URLs, the Celery app, the REST API, wsgi and asgi."""

from config.celery_app import app as celery_app

__all__ = ["celery_app"]

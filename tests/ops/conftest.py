"""Fixtures the ops tests share with the clipping tests."""

from tests.clipping.conftest import eager_celery, faulty_smtp  # noqa: F401

"""Typed errors of the Page Analyzer: every refusal is an AnalyzerError."""

from __future__ import annotations


class AnalyzerError(ValueError):
    """The input cannot be analysed; the message says why."""


class NotHTMLError(AnalyzerError):
    """The input is not HTML (binary data, an image, a PDF, nothing at all)."""


class PageTooLargeError(AnalyzerError):
    """The input is longer than settings.MAX_BYTES."""


class PageTooDeepError(AnalyzerError):
    """Elements nest deeper than settings.MAX_DEPTH."""


class PageTooComplexError(AnalyzerError):
    """The page has more elements than settings.MAX_NODES."""

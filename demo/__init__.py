"""The Daily Demo: a small news site that `make run` serves for Webclip to crawl."""

"""The pages people use: their lists and clips (pages.py), their own sites (sites.py) and
their notification channels (channels.py). clipping/urls.py routes them."""

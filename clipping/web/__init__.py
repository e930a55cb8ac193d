"""The web pages of the sites people add and of their notification channels."""

"""One date style for pages, mail and admin, in each language's words (FORMAT_MODULE_PATH)."""

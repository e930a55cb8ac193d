"""The keyword index compiled by mypyc (clipping/matching/compiled.py)."""

SOURCE_HASH = "fb2029045765d597ef8fcf39ce5fedbed0b3f1f385d7461686c0dbf79403d692"

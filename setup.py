"""The keyword index's C accelerator; everything else about the package is in pyproject.toml.

clipping/matching/_speedups.c runs the index's per-page loops in C. It is optional: without
a C compiler the install goes on, and the same loops run in Python (clipping/matching/index.py),
about twice as slow.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "clipping.matching._speedups",
            sources=["clipping/matching/_speedups.c"],
            optional=True,
        )
    ]
)

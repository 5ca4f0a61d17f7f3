"""Build the optional C accelerator for recall's counts (optmem/recall/_scan.c).

Everything else is in pyproject.toml. ``optional=True``: where no C compiler
or no Python headers are at hand, the build skips the extension (pip shows
its warning only with -v) and memo runs in pure Python with the same answers
(recall's counts of frequent words are then several times slower; README
"Dependencies"). ``memo --version`` says whether it was built.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("optmem.recall._scan", ["optmem/recall/_scan.c"], optional=True)])

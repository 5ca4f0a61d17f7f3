"""Recall: what ``memo recall PATTERN`` finds and counts (docs/recall.md).

From the bottom up: ``pattern`` reads a pattern with Python's own regex
parser; ``nfcspell`` and its generated tables (``_nfc_tables``) list the raw
spellings NFC turns into a character; ``fastcount`` and ``scancount`` count
the records that hold a word without running the pattern on each (the
optional compiled ``_scan`` does one pass in C); ``search`` streams the log
and prints the matching lines, using the counters where they are exact."""

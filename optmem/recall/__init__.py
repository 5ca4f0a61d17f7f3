"""Recall: what ``memo recall PATTERN`` finds and counts (docs/recall.md).

From the bottom up: ``pattern`` reads a pattern with Python's own regex
parser and a record as its line; ``nfcspell`` lists the raw spellings NFC
turns into a character, from generated tables (``nfc_tables``, written by
``gen_nfc_tables``); ``fastcount`` and ``scancount`` count the records that
hold a literal without matching each line (``scancount`` over the optional
compiled ``_scan``); ``search`` streams the log and prints the matching
lines, using the counters where they are exact."""

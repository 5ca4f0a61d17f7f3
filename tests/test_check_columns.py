"""``memo check`` compares each id digit column of a chunk with the one the
chunk must hold (``check._digit_column``); building it costs O(chunk) at any
id size, which keeps check linear at 10,000,000 memories and beyond."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from optmem.engine import check


@settings(max_examples=300, deadline=None)
@given(exponent=st.integers(0, 12), start=st.integers(0, 10 ** 13), n=st.integers(1, 9000))
def test_a_digit_column_is_the_digits_of_the_ids(exponent, start, n):
    place = 10 ** exponent
    column = check._digit_column(place, start, n)
    assert column == bytes(48 + (i // place) % 10 for i in range(start, start + n))

"""Faults of the third QA pass, each tested for its whole kind.

- A damaged log record never reaches a summary: the hand-over waits and
  says why; ``memo check --repair`` restores what the record's place
  implies (its id, its date when both neighbours share one) and loses
  nothing; a record whose text is damaged is a person's step.
- Every order memo prints begins its line or is the last sentence of it
  (the seed's ``... up. Run: memo sleep``), and runs as printed; every step
  only a person may take is ``A person can run: <command>``.
- Argument and standard-input edges: ``memo init`` without MEMORY_DIR,
  ``-- -`` naming a file, over-long input on every stdin reader.
"""

from __future__ import annotations


# -- 1. a damaged record is never summarised ------------------------------------


# -- 2 and 5. every order and every person's step, as printed ------------------


# -- 3 and 4. arguments and standard input ----------------------------------


# -- 6. a damaged summary never locks wake, and its repair is handed over -------


# -- 6. hostile stores and inputs ------------------------------------------------

"""Faults found by the QA pass (odd process states a user or harness can
create), each tested for its whole kind through a real ``memo`` process."""

from __future__ import annotations


"""Facts that the errata state about the code, checked against the code (issue 23: the copies
of a fact drift; here the errata's statements are read back and compared). FindTukey's errata are on
its paper's page, docs/papers/bmns-center-points.md."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from privpac.errors import InvalidParameterError
from privpac.estimators.center_point import PrivateCenterPoint
from privpac.learners.center_point import SUPPORTED_DIMENSIONS, plan_find_tukey

ERRATA = (Path(__file__).resolve().parents[2] / "docs" / "papers" / "bmns-center-points.md").read_text()


def _section(title: str) -> str:
    start = ERRATA.index(title)
    end = re.search(r"\n#{1,3} ", ERRATA[start + len(title) :])
    return ERRATA[start : start + len(title) + end.start() if end else None]


FIND_TUKEY = _section("### Deviations in FindTukey")


def test_the_supported_dimensions_are_the_ones_the_errata_name():
    stated = re.search(r"\*\*Only d = ([0-9, and]+)\*\*", FIND_TUKEY)
    assert stated, "the errata no longer state FindTukey's dimensions"
    named = tuple(int(x) for x in re.findall(r"\d+", stated.group(1)))
    assert named == SUPPORTED_DIMENSIONS
    with pytest.raises(InvalidParameterError, match="directional"):
        d = max(SUPPORTED_DIMENSIONS) + 1
        PrivateCenterPoint(epsilon=1.0, delta=1e-6, domain=4).fit(np.zeros((10, d), dtype=int))


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 1.0, 5.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-3, 0.1])
def test_auto_composition_is_basic_where_the_errata_say(epsilon, delta):
    stated = re.search(r"which is every supported `d <= (\d+)`", FIND_TUKEY)
    assert stated, "the errata no longer state where composition='auto' picks basic"
    up_to = int(stated.group(1))
    assert up_to == max(SUPPORTED_DIMENSIONS)
    for d in range(1, up_to + 1):
        assert plan_find_tukey(100, d, 8, epsilon, delta, composition="auto").composition == "basic"

"""How `--answer-cpu`/`--delivery-cpu --against` tell a difference from the noise of a shared
machine: the pairs' sign test, over figures given here (nothing is timed)."""

from __future__ import annotations

import pytest

from bench.cpu_process import Sides, sign_test


def sides(before: list[float], after: list[float]) -> Sides:
    return Sides({"ee84a2e": [{"cpu_ms": v} for v in before],
                  "this": [{"cpu_ms": v} for v in after]}, "ee84a2e", (7.0, 12.5))


@pytest.mark.parametrize(("more", "less", "chance"), [
    (6, 0, 1 / 32), (0, 6, 1 / 32), (9, 1, 22 / 1024), (5, 0, 1 / 16), (3, 3, 1.0), (0, 0, 1.0),
])
def test_the_sign_test_is_the_chance_of_pairs_as_one_sided(more: int, less: int,
                                                           chance: float) -> None:
    assert sign_test(more, less) == pytest.approx(chance)


def test_pairs_that_go_both_ways_are_within_noise_whatever_the_medians() -> None:
    said = sides([10.0, 9.0, 10.0, 9.0, 10.0, 9.0],
                 [11.5, 8.8, 11.5, 8.8, 11.5, 8.8]).verdict("cpu_ms")
    assert "+6.8% by the medians" in said  # 10.15 / 9.5 - 1, yet only 3 of 6 pairs went up
    assert "3 of 6 pairs more" in said
    assert "**within noise**" in said
    assert "load average 7.0–12.5" in said


def test_six_pairs_one_way_are_beyond_the_noise() -> None:
    said = sides([10.0, 9.0, 10.5, 9.5, 10.0, 9.8],
                 [9.5, 8.9, 10.0, 9.4, 9.9, 9.0]).verdict("cpu_ms", "The loop alone, ")
    assert said.startswith("The loop alone, this against ee84a2e: ")
    assert "0 of 6 pairs more, by chance alone 3% of the time" in said
    assert "**less than ee84a2e**" in said


def test_five_pairs_one_way_are_too_few_to_say() -> None:
    said = sides([10.0] * 5, [11.0] * 5).verdict("cpu_ms")
    assert "5 of 5 pairs more" in said and "**within noise**" in said


def test_each_side_shows_its_median_and_least_and_most() -> None:
    assert sides([9.4, 10.4, 9.0], [8.9, 8.2, 10.4]).spread("ee84a2e", "cpu_ms") == \
        "9.4 ms (9.0–10.4)"

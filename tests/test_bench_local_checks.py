"""How `scripts/bench --local-model` judges an answer: a number it expects is found as a
number, never as the digits of another."""

from __future__ import annotations

import pytest

from bench.local_model import UNTUNED, Outcome, Question

PERCENT = next(q for q in UNTUNED if q.id == "u_percent")  # 15% of 640 is 96


@pytest.mark.parametrize(("answer", "right"), [
    ("15% of 640 is 96.", True), ("96", True), ("960", False), ("196", False),
    ("It is 96.0.", True)])
def test_an_expected_number_is_found_as_a_number(answer: str, right: bool) -> None:
    outcome = Outcome(PERCENT, status="done", answer=answer, tools=["calculate"])
    assert (outcome.problems() == []) is right


def test_a_decimal_may_start_a_more_exact_one_and_separators_do_not_count() -> None:
    share = Question("q", "Share 729.94 among 4", "calculate", "182.4")
    assert Outcome(share, status="done", answer="Each gets 182.485.",
                   tools=["calculate"]).problems() == []
    amount = Question("q", "350 美元等于多少人民币？", "convert_currency", "2554")
    assert Outcome(amount, status="done", answer="350 美元等于 2,554.79 元人民币。",
                   tools=["convert_currency"]).problems() == []

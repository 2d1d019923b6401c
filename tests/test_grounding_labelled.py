"""How far a class can trust the marks, measured: precision and recall of the marks drawn
on answers whose figures were labelled by hand (tests/grounding/labelled.json, scored by
bench/grounding.py, which prints the same figures)."""

from __future__ import annotations

from bench.grounding import Case, Span, cases, glassbox, score

FLOOR = 0.95


def test_the_marks_hold_their_precision_and_recall_on_the_labelled_answers() -> None:
    labelled = cases()
    assert len(labelled) >= 60 and {c.lang for c in labelled} == {"en", "zh"}
    result = score(glassbox, labelled)
    assert result.unbacked >= 30
    assert result.precision >= FLOOR and result.recall >= FLOOR, "\n".join(result.wrong)


def test_the_score_counts_wrong_and_missing_marks() -> None:
    """The scorer itself: a mark on a backed figure or on no figure lowers precision, an
    unbacked figure without a mark lowers recall."""
    case = Case("c", "en", "", (), (), "It is 25 °C, see 10.",
                (Span(6, 8, True), Span(17, 19, False)))
    assert (score(lambda c: "It is 25 °Cⁱ, see 10.", [case]).precision,
            score(lambda c: "It is 25 °Cⁱ, see 10.", [case]).recall) == (1.0, 1.0)
    both = score(lambda c: "It isⁱ 25 °C, see 10ⁱ.", [case])
    assert (both.marks, both.right, both.found) == (2, 0, 0)
    assert both.precision == 0.0 and both.recall == 0.0

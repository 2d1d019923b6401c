"""calculate: a table of valid expressions with exact results, a table of hostile ones, and
percentages as a class writes them."""

from __future__ import annotations

import pytest

from agent.tool import ToolError
from agent.tools.calculator import MAX_CHARS, Calculate
from agent.tools.percent import percent_syntax

VALID = [
    ("1 + 2 * 3", "7"),
    ("(1 + 2) * 3", "9"),
    ("2**100", "1267650600228229401496703205376"),
    ("2^10", "1024"),
    ("-3**2", "-9"),
    ("(-3)**2", "9"),
    ("--5", "5"),
    ("7 // 2", "3"),
    ("-7 // 2", "-4"),
    ("7 % 3", "1"),
    ("10 / 4", "2.5"),
    ("10 / 2", "5"),
    ("1 / 3", "0.333333333333333"),
    ("0.1 + 0.2", "0.3"),
    ("1.1 * 1.1", "1.21"),
    ("2**-1", "0.5"),
    ("2 ** 0.5", "1.4142135623731"),
    ("12 × 3 ÷ 4", "9"),
    ("（１２＋３）×２", "30"),
    ("３^２", "9"),
    ("sqrt(16)", "4"),
    ("sqrt(2)", "1.4142135623731"),
    ("sin(pi)", "0"),
    ("sin(pi / 2)", "1"),
    ("cos(0)", "1"),
    ("tan(pi / 4)", "1"),
    ("asin(1) * 2", "3.14159265358979"),
    ("acos(1)", "0"),
    ("atan(1) * 4", "3.14159265358979"),
    ("log(e)", "1"),
    ("log(8, 2)", "3"),
    ("log(100, 10)", "2"),
    ("log10(1000)", "3"),
    ("exp(0)", "1"),
    ("abs(-5)", "5"),
    ("round(2.5)", "3"),
    ("round(3.14159, 2)", "3.14"),
    ("round(2.675, 2)", "2.68"),
    ("round(1234, -2)", "1200"),
    ("floor(-1.5)", "-2"),
    ("ceil(1.2)", "2"),
    ("factorial(20)", "2432902008176640000"),
    ("factorial(0)", "1"),
    ("pi", "3.14159265358979"),
    ("e", "2.71828182845905"),
    ("π * 2", "6.28318530717959"),
    ("2 * PI", "6.28318530717959"),
    ("99999999999999999999 + 1", "100000000000000000000"),
    ("2**100 / 2**99", "2"),
    ("1e3 + 1", "1001"),
    ("1_000 * 3", "3000"),
]

PERCENT = [
    ("12.5% * 3840", "480"),
    ("12.5%*3840", "480"),
    ("3840 * 12.5%", "480"),
    ("12.5 % * 3840", "480"),
    ("12.5% of 3840", "480"),
    ("12.5% OF 3840", "480"),
    ("12.5 percent of 3840", "480"),
    ("3840 的 12.5%", "480"),
    ("3840的12.5%", "480"),
    ("12.5% 的 3840", "480"),
    ("百分之12.5 * 3840", "480"),
    ("3840 的百分之12.5", "480"),
    ("１２．５％ × ３８４０", "480"),
    ("3840 * (1 + 5%)", "4032"),
    ("3840 * (1 - 5%)", "3648"),
    ("(1 + 5%) * 3840", "4032"),
    ("3840 / (1 + 20%)", "3200"),
    ("20% off 150", "120"),
    ("20 % off 150", "120"),
    ("20% off of 150", "120"),
    ("12.5% off 3840", "3360"),
    ("150 打八折", "120"),
    ("150打八五折", "127.5"),
    ("150 打 8 折", "120"),
    ("150 * 9.5折", "142.5"),
    ("150 95折", "142.5"),
    ("5%", "0.05"),
    ("50% + 10%", "0.6"),
    ("1 - 5%", "0.95"),
    ("round(12.5% * 37, 2)", "4.63"),
    ("percent(12.5) * 3840", "480"),
    ("7 % 3", "1"),  # an operand after the % : the remainder, as before
    ("7%3", "1"),
    ("10 % (4)", "2"),
]

PERCENT_REFUSED = [
    ("100 - 20%", "for 20% less than 100, write 100 * (1 - 20%); to subtract 20% as a "
                  "number, write 100 - 20/100."),
    ("100 + 5%", "for 5% more than 100, write 100 * (1 + 5%); to add 5% as a number, "
                 "write 100 + 5/100."),
    ("2 * 3 - 5%", "write (2 * 3) * (1 - 5%)"),
    ("10折", "Could not read the expression: 10折. Write it like: 12.5% * 3840"),
    ("3840 的平方", "Could not read the expression: 3840 的平方. Write it like"),
    ("平方(3840)", "Unknown name '平方'. Allowed: sqrt"),
    ("12.5% 3840", "Could not read"),
    ("12.5%%", "Could not read"),
    ("百分之五 * 3840", "Write it like: 12.5% * 3840, 12.5% of 3840, 3840 * (1 + 5%), "
                      "20% off 150"),
]

HOSTILE = [
    ("9**9**9", "too large"),
    ("10**10**10", "too large"),
    ("factorial(10**6)", "too large"),
    ("factorial(factorial(20))", "too large"),
    ("2**100000", "too large"),
    ("(2**3000)**2", "too large"),
    ("10.0**400", "too large"),
    ("1e308 * 10", "too large"),
    ("1e999", "too large"),
    ("exp(1000)", "too large"),
    ("__import__('os')", "Unknown name '__import__'"),
    ("__import__('os').system('ls')", "Only the listed math functions"),
    ("().__class__", "Not allowed here: attribute access"),
    ("().__class__.__bases__[0].__subclasses__()", "Only the listed math functions"),
    ("open('/etc/passwd')", "Unknown name 'open'"),
    ("globals()", "Unknown name 'globals'"),
    ("eval('1')", "Unknown name 'eval'"),
    ("exec('import os')", "Unknown name 'exec'"),
    ("import os", "Could not read"),
    ("x", "Unknown name 'x'"),
    ("math.pi", "Not allowed here: attribute access"),
    ("[1, 2][0]", "Not allowed here: subscripts"),
    ("[x for x in range(10**9)]", "Not allowed here: comprehensions"),
    ("sum(x for x in range(10**9))", "Unknown name 'sum'"),
    ("lambda: 1", "Not allowed here: lambda"),
    ("(lambda: 1)()", "Only the listed math functions"),
    ("1 if 1 else 2", "Not allowed here: IfExp"),
    ("1 < 2", "Not allowed here: comparisons"),
    ("1 and 2", "Not allowed here: logic operators"),
    ("'a' * 10**9", "Not a number: 'a'"),
    ("True + 1", "Not a number: True"),
    ("1j * 1j", "Not a number: 1j"),
    ("sqrt(x=4)", "sqrt takes 1 argument"),
    ("sqrt(*[4])", "sqrt takes 1 argument"),
    ("sqrt(1, 2)", "sqrt takes 1 argument"),
    ("f'{1}'", "Not allowed here: JoinedStr"),
    ("(y := 3)", "Not allowed here: NamedExpr"),
    ("1 << 10000", "The operator << is not supported"),
    ("~1", "The operator ~ is not supported"),
    ("2 @ 3", "The operator @ is not supported"),
    ("1 / 0", "Division by zero"),
    ("5 // 0", "Division by zero"),
    ("5 % 0", "Division by zero"),
    ("0 ** -1", "Division by zero"),
    ("sqrt(-1)", "not defined"),
    ("log(0)", "not defined"),
    ("(-8) ** (1/3)", "not defined"),
    ("factorial(-1)", "whole numbers"),
    ("factorial(2.5)", "whole numbers"),
    ("", "empty"),
    ("1 +", "Could not read"),
    ("1" * 501, "too long"),
    ("-" * 400 + "1", ""),  # deep nesting: an answer or a refusal, never a crash
    ("(" * 250 + "1" + ")" * 250, ""),
]


@pytest.mark.parametrize(("expression", "expected"), VALID)
async def test_valid_expressions_give_exact_results(expression: str, expected: str) -> None:
    text = await Calculate().run(Calculate.Args(expression=expression))
    assert text == f"{expression.strip()} = {expected}"


@pytest.mark.parametrize(("expression", "refusal"), HOSTILE)
async def test_hostile_expressions_are_refused_with_a_clear_text(expression: str,
                                                                  refusal: str) -> None:
    try:
        text = await Calculate().run(Calculate.Args(expression=expression))
    except ToolError as exc:
        assert refusal in str(exc)
    else:
        assert not refusal, f"{expression!r} gave {text!r}"


@pytest.mark.parametrize(("expression", "expected"), PERCENT)
async def test_percentages_as_a_class_writes_them(expression: str, expected: str) -> None:
    text = await Calculate().run(Calculate.Args(expression=expression))
    assert text == f"{expression.strip()} = {expected}"


@pytest.mark.parametrize(("expression", "refusal"), PERCENT_REFUSED)
async def test_a_percent_refusal_says_how_to_write_it(expression: str, refusal: str) -> None:
    with pytest.raises(ToolError) as caught:
        await Calculate().run(Calculate.Args(expression=expression, lang="en"))
    assert refusal in str(caught.value)


async def test_the_refusal_of_the_class_question_says_how_to_write_it_in_chinese() -> None:
    with pytest.raises(ToolError) as caught:
        await Calculate().run(Calculate.Args(expression="3840 - 12.5%", lang="zh"))
    assert str(caught.value) == ("“3840 - 12.5%” 有两种读法：要算比 3840 少 12.5%，写成 "
                                 "3840 * (1 - 12.5%)；要减去 12.5% 这个数本身，写成 "
                                 "3840 - 12.5/100。")
    with pytest.raises(ToolError) as caught:
        await Calculate().run(Calculate.Args(expression="3840 的 12.5", lang="zh"))
    assert "写法示例：12.5% * 3840、12.5% of 3840" in str(caught.value)


@pytest.mark.parametrize("unit", ["1%", "1 %", "1% ", "%", "1.", "的", "的1", "1%的", "打",
                                  "八", "1折", "百分之", "百分之1", " off", "1% off ", "of ",
                                  "percent ", "1 percent", " ", "1"])
async def test_percent_text_of_the_longest_length_is_answered_or_refused(unit: str) -> None:
    """Hostile repeats up to the length cap: a value or a refusal, never a crash (the
    rewrite's own time on 200,000 characters is in tests/faults/test_hostile_text.py)."""
    expression = (unit * MAX_CHARS)[:MAX_CHARS]
    try:
        await Calculate().run(Calculate.Args(expression=expression))
    except ToolError as exc:
        assert str(exc)


def test_the_rewrite_leaves_a_remainder_and_plain_text_alone() -> None:
    assert percent_syntax("7 % 3 + 2**8") == "7 % 3 + 2**8"
    assert percent_syntax("12.5% of 3840") == "percent(12.5) * 3840"
    assert percent_syntax("20% off 150") == "(1 - percent(20)) * 150"


async def test_big_integers_are_exact_up_to_the_bound() -> None:
    text = await Calculate().run(Calculate.Args(expression="factorial(400)"))
    digits = text.split(" = ")[1]
    assert len(digits) == 869 and digits.startswith("64034522846623895262")


async def test_errors_come_in_the_question_language() -> None:
    with pytest.raises(ToolError, match="不能除以零"):
        await Calculate().run(Calculate.Args(expression="1/0", lang="zh"))
    with pytest.raises(ToolError, match="结果太大"):
        await Calculate().run(Calculate.Args(expression="9**9**9", lang="zh"))

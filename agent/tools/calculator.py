"""calculate: arithmetic as a student types it, evaluated from the `ast` by a whitelist.

Never `eval`. Only numbers, `+ - * / // % **`, unary signs, parentheses and the listed
functions and constants get through; everything else is refused by name. Percentages
(`12.5% of 3840`, `3840 * (1 + 5%)`, `20% off 150`) are rewritten first (agent/tools/
percent.py); `100 - 20%`, which a calculator key and a maths book read differently, is
refused with both ways to write it. A refusal of what cannot be read says how to write it,
so a model's next round can mend its call. Integers stay exact; every operation is bounded
before it runs, so `9**9**9` or `factorial(10**6)` is refused at once instead of eating
the CPU.
"""

from __future__ import annotations

import ast
import math
import operator
import re
import unicodedata
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from pydantic import BaseModel, Field

from agent.tool import Source, Tool, ToolError
from agent.tools.args import QuestionLang, lang_of
from agent.tools.percent import PERCENT, percent_syntax
from agent.words import say
from wire.wire_errors import GlassboxError

MAX_CHARS = 500
MAX_INT_BITS = 3400
"""About 1,000 decimal digits: the largest integer an operation may produce."""
MAX_FACTORIAL = 1000

Number = int | float

# What students type, mapped to Python. NFKC already folds full-width digits,
# brackets and operators (（１＋２）＊３) to ASCII.
_TYPED = str.maketrans({"×": "*", "÷": "/", "^": "**", "−": "-", "·": "*", "π": "pi",
                        "，": ",", "。": "."})

_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}

# A run of superscripts is an exponent: 10² is 10**(2), 2⁻¹ is 2**(-1), not NFKC's 102, 2-1.
_SUPERSCRIPTS = str.maketrans(dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾", "0123456789+-()", strict=True)))
_EXPONENT = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾]+")
# What NFKC may fold without changing the meaning: full-width and half-width forms, math
# fonts (𝟐), no-break spaces. Everything else it would change (₂, ½, ①, ⑴, ㎏) is refused.
_SAME_MEANING = frozenset({"<wide>", "<narrow>", "<font>", "<noBreak>"})


class CalcError(GlassboxError):
    """A refusal or a math error: the entry of agent/words.py that says why and the values
    it names; `how` adds examples of how to write an expression."""

    def __init__(self, key: str, *, how: bool = False, **values: object) -> None:
        super().__init__(key)
        self.key, self.how, self.values = key, how, values

    def words(self, lang: str) -> str:
        hint = say(lang, "calc_how_to_write") if self.how else ""
        return say(lang, self.key, **self.values) + hint


def _too_large() -> CalcError:
    return CalcError("calc_too_large")


def _check(value: Number) -> Number:
    """Refuse a value past the bounds: a huge integer, an infinite float."""
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise _too_large()
    elif not math.isfinite(value):
        raise _too_large()
    return value


def _power(base: Number, exp: Number) -> Number:
    if isinstance(base, int) and isinstance(exp, int) and exp >= 0:
        # Refuse before computing: the result has about exp * log2(|base|) bits.
        if abs(base) > 1 and exp * (abs(base).bit_length() - 1) > MAX_INT_BITS:
            raise _too_large()
        return base**exp
    if base == 0 and exp < 0:
        raise ZeroDivisionError
    return math.pow(base, exp)  # floats: O(1), OverflowError when too large


def _div(a: Number, b: Number) -> Number:
    if isinstance(a, int) and isinstance(b, int) and b and a % b == 0:
        return a // b  # exact, and no float rounding for big integers
    return a / b


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: _div,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _power,
}


def _factorial(n: Number) -> int:
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if not isinstance(n, int) or n < 0:
        raise CalcError("calc_factorial")
    if n > MAX_FACTORIAL:
        raise _too_large()
    return math.factorial(n)


def _log(x: Number, base: Number | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


def _round(x: Number, digits: Number | None = None) -> Number:
    """Half away from zero, as taught in school (Python's own round(2.5) is 2)."""
    if digits is not None and not isinstance(digits, int):
        raise CalcError("calc_round_digits")
    places = digits or 0
    if (isinstance(x, int) and places >= 0) or places > 15:
        return x  # nothing to round: floats carry no more than ~15 digits
    unit = Decimal(1).scaleb(-max(places, -MAX_INT_BITS))
    with localcontext(prec=MAX_INT_BITS):
        rounded = Decimal(repr(x)).quantize(unit, rounding=ROUND_HALF_UP)
    return int(rounded) if digits is None or isinstance(x, int) else float(rounded)


def _percent(x: Number) -> Number:
    return _div(x, 100)


def _trig(fn: Callable[[float], float]) -> Callable[[Number], float]:
    """A trig function whose rounding noise is snapped to 0, so sin(pi) shows as 0."""
    return lambda x: 0.0 if abs(v := fn(x)) < 1e-15 else v


# name -> (function, least and most arguments)
_FUNCTIONS: dict[str, tuple[Callable[..., Number], int, int]] = {
    "sqrt": (math.sqrt, 1, 1),
    "sin": (_trig(math.sin), 1, 1),
    "cos": (_trig(math.cos), 1, 1),
    "tan": (_trig(math.tan), 1, 1),
    "asin": (math.asin, 1, 1),
    "acos": (math.acos, 1, 1),
    "atan": (math.atan, 1, 1),
    "log": (_log, 1, 2),
    "ln": (math.log, 1, 1),
    "log10": (math.log10, 1, 1),
    "exp": (math.exp, 1, 1),
    "abs": (abs, 1, 1),
    "round": (_round, 1, 2),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "factorial": (_factorial, 1, 1),
    PERCENT: (_percent, 1, 1),
}

_NOT_ALLOWED = {
    ast.Attribute: "calc_attribute",
    ast.Subscript: "calc_subscripts",
    ast.Lambda: "calc_lambda",
    ast.ListComp: "calc_comprehensions",
    ast.SetComp: "calc_comprehensions",
    ast.DictComp: "calc_comprehensions",
    ast.GeneratorExp: "calc_comprehensions",
    ast.Compare: "calc_comparisons",
    ast.BoolOp: "calc_logic",
}
"""What a refusal of the syntax a calculation does not take calls it."""
_OPERATORS = {ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitAnd: "&",
              ast.BitXor: "^", ast.MatMult: "@", ast.Invert: "~", ast.Not: "not"}


def normalize(expression: str) -> str:
    """The expression in ASCII Python syntax: superscript exponents, full-width forms, ×, ÷,
    ^ and π folded; CalcError for a character whose folding would change its meaning."""
    text = _EXPONENT.sub(lambda run: f"**({run[0].translate(_SUPERSCRIPTS)})", expression)
    for ch in text:
        tag = unicodedata.decomposition(ch).partition(" ")[0]
        if tag.startswith("<") and tag not in _SAME_MEANING:
            raise CalcError("calc_character", ch=ch)
    return unicodedata.normalize("NFKC", text).translate(_TYPED).strip()


def evaluate(expression: str) -> Number:
    """The value of `expression`, or CalcError saying why not."""
    if len(expression) > MAX_CHARS:
        raise CalcError("calc_too_long", most=MAX_CHARS)
    text = normalize(expression)
    if not text:
        raise CalcError("calc_empty")
    try:
        tree = ast.parse(percent_syntax(text), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise CalcError("calc_unreadable", how=True, text=text) from None
    try:
        return _eval(tree.body)
    except ZeroDivisionError:
        raise CalcError("calc_division_by_zero") from None
    except OverflowError:
        raise _too_large() from None
    except ValueError:
        raise CalcError("calc_undefined") from None
    except RecursionError:
        raise CalcError("calc_too_deep") from None


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CalcError("calc_not_a_number", value=value)
        return _check(value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        if isinstance(node.op, ast.Add | ast.Sub) and _is_percent(node.right) \
                and not _is_percent(node.left) and not _is_one(node.left):
            raise _ambiguous(node.left, node.op, node.right)
        left, right = _eval(node.left), _eval(node.right)
        return _check(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Name):
        if node.id.lower() in _CONSTANTS:
            return _CONSTANTS[node.id.lower()]
        raise _unknown_name(node.id)
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.BinOp | ast.UnaryOp):
        symbol = _OPERATORS.get(type(node.op), type(node.op).__name__)
        raise CalcError("calc_operator", symbol=symbol)
    if type(node) in _NOT_ALLOWED:
        raise CalcError(_NOT_ALLOWED[type(node)])
    raise CalcError("calc_not_allowed", what=type(node).__name__)


def _is_percent(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == PERCENT


def _is_one(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1 \
        and not isinstance(node.value, bool)


def _ambiguous(left: ast.expr, op: ast.operator, right: ast.Call) -> CalcError:
    """`100 - 20%`: 80 on a calculator's % key, 99.8 in a maths book; say both ways."""
    sign = "+" if isinstance(op, ast.Add) else "-"
    base = ast.unparse(left)
    rate = ast.unparse(right.args[0]) if len(right.args) == 1 else "p"
    wrap = base if isinstance(left, ast.Constant | ast.Name | ast.Call) else f"({base})"
    relative, plain = f"{wrap} * (1 {sign} {rate}%)", f"{base} {sign} {rate}/100"
    return CalcError("calc_ambiguous_more" if sign == "+" else "calc_ambiguous_less",
                     base=base, rate=rate, relative=relative, plain=plain)


def _call(node: ast.Call) -> Number:
    if not isinstance(node.func, ast.Name):
        raise CalcError("calc_functions_only")
    name = node.func.id.lower()
    if name not in _FUNCTIONS:
        raise _unknown_name(node.func.id)
    fn, least, most = _FUNCTIONS[name]
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args) \
            or not least <= len(node.args) <= most:
        count = str(least) if least == most else f"{least}–{most}"
        raise CalcError("calc_arguments", name=name, count=count)
    args = [_eval(arg) for arg in node.args]
    return _check(fn(*args))


def _unknown_name(name: str) -> CalcError:
    allowed = ", ".join([*_FUNCTIONS, *_CONSTANTS])
    return CalcError("calc_unknown_name", how=True, name=name, allowed=allowed)


def show(value: Number) -> str:
    """Integers in full; floats to 15 significant digits (0.1+0.2 shows as 0.3)."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.15g}"


class Calculate(Tool):
    name = "calculate"
    source = Source.CALCULATED
    description = (
        "Evaluate an arithmetic expression exactly and return its value. Use it for any "
        "calculation instead of doing the math yourself. Supports + - * / // ** (or ^), "
        "a % b (remainder), percentages (12.5% * 3840, 12.5% of 3840, 3840 * (1 + 5%), "
        "20% off 150), parentheses, sqrt, sin, cos, tan, asin, acos, atan (radians), log(x) "
        "(natural), log(x, base), log10, exp, abs, round, floor, ceil, factorial, and pi, e."
    )

    class Args(BaseModel):
        expression: str = Field(
            description="The expression, e.g. '2**100', 'sqrt(2)*3', 'log(8, 2)', "
                        "'factorial(20)'. Use ** or ^ for powers; at most 500 characters.",
        )
        lang: QuestionLang = None

    async def run(self, args: Args) -> str:
        try:
            value = evaluate(args.expression)
        except CalcError as err:
            text = args.expression[:MAX_CHARS]  # a 1 MB one is refused without reading it all
            raise ToolError(err.words(lang_of(args.lang, text))) from None
        return f"{args.expression.strip()} = {show(value)}"

"""convert_currency: the European Central Bank's reference rates, through Frankfurter (v1).

Currencies are ISO codes or the common Chinese and English names; an unknown one is
refused before any request, with the list of supported codes.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent.tool import Tool, ToolError, UpstreamError
from agent.tools.args import QuestionLang, lang_of
from agent.tools.upstream import get_json
from agent.words import say
from wire.tools_client import HttpClient

SERVICE = "Frankfurter"

# The ECB's reference currencies (Frankfurter v1 /currencies), with the names people use.
CURRENCIES: dict[str, tuple[str, ...]] = {
    "AUD": ("澳元", "澳币", "澳大利亚元", "australian dollar"),
    "BGN": ("保加利亚列弗", "bulgarian lev"),
    "BRL": ("巴西雷亚尔", "brazilian real"),
    "CAD": ("加元", "加币", "加拿大元", "canadian dollar"),
    "CHF": ("瑞士法郎", "瑞郎", "swiss franc"),
    "CNY": ("人民币", "元", "rmb", "yuan", "renminbi", "chinese yuan"),
    "CZK": ("捷克克朗", "czech koruna"),
    "DKK": ("丹麦克朗", "danish krone"),
    "EUR": ("欧元", "euro", "euros"),
    "GBP": ("英镑", "pound", "pounds", "british pound", "pound sterling", "sterling"),
    "HKD": ("港币", "港元", "hong kong dollar"),
    "HUF": ("匈牙利福林", "hungarian forint"),
    "IDR": ("印尼盾", "印度尼西亚盾", "indonesian rupiah", "rupiah"),
    "ILS": ("以色列新谢克尔", "谢克尔", "israeli shekel", "shekel"),
    "INR": ("印度卢比", "卢比", "indian rupee", "rupee"),
    "ISK": ("冰岛克朗", "icelandic krona"),
    "JPY": ("日元", "日币", "円", "yen", "japanese yen"),
    "KRW": ("韩元", "韩币", "won", "korean won", "south korean won"),
    "MXN": ("墨西哥比索", "mexican peso"),
    "MYR": ("马来西亚林吉特", "林吉特", "令吉", "ringgit", "malaysian ringgit"),
    "NOK": ("挪威克朗", "norwegian krone"),
    "NZD": ("新西兰元", "纽元", "new zealand dollar"),
    "PHP": ("菲律宾比索", "philippine peso"),
    "PLN": ("波兰兹罗提", "兹罗提", "polish zloty", "zloty"),
    "RON": ("罗马尼亚列伊", "romanian leu"),
    "SEK": ("瑞典克朗", "swedish krona"),
    "SGD": ("新加坡元", "新币", "singapore dollar"),
    "THB": ("泰铢", "baht", "thai baht"),
    "TRY": ("土耳其里拉", "里拉", "turkish lira", "lira"),
    "USD": ("美元", "美金", "dollar", "dollars", "us dollar"),
    "ZAR": ("南非兰特", "兰特", "rand", "south african rand"),
}
_BY_NAME = {name: code for code, names in CURRENCIES.items() for name in names}


def currency_code(text: str) -> str | None:
    """The ISO code a code or name means, or None."""
    key = " ".join(text.strip().lower().split())
    if key.upper() in CURRENCIES:
        return key.upper()
    return _BY_NAME.get(key) or _BY_NAME.get(key.removesuffix("s"))


def money(value: float) -> str:
    """Two decimals with thousands separators, more significant digits below 1."""
    return f"{value:,.2f}" if abs(value) >= 1 or value == 0 else f"{value:.4g}"


class ConvertCurrency(Tool):
    name = "convert_currency"
    description = (
        "Convert an amount of money between currencies at the latest European Central Bank "
        "reference rate (updated on working days). Use it for exchange rates and prices "
        "in another currency."
    )

    class Args(BaseModel):
        amount: float = Field(default=1.0, gt=0, le=1e15, description="The amount to convert.")
        from_currency: str = Field(
            description="ISO code or name of the currency to convert from, e.g. 'USD', '美元'.",
            min_length=1, max_length=40)
        to_currency: str = Field(
            description="ISO code or name of the currency to convert to, e.g. 'CNY', '人民币'.",
            min_length=1, max_length=40)
        lang: QuestionLang = None

    def __init__(self, http: HttpClient, base_url: str) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")

    async def run(self, args: Args) -> str:
        lang = lang_of(args.lang, args.from_currency + args.to_currency)
        source, target = (self._code(text, lang) for text in (args.from_currency,
                                                              args.to_currency))
        if source == target:
            rate, date = 1.0, ""
        else:
            rate, date = await self._rate(source, target, lang)
        amount = f"{args.amount:,.15g}"
        line = f"{amount} {source} = {money(args.amount * rate)} {target}"
        if not date:
            return line
        return line + say(lang, "currency_rate", source=source, rate=rate, target=target,
                          date=date)

    def _code(self, text: str, lang: str) -> str:
        code = currency_code(text)
        if code is None:
            raise _unknown(text, lang)
        return code

    async def _rate(self, source: str, target: str, lang: str) -> tuple[float, str]:
        try:
            data = await get_json(self.http, f"{self.base_url}/latest",
                                  {"from": source, "to": target}, service=SERVICE, lang=lang)
        except UpstreamError as err:
            if err.status == 404:  # Frankfurter's answer to a currency it does not know
                raise _unknown(f"{source}/{target}", lang) from None
            raise
        rates = data.get("rates") if isinstance(data, dict) else None
        rate = rates.get(target) if isinstance(rates, dict) else None
        if isinstance(rate, bool) or not isinstance(rate, int | float):
            raise UpstreamError(say(lang, "currency_no_rate", service=SERVICE, source=source,
                                    target=target))
        date = data.get("date") if isinstance(data.get("date"), str) else "?"
        return float(rate), date


def _unknown(text: str, lang: str) -> ToolError:
    codes = ", ".join(CURRENCIES)
    return ToolError(say(lang, "currency_unknown", currency=text, codes=codes))

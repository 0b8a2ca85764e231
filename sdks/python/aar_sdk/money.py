"""Money (CONTRACT section 2): `{ amount: <major units>, currency }` on the wire, integer minor units inside, never a
float in arithmetic. The decimal digits come from the shortest round-trip text of the number, as core's money/ does."""
from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from .jcs import format_number

# ISO 4217 minor-unit digits (core's money/currencies.ts)
CURRENCY_DIGITS: dict[str, int] = {c: 2 for c in (
    "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF "
    "CHW CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG "
    "HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK "
    "MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE "
    "SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR "
    "ZMW ZWG ZWL").split()}
CURRENCY_DIGITS.update({c: 0 for c in "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF".split()})
CURRENCY_DIGITS.update({c: 3 for c in "BHD IQD JOD KWD LYD OMR TND".split()})
CURRENCY_DIGITS.update({"CLF": 4, "UYW": 4})
MAX_SIGNIFICANT_DIGITS = 15


class InvalidAmount(ValueError):
    pass


def _decimal_parts(text: str) -> tuple[str, int]:
    """(digits without leading/trailing zeros, scale) with value = digits * 10^scale."""
    body = text.lstrip("-")
    mantissa, _, exp = body.lower().partition("e")
    exponent = int(exp) if exp else 0
    whole, _, fraction = mantissa.partition(".")
    all_digits = (whole + fraction).lstrip("0")
    digits = all_digits.rstrip("0")
    if not digits:
        return "", 0
    return digits, exponent - len(fraction) + (len(all_digits) - len(digits))


def parse_amount(amount: Any, currency: Any) -> dict[str, Any]:
    """`{ minor, currency }` of a major-unit amount; raises InvalidAmount as core's parseAmount refuses."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not math.isfinite(amount):
        raise InvalidAmount("must be a finite number")
    if not amount > 0:
        raise InvalidAmount("must be greater than zero")
    if not isinstance(currency, str) or currency not in CURRENCY_DIGITS:
        raise InvalidAmount("unknown currency")
    places = CURRENCY_DIGITS[currency]
    digits, scale = _decimal_parts(format_number(amount))
    if -scale > places:
        raise InvalidAmount(f"`{currency}` allows at most {places} decimals")
    if scale < 0 and len(digits) > MAX_SIGNIFICANT_DIGITS:
        raise InvalidAmount("too many significant digits to be exact")
    minor_text = digits + "0" * (scale + places)
    minor = int(minor_text) if len(minor_text) <= 16 else 2**60
    if minor > 2**53 - 1:
        raise InvalidAmount("amount is too large")
    return {"minor": minor, "currency": currency}


def to_major_units(minor: int, currency: str) -> int | float:
    """The exact JSON number of major units for `minor` (an int when the currency has no decimals)."""
    places = CURRENCY_DIGITS[currency]
    if places == 0:
        return minor
    return float(Decimal(minor).scaleb(-places))


def format_money(minor: int, currency: str) -> str:
    """`30.00 EUR`, `5000 JPY`, `12.500 BHD`: every minor digit of the currency."""
    places = CURRENCY_DIGITS[currency]
    sign = "-" if minor < 0 else ""
    text = str(abs(minor)).rjust(places + 1, "0")
    major = text if places == 0 else f"{text[:-places]}.{text[-places:]}"
    return f"{sign}{major} {currency}"

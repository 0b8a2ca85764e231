"""Exact ISO 8601 timestamps, as core's decide/instant.ts: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM)`, nothing else,
compared to the nanosecond (no float, no datetime: `datetime` keeps microseconds only and would round
`10:00:00.0000005` into equality with `10:00:00`)."""
from __future__ import annotations

import re
from typing import Any, NamedTuple

_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))", re.ASCII)


class Instant(NamedTuple):
    seconds: int
    nanos: int


def _leap(year: int) -> bool:
    return (year % 4 == 0 and year % 100 != 0) or year % 400 == 0


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if _leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    y = year - 1 if month <= 2 else year
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_instant(value: Any) -> Instant | None:
    if not isinstance(value, str):
        return None
    m = _ISO.fullmatch(value)
    if not m:
        return None
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    if month < 1 or month > 12 or day < 1 or day > _days_in_month(year, month):
        return None
    if hour > 23 or minute > 59 or second > 59:
        return None
    offset = 0
    if m.group(8) != "Z":
        oh, om = int(m.group(10)), int(m.group(11))
        if oh > 23 or om > 59:
            return None
        offset = (-1 if m.group(9) == "-" else 1) * (oh * 3600 + om * 60)
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset
    nanos = int((m.group(7) or "").ljust(9, "0"))
    return Instant(seconds, nanos)


def compare_instants(a: Instant, b: Instant) -> int:
    if a.seconds != b.seconds:
        return -1 if a.seconds < b.seconds else 1
    if a.nanos != b.nanos:
        return -1 if a.nanos < b.nanos else 1
    return 0

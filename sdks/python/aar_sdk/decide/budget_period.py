"""The first UTC day of a budget's current period (aar-decide/1.4.0), as core's decide/budget-period.ts: `day` the
UTC day, `week` the ISO week (Monday 00:00 UTC), `month`, `year`; `total` has none (None). Integer arithmetic on the
parsed instant, so offsets and leap days are exact; a bad period or timestamp raises ValueError rather than guess."""
from __future__ import annotations

from .instant import parse_instant
from .scope import BUDGET_PERIODS


def budget_period_start(period: str, now_iso: str) -> str | None:
    if not isinstance(period, str) or period not in BUDGET_PERIODS:
        raise ValueError(f"budget period must be one of {', '.join(BUDGET_PERIODS)}")
    now = parse_instant(now_iso)
    if now is None:
        raise ValueError("now must be an ISO 8601 timestamp with an offset")
    if period == "total":
        return None
    days = now.seconds // 86400
    if period == "week":
        # 1970-01-01 was a Thursday: (days + 3) mod 7 counts days since Monday
        return _day_text(*_civil_from_days(days - (days + 3) % 7))
    year, month, day = _civil_from_days(days)
    if period == "day":
        return _day_text(year, month, day)
    if period == "month":
        return _day_text(year, month, 1)
    return _day_text(year, 1, 1)


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """H. Hinnant's `civil_from_days` (floor division throughout, as core's)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (1 if month <= 2 else 0), month, day


def _day_text(year: int, month: int, day: int) -> str:
    return f"{year:04d}-{month:02d}-{day:02d}"

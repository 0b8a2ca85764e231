"""Port of core's decision engine for offline replay (CONTRACT section 3)."""
from .budget_period import budget_period_start
from .decide import ALLOW_STOP_CONDITIONS, compute_basket_hash, decide, evaluate
from .reason_codes import CHECK_ORDER, REASON_CODES

__all__ = ["decide", "evaluate", "compute_basket_hash", "budget_period_start", "ALLOW_STOP_CONDITIONS", "CHECK_ORDER",
           "REASON_CODES"]

"""The rule language of policy packs (CONTRACT section 19): the strict JsonLogic profile `aar-jsonlogic/1`, evaluated
with json-logic-js 2.0.5's semantics, so a rule answers here exactly what it answered in the service."""
from .jsonlogic import JsonLogicError, apply, truthy
from .profile import INHERITED_PROPERTY_NAMES, MAX_RULE_DEPTH, MAX_RULE_NODES, OPERATORS, check_rule_profile

__all__ = ["apply", "truthy", "JsonLogicError", "check_rule_profile", "INHERITED_PROPERTY_NAMES", "OPERATORS",
           "MAX_RULE_DEPTH", "MAX_RULE_NODES"]

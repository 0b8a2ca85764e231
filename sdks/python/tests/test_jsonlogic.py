"""The JsonLogic evaluator of the profile `aar-jsonlogic/1` against json-logic-js 2.0.5: the shared suite's cases inside
the profile (the subset TypeScript lists, the same in every runtime), the 5,000 seeded differential cases, and the
profile check's refusals."""
import math

import pytest

from aar_sdk.decide.js import UNDEFINED
from aar_sdk.rules import INHERITED_PROPERTY_NAMES, JsonLogicError, apply, check_rule_profile, truthy
from conftest import VECTORS, load, shared

SHARED_SUITE = shared("jsonlogic", "tests.json")
PROFILE_CASES = VECTORS / "jsonlogic-profile-cases.json"
DIFFERENTIAL = VECTORS / "jsonlogic-differential.json"


THREW = object()


def decode(value):
    """The vectors' encoding of what JSON cannot hold: `{"$number": "NaN"|"Infinity"|"-Infinity"}`,
    `{"$undefined": true}`, and `{"$error": true}` where json-logic-js threw."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if value == {"$undefined": True}:
            return UNDEFINED
        if value == {"$error": True}:
            return THREW
        if len(value) == 1 and "$number" in value:
            return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[value["$number"]]
        return {k: decode(v) for k, v in value.items()}
    return value


def same(got, want):
    """Equality as JavaScript values: a boolean is never a number, NaN equals NaN, undefined only itself."""
    if got is UNDEFINED or want is UNDEFINED or got is THREW or want is THREW:
        return got is want
    if isinstance(got, bool) or isinstance(want, bool):
        return type(got) is type(want) and got == want
    if isinstance(got, (int, float)) and isinstance(want, (int, float)):
        return got == want or (got != got and want != want)
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(same(got[k], want[k]) for k in got)
    return type(got) is type(want) and got == want


def shared_cases():
    return [case for case in load(SHARED_SUITE) if isinstance(case, list)] if SHARED_SUITE else []


@pytest.mark.skipif(SHARED_SUITE is None, reason="shared JsonLogic suite absent")
def test_shared_suite_inside_the_profile():
    suite = load(SHARED_SUITE)
    listed = load(PROFILE_CASES)
    assert listed["count"] == 240 and len(listed["indexes"]) == 240
    # the profile check selects exactly the cases TypeScript selected
    inside = [i for i, case in enumerate(suite) if isinstance(case, list) and not check_rule_profile(case[0], "")]
    assert inside == listed["indexes"]
    failures = []
    for i in listed["indexes"]:
        rule, data, want = suite[i]
        got = apply(rule, data)
        if not same(got, want):
            failures.append((i, rule, got, want))
    assert failures == []


@pytest.mark.skipif(SHARED_SUITE is None, reason="shared JsonLogic suite absent")
def test_shared_suite_outside_the_profile_is_refused():
    outside = [c for c in shared_cases() if check_rule_profile(c[0], "")]
    assert len(shared_cases()) == 290 and len(outside) == 50
    ops = {next(iter(c[0])) for c in outside if isinstance(c[0], dict)}
    assert {"==", "!=", "/", "?:", "filter", "map", "reduce"} <= ops


def test_differential_cases_agree_with_json_logic_js():
    vectors = load(DIFFERENTIAL)
    assert vectors["count"] == 5000 and len(vectors["cases"]) == 5000
    failures = []
    for i, case in enumerate(vectors["cases"]):
        assert check_rule_profile(case["rule"], "") == [], i
        try:
            got = apply(case["rule"], case["data"])
        except JsonLogicError:
            got = THREW
        if not same(got, decode(case["result"])):
            failures.append((i, case["rule"], got, case["result"]))
    assert failures[:5] == [] and len(failures) == 0
    threw = [c for c in vectors["cases"] if c["result"] == {"$error": True}]
    assert len(threw) == 21  # objects with an own `toString`/`indexOf`: JS throws, and so does the port


@pytest.mark.parametrize("rule,data,want", [
    ({"+": ["1e3", " 2x"]}, None, 1002.0),  # parseFloat reads a prefix
    ({"*": ["3"]}, None, "3"),  # reduce without an initial value returns a lone argument untouched
    ({"-": ["0x10", 1]}, None, 15.0),  # ToNumber reads hex, parseFloat would not
    ({"cat": {"var": ""}}, [1e21, 0.1, -0.0, [1, [None, 2]], {"a": 1}, None], "1e+21,0.1,0,1,,2,[object Object],"),
    ({"cat": [{"var": "0"}, {"var": "1"}, {"var": "2"}]}, [1e21, 0.1, -0.0], "1e+210.10"),
    ({"cat": [{"-": [0, {"var": "x"}]}]}, {"x": "Infinity"}, "-Infinity"),
    ({"in": ["b", "abc"]}, None, True),
    ({"in": [None, "nullish"]}, None, True),  # indexOf stringifies
    ({"in": [[1], [[1]]]}, None, False),  # === on arrays is identity
    ({"===": [{"var": "a"}, {"var": "a"}]}, {"a": []}, True),  # the same array twice
    ({"<": ["10", "9"]}, None, True),  # two strings compare as strings
    ({"<": ["10", 9]}, None, False),
    ({"<": [None, 1, "2"]}, None, True),
    ({">=": ["x", 0]}, None, False),  # NaN compares false both ways
    ({"<=": [[2], 2]}, None, True),
    ({"%": [-7, 3]}, None, -1.0),
    ({"%": [7, 0]}, None, math.nan),
    ({"max": []}, None, -math.inf),
    ({"min": [1, "x"]}, None, math.nan),
    ({"substr": ["jsonlogic", 1, "-5"]}, None, ""),  # temp.length + "-5" concatenates: JS's own quirk
    ({"substr": ["\U0001F600ab", 1]}, None, "\ude00ab"),  # UTF-16 code units
    ({"var": "s.1"}, {"s": "abc"}, "b"),
    ({"var": "arr.01"}, {"arr": [1, 2]}, None),  # not a canonical index
    ({"var": ["a.b", {"cat": ["d", 1]}]}, {"a": 5}, "d1"),
    ({"missing_some": [1, ["a", "b"]]}, {"b": ""}, ["a", "b"]),
    ({"all": [[], True]}, None, False),
    ({"none": ["abc", True]}, None, True),
    ({"and": []}, None, UNDEFINED),
    ({"if": [[], 1, [0], 2, 3]}, None, 2),
])
def test_javascript_semantics(rule, data, want):
    assert check_rule_profile(rule, "") == []
    assert same(apply(rule, data), want)


def test_throws_where_json_logic_js_throws():
    with pytest.raises(JsonLogicError):
        apply({"*": []}, None)
    with pytest.raises(JsonLogicError):
        apply({"missing_some": [1, {"var": "x"}]}, {})  # options.length of null
    with pytest.raises(JsonLogicError, match="Unrecognized operation"):
        apply({"log": 1}, None)
    with pytest.raises(JsonLogicError):
        apply({"cat": [{"var": "o"}]}, {"o": {"toString": "x"}})  # no callable toString: TypeError in JS
    with pytest.raises(JsonLogicError):
        apply({"in": [1, {"var": "o"}]}, {"o": {"indexOf": 1}})


def test_truthiness_treats_an_empty_array_as_false():
    assert [truthy(v) for v in ([], [0], {}, "", "0", 0, math.nan, -0.0, None, UNDEFINED)] == [
        False, True, True, False, True, False, False, False, False, False]


@pytest.mark.parametrize("rule,pointer,fragment", [
    ({"==": [1, 1]}, "/when/==", "not in the profile"),
    ({"/": [4, 2]}, "/when/~1", None),
    ({"log": 1}, "/when/log", None),
    ({"?:": [1, 2, 3]}, "/when/?:", None),
    ({"filter": [[1], True]}, "/when/filter", None),
    ({"+": [1, 2.5]}, "/when/+/1", "not a safe integer"),
    ({"+": [1, 9007199254740992]}, "/when/+/1", "not a safe integer"),
    ({"var": {"cat": ["a", "b"]}}, "/when/var", "computed paths"),
    ({"var": ["a", 1, 2]}, "/when/var", "[path] or [path, default]"),
    ({"var": "request.length"}, "/when/var", "inherited property"),
    ({"var": "facts.constructor"}, "/when/var", "inherited property"),
    ({"var": "a-b"}, "/when/var", "must match"),
    ({"missing": ["a", "__proto__"]}, "/when/missing/1", "inherited property"),
    ({"missing_some": [1, "a"]}, "/when/missing_some/1", "literal array of paths"),
    ({"some": [[1]]}, "/when/some", "exactly two arguments"),
    ({"and": [{"a": 1, "b": 2}]}, "/when/and/0", "exactly one operator"),
    ({"and": [{}]}, "/when/and/0", "exactly one operator"),
    ({"a/b~c": 1}, "/when/a~1b~0c", "not in the profile"),
])
def test_profile_refusals_name_the_pointer(rule, pointer, fragment):
    problems = check_rule_profile(rule, "/when")
    assert problems and problems[0]["pointer"] == pointer
    if fragment:
        assert fragment in problems[0]["message"]


def test_profile_limits_depth_and_nodes():
    deep = True
    for _ in range(16):
        deep = {"!": [deep]}  # each level is an object and an array: 33 levels
    assert any("deeper than 32" in p["message"] for p in check_rule_profile(deep, ""))
    shallow = True
    for _ in range(15):
        shallow = {"!": [shallow]}
    assert check_rule_profile(shallow, "") == []
    wide = {"and": list(range(1998))}  # object + array + 1,998 scalars = 2,000 nodes
    assert check_rule_profile(wide, "") == []
    problems = check_rule_profile({"and": list(range(1999))}, "/rules/0/when")
    assert problems == [{"pointer": "/rules/0/when", "message": "rule has 2001 nodes, at most 2000 allowed"}]


def test_profile_admits_the_whole_data_and_integer_paths():
    assert check_rule_profile({"var": ""}, "") == []
    assert check_rule_profile({"var": 0}, "") == []
    assert check_rule_profile({"var": ["facts.counters.purchases_1h", 0]}, "") == []
    assert check_rule_profile({"missing": [["a", "b.c"]]}, "") == []


def test_inherited_names_cover_every_prototype_name_json_logic_js_could_read():
    names = set(INHERITED_PROPERTY_NAMES)
    assert {"length", "constructor", "__proto__", "toString", "valueOf", "hasOwnProperty", "indexOf", "toFixed"} <= names
    assert len(names) == len(INHERITED_PROPERTY_NAMES) == 94

import pytest

from aar_sdk.jcs import CanonicalJsonError, DuplicateKeyError, canonical_json, format_number, parse_json
from conftest import shared

JCS = shared("jcs")
CASES = sorted((JCS / "input").glob("*.json")) if JCS else []


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_rfc8785_vectors(path):
    want = (JCS / "output" / path.name).read_bytes()
    assert canonical_json(parse_json(path.read_bytes())).encode("utf-8") == want


@pytest.mark.skipif(JCS is None, reason="../shared/vectors/jcs is absent")
def test_vectors_exist():
    assert len(CASES) >= 5


@pytest.mark.parametrize("value,text", [(1e21, "1e+21"), (1e-7, "1e-7"), (0.000001, "0.000001"), (-0.0, "0"),
                                        (2**53 + 1, "9007199254740992"), (5e-324, "5e-324"), (100.0, "100")])
def test_ecmascript_numbers(value, text):
    assert format_number(value) == text


def test_refuses_what_json_cannot_hold():
    with pytest.raises(CanonicalJsonError):
        canonical_json({"a": float("nan")})
    with pytest.raises(CanonicalJsonError):
        canonical_json({"a": "\ud800"})
    with pytest.raises(DuplicateKeyError):
        parse_json('{"amount": 1, "amount": 1000}')
    with pytest.raises(ValueError):
        parse_json('{"a": NaN}')

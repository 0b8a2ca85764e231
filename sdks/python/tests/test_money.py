import pytest

from aar_sdk.money import InvalidAmount, format_money, parse_amount, to_major_units


@pytest.mark.parametrize("amount,currency,minor", [(42.5, "EUR", 4250), (30000, "JPY", 30000), (12.345, "BHD", 12345),
                                                   (0.01, "EUR", 1), (100.0, "EUR", 10000)])
def test_parse_amount_exact_minor_units(amount, currency, minor):
    assert parse_amount(amount, currency) == {"minor": minor, "currency": currency}
    assert parse_amount(to_major_units(minor, currency), currency)["minor"] == minor


@pytest.mark.parametrize("amount,currency", [(1.005, "EUR"), (1.5, "JPY"), (0, "EUR"), (-1, "EUR"), (1, "XXX"),
                                             (True, "EUR"), (float("inf"), "EUR"), (2**60, "EUR")])
def test_parse_amount_refuses(amount, currency):
    with pytest.raises(InvalidAmount):
        parse_amount(amount, currency)


def test_format_money():
    assert [format_money(3000, "EUR"), format_money(5000, "JPY"), format_money(12500, "BHD")] == \
        ["30.00 EUR", "5000 JPY", "12.500 BHD"]

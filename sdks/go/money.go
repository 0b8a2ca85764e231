package aar

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Money is an API amount: a JSON number in major units (CONTRACT section 2). Amount is a json.Number so that
// "42.50" travels exactly as written, never through a float.
type Money struct {
	Amount   json.Number `json:"amount"`
	Currency string      `json:"currency"`
}

// CurrencyExponent is the number of decimals of a currency's minor unit, and whether the code is ISO 4217.
func CurrencyExponent(currency string) (int, bool) {
	e, ok := iso4217Digits[currency]
	return e, ok
}

// MoneyFromMinor builds an API amount from integer minor units, exactly: 4250 EUR is "42.50", 12345 BHD "12.345".
func MoneyFromMinor(minor int64, currency string) (Money, error) {
	if minor < 0 {
		return Money{}, fmt.Errorf("aar: negative amount")
	}
	e, ok := CurrencyExponent(currency)
	if !ok {
		return Money{}, fmt.Errorf("aar: currency %q is not ISO 4217 alpha-3", currency)
	}
	digits := strconv.FormatInt(minor, 10)
	if e == 0 {
		return Money{Amount: json.Number(digits), Currency: currency}, nil
	}
	for len(digits) <= e {
		digits = "0" + digits
	}
	return Money{Amount: json.Number(digits[:len(digits)-e] + "." + digits[len(digits)-e:]), Currency: currency}, nil
}

// parseWireAmount converts a wire amount (major units, a JSON number) to integer minor units exactly, as core's
// parseAmount does: finite, > 0, a known currency, no more decimals than it allows, a safe integer result.
func parseWireAmount(amount, currency any) (float64, string, bool) {
	f, ok := amount.(float64)
	cur, ok2 := currency.(string)
	if !ok || !ok2 || !(f > 0) {
		return 0, "", false
	}
	digits, known := iso4217Digits[cur]
	if !known {
		return 0, "", false
	}
	text := esNumber(f) // the shortest decimal of the double, as String(amount)
	mantissa, exp := text, 0
	if i := strings.IndexAny(text, "e"); i >= 0 {
		mantissa = text[:i]
		exp, _ = strconv.Atoi(text[i+1:])
	}
	intPart, frac, _ := strings.Cut(mantissa, ".")
	all := strings.TrimLeft(intPart+frac, "0")
	digitsText := strings.TrimRight(all, "0")
	if digitsText == "" {
		return 0, "", false
	}
	scale := exp - len(frac) + (len(all) - len(digitsText))
	all = digitsText
	if -scale > digits {
		return 0, "", false
	}
	if scale < 0 && len(all) > 15 {
		return 0, "", false
	}
	minorText := all + strings.Repeat("0", scale+digits)
	if len(minorText) > 16 {
		return 0, "", false
	}
	minor, err := strconv.ParseInt(minorText, 10, 64)
	if err != nil || minor > maxSafeInteger {
		return 0, "", false
	}
	return float64(minor), cur, true
}

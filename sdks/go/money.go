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

// currencyExponents lists the ISO 4217 currencies whose minor unit is not 2 decimals.
var currencyExponents = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0, "UGX": 0,
	"UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	"CLF": 4, "UYW": 4,
}

// CurrencyExponent is the number of decimals of a currency's minor unit (2 unless listed).
func CurrencyExponent(currency string) int {
	if e, ok := currencyExponents[currency]; ok {
		return e
	}
	return 2
}

// MoneyFromMinor builds an API amount from integer minor units, exactly: 4250 EUR is "42.50", 12345 BHD "12.345".
func MoneyFromMinor(minor int64, currency string) (Money, error) {
	if minor < 0 {
		return Money{}, fmt.Errorf("aar: negative amount")
	}
	if len(currency) != 3 || strings.ToUpper(currency) != currency {
		return Money{}, fmt.Errorf("aar: currency %q is not ISO 4217 alpha-3", currency)
	}
	e := CurrencyExponent(currency)
	digits := strconv.FormatInt(minor, 10)
	if e == 0 {
		return Money{Amount: json.Number(digits), Currency: currency}, nil
	}
	for len(digits) <= e {
		digits = "0" + digits
	}
	return Money{Amount: json.Number(digits[:len(digits)-e] + "." + digits[len(digits)-e:]), Currency: currency}, nil
}

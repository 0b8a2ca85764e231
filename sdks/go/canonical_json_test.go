package aar

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestCanonicalizeMatchesRFC8785Vectors(t *testing.T) {
	dir := sharedVectorPath(t, "jcs")
	inputs, err := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no jcs inputs in %s", dir)
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			data, _ := os.ReadFile(in)
			want, err := os.ReadFile(filepath.Join(dir, "output", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := CanonicalizeJSON(data)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestFormatESNumberAgreesWithECMAScript(t *testing.T) {
	cases := readJSONFile(t, filepath.Join("testdata", "es-numbers.json")).([]any)
	if len(cases) < 1000 {
		t.Fatalf("only %d number cases", len(cases))
	}
	for _, c := range cases {
		m := obj(c)
		raw, _ := hex.DecodeString(m["bits"].(string))
		f := math.Float64frombits(binary.BigEndian.Uint64(raw))
		got, err := FormatESNumber(f)
		if err != nil || got != m["text"] {
			t.Fatalf("%s (%v): got %q, want %q (%v)", m["bits"], f, got, m["text"], err)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := FormatESNumber(bad); err == nil {
			t.Fatalf("%v formatted", bad)
		}
	}
}

func TestParseJSONRefusesWhatJCSCannotSign(t *testing.T) {
	for _, bad := range []string{
		`{"a":1,"a":2}`, `"\ud800"`, `"\udc00x"`, `1e400`, "\xef\xbb\xbf{}", "{\"a\":\"\xff\"}", `{} x`, `01`, `[1,]`,
		`{"a" 1}`, `"a` + "\x01" + `"`, `NaN`,
	} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	deep := ""
	for i := 0; i < 10000; i++ {
		deep += "["
	}
	if _, err := ParseJSON([]byte(deep)); err == nil {
		t.Error("accepted 10,000-deep nesting")
	}
	v, err := ParseJSON([]byte(`{"emoji":"\ud83d\ude00","neg":-0,"big":1E2}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Canonicalize(v)
	if string(got) != `{"big":100,"emoji":"😀","neg":0}` {
		t.Fatalf("got %s", got)
	}
}

func TestCanonicalizeSortsByUTF16CodeUnits(t *testing.T) {
	// U+1F600 is D83D DE00 in UTF-16, below U+FB01: byte order would put it last.
	got, err := Canonicalize(map[string]any{"\uFB01": 1, "\U0001F600": 2, "a": 3})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "{\"a\":3,\"\U0001F600\":2,\"\uFB01\":1}" {
		t.Fatalf("got %s", got)
	}
}

// COSE_Sign1 (RFC 9052) with EdDSA over Ed25519, and the strict CBOR decoder it needs, both WRITTEN BY HAND: the
// Go standard library has no CBOR and this module takes no third-party code. The decoder reads exactly the subset a
// COSE_Sign1 uses (unsigned and negative integers, byte and text strings, arrays, maps, tag 18 on the outside,
// false/true/null) and refuses everything else. Attacker assumption: every byte is hostile. Refused: trailing bytes,
// indefinite lengths, non-preferred (longer than needed) integer and length encodings, duplicate map keys, floats
// and other simple values, any other tag, invalid UTF-8 text, nesting deeper than 16, a detached payload, labels
// that are neither integers nor text, a label in both buckets, and an external AAD other than empty.

package aar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// COSE constants (RFC 9052, RFC 9053).
const (
	CoseSign1Tag  = 18
	CoseAlgEdDSA  = -8
	coseLabelAlg  = 1
	coseLabelCrit = 2
	coseLabelKid  = 4
	cborMaxDepth  = 16
)

type cborTag struct {
	tag     uint64
	content any
}

// cborMap keeps decoded keys (int64 or string, or other decoded items) in order with their values.
type cborMap struct {
	keys   []any
	values []any
}

func (m *cborMap) get(label any) (any, bool) {
	for i, k := range m.keys {
		if k == label {
			return m.values[i], true
		}
	}
	return nil, false
}

type cborDecoder struct {
	data []byte
	pos  int
}

var errCBOR = errors.New("cbor")

func (d *cborDecoder) fail(format string, args ...any) error {
	return fmt.Errorf("%w: %s at %d", errCBOR, fmt.Sprintf(format, args...), d.pos)
}

// decodeCBOR decodes exactly one item; allowTag18 admits a tag on the outermost item only.
func decodeCBOR(data []byte, allowTag18 bool) (any, error) {
	if len(data) == 0 {
		return nil, errors.New("cbor: no item")
	}
	d := &cborDecoder{data: data}
	v, err := d.item(0, allowTag18)
	if err != nil {
		return nil, err
	}
	if d.pos != len(d.data) {
		return nil, d.fail("trailing bytes")
	}
	return v, nil
}

func (d *cborDecoder) argument(info byte) (uint64, error) {
	need := func(n int) ([]byte, error) {
		if len(d.data)-d.pos < n {
			return nil, d.fail("truncated")
		}
		b := d.data[d.pos : d.pos+n]
		d.pos += n
		return b, nil
	}
	switch {
	case info < 24:
		return uint64(info), nil
	case info == 24:
		b, err := need(1)
		if err != nil {
			return 0, err
		}
		if b[0] < 24 {
			return 0, d.fail("non-preferred encoding")
		}
		return uint64(b[0]), nil
	case info == 25:
		b, err := need(2)
		if err != nil {
			return 0, err
		}
		v := uint64(binary.BigEndian.Uint16(b))
		if v <= 0xff {
			return 0, d.fail("non-preferred encoding")
		}
		return v, nil
	case info == 26:
		b, err := need(4)
		if err != nil {
			return 0, err
		}
		v := uint64(binary.BigEndian.Uint32(b))
		if v <= 0xffff {
			return 0, d.fail("non-preferred encoding")
		}
		return v, nil
	case info == 27:
		b, err := need(8)
		if err != nil {
			return 0, err
		}
		v := binary.BigEndian.Uint64(b)
		if v <= 0xffffffff {
			return 0, d.fail("non-preferred encoding")
		}
		return v, nil
	case info == 31:
		return 0, d.fail("indefinite length")
	}
	return 0, d.fail("reserved additional information")
}

func (d *cborDecoder) item(depth int, allowTag18 bool) (any, error) {
	if depth > cborMaxDepth {
		return nil, d.fail("nesting too deep")
	}
	if d.pos >= len(d.data) {
		return nil, d.fail("truncated")
	}
	initial := d.data[d.pos]
	d.pos++
	major, info := initial>>5, initial&0x1f
	if major == 7 {
		switch info {
		case 20:
			return false, nil
		case 21:
			return true, nil
		case 22:
			return nil, nil
		}
		return nil, d.fail("simple value or float")
	}
	arg, err := d.argument(info)
	if err != nil {
		return nil, err
	}
	switch major {
	case 0:
		if arg > 1<<53-1 {
			return nil, d.fail("integer beyond 2^53")
		}
		return int64(arg), nil
	case 1:
		if arg > 1<<53-1 {
			return nil, d.fail("integer beyond 2^53")
		}
		return -1 - int64(arg), nil
	case 2, 3:
		if arg > uint64(len(d.data)-d.pos) {
			return nil, d.fail("truncated string")
		}
		b := d.data[d.pos : d.pos+int(arg)]
		d.pos += int(arg)
		if major == 3 {
			if !utf8.Valid(b) {
				return nil, d.fail("invalid utf-8 text")
			}
			return string(b), nil
		}
		return append([]byte(nil), b...), nil
	case 4:
		if arg > uint64(len(d.data)-d.pos) {
			return nil, d.fail("array longer than the input")
		}
		out := make([]any, 0, arg)
		for i := uint64(0); i < arg; i++ {
			v, err := d.item(depth+1, false)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case 5:
		if arg > uint64(len(d.data)-d.pos) {
			return nil, d.fail("map longer than the input")
		}
		m := &cborMap{}
		seen := map[string]bool{}
		for i := uint64(0); i < arg; i++ {
			k, err := d.item(depth+1, false)
			if err != nil {
				return nil, err
			}
			id := fmt.Sprintf("%T:%v", k, k)
			if seen[id] {
				return nil, d.fail("duplicate map key")
			}
			seen[id] = true
			v, err := d.item(depth+1, false)
			if err != nil {
				return nil, err
			}
			m.keys = append(m.keys, k)
			m.values = append(m.values, v)
		}
		return m, nil
	case 6:
		// Only the outermost item may be tagged; its tag number is judged by the caller (cose_wrong_tag).
		if !allowTag18 {
			return nil, d.fail("tag %d inside the message", arg)
		}
		v, err := d.item(depth+1, false)
		if err != nil {
			return nil, err
		}
		return cborTag{tag: arg, content: v}, nil
	}
	return nil, d.fail("unknown major type")
}

// CoseSign1 is a decoded COSE_Sign1.
type CoseSign1 struct {
	ProtectedBytes []byte
	Protected      *cborMap
	Unprotected    *cborMap
	Payload        []byte
	Signature      []byte
}

// CoseError is a COSE refusal with its stable code (core's webhook verification codes).
type CoseError struct {
	Code   string
	Detail string
}

func (e *CoseError) Error() string { return "cose: " + e.Code + ": " + e.Detail }

func coseFail(code, detail string) error { return &CoseError{Code: code, Detail: detail} }

func isHeaderMap(v any) (*cborMap, bool) {
	m, ok := v.(*cborMap)
	if !ok {
		return nil, false
	}
	for _, k := range m.keys {
		switch k.(type) {
		case int64, string:
		default:
			return nil, false
		}
	}
	return m, true
}

// DecodeCoseSign1 strictly decodes a tagged COSE_Sign1.
func DecodeCoseSign1(data []byte) (*CoseSign1, error) {
	outer, err := decodeCBOR(data, true)
	if err != nil {
		return nil, coseFail("cose_malformed", err.Error())
	}
	tag, ok := outer.(cborTag)
	if !ok {
		return nil, coseFail("cose_wrong_tag", "not a tagged cose message")
	}
	if tag.tag != CoseSign1Tag {
		return nil, coseFail("cose_wrong_tag", "tag "+strconv.FormatUint(tag.tag, 10))
	}
	parts, ok := tag.content.([]any)
	if !ok || len(parts) != 4 {
		return nil, coseFail("cose_malformed", "cose_sign1 is an array of 4")
	}
	protectedBytes, ok := parts[0].([]byte)
	if !ok {
		return nil, coseFail("cose_malformed", "the protected bucket is not a bstr")
	}
	if parts[2] == nil {
		return nil, coseFail("cose_detached_payload", "the payload is detached")
	}
	payload, ok := parts[2].([]byte)
	if !ok {
		return nil, coseFail("cose_malformed", "the payload is not a bstr")
	}
	signature, ok := parts[3].([]byte)
	if !ok {
		return nil, coseFail("cose_malformed", "the signature is not a bstr")
	}
	unprotected, ok := isHeaderMap(parts[1])
	if !ok {
		return nil, coseFail("cose_malformed", "the unprotected bucket is not a header map")
	}
	protected := &cborMap{}
	if len(protectedBytes) > 0 {
		inner, err := decodeCBOR(protectedBytes, false)
		if err != nil {
			return nil, coseFail("cose_malformed", "protected bucket: "+err.Error())
		}
		if protected, ok = isHeaderMap(inner); !ok {
			return nil, coseFail("cose_malformed", "the protected bucket is not a header map")
		}
	}
	for _, k := range unprotected.keys {
		if _, both := protected.get(k); both {
			return nil, coseFail("cose_duplicate_label", "a label in both buckets")
		}
	}
	return &CoseSign1{ProtectedBytes: protectedBytes, Protected: protected, Unprotected: unprotected, Payload: payload, Signature: signature}, nil
}

// KeyID reads the profile's headers: alg EdDSA in the protected bucket, no crit, a kid (in the protected bucket when
// requireProtectedKid) as UTF-8 text.
func (m *CoseSign1) KeyID(requireProtectedKid bool) (string, error) {
	if _, ok := m.Unprotected.get(int64(coseLabelAlg)); ok {
		return "", coseFail("cose_alg_not_protected", "alg is in the unprotected bucket")
	}
	alg, ok := m.Protected.get(int64(coseLabelAlg))
	if !ok {
		return "", coseFail("cose_alg_not_protected", "no alg in the protected bucket")
	}
	if alg != int64(CoseAlgEdDSA) {
		return "", coseFail("cose_unsupported_alg", "alg is not -8")
	}
	_, c1 := m.Protected.get(int64(coseLabelCrit))
	_, c2 := m.Unprotected.get(int64(coseLabelCrit))
	if c1 || c2 {
		return "", coseFail("cose_crit_unsupported", "crit names parameters this verifier does not understand")
	}
	kid, protectedKid := m.Protected.get(int64(coseLabelKid))
	if !protectedKid {
		var present bool
		if kid, present = m.Unprotected.get(int64(coseLabelKid)); !present {
			return "", coseFail("cose_missing_kid", "no kid")
		}
		if requireProtectedKid {
			return "", coseFail("cose_kid_not_protected", "kid is in the unprotected bucket")
		}
	}
	b, ok := kid.([]byte)
	if !ok || len(b) == 0 || len(b) > 256 || !utf8.Valid(b) {
		return "", coseFail("cose_malformed", "bad kid")
	}
	return string(b), nil
}

// CoseSigStructure is the Sig_structure a COSE_Sign1 signature covers: ["Signature1", protected, aad, payload].
func CoseSigStructure(protectedBytes, externalAAD, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteByte(0x84)
	writeCBORHead(&b, 3, uint64(len("Signature1")))
	b.WriteString("Signature1")
	for _, part := range [][]byte{protectedBytes, externalAAD, payload} {
		writeCBORHead(&b, 2, uint64(len(part)))
		b.Write(part)
	}
	return b.Bytes()
}

func writeCBORHead(b *bytes.Buffer, major byte, n uint64) {
	m := major << 5
	switch {
	case n < 24:
		b.WriteByte(m | byte(n))
	case n <= 0xff:
		b.Write([]byte{m | 24, byte(n)})
	case n <= 0xffff:
		b.WriteByte(m | 25)
		_ = binary.Write(b, binary.BigEndian, uint16(n))
	case n <= 0xffffffff:
		b.WriteByte(m | 26)
		_ = binary.Write(b, binary.BigEndian, uint32(n))
	default:
		b.WriteByte(m | 27)
		_ = binary.Write(b, binary.BigEndian, n)
	}
}

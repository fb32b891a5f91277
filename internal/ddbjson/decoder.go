package ddbjson

import (
	"encoding/base64"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// decoder reads one JSON document from b. Every method returns false on input it does
// not accept, and the caller gives the whole answer to the SDK; it never panics on any
// input (FuzzDecode).
type decoder struct {
	b []byte
	i int
	// names interns attribute names: the items of one answer repeat them. order is the
	// names of the last top-level item in order: the next item's k-th name is most often
	// the same, found without hashing.
	names map[string]string
	order []string
	// hints are the sizes of the last maps read at each depth (items, their maps, …), for
	// the next one's allocation.
	hints [4]int
	// slabs hand out the most common attribute values without an allocation each.
	strs []types.AttributeValueMemberS
	nums []types.AttributeValueMemberN
	// The S and N values of one top-level item are copied into vals and made one string
	// when the item ends (fixes say which value is where): one allocation per item, and a
	// value keeps only its own item's bytes alive.
	vals  []byte
	fixes []fix
	depth int
}

type fix struct {
	dst        *string
	start, end int
}

// later reads a string value and copies its bytes for *dst, set when the item ends.
func (d *decoder) later(dst *string) bool {
	b, ok := d.rawString()
	if !ok {
		return false
	}
	start := len(d.vals)
	d.vals = append(d.vals, b...)
	d.fixes = append(d.fixes, fix{dst: dst, start: start, end: len(d.vals)})
	return true
}

// take hands out the next element of a slab, refilled with slab elements when empty.
func take[T any](s *[]T) *T {
	if len(*s) == 0 {
		*s = make([]T, slab)
	}
	p := &(*s)[0]
	*s = (*s)[1:]
	return p
}

func (d *decoder) flush() {
	all := string(d.vals)
	for _, f := range d.fixes {
		*f.dst = all[f.start:f.end]
	}
	d.vals, d.fixes = d.vals[:0], d.fixes[:0]
}

const slab = 64

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and reports whether the next byte is c, consuming it if so.
func (d *decoder) next(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (d *decoder) end() bool {
	d.ws()
	return d.i == len(d.b)
}

// object reads {"key": value, ...}, calling member with each key (valid only during the
// call) positioned at its value; member must read the value.
func (d *decoder) object(member func(key []byte) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		key, ok := d.rawString()
		if !ok || !d.next(':') || !member(key) {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next('}')
	}
}

// array reads [value, ...], calling elem positioned at each value.
func (d *decoder) array(elem func() bool) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next(']')
	}
}

// rawString reads a string and returns its unescaped bytes, which alias the input when
// it has no escapes (valid until the next read).
func (d *decoder) rawString() ([]byte, bool) {
	if !d.next('"') {
		return nil, false
	}
	start := d.i
	ascii := true
	for d.i < len(d.b) {
		for d.i < len(d.b) && !special[d.b[d.i]] {
			d.i++
		}
		if d.i == len(d.b) {
			break
		}
		switch c := d.b[d.i]; {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			return s, true
		case c >= utf8.RuneSelf:
			ascii = false
			d.i++
		case c == '\\':
			return d.escaped(start)
		default: // a control character
			return nil, false
		}
	}
	return nil, false
}

// special marks the bytes rawString stops at: the quote, the backslash, control
// characters and the bytes of non-ASCII characters (which need a UTF-8 check).
var special = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// escaped finishes a string that has an escape at d.i, started at start.
func (d *decoder) escaped(start int) ([]byte, bool) {
	out := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if !utf8.Valid(out) {
				return nil, false
			}
			return out, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return nil, false
		}
		d.i += 2
		switch d.b[d.i-1] {
		case '"', '\\', '/':
			out = append(out, d.b[d.i-1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, false
			}
			if utf16.IsSurrogate(r) {
				// A pair, or the JSON is not valid UTF-16: leave it to the SDK.
				if d.i+6 > len(d.b) || d.b[d.i] != '\\' || d.b[d.i+1] != 'u' {
					return nil, false
				}
				d.i += 2
				r2, ok := d.hex4()
				if !ok {
					return nil, false
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return nil, false
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

func (d *decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

func (d *decoder) str() (string, bool) {
	b, ok := d.rawString()
	return string(b), ok
}

// name reads the k-th attribute name of a map, interned.
func (d *decoder) name(k int) (string, bool) {
	b, ok := d.rawString()
	if !ok {
		return "", false
	}
	top := d.depth == 1
	if top && k < len(d.order) && d.order[k] == string(b) {
		return d.order[k], true
	}
	s, ok := d.names[string(b)]
	if !ok {
		if d.names == nil {
			d.names = make(map[string]string, 32)
		}
		s = string(b)
		d.names[s] = s
	}
	if top {
		if k < len(d.order) {
			d.order[k] = s
		} else if k == len(d.order) {
			d.order = append(d.order, s)
		}
	}
	return s, true
}

// number returns the bytes of a JSON number.
func (d *decoder) number() ([]byte, bool) {
	d.ws()
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		if ('0' <= c && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			d.i++
			continue
		}
		break
	}
	return d.b[start:d.i], d.i > start
}

func (d *decoder) int32() (int32, bool) {
	b, ok := d.number()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 32)
	return int32(n), err == nil
}

func (d *decoder) float64() (float64, bool) {
	b, ok := d.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(b), 64)
	return f, err == nil
}

func (d *decoder) boolean() (bool, bool) {
	d.ws()
	switch {
	case len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true":
		d.i += 4
		return true, true
	case len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}

// item reads an attribute map: {"name": {"S": "…"}, …}.
func (d *decoder) item() (map[string]types.AttributeValue, bool) {
	if !d.next('{') {
		return nil, false
	}
	h := &d.hints[min(d.depth, len(d.hints)-1)]
	m := make(map[string]types.AttributeValue, max(*h, 1))
	if d.next('}') {
		return m, true
	}
	d.depth++
	defer func() {
		if d.depth--; d.depth == 0 {
			d.flush()
		}
	}()
	for i := 0; ; i++ {
		k, ok := d.name(i)
		if !ok || !d.next(':') {
			return nil, false
		}
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		n := len(m)
		m[k] = v
		if len(m) == n { // a name twice: left to the SDK
			return nil, false
		}
		if d.next(',') {
			continue
		}
		if !d.next('}') {
			return nil, false
		}
		*h = len(m)
		return m, true
	}
}

// value reads one attribute value: an object with exactly one member, its type.
func (d *decoder) value() (types.AttributeValue, bool) {
	if !d.next('{') {
		return nil, false
	}
	tag, ok := d.rawString()
	if !ok || !d.next(':') {
		return nil, false
	}
	var v types.AttributeValue
	switch string(tag) {
	case "S":
		av := take(&d.strs)
		if !d.later(&av.Value) {
			return nil, false
		}
		v = av
	case "N":
		av := take(&d.nums)
		if !d.later(&av.Value) {
			return nil, false
		}
		v = av
	case "B":
		b, ok := d.binary()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberB{Value: b}
	case "BOOL":
		b, ok := d.boolean()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberBOOL{Value: b}
	case "NULL":
		b, ok := d.boolean()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberNULL{Value: b}
	case "M":
		m, ok := d.item()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberM{Value: m}
	case "L":
		l := []types.AttributeValue{}
		if !d.array(func() bool {
			e, ok := d.value()
			l = append(l, e)
			return ok
		}) {
			return nil, false
		}
		v = &types.AttributeValueMemberL{Value: l}
	case "SS", "NS":
		ss := []string{}
		if !d.array(func() bool {
			s, ok := d.str()
			ss = append(ss, s)
			return ok
		}) {
			return nil, false
		}
		if string(tag) == "SS" {
			v = &types.AttributeValueMemberSS{Value: ss}
		} else {
			v = &types.AttributeValueMemberNS{Value: ss}
		}
	case "BS":
		bs := [][]byte{}
		if !d.array(func() bool {
			b, ok := d.binary()
			bs = append(bs, b)
			return ok
		}) {
			return nil, false
		}
		v = &types.AttributeValueMemberBS{Value: bs}
	default:
		return nil, false
	}
	return v, d.next('}')
}

// binary reads a base64 string (standard alphabet, padded), as DynamoDB sends B values.
func (d *decoder) binary() ([]byte, bool) {
	s, ok := d.rawString()
	if !ok {
		return nil, false
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	return b[:n], err == nil
}

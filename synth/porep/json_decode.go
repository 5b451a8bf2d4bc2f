package porep

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/errtext"
	"github.com/gpuc2/gpuc2/synth/internal/codec"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// Caps on JSON and bincode list lengths, far above any registered proof's
// needs, so that a hostile input cannot make the parser allocate much more
// than its own size. A Merkle proof's are merkle.MaxPathLen and
// merkle.MaxHashes.
const (
	maxPartitions = 256
	maxChallenges = 256
	maxRows       = 64
	maxParents    = 64
	maxLayers     = 64
	maxColumns    = 64
	maxJSONDepth  = 64
)

// jdec is a hand-rolled decoder for the serde_json form of a C1 output. It
// decodes straight into the C1 types; 32-integer arrays take a fast path.
type jdec struct {
	b    []byte
	i    int
	part int          // current partition, −1 outside
	chal int          // current challenge, −1 outside
	path codec.Fields // errors name it from the current challenge on
	fr   codec.Slab[fr.Element]
	b32  codec.Slab[[32]byte]
	tmpF []fr.Element
	tmpB [][32]byte
}

func (d *jdec) push(name string)           { d.path.Push(name, -1) }
func (d *jdec) pushIdx(name string, i int) { d.path.Push(name, i) }
func (d *jdec) pop()                       { d.path.Pop() }

func (d *jdec) errf(format string, args ...any) error {
	return &C1Error{
		Partition: d.part, Challenge: d.chal,
		Field: d.path.String(),
		Msg:   fmt.Sprintf("JSON offset %d: ", d.i) + fmt.Sprintf(format, args...),
	}
}

func (d *jdec) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jdec) expect(c byte) error {
	d.ws()
	if d.i >= len(d.b) {
		return d.errf("unexpected end of input, want %q", c)
	}
	if d.b[d.i] != c {
		return d.errf("got %q, want %q", d.b[d.i], c)
	}
	d.i++
	return nil
}

// peek returns the next non-space byte, or 0 at the end (or for a NUL byte:
// a 0 does not say the input has ended; end does).
func (d *jdec) peek() byte {
	d.ws()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

// end checks that only whitespace follows the top-level value (what): any
// other byte, a NUL among them, is refused with the count of bytes left.
func (d *jdec) end(what string) error {
	d.ws()
	if n := len(d.b) - d.i; n > 0 {
		return d.errf("%d trailing bytes after %s (the first %q)", n, what, d.b[d.i])
	}
	return nil
}

// str reads a JSON string. The result aliases the input when it has no
// escapes.
func (d *jdec) str() ([]byte, error) {
	if err := d.expect('"'); err != nil {
		return nil, err
	}
	start := d.i
	end := bytes.IndexByte(d.b[start:], '"')
	if end < 0 {
		return nil, d.errf("unterminated string")
	}
	s := d.b[start : start+end]
	if bytes.IndexByte(s, '\\') >= 0 {
		return d.strSlow()
	}
	d.i = start + end + 1
	return s, nil
}

func (d *jdec) strSlow() ([]byte, error) {
	var out []byte
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return out, nil
		case c < 0x20:
			return nil, d.errf("control character in string")
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			break
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
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
			if d.i+4 > len(d.b) {
				return nil, d.errf("short \\u escape")
			}
			v, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 16)
			if err != nil {
				return nil, d.errf("bad \\u escape")
			}
			d.i += 4
			out = utf8.AppendRune(out, rune(v))
		default:
			return nil, d.errf("bad escape \\%c", e)
		}
	}
	return nil, d.errf("unterminated string")
}

// uint reads a non-negative JSON integer no larger than max.
func (d *jdec) uint(max uint64) (uint64, error) {
	d.ws()
	start := d.i
	var v uint64
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c < '0' || c > '9' {
			break
		}
		if v > (max-uint64(c-'0'))/10 {
			return 0, d.errf("integer out of range (max %d)", max)
		}
		v = v*10 + uint64(c-'0')
		d.i++
	}
	n := d.i - start
	if n == 0 {
		return 0, d.errf("want a non-negative integer")
	}
	if n > 1 && d.b[start] == '0' {
		return 0, d.errf("integer with leading zero")
	}
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '.', 'e', 'E':
			return 0, d.errf("want an integer, got a fraction or exponent")
		}
	}
	return v, nil
}

// bytes32 reads an array of exactly 32 integers 0–255.
func (d *jdec) bytes32(out *[32]byte) error {
	if d.bytes32Fast(out) {
		return nil
	}
	return d.bytes32Slow(out)
}

// bytes32Fast handles the compact serde form "[n,n,…,n]" and reports
// false, consuming nothing, on anything else.
func (d *jdec) bytes32Fast(out *[32]byte) bool {
	b := d.b
	i := d.i
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i++
	for k := 0; k < 32; k++ {
		if i+1 >= len(b) {
			return false
		}
		v := uint(b[i] - '0')
		if v > 9 {
			return false
		}
		i++
		if c := uint(b[i] - '0'); c <= 9 {
			if v == 0 {
				return false // leading zero
			}
			v = v*10 + c
			i++
			if i >= len(b) {
				return false
			}
			if c := uint(b[i] - '0'); c <= 9 {
				v = v*10 + c
				i++
				if v > 255 || i >= len(b) {
					return false
				}
			}
		}
		sep := byte(',')
		if k == 31 {
			sep = ']'
		}
		if b[i] != sep {
			return false
		}
		i++
		out[k] = byte(v)
	}
	d.i = i
	return true
}

func (d *jdec) bytes32Slow(out *[32]byte) error {
	if err := d.expect('['); err != nil {
		return err
	}
	for k := 0; k < 32; k++ {
		if k > 0 {
			if err := d.expect(','); err != nil {
				if d.peek() == ']' {
					return d.errf("got %d bytes, want 32", k)
				}
				return err
			}
		}
		if d.peek() == ']' {
			return d.errf("got %d bytes, want 32", k)
		}
		v, err := d.uint(255)
		if err != nil {
			return err
		}
		out[k] = byte(v)
	}
	if d.peek() == ',' {
		return d.errf("more than 32 bytes")
	}
	return d.expect(']')
}

// felt reads a 32-byte little-endian canonical field element.
func (d *jdec) felt(out *fr.Element) error {
	var b [32]byte
	if err := d.bytes32(&b); err != nil {
		return err
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		return d.errf("value is not a canonical field element (>= r)")
	}
	*out = e
	return nil
}

func (d *jdec) null() error {
	d.ws()
	if d.i+4 <= len(d.b) && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return nil
	}
	return d.errf("want null")
}

// object calls f for every key of an object; f must consume the value.
func (d *jdec) object(f func(key []byte) error) error {
	if err := d.expect('{'); err != nil {
		return err
	}
	if d.peek() == '}' {
		d.i++
		return nil
	}
	for {
		key, err := d.str()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := f(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return d.errf("want ',' or '}'")
		}
	}
}

// array calls f for each element; f must consume it.
func (d *jdec) array(max int, what string, f func(i int) error) (int, error) {
	if err := d.expect('['); err != nil {
		return 0, err
	}
	if d.peek() == ']' {
		d.i++
		return 0, nil
	}
	for n := 0; ; n++ {
		if n >= max {
			return 0, d.errf("more than %d %s", max, what)
		}
		if err := f(n); err != nil {
			return 0, err
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return n + 1, nil
		default:
			return 0, d.errf("want ',' or ']'")
		}
	}
}

// skip consumes any JSON value (for keys serde would ignore).
func (d *jdec) skip(depth int) error {
	if depth > maxJSONDepth {
		return d.errf("nesting deeper than %d", maxJSONDepth)
	}
	switch c := d.peek(); {
	case c == '{':
		return d.object(func([]byte) error { return d.skip(depth + 1) })
	case c == '[':
		_, err := d.array(1<<30, "values", func(int) error { return d.skip(depth + 1) })
		return err
	case c == '"':
		_, err := d.str()
		return err
	case c == 't' || c == 'f' || c == 'n':
		for _, w := range []string{"true", "false", "null"} {
			if d.i+len(w) <= len(d.b) && string(d.b[d.i:d.i+len(w)]) == w {
				d.i += len(w)
				return nil
			}
		}
		return d.errf("bad literal")
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.i
		for d.i < len(d.b) && strings.IndexByte("+-.eE0123456789", d.b[d.i]) >= 0 {
			d.i++
		}
		if _, err := strconv.ParseFloat(string(d.b[start:d.i]), 64); err != nil {
			return d.errf("bad number")
		}
		return nil
	case c == 0:
		return d.errf("unexpected end of input")
	default:
		return d.errf("unexpected %q", c)
	}
}

// fields tracks required keys of one object.
type fields struct {
	d     *jdec
	names []string
	seen  uint32
}

// take marks key k seen; it fails on duplicates.
func (f *fields) take(k int) error {
	if f.seen&(1<<k) != 0 {
		return f.d.errf("duplicate field %q", f.names[k])
	}
	f.seen |= 1 << k
	return nil
}

func (f *fields) done() error {
	for k, n := range f.names {
		if f.seen&(1<<k) == 0 {
			return f.d.errf("missing field %q", n)
		}
	}
	return nil
}

// field runs the decoder of the named key, with the key on the path.
func (d *jdec) field(f *fields, k int, dec func() error) error {
	if err := f.take(k); err != nil {
		return err
	}
	d.push(f.names[k])
	err := dec()
	d.pop()
	return err
}

// values reads an array of domain values into an exact-size slice.
func decodeValues[T merkle.Domain](d *jdec, max int, what string) ([]T, error) {
	var zero T
	switch any(zero).(type) {
	case fr.Element:
		d.tmpF = d.tmpF[:0]
		_, err := d.array(max, what, func(i int) error {
			d.tmpF = append(d.tmpF, fr.Element{})
			d.pushIdx("", i)
			err := d.felt(&d.tmpF[i])
			d.pop()
			return err
		})
		if err != nil {
			return nil, err
		}
		return any(d.fr.Take(d.tmpF)).([]T), nil
	default:
		d.tmpB = d.tmpB[:0]
		_, err := d.array(max, what, func(i int) error {
			d.tmpB = append(d.tmpB, [32]byte{})
			d.pushIdx("", i)
			err := d.bytes32(&d.tmpB[i])
			d.pop()
			return err
		})
		if err != nil {
			return nil, err
		}
		return any(d.b32.Take(d.tmpB)).([]T), nil
	}
}

func decodeValue[T merkle.Domain](d *jdec, v *T) error {
	switch p := any(v).(type) {
	case *fr.Element:
		return d.felt(p)
	case *[32]byte:
		return d.bytes32(p)
	}
	return nil
}

// {"path":[{"hashes":[…],"index":i},…]}
func decodeInclusionPath[T merkle.Domain](d *jdec) ([]merkle.ProofElement[T], error) {
	var out []merkle.ProofElement[T]
	f := fields{d: d, names: []string{"path"}}
	err := d.object(func(key []byte) error {
		if string(key) != "path" {
			return d.skip(0)
		}
		return d.field(&f, 0, func() error {
			_, err := d.array(merkle.MaxPathLen, "path elements", func(i int) error {
				d.pushIdx("", i)
				defer d.pop()
				var pe merkle.ProofElement[T]
				ef := fields{d: d, names: []string{"hashes", "index"}}
				err := d.object(func(key []byte) error {
					switch string(key) {
					case "hashes":
						return d.field(&ef, 0, func() (err error) {
							pe.Hashes, err = decodeValues[T](d, merkle.MaxHashes, "hashes")
							return err
						})
					case "index":
						return d.field(&ef, 1, func() (err error) {
							pe.Index, err = d.uint(^uint64(0))
							return err
						})
					}
					return d.skip(0)
				})
				if err == nil {
					err = ef.done()
				}
				out = append(out, pe)
				return err
			})
			return err
		})
	})
	if err == nil {
		err = f.done()
	}
	return out, err
}

// {"data":{"Single"|"Sub"|"Top":{…}}}
func decodeMerkleProof[T merkle.Domain](d *jdec, m *merkle.Proof[T]) error {
	f := fields{d: d, names: []string{"data"}}
	err := d.object(func(key []byte) error {
		if string(key) != "data" {
			return d.skip(0)
		}
		return d.field(&f, 0, func() error {
			variants := 0
			err := d.object(func(key []byte) error {
				variants++
				if variants > 1 {
					return d.errf("more than one proof variant")
				}
				switch string(key) {
				case "Single":
					m.Kind = merkle.ProofSingle
				case "Sub":
					m.Kind = merkle.ProofSub
				case "Top":
					m.Kind = merkle.ProofTop
				default:
					return d.errf("unknown proof variant %s", errtext.Quote(key))
				}
				d.push(string(key))
				defer d.pop()
				return decodeProofBody(d, m)
			})
			if err == nil && variants == 0 {
				err = d.errf("empty proof variant")
			}
			return err
		})
	})
	if err == nil {
		err = f.done()
	}
	return err
}

func decodeProofBody[T merkle.Domain](d *jdec, m *merkle.Proof[T]) error {
	var names []string
	switch m.Kind {
	case merkle.ProofSingle:
		names = []string{"root", "leaf", "path"}
	case merkle.ProofSub:
		names = []string{"root", "leaf", "base_proof", "sub_proof"}
	default:
		names = []string{"root", "leaf", "base_proof", "sub_proof", "top_proof"}
	}
	f := fields{d: d, names: names}
	err := d.object(func(key []byte) error {
		k := -1
		for j, n := range names {
			if string(key) == n {
				k = j
				break
			}
		}
		if k < 0 {
			return d.skip(0)
		}
		return d.field(&f, k, func() (err error) {
			switch names[k] {
			case "root":
				return decodeValue(d, &m.Root)
			case "leaf":
				return decodeValue(d, &m.Leaf)
			case "path", "base_proof":
				m.Base, err = decodeInclusionPath[T](d)
			case "sub_proof":
				m.Sub, err = decodeInclusionPath[T](d)
			case "top_proof":
				m.Top, err = decodeInclusionPath[T](d)
			}
			return err
		})
	})
	if err == nil {
		err = f.done()
	}
	return err
}

func (d *jdec) columnProof(cp *ColumnProof) error {
	f := fields{d: d, names: []string{"column", "inclusion_proof"}}
	err := d.object(func(key []byte) error {
		switch string(key) {
		case "column":
			return d.field(&f, 0, func() error { return d.column(&cp.Column) })
		case "inclusion_proof":
			return d.field(&f, 1, func() error { return decodeMerkleProof(d, &cp.InclusionProof) })
		}
		return d.skip(0)
	})
	if err == nil {
		err = f.done()
	}
	return err
}

func (d *jdec) column(c *Column) error {
	f := fields{d: d, names: []string{"index", "rows"}}
	err := d.object(func(key []byte) error {
		switch string(key) {
		case "index":
			return d.field(&f, 0, func() error {
				v, err := d.uint(1<<32 - 1)
				c.Index = uint32(v)
				return err
			})
		case "rows":
			return d.field(&f, 1, func() (err error) {
				c.Rows, err = decodeValues[fr.Element](d, maxRows, "rows")
				return err
			})
		case "_h":
			return d.null()
		}
		return d.skip(0)
	})
	if err == nil {
		err = f.done()
	}
	return err
}

func (d *jdec) columnProofs(max int, what string) ([]ColumnProof, error) {
	var out []ColumnProof
	_, err := d.array(max, what, func(i int) error {
		d.pushIdx("", i)
		defer d.pop()
		out = append(out, ColumnProof{})
		return d.columnProof(&out[i])
	})
	return out, err
}

func (d *jdec) replicaColumnProofs(r *ReplicaColumnProofs) error {
	f := fields{d: d, names: []string{"c_x", "drg_parents", "exp_parents"}}
	err := d.object(func(key []byte) error {
		switch string(key) {
		case "c_x":
			return d.field(&f, 0, func() error { return d.columnProof(&r.CX) })
		case "drg_parents":
			return d.field(&f, 1, func() (err error) {
				r.DRGParents, err = d.columnProofs(maxColumns, "drg_parents")
				return err
			})
		case "exp_parents":
			return d.field(&f, 2, func() (err error) {
				r.ExpParents, err = d.columnProofs(maxColumns, "exp_parents")
				return err
			})
		}
		return d.skip(0)
	})
	if err == nil {
		err = f.done()
	}
	return err
}

func (d *jdec) labelingProof(lp *LabelingProof) error {
	f := fields{d: d, names: []string{"parents", "layer_index", "node"}}
	err := d.object(func(key []byte) error {
		switch string(key) {
		case "parents":
			return d.field(&f, 0, func() (err error) {
				lp.Parents, err = decodeValues[fr.Element](d, maxParents, "parents")
				return err
			})
		case "layer_index":
			return d.field(&f, 1, func() error {
				v, err := d.uint(1<<32 - 1)
				lp.LayerIndex = uint32(v)
				return err
			})
		case "node":
			return d.field(&f, 2, func() (err error) {
				lp.Node, err = d.uint(^uint64(0))
				return err
			})
		}
		return d.skip(0)
	})
	if err == nil {
		err = f.done()
	}
	return err
}

func (d *jdec) challengeProof(p *ChallengeProof) error {
	f := fields{d: d, names: []string{"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"}}
	err := d.object(func(key []byte) error {
		switch string(key) {
		case "comm_d_proofs":
			return d.field(&f, 0, func() error { return decodeMerkleProof(d, &p.CommDProof) })
		case "comm_r_last_proof":
			return d.field(&f, 1, func() error { return decodeMerkleProof(d, &p.CommRLastProof) })
		case "replica_column_proofs":
			return d.field(&f, 2, func() error { return d.replicaColumnProofs(&p.ReplicaColumnProofs) })
		case "labeling_proofs":
			return d.field(&f, 3, func() error {
				_, err := d.array(maxLayers, "labeling proofs", func(i int) error {
					d.pushIdx("", i)
					defer d.pop()
					p.LabelingProofs = append(p.LabelingProofs, LabelingProof{})
					return d.labelingProof(&p.LabelingProofs[i])
				})
				return err
			})
		case "encoding_proof":
			return d.field(&f, 4, func() error { return d.labelingProof(&p.EncodingProof) })
		}
		return d.skip(0)
	})
	if err == nil {
		err = f.done()
	}
	return err
}

// vanillaProofs reads {"StackedDrg…V1": [[P,…],…]} and returns the key
// (not copied: a hostile one may be as long as the C1).
func (d *jdec) vanillaProofs(c *C1) ([]byte, error) {
	var variant []byte
	err := d.object(func(key []byte) error {
		if variant != nil {
			return d.errf("more than one vanilla_proofs variant")
		}
		variant = key
		if len(variant) == 0 {
			return d.errf("empty vanilla_proofs variant")
		}
		_, err := d.array(maxPartitions, "partitions", func(k int) error {
			d.part = k
			c.VanillaProofs = append(c.VanillaProofs, nil)
			_, err := d.array(maxChallenges, "challenges", func(i int) error {
				d.chal = i
				d.path.Rebase() // paths inside a challenge are relative to it
				c.VanillaProofs[k] = append(c.VanillaProofs[k], ChallengeProof{})
				return d.challengeProof(&c.VanillaProofs[k][i])
			})
			if err == nil {
				d.chal = -1
				d.path.ClearBase()
			}
			return err
		})
		if err == nil {
			d.part = -1
		}
		return err
	})
	if err == nil && variant == nil {
		err = d.errf("empty vanilla_proofs")
	}
	return variant, err
}

// decodeC1JSON parses the serde_json form without checking shapes.
func decodeC1JSON(data []byte) (*C1, []byte, error) {
	d := &jdec{b: data, part: -1, chal: -1}
	c := &C1{}
	var variant []byte
	f := fields{d: d, names: []string{"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"}}
	err := d.object(func(key []byte) error {
		switch string(key) {
		case "registered_proof":
			return d.field(&f, 0, func() error {
				s, err := d.str()
				if err != nil {
					return err
				}
				p, err := parseProofName(s)
				if err != nil {
					return &C1Error{Partition: -1, Challenge: -1, Field: "registered_proof", Msg: "unknown proof type", Err: err}
				}
				c.RegisteredProof = p
				return nil
			})
		case "vanilla_proofs":
			return d.field(&f, 1, func() (err error) {
				variant, err = d.vanillaProofs(c)
				return err
			})
		case "comm_r":
			return d.field(&f, 2, func() error { return d.felt(&c.CommR) })
		case "comm_d":
			return d.field(&f, 3, func() error { return d.bytes32(&c.CommD) })
		case "replica_id":
			return d.field(&f, 4, func() error { return d.felt(&c.ReplicaID) })
		case "seed":
			return d.field(&f, 5, func() error { return d.bytes32(&c.Seed) })
		case "ticket":
			return d.field(&f, 6, func() error { return d.bytes32(&c.Ticket) })
		}
		return d.skip(0)
	})
	if err == nil {
		err = f.done()
	}
	if err == nil {
		err = d.end("the C1 object")
	}
	if err != nil {
		return nil, nil, err
	}
	return c, variant, nil
}

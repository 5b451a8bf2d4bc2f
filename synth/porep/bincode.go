package porep

import (
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
)

// bdec decodes the bincode form. Every length is checked against a cap and
// against the bytes left before anything is allocated.
type bdec struct {
	b    []byte
	i    int
	part int
	chal int
	path []seg
	base int
	fr   slab[fr.Element]
	b32  slab[[32]byte]
}

func (d *bdec) errf(format string, args ...any) error {
	return &C1Error{
		Partition: d.part, Challenge: d.chal,
		Field: pathString(d.path[min(d.base, len(d.path)):]),
		Msg:   fmt.Sprintf("bincode offset %d: ", d.i) + fmt.Sprintf(format, args...),
	}
}

func (d *bdec) push(name string, idx int) { d.path = append(d.path, seg{name, idx}) }
func (d *bdec) pop()                      { d.path = d.path[:len(d.path)-1] }

func (d *bdec) need(n int) error {
	if n < 0 || len(d.b)-d.i < n {
		return d.errf("unexpected end of input (need %d bytes, have %d)", n, len(d.b)-d.i)
	}
	return nil
}

func (d *bdec) u64() (uint64, error) {
	if err := d.need(8); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(d.b[d.i:])
	d.i += 8
	return v, nil
}

func (d *bdec) u32() (uint32, error) {
	if err := d.need(4); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(d.b[d.i:])
	d.i += 4
	return v, nil
}

// length reads a u64 length, capped, with at least minSize bytes per item
// still available.
func (d *bdec) length(max, minSize int, what string) (int, error) {
	v, err := d.u64()
	if err != nil {
		return 0, err
	}
	if v > uint64(max) {
		return 0, d.errf("%d %s, more than the cap of %d", v, what, max)
	}
	if err := d.need(int(v) * minSize); err != nil {
		return 0, err
	}
	return int(v), nil
}

func (d *bdec) raw32(out *[32]byte) error {
	if err := d.need(32); err != nil {
		return err
	}
	copy(out[:], d.b[d.i:d.i+32])
	d.i += 32
	return nil
}

func (d *bdec) felt(out *fr.Element) error {
	var b [32]byte
	if err := d.raw32(&b); err != nil {
		return err
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		d.i -= 32
		return d.errf("value is not a canonical field element (>= r)")
	}
	*out = e
	return nil
}

func binDecodeValue[T Domain](d *bdec, v *T) error {
	switch p := any(v).(type) {
	case *fr.Element:
		return d.felt(p)
	case *[32]byte:
		return d.raw32(p)
	}
	return nil
}

func binDecodeValues[T Domain](d *bdec, max int, what string) ([]T, error) {
	n, err := d.length(max, 32, what)
	if err != nil || n == 0 {
		return nil, err
	}
	var out []T
	switch p := any(&out).(type) {
	case *[]fr.Element:
		*p = d.fr.alloc(n)
	case *[][32]byte:
		*p = d.b32.alloc(n)
	}
	for k := range out {
		d.push("", k)
		err := binDecodeValue(d, &out[k])
		d.pop()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func binDecodePath[T Domain](d *bdec) ([]PathElement[T], error) {
	// each element: u64 hashes length + u64 index at least
	n, err := d.length(maxPathLen, 16, "path elements")
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]PathElement[T], n)
	d.push("path", -1)
	defer d.pop()
	for k := range out {
		d.push("", k)
		d.push("hashes", -1)
		out[k].Hashes, err = binDecodeValues[T](d, maxHashes, "hashes")
		d.pop()
		if err == nil {
			d.push("index", -1)
			out[k].Index, err = d.u64()
			d.pop()
		}
		d.pop()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func binDecodeMerkle[T Domain](d *bdec, m *MerkleProof[T]) error {
	d.push("data", -1)
	defer d.pop()
	tag, err := d.u32()
	if err != nil {
		return err
	}
	if tag > uint32(ProofTop) {
		return d.errf("unknown proof variant tag %d", tag)
	}
	m.Kind = ProofKind(tag)
	d.push(m.Kind.String(), -1)
	defer d.pop()
	value := func(name string, v *T) error {
		d.push(name, -1)
		defer d.pop()
		return binDecodeValue(d, v)
	}
	path := func(name string, p *[]PathElement[T]) (err error) {
		d.push(name, -1)
		defer d.pop()
		*p, err = binDecodePath[T](d)
		return err
	}
	if m.Kind == ProofSingle {
		if err := value("root", &m.Root); err != nil {
			return err
		}
		if err := value("leaf", &m.Leaf); err != nil {
			return err
		}
		return path("path", &m.Base)
	}
	if err := path("base_proof", &m.Base); err != nil {
		return err
	}
	if err := path("sub_proof", &m.Sub); err != nil {
		return err
	}
	if m.Kind == ProofTop {
		if err := path("top_proof", &m.Top); err != nil {
			return err
		}
	}
	if err := value("root", &m.Root); err != nil {
		return err
	}
	return value("leaf", &m.Leaf)
}

func (d *bdec) columnProof(cp *ColumnProof) (err error) {
	d.push("column", -1)
	d.push("index", -1)
	cp.Column.Index, err = d.u32()
	d.pop()
	if err == nil {
		d.push("rows", -1)
		cp.Column.Rows, err = binDecodeValues[fr.Element](d, maxRows, "rows")
		d.pop()
	}
	d.pop()
	if err != nil {
		return err
	}
	d.push("inclusion_proof", -1)
	defer d.pop()
	return binDecodeMerkle(d, &cp.InclusionProof)
}

func (d *bdec) columnProofs(name string) ([]ColumnProof, error) {
	d.push(name, -1)
	defer d.pop()
	// a column proof takes at least 4 + 8 + 4 + 64 bytes
	n, err := d.length(maxColumns, 80, "columns")
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]ColumnProof, n)
	for j := range out {
		d.push("", j)
		err := d.columnProof(&out[j])
		d.pop()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *bdec) labeling(lp *LabelingProof) (err error) {
	d.push("parents", -1)
	lp.Parents, err = binDecodeValues[fr.Element](d, maxParents, "parents")
	d.pop()
	if err != nil {
		return err
	}
	d.push("layer_index", -1)
	lp.LayerIndex, err = d.u32()
	d.pop()
	if err != nil {
		return err
	}
	d.push("node", -1)
	lp.Node, err = d.u64()
	d.pop()
	return err
}

func (d *bdec) challenge(p *ChallengeProof) (err error) {
	d.push("comm_d_proofs", -1)
	err = binDecodeMerkle(d, &p.CommDProof)
	d.pop()
	if err != nil {
		return err
	}
	d.push("comm_r_last_proof", -1)
	err = binDecodeMerkle(d, &p.CommRLastProof)
	d.pop()
	if err != nil {
		return err
	}
	rc := &p.ReplicaColumnProofs
	d.push("replica_column_proofs", -1)
	d.push("c_x", -1)
	err = d.columnProof(&rc.CX)
	d.pop()
	if err == nil {
		rc.DRGParents, err = d.columnProofs("drg_parents")
	}
	if err == nil {
		rc.ExpParents, err = d.columnProofs("exp_parents")
	}
	d.pop()
	if err != nil {
		return err
	}
	d.push("labeling_proofs", -1)
	n, err := d.length(maxLayers, 20, "labeling proofs")
	if err == nil && n > 0 {
		p.LabelingProofs = make([]LabelingProof, n)
		for l := range p.LabelingProofs {
			d.push("", l)
			err = d.labeling(&p.LabelingProofs[l])
			d.pop()
			if err != nil {
				break
			}
		}
	}
	d.pop()
	if err != nil {
		return err
	}
	d.push("encoding_proof", -1)
	defer d.pop()
	return d.labeling(&p.EncodingProof)
}

func decodeC1Bincode(data []byte, spt abi.RegisteredSealProof) (*C1, error) {
	d := &bdec{b: data, part: -1, chal: -1}
	c := &C1{RegisteredProof: spt}
	d.push("vanilla_proofs", -1)
	np, err := d.length(maxPartitions, 8, "partitions")
	if err != nil {
		return nil, err
	}
	c.VanillaProofs = make([][]ChallengeProof, np)
	for k := range c.VanillaProofs {
		d.part = k
		// a challenge proof takes well over 256 bytes
		nc, err := d.length(maxChallenges, 256, "challenges")
		if err != nil {
			return nil, err
		}
		c.VanillaProofs[k] = make([]ChallengeProof, nc)
		d.base = len(d.path)
		for i := range c.VanillaProofs[k] {
			d.chal = i
			if err := d.challenge(&c.VanillaProofs[k][i]); err != nil {
				return nil, err
			}
		}
		d.chal = -1
		d.base = 0
	}
	d.part = -1
	d.path = nil
	for _, f := range []struct {
		name string
		fe   *fr.Element
		raw  *[32]byte
	}{
		{"comm_r", &c.CommR, nil},
		{"comm_d", nil, &c.CommD},
		{"replica_id", &c.ReplicaID, nil},
		{"seed", nil, &c.Seed},
		{"ticket", nil, &c.Ticket},
	} {
		d.push(f.name, -1)
		if f.fe != nil {
			err = d.felt(f.fe)
		} else {
			err = d.raw32(f.raw)
		}
		d.pop()
		if err != nil {
			return nil, err
		}
	}
	if d.i != len(d.b) {
		return nil, d.errf("%d trailing bytes", len(d.b)-d.i)
	}
	return c, nil
}

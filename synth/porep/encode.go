package porep

import (
	"encoding/base64"
	"strconv"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/synth/internal/codec"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// MarshalJSON writes c as serde_json does (compact, fields in Rust order),
// so filecoin-ffi's SealCommitPhase2 accepts the result. c is not validated.
func (c *C1) MarshalJSON() ([]byte, error) {
	return c.EncodeJSON()
}

// UnmarshalJSON parses and validates a C1 JSON object (see ParseC1).
func (c *C1) UnmarshalJSON(data []byte) error {
	p, err := parseC1JSON(data)
	if err != nil {
		return err
	}
	*c = *p
	return nil
}

// EncodeJSON returns c in filecoin-ffi's JSON form.
func (c *C1) EncodeJSON() ([]byte, error) {
	sp, err := ParamsFor(c.RegisteredProof)
	if err != nil {
		return nil, err
	}
	e := jenc{b: make([]byte, 0, c.estimateJSON())}
	e.s(`{"registered_proof":"`)
	e.s(ProofName(c.RegisteredProof))
	e.s(`","vanilla_proofs":{"`)
	e.s(sp.vanillaKey())
	e.s(`":[`)
	for k, part := range c.VanillaProofs {
		e.comma(k)
		e.s("[")
		for i := range part {
			e.comma(i)
			e.challenge(&part[i])
		}
		e.s("]")
	}
	e.s(`]},"comm_r":`)
	e.fe(&c.CommR)
	e.s(`,"comm_d":`)
	e.b32(&c.CommD)
	e.s(`,"replica_id":`)
	e.fe(&c.ReplicaID)
	e.s(`,"seed":`)
	e.b32(&c.Seed)
	e.s(`,"ticket":`)
	e.b32(&c.Ticket)
	e.s("}")
	return e.b, nil
}

// estimateJSON is about the JSON size: a value takes up to 128 bytes.
func (c *C1) estimateJSON() int {
	n := 1024
	for _, part := range c.VanillaProofs {
		for i := range part {
			n += 128*countValues(&part[i]) + 4096
		}
	}
	return min(n, 256<<20)
}

func countValues(p *ChallengeProof) int {
	path := func(ps ...[]merkle.ProofElement[fr.Element]) (n int) {
		for _, l := range ps {
			for _, e := range l {
				n += len(e.Hashes)
			}
		}
		return n
	}
	col := func(cp *ColumnProof) int {
		m := &cp.InclusionProof
		return len(cp.Column.Rows) + 2 + path(m.Base, m.Sub, m.Top)
	}
	rc := &p.ReplicaColumnProofs
	n := 2 + len(p.CommDProof.Base) + 2 + path(p.CommRLastProof.Base, p.CommRLastProof.Sub, p.CommRLastProof.Top)
	n += col(&rc.CX)
	for j := range rc.DRGParents {
		n += col(&rc.DRGParents[j])
	}
	for j := range rc.ExpParents {
		n += col(&rc.ExpParents[j])
	}
	for l := range p.LabelingProofs {
		n += len(p.LabelingProofs[l].Parents)
	}
	return n + len(p.EncodingProof.Parents)
}

type jenc struct{ b []byte }

func (e *jenc) s(x string) { e.b = append(e.b, x...) }
func (e *jenc) comma(i int) {
	if i > 0 {
		e.b = append(e.b, ',')
	}
}
func (e *jenc) u(v uint64) { e.b = strconv.AppendUint(e.b, v, 10) }

func (e *jenc) b32(v *[32]byte) {
	e.b = append(e.b, '[')
	for k, x := range v {
		if k > 0 {
			e.b = append(e.b, ',')
		}
		switch {
		case x >= 100:
			e.b = append(e.b, '0'+x/100, '0'+x/10%10, '0'+x%10)
		case x >= 10:
			e.b = append(e.b, '0'+x/10, '0'+x%10)
		default:
			e.b = append(e.b, '0'+x)
		}
	}
	e.b = append(e.b, ']')
}

func (e *jenc) fe(v *fr.Element) {
	b := leBytes(v)
	e.b32(&b)
}

func leBytes(v *fr.Element) [32]byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *v)
	return b
}

func jsonValue[T merkle.Domain](e *jenc, v *T) {
	switch p := any(v).(type) {
	case *fr.Element:
		e.fe(p)
	case *[32]byte:
		e.b32(p)
	}
}

func jsonValues[T merkle.Domain](e *jenc, vs []T) {
	e.s("[")
	for k := range vs {
		e.comma(k)
		jsonValue(e, &vs[k])
	}
	e.s("]")
}

func jsonPath[T merkle.Domain](e *jenc, p []merkle.ProofElement[T]) {
	e.s(`{"path":[`)
	for k := range p {
		e.comma(k)
		e.s(`{"hashes":`)
		jsonValues(e, p[k].Hashes)
		e.s(`,"index":`)
		e.u(p[k].Index)
		e.s("}")
	}
	e.s("]}")
}

func jsonMerkle[T merkle.Domain](e *jenc, m *merkle.Proof[T]) {
	e.s(`{"data":{"`)
	e.s(m.Kind.String())
	e.s(`":{`)
	if m.Kind == merkle.ProofSingle {
		e.s(`"root":`)
		jsonValue(e, &m.Root)
		e.s(`,"leaf":`)
		jsonValue(e, &m.Leaf)
		e.s(`,"path":`)
		jsonPath(e, m.Base)
	} else {
		e.s(`"base_proof":`)
		jsonPath(e, m.Base)
		e.s(`,"sub_proof":`)
		jsonPath(e, m.Sub)
		if m.Kind == merkle.ProofTop {
			e.s(`,"top_proof":`)
			jsonPath(e, m.Top)
		}
		e.s(`,"root":`)
		jsonValue(e, &m.Root)
		e.s(`,"leaf":`)
		jsonValue(e, &m.Leaf)
	}
	e.s("}}}")
}

func (e *jenc) columnProof(cp *ColumnProof) {
	e.s(`{"column":{"index":`)
	e.u(uint64(cp.Column.Index))
	e.s(`,"rows":`)
	jsonValues(e, cp.Column.Rows)
	e.s(`,"_h":null},"inclusion_proof":`)
	jsonMerkle(e, &cp.InclusionProof)
	e.s("}")
}

func (e *jenc) labeling(lp *LabelingProof) {
	e.s(`{"parents":`)
	jsonValues(e, lp.Parents)
	e.s(`,"layer_index":`)
	e.u(uint64(lp.LayerIndex))
	e.s(`,"node":`)
	e.u(lp.Node)
	e.s("}")
}

func (e *jenc) challenge(p *ChallengeProof) {
	e.s(`{"comm_d_proofs":`)
	jsonMerkle(e, &p.CommDProof)
	e.s(`,"comm_r_last_proof":`)
	jsonMerkle(e, &p.CommRLastProof)
	e.s(`,"replica_column_proofs":{"c_x":`)
	rc := &p.ReplicaColumnProofs
	e.columnProof(&rc.CX)
	e.s(`,"drg_parents":[`)
	for j := range rc.DRGParents {
		e.comma(j)
		e.columnProof(&rc.DRGParents[j])
	}
	e.s(`],"exp_parents":[`)
	for j := range rc.ExpParents {
		e.comma(j)
		e.columnProof(&rc.ExpParents[j])
	}
	e.s(`]},"labeling_proofs":[`)
	for l := range p.LabelingProofs {
		e.comma(l)
		e.labeling(&p.LabelingProofs[l])
	}
	e.s(`],"encoding_proof":`)
	e.labeling(&p.EncodingProof)
	e.s("}")
}

// EncodeCommit2In wraps c's JSON in the Commit2In envelope used by
// lotus-bench, Curio's cuzk client and the snark market:
// {"SectorNum":n,"Phase1Out":"<base64 of the C1 JSON>","SectorSize":s}.
func EncodeCommit2In(c *C1, sector abi.SectorNumber) ([]byte, error) {
	size, err := c.RegisteredProof.SectorSize()
	if err != nil {
		return nil, err
	}
	js, err := c.EncodeJSON()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, base64.StdEncoding.EncodedLen(len(js))+96)
	out = append(out, `{"SectorNum":`...)
	out = strconv.AppendUint(out, uint64(sector), 10)
	out = append(out, `,"Phase1Out":"`...)
	out = base64.StdEncoding.AppendEncode(out, js)
	out = append(out, `","SectorSize":`...)
	out = strconv.AppendUint(out, uint64(size), 10)
	out = append(out, '}')
	return out, nil
}

// EncodeBincode returns c in the bincode form of filecoin-proofs'
// SealCommitPhase1Output (as supraseal writes commit-phase1-output): no
// registered proof, u64 LE lengths, u32 LE enum tags.
func (c *C1) EncodeBincode() []byte {
	e := benc{codec.Writer{B: make([]byte, 0, c.estimateJSON()/3)}}
	e.U64(uint64(len(c.VanillaProofs)))
	for _, part := range c.VanillaProofs {
		e.U64(uint64(len(part)))
		for i := range part {
			e.challenge(&part[i])
		}
	}
	e.Felt(&c.CommR)
	e.Raw(c.CommD[:])
	e.Felt(&c.ReplicaID)
	e.Raw(c.Seed[:])
	e.Raw(c.Ticket[:])
	return e.B
}

// benc writes the bincode form; the Merkle proofs inside through
// merkle.AppendProofBincode.
type benc struct{ codec.Writer }

func (e *benc) columnProof(cp *ColumnProof) {
	e.U32(cp.Column.Index)
	e.Felts(cp.Column.Rows)
	e.B = merkle.AppendProofBincode(e.B, &cp.InclusionProof)
}

func (e *benc) labeling(lp *LabelingProof) {
	e.Felts(lp.Parents)
	e.U32(lp.LayerIndex)
	e.U64(lp.Node)
}

func (e *benc) challenge(p *ChallengeProof) {
	e.B = merkle.AppendProofBincode(e.B, &p.CommDProof)
	e.B = merkle.AppendProofBincode(e.B, &p.CommRLastProof)
	rc := &p.ReplicaColumnProofs
	e.columnProof(&rc.CX)
	e.U64(uint64(len(rc.DRGParents)))
	for j := range rc.DRGParents {
		e.columnProof(&rc.DRGParents[j])
	}
	e.U64(uint64(len(rc.ExpParents)))
	for j := range rc.ExpParents {
		e.columnProof(&rc.ExpParents[j])
	}
	e.U64(uint64(len(p.LabelingProofs)))
	for l := range p.LabelingProofs {
		e.labeling(&p.LabelingProofs[l])
	}
	e.labeling(&p.EncodingProof)
}

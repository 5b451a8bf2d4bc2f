package porep

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/synth/internal/codec"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// bdec decodes the bincode form of a C1 (the Merkle proofs inside through
// merkle.ReadProofBincode). Every length is checked against a cap and
// against the bytes left before anything is allocated.
type bdec struct {
	*codec.Reader
	part int // current partition, −1 outside
	chal int // current challenge, −1 outside
}

// c1Error is a Reader's error as a *C1Error, located in the partition and
// challenge being read.
func (d *bdec) c1Error(err error) error {
	var ce *codec.Error
	if !errors.As(err, &ce) {
		return err
	}
	return &C1Error{Partition: d.part, Challenge: d.chal, Field: ce.Field, Msg: ce.Detail()}
}

func (d *bdec) columnProof(cp *ColumnProof) (err error) {
	d.Push("column", -1)
	d.Push("index", -1)
	cp.Column.Index, err = d.U32()
	d.Pop()
	if err == nil {
		d.Push("rows", -1)
		cp.Column.Rows, err = d.Felts(maxRows, "rows")
		d.Pop()
	}
	d.Pop()
	if err != nil {
		return err
	}
	d.Push("inclusion_proof", -1)
	defer d.Pop()
	return merkle.ReadProofBincode(d.Reader, &cp.InclusionProof)
}

func (d *bdec) columnProofs(name string) ([]ColumnProof, error) {
	d.Push(name, -1)
	defer d.Pop()
	// a column proof takes at least 4 + 8 + 4 + 64 bytes
	n, err := d.Len(maxColumns, 80, "columns")
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]ColumnProof, n)
	for j := range out {
		d.Push("", j)
		err := d.columnProof(&out[j])
		d.Pop()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *bdec) labeling(lp *LabelingProof) (err error) {
	d.Push("parents", -1)
	lp.Parents, err = d.Felts(maxParents, "parents")
	d.Pop()
	if err != nil {
		return err
	}
	d.Push("layer_index", -1)
	lp.LayerIndex, err = d.U32()
	d.Pop()
	if err != nil {
		return err
	}
	d.Push("node", -1)
	lp.Node, err = d.U64()
	d.Pop()
	return err
}

func (d *bdec) challenge(p *ChallengeProof) (err error) {
	d.Push("comm_d_proofs", -1)
	err = merkle.ReadProofBincode(d.Reader, &p.CommDProof)
	d.Pop()
	if err != nil {
		return err
	}
	d.Push("comm_r_last_proof", -1)
	err = merkle.ReadProofBincode(d.Reader, &p.CommRLastProof)
	d.Pop()
	if err != nil {
		return err
	}
	rc := &p.ReplicaColumnProofs
	d.Push("replica_column_proofs", -1)
	d.Push("c_x", -1)
	err = d.columnProof(&rc.CX)
	d.Pop()
	if err == nil {
		rc.DRGParents, err = d.columnProofs("drg_parents")
	}
	if err == nil {
		rc.ExpParents, err = d.columnProofs("exp_parents")
	}
	d.Pop()
	if err != nil {
		return err
	}
	d.Push("labeling_proofs", -1)
	n, err := d.Len(maxLayers, 20, "labeling proofs")
	if err == nil && n > 0 {
		p.LabelingProofs = make([]LabelingProof, n)
		for l := range p.LabelingProofs {
			d.Push("", l)
			err = d.labeling(&p.LabelingProofs[l])
			d.Pop()
			if err != nil {
				break
			}
		}
	}
	d.Pop()
	if err != nil {
		return err
	}
	d.Push("encoding_proof", -1)
	defer d.Pop()
	return d.labeling(&p.EncodingProof)
}

func decodeC1Bincode(data []byte, spt abi.RegisteredSealProof) (*C1, error) {
	d := &bdec{Reader: codec.NewReader(data), part: -1, chal: -1}
	c, err := d.c1(spt)
	if err != nil {
		return nil, d.c1Error(err)
	}
	return c, nil
}

func (d *bdec) c1(spt abi.RegisteredSealProof) (*C1, error) {
	c := &C1{RegisteredProof: spt}
	d.Push("vanilla_proofs", -1)
	np, err := d.Len(maxPartitions, 8, "partitions")
	if err != nil {
		return nil, err
	}
	c.VanillaProofs = make([][]ChallengeProof, np)
	for k := range c.VanillaProofs {
		d.part = k
		// a challenge proof takes well over 256 bytes
		nc, err := d.Len(maxChallenges, 256, "challenges")
		if err != nil {
			return nil, err
		}
		c.VanillaProofs[k] = make([]ChallengeProof, nc)
		d.Rebase() // fields inside a challenge are named from it
		for i := range c.VanillaProofs[k] {
			d.chal = i
			if err := d.challenge(&c.VanillaProofs[k][i]); err != nil {
				return nil, err
			}
		}
		d.chal = -1
		d.ClearBase()
	}
	d.part = -1
	d.Reset()
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
		d.Push(f.name, -1)
		if f.fe != nil {
			err = d.Felt(f.fe)
		} else {
			err = d.Raw32(f.raw)
		}
		d.Pop()
		if err != nil {
			return nil, err
		}
	}
	return c, d.End()
}

package porep_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/gpuc2/gpuc2/synth/porep"
)

const (
	testMiner  = abi.ActorID(1000)
	testSector = abi.SectorNumber(4242)
)

// smallProofs are the proof types whose C1 is small enough for every test.
func smallProofs() []abi.RegisteredSealProof {
	var out []abi.RegisteredSealProof
	for p := abi.RegisteredSealProof(0); p < 20; p++ {
		if s, _ := p.SectorSize(); s <= 512<<20 {
			out = append(out, p)
		}
	}
	return out
}

func TestC1RoundTrip(t *testing.T) {
	proofs := smallProofs()
	if !testing.Short() {
		proofs = append(proofs,
			abi.RegisteredSealProof_StackedDrg32GiBV1_1,
			abi.RegisteredSealProof_StackedDrg64GiBV1_1_Feat_SyntheticPoRep)
	}
	for _, p := range proofs {
		t.Run(porep.ProofName(p), func(t *testing.T) {
			c := porep.ShapeC1(p, uint64(p), testMiner, testSector)
			require.NoError(t, c.Validate())
			require.NoError(t, c.Check(testMiner, testSector))

			js, err := c.EncodeJSON()
			require.NoError(t, err)
			got, err := porep.ParseC1(js)
			require.NoError(t, err)
			assert.Equal(t, c, got, "JSON")

			// encoding/json agrees on the generic shape
			var generic map[string]any
			require.NoError(t, json.Unmarshal(js, &generic))
			assert.Equal(t, porep.ProofName(p), generic["registered_proof"])

			env, err := porep.EncodeCommit2In(c, testSector)
			require.NoError(t, err)
			in, err := porep.ParseCommit2In(env)
			require.NoError(t, err)
			assert.Equal(t, testSector, in.SectorNum)
			assert.Equal(t, c, in.C1, "envelope")
			got, err = porep.ParseC1(env)
			require.NoError(t, err)
			assert.Equal(t, c, got, "envelope via ParseC1")
			// A request for another sector than the envelope's is refused,
			// naming both; bare JSON has no sector to compare.
			got, err = porep.ParseC1ForSector(env, testSector)
			require.NoError(t, err)
			assert.Equal(t, c, got, "envelope via ParseC1ForSector")
			_, err = porep.ParseC1ForSector(env, testSector+1)
			assert.ErrorIs(t, err, porep.ErrBadC1)
			assert.ErrorContains(t, err, fmt.Sprintf("the envelope is for sector %d, the request for sector %d", testSector, testSector+1))
			_, err = porep.ParseC1ForSector(js, testSector+1)
			assert.NoError(t, err)

			bin := c.EncodeBincode()
			got, err = porep.ParseC1Bincode(bin, p)
			require.NoError(t, err)
			assert.Equal(t, c, got, "bincode")
			_, err = porep.ParseC1(bin)
			assert.ErrorIs(t, err, porep.ErrBadC1)

			var viaStd porep.C1
			require.NoError(t, json.Unmarshal(js, &viaStd))
			assert.Equal(t, c, &viaStd)
		})
	}
}

func TestParseC1Whitespace(t *testing.T) {
	c := porep.ShapeC1(abi.RegisteredSealProof_StackedDrg2KiBV1_1, 1, testMiner, testSector)
	js, err := c.EncodeJSON()
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, json.Indent(&buf, js, " ", "\t"))
	got, err := porep.ParseC1(buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, c, got)
}

// Bytes after a valid envelope or JSON C1, NULs included (a NUL once read
// as the end of the input), are refused, wrapping ErrBadC1 and naming
// their offset and count; whitespace may follow. The same inside the
// envelope: Phase1Out's JSON followed by a NUL.
func TestTrailingBytes(t *testing.T) {
	c := porep.ShapeC1(abi.RegisteredSealProof_StackedDrg2KiBV1_1, 5, testMiner, testSector)
	js, err := c.EncodeJSON()
	require.NoError(t, err)
	env, err := porep.EncodeCommit2In(c, testSector)
	require.NoError(t, err)
	for _, form := range []struct {
		name  string
		data  []byte
		parse func([]byte) (*porep.C1, error)
	}{
		{"envelope", env, func(b []byte) (*porep.C1, error) {
			in, err := porep.ParseCommit2In(b)
			if err != nil {
				return nil, err
			}
			return in.C1, nil
		}},
		{"envelope via ParseC1", env, porep.ParseC1},
		{"envelope via ParseC1ForSector", env, func(b []byte) (*porep.C1, error) { return porep.ParseC1ForSector(b, testSector) }},
		{"JSON", js, porep.ParseC1},
	} {
		for _, tail := range []struct {
			name string
			b    []byte
		}{
			{"one NUL", []byte{0}},
			{"16 MiB of NULs", make([]byte, 16<<20)},
			{"NUL after whitespace", []byte(" \n\x00")},
			{"a byte", []byte("x")},
			{"a second object", []byte(" {}")},
		} {
			t.Run(form.name+"/"+tail.name, func(t *testing.T) {
				data := append(append([]byte(nil), form.data...), tail.b...)
				_, err := form.parse(data)
				require.ErrorIs(t, err, porep.ErrBadC1)
				n := len(bytes.TrimLeft(tail.b, " \n")) // the bytes after the whitespace
				assert.ErrorContains(t, err, fmt.Sprintf("%d trailing bytes", n))
				assert.ErrorContains(t, err, fmt.Sprintf("JSON offset %d:", len(data)-n))
				assert.Less(t, len(err.Error()), 300)
			})
		}
		t.Run(form.name+"/whitespace", func(t *testing.T) {
			got, err := form.parse(append(append([]byte(nil), form.data...), " \t\r\n"...))
			require.NoError(t, err)
			assert.Equal(t, c, got)
		})
	}

	inner := append(append([]byte(nil), js...), 0)
	nested := fmt.Appendf(nil, `{"SectorNum":%d,"Phase1Out":%q,"SectorSize":2048}`, testSector, base64.StdEncoding.EncodeToString(inner))
	_, err = porep.ParseCommit2In(nested)
	require.ErrorIs(t, err, porep.ErrBadC1)
	assert.ErrorContains(t, err, "Phase1Out")
	assert.ErrorContains(t, err, "1 trailing bytes after the C1 object")
}

func TestCommit2InBincodePhase1Out(t *testing.T) {
	c := porep.ShapeC1(abi.RegisteredSealProof_StackedDrg2KiBV1_1, 2, testMiner, testSector)
	env, err := json.Marshal(map[string]any{"SectorNum": 7, "Phase1Out": c.EncodeBincode(), "SectorSize": 2048})
	require.NoError(t, err)
	in, err := porep.ParseCommit2In(env)
	require.NoError(t, err)
	assert.Equal(t, abi.SectorNumber(7), in.SectorNum)
	assert.Equal(t, c, in.C1)
}

// mutation corrupts one thing in a 2 KiB V1_1 C1's JSON or struct.
type mutation struct {
	name  string
	json  func(s string) string // on the JSON text
	c1    func(c *porep.C1)     // on the struct, before encoding
	field string                // expected in the error
	check bool                  // caught by Check rather than by parsing
}

func TestC1Errors(t *testing.T) {
	base := func() *porep.C1 {
		return porep.ShapeC1(abi.RegisteredSealProof_StackedDrg2KiBV1_1, 3, testMiner, testSector)
	}
	rBytes := "[1,0,0,0,255,255,255,255,254,91,254,255,2,164,189,83,5,216,161,9,8,216,57,51,72,125,157,41,83,167,237,115]"
	muts := []mutation{
		{name: "unknown proof", json: func(s string) string {
			return strings.Replace(s, `"StackedDrg2KiBV1_1"`, `"StackedDrg4KiBV1_1"`, 1)
		}, field: "registered_proof"},
		{name: "variant mismatch", json: func(s string) string {
			return strings.Replace(s, `{"StackedDrg2KiBV1":`, `{"StackedDrg8MiBV1":`, 1)
		}, field: "vanilla_proofs"},
		{name: "proof for another size", c1: func(c *porep.C1) {
			c.RegisteredProof = abi.RegisteredSealProof_StackedDrg8MiBV1_1
		}, field: "partition 0 challenge 0: comm_d_proofs.data.Single.path.path: got 6 path elements, want 18"},
		{name: "comm_r not in field", json: func(s string) string {
			i := strings.Index(s, `"comm_r":`) + len(`"comm_r":`)
			j := i + strings.Index(s[i:], "]") + 1
			return s[:i] + rBytes + s[j:]
		}, field: "comm_r"},
		{name: "short seed", json: func(s string) string {
			i := strings.Index(s, `"seed":[`) + len(`"seed":[`)
			return s[:i] + s[i+strings.Index(s[i:], ",")+1:]
		}, field: "seed"},
		{name: "zero seed", c1: func(c *porep.C1) { c.Seed = [32]byte{} }, field: "seed"},
		{name: "missing ticket", json: func(s string) string {
			i := strings.Index(s, `,"ticket":`)
			return s[:i] + "}"
		}, field: "ticket"},
		{name: "two partitions", c1: func(c *porep.C1) {
			c.VanillaProofs = append(c.VanillaProofs, c.VanillaProofs[0])
		}, field: "vanilla_proofs"},
		{name: "one challenge", c1: func(c *porep.C1) {
			c.VanillaProofs[0] = c.VanillaProofs[0][:1]
		}, field: "partition 0: vanilla_proofs"},
		{name: "short column", c1: func(c *porep.C1) {
			col := &c.VanillaProofs[0][1].ReplicaColumnProofs.DRGParents[2].Column
			col.Rows = col.Rows[:1]
		}, field: "partition 0 challenge 1: replica_column_proofs.drg_parents[2].column.rows: got 1 rows, want 2 layers"},
		{name: "seven exp parents", c1: func(c *porep.C1) {
			rc := &c.VanillaProofs[0][0].ReplicaColumnProofs
			rc.ExpParents = rc.ExpParents[:7]
		}, field: "replica_column_proofs.exp_parents"},
		{name: "36 label parents", c1: func(c *porep.C1) {
			lp := &c.VanillaProofs[0][0].LabelingProofs[1]
			lp.Parents = lp.Parents[:36]
		}, field: "labeling_proofs[1]"},
		{name: "layer index", c1: func(c *porep.C1) {
			c.VanillaProofs[0][0].EncodingProof.LayerIndex = 1
		}, field: "encoding_proof"},
		{name: "tree D path short", c1: func(c *porep.C1) {
			m := &c.VanillaProofs[0][0].CommDProof
			m.Base = m.Base[:5]
		}, field: "comm_d_proofs.data.Single.path.path"},
		{name: "tree R arity", c1: func(c *porep.C1) {
			m := &c.VanillaProofs[0][1].CommRLastProof
			m.Base[1].Hashes = m.Base[1].Hashes[:3]
		}, field: "comm_r_last_proof.data.Single.path.path[1].hashes"},
		{name: "tree C index", c1: func(c *porep.C1) {
			c.VanillaProofs[0][0].ReplicaColumnProofs.CX.InclusionProof.Base[0].Index = 8
		}, field: "replica_column_proofs.c_x.inclusion_proof.data.Single.path.path[0].index"},
		{name: "sub proof in 8-0-0", c1: func(c *porep.C1) {
			m := &c.VanillaProofs[0][0].CommRLastProof
			m.Kind = merkle.ProofSub
		}, field: "comm_r_last_proof.data"},
		{name: "label parent not in field", json: func(s string) string {
			i := strings.Index(s, `"labeling_proofs":[{"parents":[`) + len(`"labeling_proofs":[{"parents":[`)
			j := i + strings.Index(s[i:], "]") + 1
			return s[:i] + rBytes + s[j:]
		}, field: "partition 0 challenge 0: labeling_proofs[0].parents[0]"},
		{name: "byte 256", json: func(s string) string {
			return strings.Replace(s, `"comm_d":[`, `"comm_d":[256,`, 1)
		}, field: "comm_d"},
		{name: "negative index", json: func(s string) string {
			return strings.Replace(s, `"index":`, `"index":-`, 1)
		}, field: "comm_d_proofs"},
		{name: "trailing garbage", json: func(s string) string { return s + "x" }, field: "trailing"},
		{name: "wrong replica_id", c1: func(c *porep.C1) { c.ReplicaID.SetUint64(5) }, field: "replica_id", check: true},
		{name: "wrong challenge node", c1: func(c *porep.C1) {
			c.VanillaProofs[0][1].LabelingProofs[0].Node++
		}, field: "partition 0 challenge 1: labeling_proofs[0].node", check: true},
		{name: "wrong parent column", c1: func(c *porep.C1) {
			c.VanillaProofs[0][0].ReplicaColumnProofs.ExpParents[3].Column.Index ^= 1
		}, field: "replica_column_proofs.exp_parents[3].column.index", check: true},
		{name: "wrong path index", c1: func(c *porep.C1) {
			m := &c.VanillaProofs[0][0].CommDProof
			m.Base[0].Index ^= 1
		}, field: "comm_d_proofs: path proves node", check: true},
		{name: "wrong comm_d root", c1: func(c *porep.C1) {
			c.VanillaProofs[0][1].CommDProof.Root[0] ^= 1
		}, field: "comm_d_proofs.data.Single.root", check: true},
		{name: "comm_c differs", c1: func(c *porep.C1) {
			c.VanillaProofs[0][1].ReplicaColumnProofs.DRGParents[4].InclusionProof.Root.SetUint64(9)
		}, field: "drg_parents[4].inclusion_proof", check: true},
		{name: "label parent differs", c1: func(c *porep.C1) {
			c.VanillaProofs[0][0].LabelingProofs[1].Parents[20].SetUint64(9)
		}, field: "labeling_proofs[1].parents[20]", check: true},
		{name: "encoding parent differs", c1: func(c *porep.C1) {
			c.VanillaProofs[0][0].EncodingProof.Parents[36].SetUint64(9)
		}, field: "encoding_proof.parents[36]", check: true},
	}
	for _, m := range muts {
		t.Run(m.name, func(t *testing.T) {
			c := base()
			if m.c1 != nil {
				m.c1(c)
			}
			js, err := c.EncodeJSON()
			require.NoError(t, err)
			if m.json != nil {
				js = []byte(m.json(string(js)))
			}
			got, err := porep.ParseC1(js)
			if m.check {
				require.NoError(t, err)
				err = got.Check(testMiner, testSector)
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, porep.ErrBadC1)
			var ce *porep.C1Error
			assert.True(t, errors.As(err, &ce))
			assert.Contains(t, err.Error(), m.field)
		})
	}
}

func TestParseC1Bincode(t *testing.T) {
	p := abi.RegisteredSealProof_StackedDrg2KiBV1
	c := porep.ShapeC1(p, 4, testMiner, testSector)
	bin := c.EncodeBincode()

	_, err := porep.ParseC1Bincode(bin, 20)
	assert.ErrorIs(t, err, porep.ErrBadC1)
	_, err = porep.ParseC1Bincode(bin, abi.RegisteredSealProof_StackedDrg8MiBV1)
	assert.ErrorIs(t, err, porep.ErrBadC1)

	for _, cut := range []int{0, 7, 8, 100, len(bin) / 2, len(bin) - 1} {
		_, err := porep.ParseC1Bincode(bin[:cut], p)
		assert.ErrorIs(t, err, porep.ErrBadC1, "cut at %d", cut)
	}
	_, err = porep.ParseC1Bincode(append(bin, 0), p)
	assert.ErrorContains(t, err, "trailing")

	huge := append([]byte(nil), bin...)
	huge[0] = 0xff // partitions length
	_, err = porep.ParseC1Bincode(huge, p)
	assert.ErrorContains(t, err, "cap")

	bad := append([]byte(nil), bin...)
	bad[16] = 7 // comm_d proof variant tag after two lengths
	_, err = porep.ParseC1Bincode(bad, p)
	assert.ErrorContains(t, err, "variant tag 7")
}

func TestPublicInputs(t *testing.T) {
	for _, p := range smallProofs() {
		t.Run(porep.ProofName(p), func(t *testing.T) {
			c := porep.ShapeC1(p, 5, testMiner, testSector)
			sp, err := porep.ParamsFor(p)
			require.NoError(t, err)
			g, err := porep.NewGraph(p)
			require.NoError(t, err)
			for k := 0; k < sp.Partitions; k++ {
				in, err := porep.PublicInputs(c, testMiner, testSector, k)
				require.NoError(t, err)
				require.Len(t, in, 3+porep.InputsPerChallenge*sp.ChallengesPerPartition)
				assert.Equal(t, c.ReplicaID, in[0])
				assert.Equal(t, c.CommR, in[2])
				for i, cp := range c.VanillaProofs[k] {
					x := in[3+porep.InputsPerChallenge*i:]
					ch := cp.LabelingProofs[0].Node
					drg, exp, err := g.Parents(ch)
					require.NoError(t, err)
					want := []uint64{ch}
					for _, v := range drg {
						want = append(want, uint64(v))
					}
					for _, v := range exp {
						want = append(want, uint64(v))
					}
					want = append(want, ch, ch, ch)
					for j, w := range want {
						var e fr.Element
						e.SetUint64(w)
						assert.Equal(t, e, x[j], "partition %d challenge %d input %d", k, i, j)
					}
					// the C1's own column indices give the same parents
					assert.Equal(t, uint32(drg[0]), cp.ReplicaColumnProofs.DRGParents[0].Column.Index)
				}
			}
			_, err = porep.PublicInputs(c, testMiner+1, testSector, 0)
			assert.ErrorContains(t, err, "replica_id")
			_, err = porep.PublicInputs(c, testMiner, testSector, sp.Partitions)
			assert.Error(t, err)
		})
	}
}

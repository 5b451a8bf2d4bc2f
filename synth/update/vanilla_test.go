package update_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth/update"
)

// Curio's form round-trips, and what it decodes passes Check.
func TestVanillaProofsRoundTrip(t *testing.T) {
	s := synthetic(t, 2<<10, 3)
	data, err := update.EncodeVanillaProofsJSON(s.Proofs)
	require.NoError(t, err)
	raw, err := update.ParseVanillaProofsJSON(data)
	require.NoError(t, err)
	require.Len(t, raw, 1)
	got, err := update.DecodeVanillaProofs(s.Params, raw)
	require.NoError(t, err)
	assert.Equal(t, s.Proofs, got)
	assert.Equal(t, raw[0], got[0].AppendBincode(nil))
	assert.Equal(t, raw, update.EncodeVanillaProofs(got), "the bincode of ParseVanillaProofsJSON's split")
}

// Each malformation of the bincode or its shape is an error wrapping
// ErrBadVanillaProof that names the partition, challenge and field.
func TestVanillaProofsErrors(t *testing.T) {
	s := synthetic(t, 2<<10, 3)
	good := s.Proofs[0].AppendBincode(nil)
	p := s.Params
	// offsets: comm_c 0..32, apex count 32..40, apex leaves 40..40+8·32,
	// challenge count, then challenge 0's proof_r_old (variant tag first).
	apexEnd := 40 + 32*p.ApexLeaves
	for _, tc := range []struct {
		name  string
		edit  func(b []byte) []byte
		field string
	}{
		{"empty", func(b []byte) []byte { return nil }, "comm_c"},
		{"comm_c not canonical", func(b []byte) []byte { copy(b, bytesFF(32)); return b }, "comm_c"},
		{"apex count huge", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[32:], 1<<40); return b }, "apex_leafs"},
		{"apex count wrong", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[32:], 7)
			return append(b[:40+7*32:40+7*32], b[apexEnd:]...)
		}, "apex_leafs"},
		{"challenge count huge", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[apexEnd:], 1<<62); return b }, "challenge_proofs"},
		{"variant tag", func(b []byte) []byte { b[apexEnd+8] = 7; return b }, "proof_r_old.data"},
		{"trailing byte", func(b []byte) []byte { return append(b, 0) }, ""},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, "proof_r_new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.edit(append([]byte(nil), good...))
			_, err := update.DecodeVanillaProofs(p, [][]byte{b})
			require.ErrorIs(t, err, update.ErrBadVanillaProof)
			var pe *update.ProofError
			require.True(t, errors.As(err, &pe))
			assert.Equal(t, 0, pe.Partition)
			assert.Contains(t, pe.Field, tc.field)
			t.Log(err)
		})
	}

	_, err := update.DecodeVanillaProofs(p, [][]byte{good, good})
	assert.ErrorIs(t, err, update.ErrBadVanillaProof, "two partitions for 2 KiB")
	_, err = update.ParseVanillaProofsJSON([]byte(`{"a":1}`))
	assert.ErrorIs(t, err, update.ErrBadVanillaProof)
	_, err = update.ParseVanillaProofsJSON([]byte(`["not base64!"]`))
	assert.ErrorIs(t, err, update.ErrBadVanillaProof)
}

// Bytes after Curio's JSON array, NULs included, or after a partition's
// bincode, are refused wrapping ErrBadVanillaProof, their offset and count
// said; whitespace may follow the array.
func TestVanillaProofsTrailingBytes(t *testing.T) {
	s := synthetic(t, 2<<10, 3)
	data, err := update.EncodeVanillaProofsJSON(s.Proofs)
	require.NoError(t, err)
	for name, tail := range map[string][]byte{"one NUL": {0}, "16 MiB of NULs": make([]byte, 16<<20), "NUL after whitespace": []byte("\n\x00"),
		"a second array": []byte(" []")} {
		t.Run(name, func(t *testing.T) {
			_, err := update.ParseVanillaProofsJSON(append(append([]byte(nil), data...), tail...))
			require.ErrorIs(t, err, update.ErrBadVanillaProof)
			n := len(bytes.TrimLeft(tail, " \n"))
			assert.ErrorContains(t, err, fmt.Sprintf("JSON offset %d: %d trailing bytes", len(data)+len(tail)-n, n))
			assert.Less(t, len(err.Error()), 300)
		})
	}
	raw, err := update.ParseVanillaProofsJSON(append(append([]byte(nil), data...), " \t\r\n"...))
	require.NoError(t, err)
	assert.Len(t, raw, 1)

	good := s.Proofs[0].AppendBincode(nil)
	_, err = update.DecodePartitionProof(append(good, 0))
	require.ErrorIs(t, err, update.ErrBadVanillaProof)
	assert.ErrorContains(t, err, fmt.Sprintf("bincode offset %d: 1 trailing bytes", len(good)))
}

// Shape faults Validate catches after a clean decode, named as serde (and
// the decoder, and porep) name the field: a path's levels are under
// "path.path" (InclusionPath { path }).
func TestValidateShape(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(pp *update.PartitionProof)
		field string
	}{
		{"too few challenges", func(pp *update.PartitionProof) { pp.Challenges = pp.Challenges[:9] }, "challenge_proofs"},
		{"tree R level missing", func(pp *update.PartitionProof) {
			pp.Challenges[2].RNew.Base = pp.Challenges[2].RNew.Base[:1]
		}, "proof_r_new.data.Single.path.path"},
		{"tree R sibling missing", func(pp *update.PartitionProof) {
			e := &pp.Challenges[2].ROld.Base[1]
			e.Hashes = e.Hashes[:6]
		}, "proof_r_old.data.Single.path.path[1].hashes"},
		{"tree D index 2", func(pp *update.PartitionProof) { pp.Challenges[4].DNew.Base[0].Index = 2 }, "proof_d_new.data.Single.path.path[0].index"},
		{"tree D value not canonical", func(pp *update.PartitionProof) {
			copy(pp.Challenges[4].DNew.Base[3].Hashes[0][:], bytesFF(32))
		}, "proof_d_new.data.Single.path.path[3].hashes[0]"},
		{"apex leaf not canonical", func(pp *update.PartitionProof) { copy(pp.ApexLeaves[1][:], bytesFF(32)) }, "apex_leafs[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := synthetic(t, 2<<10, 4)
			// decode a private copy, edit it, encode and decode again
			pp, err := update.DecodePartitionProof(s.Proofs[0].AppendBincode(nil))
			require.NoError(t, err)
			tc.edit(pp)
			_, err = update.DecodeVanillaProofs(s.Params, [][]byte{pp.AppendBincode(nil)})
			require.ErrorIs(t, err, update.ErrBadVanillaProof)
			var pe *update.ProofError
			require.True(t, errors.As(err, &pe))
			assert.Equal(t, tc.field, pe.Field)
			t.Log(err)
		})
	}
}

func bytesFF(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xff
	}
	return b
}

func FuzzDecodePartitionProof(f *testing.F) {
	s := synthetic(f, 2<<10, 5)
	good := s.Proofs[0].AppendBincode(nil)
	f.Add(good)
	f.Add(good[:100])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		pp, err := update.DecodePartitionProof(b)
		if err != nil {
			require.ErrorIs(t, err, update.ErrBadVanillaProof)
			return
		}
		assert.Equal(t, b, pp.AppendBincode(nil), "decoding is the inverse of encoding")
		if err := update.Validate(s.Params, []*update.PartitionProof{pp}); err != nil {
			require.ErrorIs(t, err, update.ErrBadVanillaProof)
		}
	})
}

func FuzzParseVanillaProofsJSON(f *testing.F) {
	s := synthetic(f, 2<<10, 6)
	data, err := update.EncodeVanillaProofsJSON(s.Proofs)
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(`[]`))
	f.Add([]byte(`["AAAA", null]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, err := update.ParseVanillaProofsJSON(b)
		if err != nil {
			require.ErrorIs(t, err, update.ErrBadVanillaProof)
			return
		}
		_, err = update.DecodeVanillaProofs(s.Params, raw)
		if err != nil {
			require.ErrorIs(t, err, update.ErrBadVanillaProof)
			return
		}
		again, err := json.Marshal(raw)
		require.NoError(t, err)
		_, err = update.ParseVanillaProofsJSON(again)
		require.NoError(t, err)
	})
}

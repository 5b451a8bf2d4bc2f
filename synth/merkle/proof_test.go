package merkle_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth/merkle"
)

// openPoseidon is leaf i of a Poseidon tree of shape s with n leaves as a
// Proof, built the way the circuits' synthetic inputs build theirs.
func openPoseidon(t testing.TB, s merkle.Shape, n, i int) (merkle.Proof[fr.Element], *merkle.Tree) {
	ls := leaves(n)
	tr, err := merkle.NewPoseidon(ls, s)
	require.NoError(t, err)
	path, err := tr.Path(i)
	require.NoError(t, err)
	levels := make([]merkle.ProofElement[fr.Element], len(path))
	for l, e := range path {
		levels[l] = merkle.ProofElement[fr.Element]{Hashes: e.Siblings, Index: uint64(e.Index)}
	}
	return merkle.NewProof(s, tr.Root(), ls[i], levels), tr
}

// openSHA256 is leaf i of a SHA-256 tree of n leaves as a Proof of 32-byte
// values.
func openSHA256(t testing.TB, n, i int) merkle.Proof[[32]byte] {
	ls := leaves(n)
	tr, err := merkle.NewSHA256(ls)
	require.NoError(t, err)
	path, err := tr.Path(i)
	require.NoError(t, err)
	le := func(v fr.Element) (b [32]byte) { fr.LittleEndian.PutElement(&b, v); return b }
	var levels []merkle.ProofElement[[32]byte]
	for _, e := range path {
		levels = append(levels, merkle.ProofElement[[32]byte]{Hashes: [][32]byte{le(e.Siblings[0])}, Index: uint64(e.Index)})
	}
	return merkle.NewProof(merkle.Shape{Base: 2}, le(tr.Root()), le(ls[i]), levels)
}

var proofShapes = []struct {
	s    merkle.Shape
	n    int
	kind merkle.ProofKind
}{
	{merkle.Shape{Base: 8}, 64, merkle.ProofSingle},
	{merkle.Shape{Base: 8, Sub: 8}, 512, merkle.ProofSub},
	{merkle.Shape{Base: 8, Sub: 8, Top: 2}, 1024, merkle.ProofTop},
	{merkle.Shape{Base: 8, Sub: 4, Top: 2}, 512, merkle.ProofTop},
}

// A Proof built from a native path has the shape's variant, passes
// CheckShape, spells its leaf index, and reads back as the same Path.
func TestProofOfNativePath(t *testing.T) {
	for _, tc := range proofShapes {
		t.Run(tc.s.String(), func(t *testing.T) {
			for _, i := range []int{0, 5, tc.n - 1} {
				m, tr := openPoseidon(t, tc.s, tc.n, i)
				assert.Equal(t, tc.kind, m.Kind)
				f, msg := m.CheckShape(tc.s, tc.n)
				assert.Empty(t, msg, f)
				assert.Equal(t, uint64(i), m.PathIndex(tc.s))
				p, err := m.Path()
				require.NoError(t, err)
				native, err := tr.Path(i)
				require.NoError(t, err)
				assert.Equal(t, native, p)
				assert.True(t, p.Verify(merkle.PoseidonHash, m.Leaf, m.Root))
			}
		})
	}
	d := openSHA256(t, 16, 11)
	f, msg := d.CheckShape(merkle.Shape{Base: 2}, 16)
	assert.Empty(t, msg, f)
	assert.Equal(t, uint64(11), d.PathIndex(merkle.Shape{Base: 2}))
	p, err := d.Path()
	require.NoError(t, err)
	leaf, err := merkle.Element(d.Leaf)
	require.NoError(t, err)
	root, err := merkle.Element(d.Root)
	require.NoError(t, err)
	assert.True(t, p.Verify(merkle.SHA256Hash, leaf, root))
}

// Every fault CheckShape looks for, with the field it names (as serde
// names it: a part's levels are under "<part>.path").
func TestCheckShape(t *testing.T) {
	s, n := merkle.Shape{Base: 8, Sub: 4, Top: 2}, 512
	ff := [32]byte{}
	for k := range ff {
		ff[k] = 0xff
	}
	for _, tc := range []struct {
		name  string
		edit  func(m *merkle.Proof[fr.Element])
		field string
	}{
		{"variant", func(m *merkle.Proof[fr.Element]) { m.Kind = merkle.ProofSub }, ".data"},
		{"base level missing", func(m *merkle.Proof[fr.Element]) { m.Base = m.Base[:1] }, ".data.Top.base_proof.path"},
		{"sub level missing", func(m *merkle.Proof[fr.Element]) { m.Sub = nil }, ".data.Top.sub_proof.path"},
		{"top level extra", func(m *merkle.Proof[fr.Element]) { m.Top = append(m.Top, m.Top[0]) }, ".data.Top.top_proof.path"},
		{"sibling missing", func(m *merkle.Proof[fr.Element]) { m.Base[1].Hashes = m.Base[1].Hashes[:6] }, ".data.Top.base_proof.path[1].hashes"},
		{"sub index", func(m *merkle.Proof[fr.Element]) { m.Sub[0].Index = 4 }, ".data.Top.sub_proof.path[0].index"},
		{"top hashes", func(m *merkle.Proof[fr.Element]) { m.Top[0].Hashes = nil }, ".data.Top.top_proof.path[0].hashes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := openPoseidon(t, s, n, 7)
			tc.edit(&m)
			f, msg := m.CheckShape(s, n)
			assert.NotEmpty(t, msg)
			assert.Equal(t, tc.field, f, msg)
		})
	}
	for _, tc := range []struct {
		name  string
		edit  func(m *merkle.Proof[[32]byte])
		field string
	}{
		{"root not canonical", func(m *merkle.Proof[[32]byte]) { m.Root = ff }, ".data.Single.root"},
		{"leaf not canonical", func(m *merkle.Proof[[32]byte]) { m.Leaf = ff }, ".data.Single.leaf"},
		{"hash not canonical", func(m *merkle.Proof[[32]byte]) { m.Base[2].Hashes[0] = ff }, ".data.Single.path.path[2].hashes[0]"},
		{"index 2", func(m *merkle.Proof[[32]byte]) { m.Base[0].Index = 2 }, ".data.Single.path.path[0].index"},
		{"depth", func(m *merkle.Proof[[32]byte]) { m.Base = m.Base[:3] }, ".data.Single.path.path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := openSHA256(t, 16, 3)
			tc.edit(&m)
			f, msg := m.CheckShape(merkle.Shape{Base: 2}, 16)
			assert.NotEmpty(t, msg)
			assert.Equal(t, tc.field, f, msg)
		})
	}
	m := openSHA256(t, 16, 3)
	m.Base[2].Hashes[0] = ff
	_, err := m.Path()
	assert.ErrorIs(t, err, merkle.ErrPath)
}

// The bincode form round-trips for every variant and both value types, at
// the documented layout.
func TestProofBincode(t *testing.T) {
	for _, tc := range proofShapes {
		m, _ := openPoseidon(t, tc.s, tc.n, 9)
		b := merkle.AppendProofBincode([]byte{0xaa}, &m)
		require.Equal(t, byte(0xaa), b[0], "appends")
		assert.Equal(t, uint32(tc.kind), binary.LittleEndian.Uint32(b[1:]), "variant tag first")
		got, n, err := merkle.DecodeProofBincode[fr.Element](append(b[1:], 1, 2, 3))
		require.NoError(t, err)
		assert.Equal(t, len(b)-1, n, "bytes taken, the rest left")
		assert.Equal(t, m, got)
	}
	d := openSHA256(t, 8, 5)
	b := merkle.AppendProofBincode(nil, &d)
	// Single: tag, root, leaf, 3 levels of (count, hash, index)
	assert.Len(t, b, 4+32+32+8+3*(8+32+8))
	got, n, err := merkle.DecodeProofBincode[[32]byte](b)
	require.NoError(t, err)
	assert.Equal(t, len(b), n)
	assert.Equal(t, d, got)
}

// Malformed bincode: an error wrapping ErrBadProof that names the field
// and the offset.
func TestProofBincodeErrors(t *testing.T) {
	m, _ := openPoseidon(t, merkle.Shape{Base: 8, Sub: 8}, 512, 3)
	good := merkle.AppendProofBincode(nil, &m)
	ff := make([]byte, 32)
	for k := range ff {
		ff[k] = 0xff
	}
	for _, tc := range []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"empty", func(b []byte) []byte { return nil }, "data: bincode offset 0: unexpected end of input"},
		{"tag", func(b []byte) []byte { b[0] = 3; return b }, "data: bincode offset 4: unknown proof variant tag 3"},
		{"levels over the cap", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[4:], 65); return b }, "data.Sub.base_proof: bincode offset 12: 65 path elements, more than the cap of 64"},
		{"hashes over the cap", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[12:], 17); return b }, "data.Sub.base_proof.path[0].hashes: bincode offset 20: 17 hashes, more than the cap of 16"},
		{"hash not canonical", func(b []byte) []byte { copy(b[20+32:], ff); return b }, "data.Sub.base_proof.path[0].hashes[1]: bincode offset 52: value is not a canonical"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, "data.Sub.leaf: bincode offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := merkle.DecodeProofBincode[fr.Element](tc.edit(append([]byte(nil), good...)))
			require.ErrorIs(t, err, merkle.ErrBadProof)
			assert.Contains(t, err.Error(), "merkle: bad proof: "+tc.want)
		})
	}
}

func FuzzDecodeProofBincode(f *testing.F) {
	for _, tc := range proofShapes {
		m, _ := openPoseidon(f, tc.s, tc.n, 1)
		f.Add(merkle.AppendProofBincode(nil, &m), false)
	}
	d := openSHA256(f, 8, 2)
	f.Add(merkle.AppendProofBincode(nil, &d), true)
	f.Add([]byte{2, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255}, false)
	f.Fuzz(func(t *testing.T, b []byte, sha bool) {
		if sha {
			roundTrip[[32]byte](t, b)
		} else {
			roundTrip[fr.Element](t, b)
		}
	})
}

// roundTrip checks the decoder's contract on b: an error wraps ErrBadProof;
// a success took a prefix of b that encodes back to itself.
func roundTrip[T merkle.Domain](t *testing.T, b []byte) {
	m, n, err := merkle.DecodeProofBincode[T](b)
	if err != nil {
		require.ErrorIs(t, err, merkle.ErrBadProof)
		return
	}
	require.LessOrEqual(t, n, len(b))
	require.Equal(t, b[:n], merkle.AppendProofBincode(nil, &m), fmt.Sprintf("%v proof", m.Kind))
}

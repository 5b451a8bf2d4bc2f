package codec_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth/internal/codec"
)

func TestFields(t *testing.T) {
	var f codec.Fields
	assert.Equal(t, "", f.String())
	f.Push("vanilla_proofs", -1)
	f.Push("", 2)
	assert.Equal(t, "vanilla_proofs[2]", f.String())
	f.Rebase()
	f.Push("data", -1)
	f.Push("path", 3)
	f.Push("hashes", -1)
	assert.Equal(t, "data.path[3].hashes", f.String(), "named from the base")
	f.ClearBase()
	assert.Equal(t, "vanilla_proofs[2].data.path[3].hashes", f.String())
	f.Pop()
	assert.Equal(t, 4, f.Depth())
	f.Reset()
	assert.Equal(t, 0, f.Depth())
}

func TestSlab(t *testing.T) {
	var s codec.Slab[int]
	a := s.Take([]int{1, 2})
	b := s.Alloc(3)
	assert.Equal(t, []int{1, 2}, a)
	assert.Equal(t, []int{0, 0, 0}, b)
	assert.Nil(t, s.Take(nil))
	a = append(a, 9)
	assert.Equal(t, []int{0, 0, 0}, b, "capacity cut: appending to one slice leaves the next")
	assert.Len(t, s.Alloc(100000), 100000, "larger than a block")
}

// The Reader's errors name the field and the offset, and lengths are
// checked against the cap and the bytes left before the caller allocates.
func TestReader(t *testing.T) {
	var w codec.Writer
	w.U32(7)
	w.Felts([]fr.Element{fr.NewElement(1), fr.NewElement(2)})
	w.Raw(make([]byte, 32))
	r := codec.NewReader(w.B)
	tag, err := r.U32()
	require.NoError(t, err)
	assert.Equal(t, uint32(7), tag)
	r.Push("rows", -1)
	rows, err := r.Felts(4, "rows")
	r.Pop()
	require.NoError(t, err)
	assert.Equal(t, []fr.Element{fr.NewElement(1), fr.NewElement(2)}, rows)
	var raw [32]byte
	require.NoError(t, r.Raw32(&raw))
	require.NoError(t, r.End())

	over := binary.LittleEndian.AppendUint64(nil, 5)
	r = codec.NewReader(over)
	r.Push("rows", -1)
	_, err = r.Felts(4, "rows")
	assert.EqualError(t, err, "rows: bincode offset 8: 5 rows, more than the cap of 4")

	short := binary.LittleEndian.AppendUint64(nil, 2)
	r = codec.NewReader(append(short, make([]byte, 40)...))
	_, err = r.Raw32s(4, "leaves")
	assert.EqualError(t, err, "bincode offset 8: unexpected end of input (need 64 bytes, have 40)")

	ff := make([]byte, 32)
	for k := range ff {
		ff[k] = 0xff
	}
	r = codec.NewReader(append(binary.LittleEndian.AppendUint64(nil, 1), ff...))
	r.Push("parents", -1)
	_, err = r.Felts(4, "parents")
	var ce *codec.Error
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, codec.Error{Field: "parents[0]", Offset: 8, Msg: "value is not a canonical field element (>= r)"}, *ce, "offset at the value")

	r = codec.NewReader([]byte{1, 2, 3})
	assert.EqualError(t, r.End(), "bincode offset 0: 3 trailing bytes")
}

func TestErrorText(t *testing.T) {
	cause := errors.New("cause")
	sentinel := errors.New("x: bad input")
	assert.Equal(t, "x: bad: msg", codec.ErrorText("x: bad: ", -1, -1, "", "msg", nil))
	assert.Equal(t, "x: bad: partition 2: f: msg", codec.ErrorText("x: bad: ", 2, -1, "f", "msg", nil))
	assert.Equal(t, "x: bad: partition 2 challenge 3: f: msg: cause", codec.ErrorText("x: bad: ", 2, 3, "f", "msg", cause))
	assert.Equal(t, []error{sentinel}, codec.Unwrap(sentinel, nil))
	assert.Equal(t, []error{sentinel, cause}, codec.Unwrap(sentinel, cause))
}

package groth16_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testpoints"
)

func vkBytes(t *testing.T, vk *groth16.VerifyingKey) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := vk.WriteTo(&buf)
	require.NoError(t, err)
	require.EqualValues(t, buf.Len(), n)
	return buf.Bytes()
}

func TestVerifyingKeyRoundTrip(t *testing.T) {
	for _, nIC := range []int{1, 2, 17} {
		t.Run(fmt.Sprintf("%d ic", nIC), func(t *testing.T) {
			vk, _ := fxSetup(t, nIC)
			b := vkBytes(t, vk)
			assert.Len(t, b, 868+96*nIC, "bellperson .vk size")
			assert.EqualValues(t, nIC, binary.BigEndian.Uint32(b[864:]), "u32 BE ic count after the six points")

			got, err := groth16.ReadVerifyingKey(bytes.NewReader(b))
			require.NoError(t, err)
			assert.True(t, got.Equal(vk))
			assert.Equal(t, b, vkBytes(t, got))

			path := filepath.Join(t.TempDir(), "key.vk")
			require.NoError(t, groth16.WriteVerifyingKeyFile(path, vk))
			onDisk, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, b, onDisk)
			assert.NoFileExists(t, path+".tmp")
		})
	}
}

func TestVerifyingKeyLayout(t *testing.T) {
	vk, _ := fxSetup(t, 2)
	b := vkBytes(t, vk)
	// alpha_g1 96, beta_g1 96, beta_g2 192, gamma_g2 192, delta_g1 96, delta_g2 192.
	alpha, beta1 := vk.AlphaG1.RawBytes(), vk.BetaG1.RawBytes()
	beta2, gamma2 := vk.BetaG2.RawBytes(), vk.GammaG2.RawBytes()
	delta1, delta2 := vk.DeltaG1.RawBytes(), vk.DeltaG2.RawBytes()
	ic1 := vk.IC[1].RawBytes()
	assert.Equal(t, alpha[:], b[0:96])
	assert.Equal(t, beta1[:], b[96:192])
	assert.Equal(t, beta2[:], b[192:384])
	assert.Equal(t, gamma2[:], b[384:576])
	assert.Equal(t, delta1[:], b[576:672])
	assert.Equal(t, delta2[:], b[672:864])
	assert.Equal(t, ic1[:], b[868+96:])
}

func TestVerifyingKeyEqual(t *testing.T) {
	vk, _ := fxSetup(t, 2)
	other, _ := fxSetup(t, 2)
	cp := *vk
	cp.IC = append([]bls12381.G1Affine(nil), vk.IC...)
	assert.True(t, vk.Equal(&cp))
	assert.False(t, vk.Equal(other))
	cp.IC = cp.IC[:1]
	assert.False(t, vk.Equal(&cp))
	assert.False(t, vk.Equal(nil))
	assert.True(t, (*groth16.VerifyingKey)(nil).Equal(nil))
}

func TestReadVerifyingKeyTruncated(t *testing.T) {
	vk, _ := fxSetup(t, 3)
	b := vkBytes(t, vk)
	tests := []struct {
		cut     int
		section string
		offset  int
	}{
		{0, "vk.alpha_g1", 0},
		{50, "vk.alpha_g1", 0},
		{96, "vk.beta_g1", 96},
		{192, "vk.beta_g2", 192},
		{300, "vk.beta_g2", 192},
		{384, "vk.gamma_g2", 384},
		{576, "vk.delta_g1", 576},
		{672, "vk.delta_g2", 672},
		{864, "ic", 864},
		{866, "ic", 864},
		{868, "ic element 0", 868},
		{868 + 95, "ic element 0", 868},
		{868 + 96, "ic element 1", 868 + 96},
		{868 + 2*96 + 1, "ic element 2", 868 + 2*96},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.cut), func(t *testing.T) {
			_, err := groth16.ReadVerifyingKey(bytes.NewReader(b[:tt.cut]))
			require.ErrorIs(t, err, groth16.ErrMalformedKey)
			assert.Contains(t, err.Error(), "section "+tt.section)
			assert.Contains(t, err.Error(), fmt.Sprintf("offset %d", tt.offset))
		})
	}
}

// A reader error that is not EOF is passed on, not reported as a bad key.
func TestReadVerifyingKeyIOError(t *testing.T) {
	vk, _ := fxSetup(t, 2)
	b := vkBytes(t, vk)
	boom := io.ErrClosedPipe
	_, err := groth16.ReadVerifyingKey(io.MultiReader(bytes.NewReader(b[:900]), iotest{boom}))
	require.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, groth16.ErrMalformedKey)
}

type iotest struct{ err error }

func (r iotest) Read([]byte) (int, error) { return 0, r.err }

// A .vk holds the key alone: bytes after the last IC point are a malformed
// key, named with the offset where they start, from a reader and a file.
func TestReadVerifyingKeyTrailingBytes(t *testing.T) {
	vk, _ := fxSetup(t, 2)
	b := vkBytes(t, vk)
	_, err := groth16.ReadVerifyingKey(bytes.NewReader(append(bytes.Clone(b), "tail"...)))
	require.ErrorIs(t, err, groth16.ErrMalformedKey)
	assert.Contains(t, err.Error(), fmt.Sprintf("section ic at offset %d: file too long: 4 bytes follow the last IC point", len(b)))

	_, err = groth16.ReadVerifyingKey(bytes.NewReader(append(bytes.Clone(b), make([]byte, 1<<17)...)))
	require.ErrorIs(t, err, groth16.ErrMalformedKey)
	assert.Contains(t, err.Error(), "65536 or more bytes follow")

	path := filepath.Join(t.TempDir(), "key.vk")
	require.NoError(t, os.WriteFile(path, append(bytes.Clone(b), 0), 0o644))
	_, err = groth16.ReadVerifyingKeyFile(context.Background(), path)
	require.ErrorIs(t, err, groth16.ErrMalformedKey)
	assert.Contains(t, err.Error(), path)

	got, err := groth16.ReadVerifyingKey(bytes.NewReader(b))
	require.NoError(t, err, "the exact bytes still read")
	assert.True(t, got.Equal(vk))
}

func TestReadVerifyingKeyCorrupt(t *testing.T) {
	vk, _ := fxSetup(t, 2)
	good := vkBytes(t, vk)
	notG1 := testpoints.OutsideG1(t)
	notG2 := testpoints.OutsideG2(t)
	p := fp.Modulus().FillBytes(make([]byte, fp.Bytes)) // not a canonical coordinate
	tests := []struct {
		name    string
		mutate  func(b []byte) []byte
		message string
	}{
		{"compressed flag", func(b []byte) []byte { b[0] |= 0x80; return b }, "section vk.alpha_g1 at offset 0: invalid flag bits"},
		{"sign flag", func(b []byte) []byte { b[96] |= 0x20; return b }, "section vk.beta_g1 at offset 96: invalid flag bits"},
		{"infinity with data", func(b []byte) []byte { b[192] |= 0x40; return b }, "section vk.beta_g2 at offset 192: infinity flag"},
		{"identity gamma", func(b []byte) []byte {
			clear(b[384:576])
			b[384] = 0x40
			return b
		}, "section vk.gamma_g2 at offset 384: point at infinity"},
		{"identity ic", func(b []byte) []byte {
			clear(b[868+96:])
			b[868+96] = 0x40
			return b
		}, "section ic element 1 at offset 964: point at infinity"},
		{"x not canonical", func(b []byte) []byte { copy(b[576:624], p); return b }, "section vk.delta_g1 at offset 576: coordinate not below"},
		{"zero coordinates", func(b []byte) []byte { clear(b[0:96]); return b }, "vk.alpha_g1 at offset 0: point not on the curve"},
		{"off curve", func(b []byte) []byte { b[672+191] ^= 1; return b }, "section vk.delta_g2 at offset 672: point not on the curve"},
		{"G1 not in subgroup", func(b []byte) []byte {
			raw := notG1.RawBytes()
			copy(b[868:], raw[:])
			return b
		}, "section ic element 0 at offset 868: point not in the prime-order subgroup"},
		{"G2 not in subgroup", func(b []byte) []byte {
			raw := notG2.RawBytes()
			copy(b[192:], raw[:])
			return b
		}, "section vk.beta_g2 at offset 192: point not in the prime-order subgroup"},
		{"ic count zero", func(b []byte) []byte { return binary.BigEndian.AppendUint32(b[:864], 0) }, "section ic at offset 864: count is 0"},
		{"huge ic count", func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[864:], 0xffffffff)
			return b
		}, "section ic element 2 at offset 1060: truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.mutate(bytes.Clone(good))
			_, err := groth16.ReadVerifyingKey(bytes.NewReader(b))
			require.ErrorIs(t, err, groth16.ErrMalformedKey)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
}

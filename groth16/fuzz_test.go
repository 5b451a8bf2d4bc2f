package groth16_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
)

// The fuzz targets check that decoders never panic and that whatever they
// accept re-encodes to the bytes they read. `go test` runs only the seeds.

func FuzzProofUnmarshal(f *testing.F) {
	p := fxProof(f)
	good, err := p.MarshalBinary()
	require.NoError(f, err)
	f.Add(good)
	f.Add(good[:100])
	f.Add(make([]byte, groth16.ProofSize))
	for _, h := range bellpersonProofs {
		b, err := hex.DecodeString(h)
		require.NoError(f, err)
		f.Add(b)
	}
	bad := bytes.Clone(good)
	bad[48] ^= 0x20 // other root for B
	f.Add(bad)
	f.Fuzz(func(t *testing.T, b []byte) {
		var q groth16.Proof
		if err := q.UnmarshalBinary(b); err != nil {
			require.ErrorIs(t, err, groth16.ErrMalformedProof)
			return
		}
		again, err := q.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, b, again)
		ps, err := groth16.UnmarshalProofs(append(bytes.Clone(b), b...))
		require.NoError(t, err)
		require.Len(t, ps, 2)
	})
}

func FuzzReadVerifyingKey(f *testing.F) {
	for _, nIC := range []int{1, 3} {
		vk, _ := fxSetup(f, nIC)
		var buf bytes.Buffer
		_, err := vk.WriteTo(&buf)
		require.NoError(f, err)
		f.Add(buf.Bytes())
		f.Add(buf.Bytes()[:870])
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		vk, err := groth16.ReadVerifyingKey(bytes.NewReader(b))
		if err != nil {
			require.ErrorIs(t, err, groth16.ErrMalformedKey)
			return
		}
		var buf bytes.Buffer
		n, err := vk.WriteTo(&buf)
		require.NoError(t, err)
		require.Equal(t, b[:n], buf.Bytes(), "re-encodes the bytes it consumed")
	})
}

func FuzzOpenProvingKey(f *testing.F) {
	k := fxNewKey(f, fxShape{ic: 1, h: 1, l: 1, a: 1, b: 1})
	var buf bytes.Buffer
	_, err := k.provingKey(f).WriteTo(&buf)
	require.NoError(f, err)
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(append(bytes.Clone(good), 0))
	for _, off := range []int{968, 1068, 1100, 1400} { // counts and points after the vk
		b := bytes.Clone(good)
		b[off] ^= 0xff
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "fuzz.params")
		require.NoError(t, os.WriteFile(path, b, 0o644))
		for _, checked := range []bool{false, true} {
			pk, err := groth16.OpenProvingKey(path, groth16.WithChecked(checked))
			if err != nil {
				require.ErrorIs(t, err, groth16.ErrMalformedKey)
				return
			}
			if err := decodeAll(pk); err != nil {
				require.ErrorIs(t, err, groth16.ErrMalformedKey)
			} else {
				// Re-encoding the decoded points gives the file back.
				mem := inMemoryCopy(t, pk)
				var out bytes.Buffer
				_, err := mem.WriteTo(&out)
				require.NoError(t, err)
				require.Equal(t, b, out.Bytes())
			}
			require.NoError(t, pk.Close())
		}
	})
}

// inMemoryCopy rebuilds pk from its decoded sections.
func inMemoryCopy(t *testing.T, pk *groth16.ProvingKey) *groth16.ProvingKey {
	t.Helper()
	ctx := context.Background()
	h, err := pk.H(ctx)
	require.NoError(t, err)
	l, err := pk.L(ctx)
	require.NoError(t, err)
	a, err := pk.A(ctx)
	require.NoError(t, err)
	bg1, err := pk.BG1(ctx)
	require.NoError(t, err)
	bg2, err := pk.BG2(ctx)
	require.NoError(t, err)
	mem, err := groth16.NewProvingKey(pk.VerifyingKey(), h, l, a, bg1, bg2)
	require.NoError(t, err)
	return mem
}

package porep_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/errtext"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// A string of the caller's in a C1 reaches its error quoted and cut to
// errtext.MaxBytes, its length said (issue 44: a 16 MiB registered_proof
// gave an error of 16,777,327 characters): the proof name, the
// vanilla_proofs variant key, a Merkle proof's data variant, and the same
// inside the Commit2In envelope.
func TestC1ErrorsBoundCallerStrings(t *testing.T) {
	c1, err := porep.SyntheticC1(context.Background(), abi.RegisteredSealProof_StackedDrg2KiBV1_1, testMiner, testSector, [32]byte{44})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)
	const n = 16 << 20
	long := strings.Repeat("X", n)
	replaceFirst := func(old, new string) []byte {
		require.True(t, bytes.Contains(raw, []byte(old)), old)
		return bytes.Replace(raw, []byte(old), []byte(new), 1)
	}
	envelope := func(js []byte) []byte {
		return fmt.Appendf(nil, `{"SectorNum":%d,"Phase1Out":"%s","SectorSize":2048}`, testSector, base64.StdEncoding.EncodeToString(js))
	}
	bad := strings.Repeat("\xff", n)
	wide := strings.Repeat("é", n/2)
	cases := map[string]struct {
		in  []byte
		str string // the caller's string in it
	}{
		"registered_proof":        {replaceFirst(`"registered_proof":"StackedDrg2KiBV1_1"`, `"registered_proof":"`+long+`"`), long},
		"vanilla_proofs variant":  {replaceFirst(`"StackedDrg2KiBV1":[`, `"`+long+`":[`), long},
		"Merkle data variant":     {replaceFirst(`"data":{"Single":`, `"data":{"`+long+`":`), long},
		"enveloped proof name":    {envelope(replaceFirst(`"registered_proof":"StackedDrg2KiBV1_1"`, `"registered_proof":"`+long+`"`)), long},
		"enveloped variant":       {envelope(replaceFirst(`"StackedDrg2KiBV1":[`, `"`+long+`":[`)), long},
		"proof name, bad UTF-8":   {replaceFirst(`"registered_proof":"StackedDrg2KiBV1_1"`, `"registered_proof":"`+bad+`"`), bad},
		"variant, 2-byte letters": {replaceFirst(`"StackedDrg2KiBV1":[`, `"`+wide+`":[`), wide},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := porep.ParseC1(tc.in)
			require.ErrorIs(t, err, porep.ErrBadC1)
			msg := err.Error()
			assert.Less(t, len(msg), 1024, "error of %d bytes", len(msg))
			assert.Contains(t, msg, fmt.Sprintf("(%d bytes)", n))
			assert.Contains(t, msg, errtext.Quote(tc.str), "the string's start, quoted")
		})
	}
}

// A long proof name costs no copy of itself (issue 44: a 200 MB name
// allocated 1.47 GB on its way into an error).
func TestLongProofNameAllocations(t *testing.T) {
	c1, err := porep.SyntheticC1(context.Background(), abi.RegisteredSealProof_StackedDrg2KiBV1_1, testMiner, testSector, [32]byte{44})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)
	const n = 64 << 20
	in := bytes.Replace(raw, []byte(`"StackedDrg2KiBV1_1"`), []byte(`"`+strings.Repeat("X", n)+`"`), 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = porep.ParseC1(in)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, porep.ErrBadC1)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte proof name: %d bytes allocated", n, allocated)
	assert.Less(t, allocated, uint64(len(raw))*4, "the C1's own decoding, no copy of the name")
}

// Nor does a long vanilla_proofs variant key.
func TestLongVariantAllocations(t *testing.T) {
	c1, err := porep.SyntheticC1(context.Background(), abi.RegisteredSealProof_StackedDrg2KiBV1_1, testMiner, testSector, [32]byte{44})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)
	const n = 64 << 20
	in := bytes.Replace(raw, []byte(`"StackedDrg2KiBV1":[`), []byte(`"`+strings.Repeat("X", n)+`":[`), 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = porep.ParseC1(in)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, porep.ErrBadC1)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(len(raw))*4, "the C1's own decoding, no copy of the key")
}

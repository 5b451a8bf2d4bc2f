package porep_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth/porep"
)

func fuzzSeedC1() *porep.C1 {
	return porep.ShapeC1(abi.RegisteredSealProof_StackedDrg2KiBV1_1, 11, testMiner, testSector)
}

// checkParsed asserts the contract of every parser: an error wraps ErrBadC1,
// a success validates and survives a re-encode.
func checkParsed(t *testing.T, c *porep.C1, err error) {
	if err != nil {
		var ce *porep.C1Error
		if !errors.Is(err, porep.ErrBadC1) || !errors.As(err, &ce) {
			t.Fatalf("error does not wrap ErrBadC1 / C1Error: %v", err)
		}
		return
	}
	require.NoError(t, c.Validate())
	js, err := c.EncodeJSON()
	require.NoError(t, err)
	again, err := porep.ParseC1(js)
	require.NoError(t, err)
	require.Equal(t, c, again)
}

func FuzzParseC1(f *testing.F) {
	c := fuzzSeedC1()
	js, err := c.EncodeJSON()
	require.NoError(f, err)
	env, err := porep.EncodeCommit2In(c, 3)
	require.NoError(f, err)
	f.Add(js)
	f.Add(env)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"SectorNum":1,"Phase1Out":"e30=","SectorSize":2048}`))
	f.Add([]byte(`{"registered_proof":"StackedDrg2KiBV1","vanilla_proofs":{"StackedDrg2KiBV1":[[]]}}`))
	f.Add([]byte(`[1,2,3]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := porep.ParseC1(data)
		checkParsed(t, c, err)
	})
}

func FuzzParseC1Bincode(f *testing.F) {
	c := fuzzSeedC1()
	f.Add(c.EncodeBincode(), int64(abi.RegisteredSealProof_StackedDrg2KiBV1_1))
	f.Add(c.EncodeBincode()[:200], int64(abi.RegisteredSealProof_StackedDrg2KiBV1))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255}, int64(0))
	f.Fuzz(func(t *testing.T, data []byte, spt int64) {
		c, err := porep.ParseC1Bincode(data, abi.RegisteredSealProof(spt))
		checkParsed(t, c, err)
		if err == nil {
			require.Equal(t, data, c.EncodeBincode())
		}
	})
}

// c1Fixtures are shape-correct C1s of a size class with random values,
// in every encoding.
type c1Fixture struct {
	json, envelope, bincode []byte
	proof                   abi.RegisteredSealProof
}

func makeFixture(tb testing.TB, p abi.RegisteredSealProof) c1Fixture {
	c := porep.ShapeC1(p, 1, testMiner, testSector)
	js, err := c.EncodeJSON()
	require.NoError(tb, err)
	env, err := porep.EncodeCommit2In(c, testSector)
	require.NoError(tb, err)
	return c1Fixture{json: js, envelope: env, bincode: c.EncodeBincode(), proof: p}
}

// BenchmarkParseC1 parses shape-correct (random-valued) C1 outputs.
func BenchmarkParseC1(b *testing.B) {
	for _, p := range []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1_1,
		abi.RegisteredSealProof_StackedDrg32GiBV1_1,
	} {
		fx := makeFixture(b, p)
		for _, form := range []struct {
			name  string
			data  []byte
			parse func([]byte) (*porep.C1, error)
		}{
			{"json", fx.json, porep.ParseC1},
			{"envelope", fx.envelope, porep.ParseC1},
			{"bincode", fx.bincode, func(d []byte) (*porep.C1, error) { return porep.ParseC1Bincode(d, fx.proof) }},
		} {
			b.Run(fmt.Sprintf("%v/%s/%dMB", porep.ProofName(p), form.name, len(form.data)>>20), func(b *testing.B) {
				b.SetBytes(int64(len(form.data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := form.parse(form.data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkEncodeC1JSON(b *testing.B) {
	c := porep.ShapeC1(abi.RegisteredSealProof_StackedDrg32GiBV1_1, 1, testMiner, testSector)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.EncodeJSON(); err != nil {
			b.Fatal(err)
		}
	}
}

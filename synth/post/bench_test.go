package post_test

import (
	"context"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/post"
)

// window32 is a synthetic 32 GiB WindowPoSt partition: 2,349 sectors'
// vanilla proofs in bincode.
func window32(b *testing.B) (post.Params, [][]byte) {
	b.Helper()
	p, err := post.ParamsFor(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]uint64, p.Sectors)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	proofs, err := post.SyntheticSectorProofs(context.Background(), p, randomness, ids, 1)
	if err != nil {
		b.Fatal(err)
	}
	return p, post.EncodeSectorProofs(proofs)
}

// What a 32 GiB WindowPoSt partition costs on the host before its GPU
// work: the vanilla proofs' decode and check (23,490 Merkle paths), and
// the synthesis of the 125 M-row circuit, full and the witness alone, with
// the hashes' check (Circuit.Verify) as the facade runs it:
//
//	go test -run '^$' -bench 'Window32' -benchtime 2x ./synth/post
func BenchmarkWindow32DecodeAndCheck(b *testing.B) {
	p, raw := window32(b)
	b.ResetTimer()
	for range b.N {
		if _, err := post.DecodeAndCheck(context.Background(), p, randomness, raw); err != nil {
			b.Fatal(err)
		}
	}
}

// The facade's check: the same less the hashes, which the witness's
// synthesis (Circuit.Verify) then checks as it computes them.
func BenchmarkWindow32DecodeAndCheckShape(b *testing.B) {
	p, raw := window32(b)
	b.ResetTimer()
	for range b.N {
		if _, err := post.DecodeAndCheckShape(context.Background(), p, randomness, raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWindow32Synthesize(b *testing.B) {
	for _, mode := range []struct {
		name string
		make func(synth.Sizes) *synth.ProvingAssignment
	}{{"full", synth.NewProvingAssignment}, {"witness", synth.NewWitnessAssignment}} {
		b.Run(mode.name, func(b *testing.B) { benchSynthesize(b, mode.make) })
	}
}

// benchSynthesize synthesizes the partition into assignments from make:
// full (a, b, c too) or the witness alone (the matrices' mode).
func benchSynthesize(b *testing.B, make func(synth.Sizes) *synth.ProvingAssignment) {
	p, raw := window32(b)
	proofs, err := post.DecodeAndCheck(context.Background(), p, randomness, raw)
	if err != nil {
		b.Fatal(err)
	}
	w, err := post.WitnessFor(p, proofs)
	if err != nil {
		b.Fatal(err)
	}
	sizes, err := p.CircuitSizes()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		pa := make(sizes)
		if err := (&post.Circuit{Params: p, Witness: w, Verify: true}).Synthesize(context.Background(), pa); err != nil {
			b.Fatal(err)
		}
	}
}

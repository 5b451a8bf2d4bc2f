package gpu

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testprove"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeAll decodes every section of pk.
func decodeAll(t *testing.T, pk *groth16.ProvingKey) {
	t.Helper()
	ctx := context.Background()
	for _, f := range sectionReaders(pk) {
		require.NoError(t, f(ctx))
	}
}

// sectionReaders decode each section of pk, in section order.
func sectionReaders(pk *groth16.ProvingKey) [groth16.NumSections]func(context.Context) error {
	g1 := func(f func(context.Context) ([]bls12381.G1Affine, error)) func(context.Context) error {
		return func(ctx context.Context) error { _, err := f(ctx); return err }
	}
	return [groth16.NumSections]func(context.Context) error{g1(pk.H), g1(pk.L), g1(pk.A), g1(pk.BG1),
		func(ctx context.Context) error { _, err := pk.BG2(ctx); return err }}
}

// decoded says whether section s of pk, a file-backed key, is decoded on
// the host, leaving it as it was: EvictSection reports whether there was
// a decoded copy, and one it dropped is decoded again.
func decoded(t *testing.T, pk *groth16.ProvingKey, s int) bool {
	t.Helper()
	if !pk.EvictSection(s) {
		return false
	}
	require.NoError(t, sectionReaders(pk)[s](context.Background()))
	return true
}

// A section shared by two devices' preloads stays decoded until both have
// marked it, once each (a second mark is no second count); closing a
// ticket marks what it had not; one device (DropHostSections) drops each
// section at its mark; a nil ticket keeps everything.
func TestHostSections(t *testing.T) {
	_, pk := testprove.FileKey(t)
	decodeAll(t, pk)
	hs := NewHostSections(2)
	a, b := hs.join(pk), hs.join(pk)
	a.mark(groth16.SectionH)
	a.mark(groth16.SectionH)
	assert.True(t, decoded(t, pk, groth16.SectionH), "h: one of two devices has it")
	b.mark(groth16.SectionH)
	assert.False(t, decoded(t, pk, groth16.SectionH), "h: both devices have it")
	a.close()
	for s := groth16.SectionL; s < groth16.NumSections; s++ {
		assert.True(t, decoded(t, pk, s), "section %d: the other device still loads", s)
	}
	b.mark(groth16.SectionA)
	assert.False(t, decoded(t, pk, groth16.SectionA), "a: both done")
	b.close()
	for s := range groth16.NumSections {
		assert.False(t, decoded(t, pk, s), "section %d: every device done", s)
	}

	decodeAll(t, pk)
	var none *hostTicket
	none.mark(groth16.SectionL)
	none.close()
	var nocfg preloadConfig
	assert.Nil(t, nocfg.hosts.join(pk), "no option: the sections stay")
	for s := range groth16.NumSections {
		assert.True(t, decoded(t, pk, s), "section %d kept without a ticket", s)
	}
	var one preloadConfig
	DropHostSections()(&one)
	only := one.hosts.join(pk)
	only.mark(groth16.SectionBG2)
	assert.False(t, decoded(t, pk, groth16.SectionBG2), "b_g2: the only device has it")
	assert.True(t, decoded(t, pk, groth16.SectionH), "h: not yet uploaded")
	only.close()
	for s := range groth16.NumSections {
		assert.False(t, decoded(t, pk, s), "section %d: the only device is done", s)
	}
}

// Devices marking at once, each some sections twice and in its own order,
// then closing: every count ends at zero (one mark a device), every
// section dropped.
func TestHostSectionsConcurrent(t *testing.T) {
	_, pk := testprove.FileKey(t)
	decodeAll(t, pk)
	const devices = 8
	hs := NewHostSections(devices)
	var wg sync.WaitGroup
	for d := range devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := hs.join(pk)
			for _, s := range rand.New(rand.NewPCG(uint64(d), 1)).Perm(groth16.NumSections)[:3] {
				tk.mark(s)
				tk.mark(s)
			}
			tk.close()
		}()
	}
	wg.Wait()
	assert.Equal(t, [groth16.NumSections]int{}, hs.left)
	for s := range groth16.NumSections {
		assert.False(t, decoded(t, pk, s), "section %d", s)
	}
}

package groth16

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fileKey returns a small in-memory key and its copy written to a .params
// file and opened (whose sections are decoded on demand and can be
// dropped).
func fileKey(t *testing.T) (mem, file *ProvingKey) {
	mem, _ = cubicKey(t)
	path := filepath.Join(t.TempDir(), "k.params")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = mem.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	file, err = OpenProvingKey(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = file.Close() })
	return mem, file
}

// decodeAll decodes every section of pk.
func decodeAll(t *testing.T, pk *ProvingKey) {
	ctx := context.Background()
	for _, f := range []func(context.Context) ([]bls12381.G1Affine, error){pk.H, pk.L, pk.A, pk.BG1} {
		_, err := f(ctx)
		require.NoError(t, err)
	}
	_, err := pk.BG2(ctx)
	require.NoError(t, err)
}

// decoded says whether section s of pk is decoded on the host, without
// decoding or dropping it.
func decoded(pk *ProvingKey, s int) bool {
	switch s {
	case SectionH:
		return filled(&pk.h)
	case SectionL:
		return filled(&pk.l)
	case SectionA:
		return filled(&pk.a)
	case SectionBG1:
		return filled(&pk.bg1)
	default:
		return filled(&pk.bg2)
	}
}

func filled[T any](z *lazy[T]) bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.done
}

// A section shared by two devices' preloads stays decoded until both have
// marked it, once each (a second mark is no second count); closing a
// ticket marks what it had not; one device (DropHostSections) drops each
// section at its mark; a nil ticket keeps everything.
func TestHostSections(t *testing.T) {
	_, pk := fileKey(t)
	decodeAll(t, pk)
	hs := NewHostSections(2)
	a, b := hs.join(pk), hs.join(pk)
	a.mark(SectionH)
	a.mark(SectionH)
	assert.True(t, decoded(pk, SectionH), "h: one of two devices has it")
	b.mark(SectionH)
	assert.False(t, decoded(pk, SectionH), "h: both devices have it")
	a.close()
	for s := SectionL; s < NumSections; s++ {
		assert.True(t, decoded(pk, s), "section %d: the other device still loads", s)
	}
	b.mark(SectionA)
	assert.False(t, decoded(pk, SectionA), "a: both done")
	b.close()
	for s := range NumSections {
		assert.False(t, decoded(pk, s), "section %d: every device done", s)
	}

	decodeAll(t, pk)
	var none *hostTicket
	none.mark(SectionL)
	none.close()
	var nocfg preloadConfig
	assert.Nil(t, nocfg.hosts.join(pk), "no option: the sections stay")
	for s := range NumSections {
		assert.True(t, decoded(pk, s), "section %d kept without a ticket", s)
	}
	var one preloadConfig
	DropHostSections()(&one)
	only := one.hosts.join(pk)
	only.mark(SectionBG2)
	assert.False(t, decoded(pk, SectionBG2), "b_g2: the only device has it")
	assert.True(t, decoded(pk, SectionH), "h: not yet uploaded")
	only.close()
	for s := range NumSections {
		assert.False(t, decoded(pk, s), "section %d: the only device is done", s)
	}
}

// Devices marking at once, each some sections twice and in its own order,
// then closing: every count ends at zero (one mark a device), every
// section dropped.
func TestHostSectionsConcurrent(t *testing.T) {
	_, pk := fileKey(t)
	decodeAll(t, pk)
	const devices = 8
	hs := NewHostSections(devices)
	var wg sync.WaitGroup
	for d := range devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := hs.join(pk)
			for _, s := range rand.New(rand.NewPCG(uint64(d), 1)).Perm(NumSections)[:3] {
				tk.mark(s)
				tk.mark(s)
			}
			tk.close()
		}()
	}
	wg.Wait()
	assert.Equal(t, [NumSections]int{}, hs.left)
	for s := range NumSections {
		assert.False(t, decoded(pk, s), "section %d", s)
	}
}

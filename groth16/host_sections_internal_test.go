package groth16

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fileKey writes a small key to a .params file and opens it (its sections
// are decoded on demand and can be dropped).
func fileKey(t *testing.T) *ProvingKey {
	mem, _ := cubicKey(t)
	path := filepath.Join(t.TempDir(), "k.params")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = mem.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	pk, err := OpenProvingKey(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = pk.Close() })
	return pk
}

// decodeAll decodes every section of pk.
func decodeAll(t *testing.T, pk *ProvingKey) {
	ctx := context.Background()
	for _, f := range []func(context.Context) error{
		func(ctx context.Context) error { _, err := pk.H(ctx); return err },
		func(ctx context.Context) error { _, err := pk.L(ctx); return err },
		func(ctx context.Context) error { _, err := pk.A(ctx); return err },
		func(ctx context.Context) error { _, err := pk.BG1(ctx); return err },
		func(ctx context.Context) error { _, err := pk.BG2(ctx); return err },
	} {
		require.NoError(t, f(ctx))
	}
}

// decoded says whether section s of pk is decoded on the host, without
// decoding or dropping it.
func decoded(pk *ProvingKey, s int) bool {
	done := func(mu *sync.Mutex, d *bool) bool {
		mu.Lock()
		defer mu.Unlock()
		return *d
	}
	switch s {
	case secH:
		return done(&pk.h.mu, &pk.h.done)
	case secL:
		return done(&pk.l.mu, &pk.l.done)
	case secA:
		return done(&pk.a.mu, &pk.a.done)
	case secBG1:
		return done(&pk.bg1.mu, &pk.bg1.done)
	default:
		return done(&pk.bg2.mu, &pk.bg2.done)
	}
}

// A section shared by two devices' preloads stays decoded until both have
// marked it, once each (a second mark is no second count); closing a
// ticket marks what it had not; one device (DropHostSections) drops each
// section at its mark; a nil ticket keeps everything.
func TestHostSections(t *testing.T) {
	pk := fileKey(t)
	decodeAll(t, pk)
	hs := NewHostSections(pk, 2)
	a, b := hs.join(), hs.join()
	a.mark(secH)
	a.mark(secH)
	assert.True(t, decoded(pk, secH), "h: one of two devices has it")
	b.mark(secH)
	assert.False(t, decoded(pk, secH), "h: both devices have it")
	a.close()
	for s := secL; s < numSections; s++ {
		assert.True(t, decoded(pk, s), "section %d: the other device still loads", s)
	}
	b.mark(secA)
	assert.False(t, decoded(pk, secA), "a: both done")
	b.close()
	for s := range numSections {
		assert.False(t, decoded(pk, s), "section %d: every device done", s)
	}

	decodeAll(t, pk)
	var none *hostTicket
	none.mark(secL)
	none.close()
	nocfg := preloadConfig{}
	assert.Nil(t, nocfg.hostTicket(pk), "no option: the sections stay")
	for s := range numSections {
		assert.True(t, decoded(pk, s), "section %d kept without a ticket", s)
	}
	var one preloadConfig
	DropHostSections()(&one)
	only := one.hostTicket(pk)
	only.mark(secBG2)
	assert.False(t, decoded(pk, secBG2), "b_g2: the only device has it")
	assert.True(t, decoded(pk, secH), "h: not yet uploaded")
	only.close()
	for s := range numSections {
		assert.False(t, decoded(pk, s), "section %d: the only device is done", s)
	}
}

// Devices marking at once, each some sections twice and in its own order,
// then closing: every count ends at zero (one mark a device), every
// section dropped.
func TestHostSectionsConcurrent(t *testing.T) {
	pk := fileKey(t)
	decodeAll(t, pk)
	const devices = 8
	hs := NewHostSections(pk, devices)
	var wg sync.WaitGroup
	for d := range devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := hs.join()
			for _, s := range rand.New(rand.NewPCG(uint64(d), 1)).Perm(numSections)[:3] {
				tk.mark(s)
				tk.mark(s)
			}
			tk.close()
		}()
	}
	wg.Wait()
	assert.Equal(t, [numSections]int{}, hs.left)
	for s := range numSections {
		assert.False(t, decoded(pk, s), "section %d", s)
	}
}

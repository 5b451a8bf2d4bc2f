package groth16

import (
	"context"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/native"
)

// stagePool is one device's pinned staging chunks (stageChunkBytes each):
// allocated on first use and kept, since allocating or freeing pinned
// memory synchronizes the device. close frees the idle chunks, and the
// ones in use as they come back.
type stagePool struct {
	mu     sync.Mutex
	free   []*native.Pinned
	closed bool
}

func (sp *stagePool) get() (*native.Pinned, error) {
	sp.mu.Lock()
	if n := len(sp.free); n > 0 {
		c := sp.free[n-1]
		sp.free = sp.free[:n-1]
		sp.mu.Unlock()
		return c, nil
	}
	sp.mu.Unlock()
	return native.AllocPinned(stageChunkBytes)
}

func (sp *stagePool) put(c *native.Pinned) {
	sp.mu.Lock()
	closed := sp.closed
	if !closed {
		sp.free = append(sp.free, c)
	}
	sp.mu.Unlock()
	if closed {
		c.Free()
	}
}

func (sp *stagePool) close() {
	sp.mu.Lock()
	idle := sp.free
	sp.free, sp.closed = nil, true
	sp.mu.Unlock()
	for _, c := range idle {
		c.Free()
	}
}

// uploadFr copies v into dst at byte offset off on st and waits for it:
// small vectors directly, large ones through two staging chunks, one
// filled on all cores while the other's copy runs.
func (sp *stagePool) uploadFr(st *native.Stream, dst *native.Buffer, off int64, v []fr.Element) error {
	src := native.AsBytes(v)
	n := len(src)
	if n < 8<<20 {
		return st.CopyToDevice(dst, off, src) // returns after the copy
	}
	var chunks [2]*native.Pinned
	defer func() {
		for _, c := range chunks {
			if c != nil {
				sp.put(c)
			}
		}
	}()
	for i, pos := 0, 0; pos < n; i++ {
		c := &chunks[i%2]
		if *c == nil {
			p, err := sp.get()
			if err != nil {
				return err
			}
			*c = p
		}
		k := min(stageChunkBytes, n-pos)
		buf := (*c).Bytes()[:k]
		parallelCopy(buf, src[pos:pos+k]) // overlaps the DMA of the other chunk
		// The other chunk's copy must finish before it is refilled next
		// round: wait for the stream, then queue this chunk.
		if err := st.Sync(); err != nil {
			return err
		}
		if err := st.CopyToDeviceAsync(dst, off+int64(pos), *c, 0, int64(k)); err != nil {
			return err
		}
		pos += k
	}
	return st.Sync()
}

// parallelCopy copies src into dst on several cores.
func parallelCopy(dst, src []byte) {
	_ = par.Range(context.Background(), len(src), 8<<20, func(lo, hi int) error {
		copy(dst[lo:hi], src[lo:hi])
		return nil
	})
}

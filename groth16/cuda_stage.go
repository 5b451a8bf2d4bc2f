package groth16

import (
	"context"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/native"
)

var stagePool struct {
	mu   sync.Mutex
	free []*native.Pinned
}

func getStageChunk() (*native.Pinned, error) {
	stagePool.mu.Lock()
	if n := len(stagePool.free); n > 0 {
		p := stagePool.free[n-1]
		stagePool.free = stagePool.free[:n-1]
		stagePool.mu.Unlock()
		return p, nil
	}
	stagePool.mu.Unlock()
	return native.AllocPinned(stageChunkBytes)
}

// freeIdleStaging frees the chunks no upload holds now.
func freeIdleStaging() {
	stagePool.mu.Lock()
	defer stagePool.mu.Unlock()
	for _, p := range stagePool.free {
		p.Free()
	}
	stagePool.free = nil
}

func putStageChunk(p *native.Pinned) {
	stagePool.mu.Lock()
	stagePool.free = append(stagePool.free, p)
	stagePool.mu.Unlock()
}

// uploadFr copies v into dst at byte offset off on st and waits for it.
func uploadFr(st *native.Stream, dst *native.Buffer, off int64, v []fr.Element) error {
	n := len(v) * int(frSize)
	if n == 0 {
		return nil
	}
	src := native.AsBytes(v)
	if n < 8<<20 {
		return st.CopyToDevice(dst, off, src)
	}
	var chunks [2]*native.Pinned
	defer func() {
		for _, c := range chunks {
			if c != nil {
				putStageChunk(c)
			}
		}
	}()
	for i, pos := 0, 0; pos < n; i++ {
		c := &chunks[i%2]
		if *c == nil {
			p, err := getStageChunk()
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

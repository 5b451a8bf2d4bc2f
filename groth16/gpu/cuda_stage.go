package gpu

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
	vectors *pinnedRegistry // vectors pinned already: uploaded as they are
	mu      sync.Mutex
	free    []*native.Pinned
	closed  bool
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
// one inside PinnedVectors' memory by one DMA (pinned is then true, for the
// traces), other small ones directly, other large ones through two staging
// chunks, one filled on all cores while the other's copy runs.
func (sp *stagePool) uploadFr(st *native.Stream, dst *native.Buffer, off int64, v []fr.Element) (pinned bool, err error) {
	src := native.AsBytes(v)
	n := len(src)
	if blk, at, ok := sp.vectors.find(v); ok {
		if err := st.CopyToDeviceAsync(dst, off, blk.mem, at, int64(n)); err != nil {
			return true, err
		}
		return true, st.Sync()
	}
	return false, sp.uploadStaged(st, dst, off, src)
}

// uploadStaged copies src into dst at byte offset off on st and waits for
// it: a small one directly, a large one through two staging chunks.
func (sp *stagePool) uploadStaged(st *native.Stream, dst *native.Buffer, off int64, src []byte) error {
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

// vectorStage is a device's pinned copy of the last of H's vectors on the
// streaming path (c, uploaded once b's step frees a device vector). A proof
// fills it while its H's first two steps run, so that the upload between
// them and the third, which holds up every proof's compute chain, is one
// DMA at the link's speed instead of staged chunks filled by cores that
// synthesis keeps busy (a 32 GiB partition's c took 0.41 s beside another
// proof's aux MSMs at a 24 GiB limit: BENCHMARKS.md, issue 17). One stage
// per device suffices: a proof holds it only within its compute lock and
// the suspension that uploads c.
type vectorStage struct {
	vectors *pinnedRegistry // vectors pinned already: no stage needed
	slot    chan struct{}   // one token: the stage's holder

	mu     sync.Mutex
	buf    *native.Pinned
	closed bool
}

func newVectorStage(vectors *pinnedRegistry) *vectorStage {
	vs := &vectorStage{vectors: vectors, slot: make(chan struct{}, 1)}
	vs.slot <- struct{}{}
	return vs
}

// hold waits for the stage (or ctx) and fills it with v. It returns nil
// and holds nothing when v is pinned already (synthesized into
// PinnedVectors: its upload is one DMA as it is), or when the pinned copy
// cannot be had (the allocation fails, or the prover is closing): the
// caller uploads v itself, through the staging chunks in that case,
// slower but the same.
func (vs *vectorStage) hold(ctx context.Context, v []fr.Element) (*native.Pinned, error) {
	if _, _, pinned := vs.vectors.find(v); pinned {
		return nil, nil
	}
	select {
	case <-vs.slot:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	buf := vs.buffer(max(int64(len(v))*frSize, 1))
	if buf == nil {
		vs.slot <- struct{}{}
		return nil, nil
	}
	parallelCopy(buf.Bytes(), native.AsBytes(v))
	return buf, nil
}

// ready allocates the stage for vectors of n bytes ahead of the first
// proof (Preload), waiting for its holder; without the room, proofs later
// go without it.
func (vs *vectorStage) ready(ctx context.Context, n int64) error {
	select {
	case <-vs.slot:
	case <-ctx.Done():
		return ctx.Err()
	}
	vs.buffer(n)
	vs.slot <- struct{}{}
	return nil
}

// buffer returns a pinned buffer of at least n bytes, reallocating a
// smaller one, or nil; only the stage's holder calls it.
func (vs *vectorStage) buffer(n int64) *native.Pinned {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.closed {
		return nil
	}
	if vs.buf != nil && vs.buf.Size() >= n {
		return vs.buf
	}
	if vs.buf != nil {
		vs.buf.Free()
		vs.buf = nil
	}
	buf, err := native.AllocPinned(n)
	if err != nil {
		return nil
	}
	vs.buf = buf
	return buf
}

// release ends the holder's use of the stage, freeing it if the prover
// closed meanwhile.
func (vs *vectorStage) release() {
	vs.mu.Lock()
	if vs.closed && vs.buf != nil {
		vs.buf.Free()
		vs.buf = nil
	}
	vs.mu.Unlock()
	vs.slot <- struct{}{}
}

// close frees the pinned copy now if nobody holds it, else on its release.
func (vs *vectorStage) close() {
	vs.mu.Lock()
	vs.closed = true
	vs.mu.Unlock()
	select {
	case <-vs.slot: // free
		vs.release()
	default: // held: its release frees it
	}
}

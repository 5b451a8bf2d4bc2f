package gpu

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gpuc2/gpuc2/groth16"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2/native"
)

// pinnedKey is a proving key's query points (h, l, a, b_g1, b_g2, in that
// order) in one block of pinned host memory: what the streaming path
// copies to a device chunk by chunk. One per key serves every device of
// the process.
type pinnedKey struct {
	counts groth16.SectionCounts
	mem    *native.Pinned
	off    [groth16.NumSections]int64 // byte offset of each section in mem
}

// hostCopies keeps the process's pinned copies of one kind (keys,
// matrices), one per source, shared by every device's prover: users says
// which provers use each, so that the last one's Evict or Close frees it.
type hostCopies[K comparable, V any] struct {
	flight *flight[K, V]
	mu     sync.Mutex
	users  map[K]map[*Device]bool
}

func newHostCopies[K comparable, V any](free func(V)) *hostCopies[K, V] {
	return &hostCopies[K, V]{flight: newFlight[K](free), users: map[K]map[*Device]bool{}}
}

// acquire returns k's copy for p, making it on first use (made says this
// call did), and the function that hands it back.
func (h *hostCopies[K, V]) acquire(ctx context.Context, p *Device, k K, make func(context.Context) (V, error)) (v V, release func(), made bool, err error) {
	h.mu.Lock()
	users := h.users[k]
	if users == nil {
		users = map[*Device]bool{}
		h.users[k] = users
	}
	users[p] = true
	h.mu.Unlock()
	return h.flight.acquire(ctx, k, make)
}

// uses says whether p uses k's copy.
func (h *hostCopies[K, V]) uses(p *Device, k K) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.users[k][p]
}

// drop ends p's use of k's copy (of every copy when k is the zero K); a
// copy is evicted when no prover uses it any more.
func (h *hostCopies[K, V]) drop(p *Device, k K) {
	var all K
	h.mu.Lock()
	var unused []K
	for x, users := range h.users {
		if k != all && x != k || !users[p] {
			continue
		}
		delete(users, p)
		if len(users) == 0 {
			delete(h.users, x)
			unused = append(unused, x)
		}
	}
	h.mu.Unlock()
	for _, x := range unused {
		h.flight.evict(x)
	}
}

// pinnedKeyFor returns pk's pinned copy for p, decoding it on first use,
// and the function that hands it back.
func (p *Device) pinnedKeyFor(ctx context.Context, pk *groth16.ProvingKey) (*pinnedKey, func(), error) {
	hk, release, _, err := p.host.keys.acquire(ctx, p, pk, func(ctx context.Context) (*pinnedKey, error) {
		return newPinnedKey(ctx, pk)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("gpu: pinned key: %w", err)
	}
	return hk, release, nil
}

// newPinnedKey allocates pinned memory for pk's points and decodes them
// into it.
func newPinnedKey(ctx context.Context, pk *groth16.ProvingKey) (*pinnedKey, error) {
	c := pk.Counts()
	hk, size := pinnedLayout(c)
	mem, err := native.AllocPinned(max(size, 1))
	if err != nil {
		return nil, fmt.Errorf("%w: %d bytes for the key: %w", errPinnedHost, size, err)
	}
	hk.mem = mem
	ok := false
	defer func() {
		if !ok {
			hk.free()
		}
	}()
	b := mem.Bytes()
	for s := range groth16.NumSections {
		n := c.Section(s)
		if n == 0 {
			continue
		}
		at := unsafe.Pointer(&b[hk.off[s]])
		if s == groth16.SectionBG2 {
			err = pk.BG2Into(ctx, unsafe.Slice((*bls12381.G2Affine)(at), n))
		} else {
			err = pk.SectionG1Into(ctx, s, unsafe.Slice((*bls12381.G1Affine)(at), n))
		}
		if err != nil {
			return nil, err
		}
	}
	ok = true
	return hk, nil
}

// pinnedLayout places the sections of a key of counts c one after the
// other (KeyBytes(c) in all, returned as size); mem is left to allocate.
func pinnedLayout(c groth16.SectionCounts) (hk *pinnedKey, size int64) {
	hk = &pinnedKey{counts: c}
	for s := range groth16.NumSections {
		hk.off[s] = size
		size += int64(c.Section(s)) * sectionPointBytes(s)
	}
	return hk, size
}

// sectionPointBytes is the in-memory size of a point of section s.
func sectionPointBytes(s int) int64 {
	if s == groth16.SectionBG2 {
		return g2Bytes
	}
	return g1Bytes
}

func (hk *pinnedKey) free() {
	if hk.mem != nil {
		hk.mem.Free()
	}
}

// msm describes a streamed MSM over n points of section s from point
// first on, with scalars n (or nScalars with a density) of buf, through
// chunk buffers of chunks.
func (hk *pinnedKey) msm(s, first, n int, scalars *native.Buffer, nScalars int, density []uint64, chunks streamChunks) native.StreamedMSM {
	size := sectionPointBytes(s)
	return native.StreamedMSM{Bases: hk.mem, BasesOff: hk.off[s] + int64(first)*size, NBases: n,
		Scalars: scalars, NScalars: nScalars, Density: density, Canonical: true,
		ChunkPoints: chunks.points(size)}
}

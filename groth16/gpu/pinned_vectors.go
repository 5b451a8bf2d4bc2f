package gpu

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gpuc2/gpuc2/groth16"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/native"
)

// PinnedVectors allocates field vectors in pinned host memory. A CUDA
// prover uploads a vector that lies inside one (a witness-only assignment's
// aux, synthesized into it) with one DMA at the link's speed, instead of
// through its staging chunks, which the CPU fills at a fraction of that
// (4.17 GB took 0.90 s beside resident proofs, 0.37 s under a 16 GiB limit:
// BENCHMARKS.md, issue 18).
//
// Allocating and freeing pinned memory is slow (the pages are locked; a
// free synchronizes the devices): keep a vector for reuse rather than
// freeing it after each proof. Devices.Vectors returns the one whose
// vectors its devices find.
type PinnedVectors struct{ reg *pinnedRegistry }

// Alloc returns a vector of length 0 and capacity n in pinned host memory.
// It fails when the native library is not loaded or the memory cannot be
// pinned.
func (pv PinnedVectors) Alloc(n int) ([]fr.Element, error) {
	switch {
	case pv.reg == nil:
		return nil, fmt.Errorf("%w: a PinnedVectors not from Devices.Vectors", groth16.ErrInvalidInput)
	case n <= 0:
		return nil, fmt.Errorf("%w: a pinned vector of %d elements", groth16.ErrInvalidInput, n)
	}
	mem, err := native.AllocPinned(int64(n) * frSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errPinnedHost, err)
	}
	v := mem.Fr(n)[:0]
	pv.reg.add(uintptr(unsafe.Pointer(unsafe.SliceData(v))), mem)
	return v, nil
}

// Free frees a vector Alloc returned (any slice of it that starts where it
// starts). No upload may be reading it. A vector Alloc did not return is
// left alone.
func (pv PinnedVectors) Free(v []fr.Element) error {
	if pv.reg == nil {
		return nil // it allocated nothing
	}
	mem := pv.reg.remove(uintptr(unsafe.Pointer(unsafe.SliceData(v))))
	if mem == nil {
		return nil
	}
	return mem.Free()
}

// pinnedRegistry maps the start address of each pinned vector to its
// memory, so that an upload finds the block a slice lies in.
type pinnedRegistry struct {
	mu     sync.Mutex
	blocks map[uintptr]pinnedBlock
}

// pinnedBlock is a registered block: its memory and size. Only Alloc adds
// to the process's registry; the registry's own test adds blocks without
// memory to a registry of its own.
type pinnedBlock struct {
	mem  *native.Pinned
	size int64
}

func (r *pinnedRegistry) add(start uintptr, mem *native.Pinned) {
	r.addBlock(start, pinnedBlock{mem: mem, size: mem.Size()})
}

func (r *pinnedRegistry) addBlock(start uintptr, b pinnedBlock) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.blocks == nil {
		r.blocks = map[uintptr]pinnedBlock{}
	}
	r.blocks[start] = b
}

func (r *pinnedRegistry) remove(start uintptr) *native.Pinned {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.blocks[start]
	if !ok {
		return nil
	}
	delete(r.blocks, start)
	return b.mem
}

// find returns the registered block holding all of v's bytes and v's byte
// offset in it; ok is false when v is empty or not wholly inside one. The
// blocks are few (one per partition in flight or spare), so a scan will do.
func (r *pinnedRegistry) find(v []fr.Element) (b pinnedBlock, off int64, ok bool) {
	if len(v) == 0 {
		return pinnedBlock{}, 0, false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	hi := lo + uintptr(int64(len(v))*frSize)
	r.mu.Lock()
	defer r.mu.Unlock()
	for start, blk := range r.blocks {
		if lo >= start && hi <= start+uintptr(blk.size) {
			return blk, int64(lo - start), true
		}
	}
	return pinnedBlock{}, 0, false
}

package gpu

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gpuc2/gpuc2/groth16"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/native"
)

// deviceKey is a proving key's query points (h, l, a, b_g1, b_g2) resident
// in one device's memory. It holds a ledger reservation of its size until
// free.
type deviceKey struct {
	device          int
	counts          groth16.SectionCounts
	proofBytes      int64 // what each proof with this key reserves beside it
	h, l, a, b1, b2 *native.Buffer
	job             *gpulock.Job
	aside           atomic.Pointer[gpulock.Job] // a proof's bytes set aside for urgent proofs (SetAsideProof); nil: none
	once            sync.Once
}

// errNoRoom reports that a long-lived reservation (a resident key or
// matrices) is not free right now.
var errNoRoom = errors.New("gpu: no room on the device now")

// keySource returns the host bytes of section i of a key (0–4: h, l, a,
// b_g1, b_g2): all its points, or (repeat) a run of them that newDeviceKey
// repeats to fill the section.
type keySource func(ctx context.Context, i int) ([]byte, error)

// newDeviceKey reserves and allocates a key with counts c on p's device and
// fills it from src, calling uploaded(i) (if set) once section i is on the
// device; each proof with it reserves proofBytes beside it. It waits for
// the room in the ledger when wait is set, else fails with errNoRoom at
// once (a key held for hours must not queue ahead of proofs). With aside,
// proofBytes more are held beside it for its urgent proofs (gpulock's
// SetAside).
func (p *Device) newDeviceKey(ctx context.Context, c groth16.SectionCounts, proofBytes int64, wait, aside bool, src keySource, repeat bool,
	uploaded func(i int)) (*deviceKey, error) {
	dk := &deviceKey{device: p.device, counts: c, proofBytes: proofBytes, job: p.gate.NewJob()}
	if err := dk.reserve(ctx, wait); err != nil {
		dk.job.Done()
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			dk.free()
		}
	}()
	if aside {
		if err := dk.setAside(ctx, p.gate, wait); err != nil {
			return nil, err
		}
	}
	if err := dk.alloc(); err != nil {
		return nil, err
	}
	st, err := native.NewStream(p.device)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	for i, buf := range dk.sections() {
		if err := fillSection(ctx, st, buf, i, src, repeat); err != nil {
			return nil, fmt.Errorf("gpu: resident key: %w", err)
		}
		if uploaded != nil {
			uploaded(i) // fillSection's copies have returned: the host bytes are free
		}
	}
	if err := st.Sync(); err != nil {
		return nil, err
	}
	ok = true
	return dk, nil
}

// reserve reserves the key's bytes and holds them long-lived (holdBytes).
func (dk *deviceKey) reserve(ctx context.Context, wait bool) error {
	return holdBytes(ctx, dk.job, groth16.KeyBytes(dk.counts), wait, "resident key")
}

// setAside holds one proof's bytes beside the key for its urgent proofs,
// as reserve holds the key's.
func (dk *deviceKey) setAside(ctx context.Context, gate *gpulock.Device, wait bool) error {
	job := gate.NewJob()
	dk.aside.Store(job) // free ends it, whatever happens next
	if err := holdBytes(ctx, job, dk.proofBytes, wait, "a resident key's urgent proof"); err != nil {
		return err
	}
	return job.SetAside()
}

// holdBytes reserves bytes for job (what names) and holds them long-lived
// (gpulock's Hold): a reservation that cannot fit beside resident keys and
// matrices then fails at once, a preload's (wait) included, instead of
// waiting for an eviction. Without wait, bytes not free now fail with
// errNoRoom.
func holdBytes(ctx context.Context, job *gpulock.Job, bytes int64, wait bool, what string) error {
	if wait {
		if err := job.Reserve(ctx, bytes); err != nil {
			return fmt.Errorf("gpu: %s: %w", what, err)
		}
	} else if ok, err := job.TryReserve(bytes); err != nil {
		return fmt.Errorf("gpu: %s: %w", what, err)
	} else if !ok {
		return errNoRoom
	}
	return job.Hold()
}

// dropAside gives the memory set aside beside the key back, if any.
func (dk *deviceKey) dropAside() {
	if job := dk.aside.Swap(nil); job != nil {
		job.Done()
	}
}

// alloc allocates the key's sections, long-lived (outside the stream pool).
func (dk *deviceKey) alloc() error {
	c := dk.counts
	sizes := []struct {
		buf   **native.Buffer
		bytes int64
	}{{&dk.h, int64(c.H) * g1Bytes}, {&dk.l, int64(c.L) * g1Bytes}, {&dk.a, int64(c.A) * g1Bytes},
		{&dk.b1, int64(c.B) * g1Bytes}, {&dk.b2, int64(c.B) * g2Bytes}}
	for _, s := range sizes {
		b, err := native.Alloc(dk.device, nil, s.bytes)
		if err != nil {
			return fmt.Errorf("gpu: resident key: %w", err)
		}
		*s.buf = b
	}
	return nil
}

// sections are the key's buffers in keySource's order.
func (dk *deviceKey) sections() [5]*native.Buffer {
	return [5]*native.Buffer{dk.h, dk.l, dk.a, dk.b1, dk.b2}
}

// fillSection copies section i of src into buf, with ctx checked between
// copies. The bytes must fill buf exactly, unless repeat is set (a tiled
// benchmark key): then they are repeated until buf is full.
func fillSection(ctx context.Context, st *native.Stream, buf *native.Buffer, i int, src keySource, repeat bool) error {
	data, err := src(ctx, i)
	if err != nil {
		return err
	}
	switch {
	case !repeat && int64(len(data)) != buf.Size():
		return fmt.Errorf("%w: key section %d has %d bytes, its counts say %d", groth16.ErrKeyMismatch, i, len(data), buf.Size())
	case len(data) == 0 && buf.Size() > 0:
		return fmt.Errorf("%w: no points for a key section of %d bytes", groth16.ErrInvalidInput, buf.Size())
	}
	for off := int64(0); off < buf.Size(); off += int64(len(data)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.CopyToDevice(buf, off, data[:min(int64(len(data)), buf.Size()-off)]); err != nil {
			return err
		}
	}
	return nil
}

// free releases the device memory, then the key's reservation.
func (dk *deviceKey) free() {
	dk.once.Do(func() {
		for _, b := range dk.sections() {
			b.Free() // nil for sections never allocated
		}
		dk.dropAside()
		dk.job.Done()
	})
}

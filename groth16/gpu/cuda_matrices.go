package gpu

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/internal/prover"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// deviceMatrices are a circuit's A, B, C (synth/pce's compact form) and
// their coefficient table on one device: with the witness w = (inputs, aux)
// uploaded, eval computes a, b, c there, so that only the witness crosses
// the bus instead of three domain vectors (issue 18). They hold a ledger
// reservation of their size until free, like a resident key.
type deviceMatrices struct {
	inputs, aux, rows int
	a, b, c           native.CSR // sharing one coefficient table
	bufs              []*native.Buffer
	job               *gpulock.Job
}

// matricesDeviceBytes is what ms takes on a device (MatricesDeviceBytes).
func matricesDeviceBytes(ms *pce.Matrices) int64 { return MatricesDeviceBytes(ms.Bytes()) }

// MatricesDeviceBytes is what compiled matrices of bytes (pce's Bytes)
// take on a device: their arrays, each rounded up to the allocator's 2 MiB.
func MatricesDeviceBytes(bytes int64) int64 {
	const arrays, granule = 10, 2 << 20 // the coefficients, three per matrix
	return bytes + arrays*granule
}

// MatricesFit says whether proofs with pk on this device evaluate a, b, c
// from constraint matrices of bytes (pce's Bytes) on the device: with pk
// resident, when the matrices fit beside it and one proof; streaming, when
// holding the witness costs the device none of its overlap (the matrices
// then stream from pinned host memory like the key).
func (p *Device) MatricesFit(pk *groth16.ProvingKey, bytes int64) bool {
	if p.usable() != nil {
		return false
	}
	switch p.Mode(pk) {
	case ModeResident:
		return p.plan(pk).residentMatricesFit(bytes)
	case ModeStreaming:
		return p.plan(pk).streamedMatricesFit()
	}
	return false
}

// PreloadMatrices readies ms, the compiled matrices of pk's circuit, for
// the proofs that will take them (WithMatrices), until EvictMatrices or
// Close: with pk resident it puts them on the device, in streaming mode it
// copies them into pinned host memory (once per process). When the device
// cannot evaluate a, b, c with pk (MatricesFit), or has no room for the
// matrices beside what its ledger holds now, it fails with
// ErrOutOfDeviceMemory, and such proofs evaluate a, b, c on the host
// instead. pinned is the host memory of the pinned copy the device streams
// them from (PinnedMatricesBytes; one per process, whatever the devices),
// 0 when they are on the device.
func (p *Device) PreloadMatrices(ctx context.Context, pk *groth16.ProvingKey, ms *pce.Matrices) (pinned int64, err error) {
	if err := p.usable(); err != nil {
		return 0, err
	}
	var cfg prover.Settings
	if p.Mode(pk) == ModeStreaming {
		if kp := p.plan(pk); !kp.streamedMatricesFit() {
			return 0, fmt.Errorf("%w: GPU %d: a streamed proof that evaluates a, b, c holds its witness, %d bytes against %d: "+
				"fewer of them fit the limit of %d at once", ErrOutOfDeviceMemory, p.device, kp.streamedABC.after, kp.streamed.after, p.gate.MemoryLimit())
		}
		_, release, err := p.pinnedMatricesFor(ctx, ms, &cfg)
		if err != nil {
			return 0, err
		}
		release()
		return PinnedMatricesBytes(ms.Bytes()), nil
	}
	dm, release, err := p.deviceMatricesFor(ctx, pk, ms, &cfg)
	switch {
	case err != nil:
		return 0, classifyDevice(err)
	case dm == nil:
		return 0, fmt.Errorf("%w: GPU %d: no room for %d bytes of constraint matrices", ErrOutOfDeviceMemory, p.device, matricesDeviceBytes(ms))
	}
	release()
	return 0, nil
}

// EvictMatrices frees ms's copy on the device, and its pinned copy once no
// device uses it, once the proofs using them end (a proof type's
// parameters evicted).
func (p *Device) EvictMatrices(ms *pce.Matrices) {
	if p.matrices != nil {
		p.matrices.evict(ms.ID())
		p.host.matrices.drop(p, ms.ID())
	}
}

// deviceMatricesFor returns ms on p's device and the function that hands
// it back, uploading it when no copy exists; nil (and no error) when the
// device cannot hold it beside pk's resident key and one proof (which
// would then never find room), or has no room for it now: the proof then
// evaluates a, b, c on the host. The matrices stay until EvictMatrices or
// Close.
func (p *Device) deviceMatricesFor(ctx context.Context, pk *groth16.ProvingKey, ms *pce.Matrices, cfg *prover.Settings) (*deviceMatrices, func(), error) {
	if !p.plan(pk).residentMatricesFit(ms.Bytes()) {
		return nil, nil, nil
	}
	begin := time.Now()
	dm, release, uploaded, err := p.matrices.acquire(ctx, ms.ID(), func(ctx context.Context) (*deviceMatrices, error) {
		return p.uploadMatrices(ctx, ms)
	})
	switch {
	case errors.Is(err, errNoRoom), errors.Is(err, ErrOutOfDeviceMemory):
		return nil, nil, nil
	case err != nil:
		return nil, nil, err
	}
	if uploaded {
		cfg.Report("matrices_upload", begin, "device", p.device, "bytes", dm.bytes())
	}
	return dm, release, nil
}

// uploadMatrices reserves room for ms in p's ledger without waiting (like
// a resident key, it must not queue ahead of proofs) and copies it there.
func (p *Device) uploadMatrices(ctx context.Context, ms *pce.Matrices) (*deviceMatrices, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Held for good, they must leave room for a proof of every key.
	if need := matricesDeviceBytes(ms) + p.otherProofBytes(nil, false); need > p.gate.MemoryLimit()-p.heldFor(need) {
		return nil, errNoRoom
	}
	job := p.gate.NewJob()
	if ok, err := job.TryReserve(matricesDeviceBytes(ms)); err != nil || !ok {
		job.Done()
		if err == nil || errors.Is(err, gpulock.ErrTooLarge) { // no room now, or none beside what is held
			err = errNoRoom
		}
		return nil, err
	}
	if err := job.Hold(); err != nil {
		job.Done()
		return nil, err
	}
	st, err := native.NewStream(p.device)
	if err != nil {
		job.Done()
		return nil, err
	}
	defer st.Close()
	dm, err := copyMatrices(st, ms)
	if err != nil {
		job.Done()
		return nil, classifyDevice(err)
	}
	dm.job = job
	return dm, nil // a value with an error would leak: flight drops it
}

// copyMatrices copies ms to st's device (plain allocations: the matrices
// stay as long as their proof type does, like a resident key).
func copyMatrices(st *native.Stream, ms *pce.Matrices) (dm *deviceMatrices, err error) {
	if !ms.HasArrays() {
		return nil, fmt.Errorf("%w: GPU %d has no copy of these constraint matrices: %w", groth16.ErrInvalidInput, st.Device(), pce.ErrNoArrays)
	}
	dm = &deviceMatrices{inputs: ms.Inputs(), aux: ms.Aux(), rows: ms.Rows()}
	defer func() {
		if err != nil {
			dm.free()
			dm = nil
		}
	}()
	coeffs, err := dm.upload(st, native.AsBytes(ms.Coeffs()))
	if err != nil {
		return nil, err
	}
	for _, x := range []struct {
		dst *native.CSR
		m   *pce.Matrix
	}{{&dm.a, ms.A()}, {&dm.b, ms.B()}, {&dm.c, ms.C()}} {
		rowStart, cols, ids := x.m.CSR()
		*x.dst = native.CSR{Coeffs: coeffs, Rows: x.m.Rows(), Terms: x.m.Terms(), NCoeffs: len(ms.Coeffs())}
		if x.dst.RowStart, err = dm.upload(st, native.AsBytes(rowStart)); err != nil {
			return nil, err
		}
		if x.dst.Cols, err = dm.upload(st, native.AsBytes(cols)); err != nil {
			return nil, err
		}
		if x.dst.IDs, err = dm.upload(st, native.AsBytes(ids)); err != nil {
			return nil, err
		}
	}
	return dm, st.Sync()
}

func (dm *deviceMatrices) upload(st *native.Stream, src []byte) (*native.Buffer, error) {
	b, err := native.Alloc(st.Device(), nil, max(int64(len(src)), 1))
	if err != nil {
		return nil, err
	}
	dm.bufs = append(dm.bufs, b)
	return b, st.CopyToDevice(b, 0, src)
}

// eval enqueues a = A·w, b = B·w, c = C·w on st from the witness w
// (Montgomery form); a, b and c hold at least rows elements each.
func (dm *deviceMatrices) eval(st *native.Stream, w native.Witness, a, b, c *native.Buffer) error {
	if w.NInputs != dm.inputs || w.NAux != dm.aux {
		return fmt.Errorf("%w: a witness of %d inputs and %d aux for matrices of %d and %d",
			groth16.ErrInvalidInput, w.NInputs, w.NAux, dm.inputs, dm.aux)
	}
	for _, x := range []struct {
		m   native.CSR
		out *native.Buffer
	}{{dm.a, a}, {dm.b, b}, {dm.c, c}} {
		if err := st.SpMV(x.m, w, x.out, 0); err != nil {
			return fmt.Errorf("GPU %d: constraint evaluation: %w", st.Device(), err)
		}
	}
	return nil
}

// bytes is the device memory the matrices take.
func (dm *deviceMatrices) bytes() int64 {
	var n int64
	for _, b := range dm.bufs {
		n += b.Size()
	}
	return n
}

// free releases the device memory, then the reservation.
func (dm *deviceMatrices) free() {
	for _, b := range dm.bufs {
		b.Free()
	}
	dm.bufs = nil
	if dm.job != nil {
		dm.job.Done()
	}
}

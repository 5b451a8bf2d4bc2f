package gpu

import (
	"context"
	"fmt"
	"math/bits"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/internal/prover"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

// proveResident proves w (its input rows already appended) with dk, a key
// resident on p's device; vk supplies the proof's constant points. A w
// without A, B, C (prover.ProofAssignment's ABCDevice) takes them from dm, its
// circuit's matrices on the device. The proof equals the CPU prover's for
// the same r and s.
func (p *Device) proveResident(ctx context.Context, dk *deviceKey, dm *deviceMatrices, vk *groth16.VerifyingKey, w *synth.ProvingAssignment, cfg *prover.Settings) (*groth16.Proof, error) {
	m, err := checkCounts(dk.counts, vk, w)
	if err != nil {
		return nil, err
	}
	if w.A == nil && dm == nil {
		return nil, fmt.Errorf("%w: no a, b, c and no matrices to evaluate them", groth16.ErrInvalidInput)
	}
	rp := &residentProof{deviceJob: p.deviceJob(cfg), p: p, dk: dk, dm: dm, w: w, m: m}
	defer rp.close()
	return proveWith(ctx, cfg, vk, dk.counts, rp, "device", p.device)
}

// residentProof is one proof on the resident path, a backend whose steps
// are gpulock.Job's: prepare reserves the proof's memory, uploads the
// witness (Upload) and waits for the compute lock (Compute); the sections
// run H and the MSMs on the proof's stream, and give back b and c after H
// (Shrink); finish releases the lock (EndCompute) and frees the buffers in
// stream order (ReadBack); close frees whatever is left and ends the job
// (Done). A proof that evaluates a, b, c on the device reserves its
// witness ahead of them (ReserveUpload, Extend): where one proof fills the
// room beside the key, its upload then overlaps the previous proof's MSMs
// instead of following its end.
type residentProof struct {
	deviceJob
	p  *Device
	dk *deviceKey
	dm *deviceMatrices // evaluates a, b, c when w has none
	w  *synth.ProvingAssignment
	m  int // the domain

	proofMemory                   // the stream and every buffer, freed by finish or close
	abc         [3]*native.Buffer // a, b, c zero-padded to m; H leaves h in a
	aux, inputs *native.Buffer    // the assignment, canonical after computeH
}

func (rp *residentProof) Prepare(ctx context.Context) error {
	witness := witnessDeviceBytes(rp.dk.counts.L) // L is the aux count (prover.CheckCounts)
	rest := rp.dk.proofBytes - witness            // a, b, c and scratch; proofBytes is counted once per key
	if rp.evaluated() {
		if err := rp.reserveUpload(ctx, witness, rest); err != nil {
			return err
		}
	} else if err := rp.reserve(ctx, rp.dk.proofBytes); err != nil {
		return err
	}
	st, err := native.NewStream(rp.device)
	if err != nil {
		return err
	}
	rp.st = st
	if err := rp.job.Upload(rp.upload); err != nil {
		return fmt.Errorf("gpu: upload: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if rp.evaluated() {
		if err := rp.extend(ctx, rest); err != nil {
			return err
		}
	}
	return rp.compute(ctx)
}

// evaluated says whether the device evaluates a, b, c from the matrices
// (w has none to upload).
func (rp *residentProof) evaluated() bool { return rp.w.A == nil }

// upload copies a, b, c (zero-padded to m), aux and inputs to the device;
// with matrices, only aux and inputs (computeH allocates and evaluates a,
// b, c).
func (rp *residentProof) upload() error {
	begin := time.Now()
	w := rp.w
	bytes := int64(len(w.A)+len(w.B)+len(w.C)+len(w.Aux)+len(w.Inputs)) * frSize
	pinnedABC, pinnedAux := true, false
	defer func() {
		args := []any{"device", rp.device, "bytes", bytes, "pinned_aux", pinnedAux}
		if w.A != nil { // uploaded, not evaluated on the device
			args = append(args, "pinned_abc", pinnedABC)
		}
		rp.cfg.Report("upload", begin, args...)
	}()
	if !rp.evaluated() {
		for i, v := range [][]fr.Element{w.A, w.B, w.C} {
			pinned, err := rp.allocABC(i, v)
			if err != nil {
				return err
			}
			pinnedABC = pinnedABC && pinned
		}
	}
	for _, x := range []struct {
		dst **native.Buffer
		v   []fr.Element
	}{{&rp.aux, w.Aux}, {&rp.inputs, w.Inputs}} {
		b, err := rp.alloc(max(int64(len(x.v)), 1) * frSize)
		if err != nil {
			return err
		}
		*x.dst = b
		pinned, err := rp.p.stage.uploadFr(rp.st, b, 0, x.v)
		if err != nil {
			return err
		}
		if x.dst == &rp.aux {
			pinnedAux = pinned
		}
	}
	return rp.st.Sync()
}

// computeH evaluates a, b, c from the matrices when w has none, runs
// bellperson's H on them (h lands in a) and converts the MSMs' scalars to
// canonical form.
func (rp *residentProof) ComputeH(context.Context) error {
	if rp.evaluated() {
		for i := range rp.abc {
			if _, err := rp.allocABC(i, nil); err != nil {
				return err
			}
		}
	}
	a, b, c := rp.abc[0], rp.abc[1], rp.abc[2]
	if rp.evaluated() {
		begin := time.Now()
		w := native.Witness{Inputs: rp.inputs, Aux: rp.aux, NInputs: len(rp.w.Inputs), NAux: len(rp.w.Aux)}
		if err := rp.dm.eval(rp.st, w, a, b, c); err != nil {
			return err
		}
		if rp.cfg.Traced() { // traced: wait for the phase's time
			if err := rp.st.Sync(); err != nil {
				return err
			}
			rp.cfg.Report("abc_eval", begin, "device", rp.device, "rows", rp.dm.rows)
		}
	}
	if err := rp.st.HDevice(a, b, c, uint32(bits.Len(uint(rp.m))-1)); err != nil {
		return fmt.Errorf("GPU %d: %w", rp.device, err)
	}
	b.Free() // in stream order: the memory returns to the pool for the MSMs
	c.Free()
	for _, x := range []struct {
		b *native.Buffer
		n int
	}{{a, rp.m - 1}, {rp.aux, len(rp.w.Aux)}, {rp.inputs, len(rp.w.Inputs)}} {
		if err := rp.st.FrFromMont(x.b, 0, x.n); err != nil {
			return fmt.Errorf("GPU %d: %w", rp.device, err)
		}
	}
	if err := rp.st.Sync(); err != nil {
		return err
	}
	return rp.job.Shrink(hReleasedBytes(rp.m)) // b and c are back in the pool
}

// allocABC allocates a, b or c (i) over the domain on the proof's stream,
// uploads v into it (nil: the matrices' evaluation fills the rows) and
// zeroes the padding; pinned says whether v was copied from pinned memory.
func (rp *residentProof) allocABC(i int, v []fr.Element) (pinned bool, err error) {
	domainBytes := domainVectorBytes(rp.m)
	b, err := rp.alloc(domainBytes)
	if err != nil {
		return false, err
	}
	rp.abc[i] = b
	rows := rp.w.NumRows()
	if v != nil {
		rows = len(v)
		if pinned, err = rp.p.stage.uploadFr(rp.st, b, 0, v); err != nil {
			return false, err
		}
	}
	n := int64(rows) * frSize
	return pinned, rp.st.Zero(b, n, domainBytes-n)
}

// auxMSM and inputMSM describe MSMs over the aux and input scalars with
// bases at byte offset off of bases (count points, selected by density:
// nil, all).
func (rp *residentProof) auxMSM(bases *native.Buffer, off int64, count int, density []uint64) native.DeviceMSM {
	return native.DeviceMSM{Bases: bases, BasesOff: off, NBases: count,
		Scalars: rp.aux, NScalars: len(rp.w.Aux), Density: density, Canonical: true}
}

func (rp *residentProof) inputMSM(bases *native.Buffer, count int, density []uint64) native.DeviceMSM {
	return native.DeviceMSM{Bases: bases, NBases: count,
		Scalars: rp.inputs, NScalars: len(rp.w.Inputs), Density: density, Canonical: true}
}

func (rp *residentProof) MSMH(ctx context.Context) (bls12381.G1Jac, error) {
	n := rp.m - 1
	return rp.p.engine.G1Device(ctx, rp.st, native.DeviceMSM{Bases: rp.dk.h, NBases: n, Scalars: rp.abc[0], NScalars: n, Canonical: true})
}

func (rp *residentProof) MSML(ctx context.Context) (bls12381.G1Jac, error) {
	return rp.p.engine.G1Device(ctx, rp.st, rp.auxMSM(rp.dk.l, 0, len(rp.w.Aux), nil))
}

// Inputs are dense in A (the input rows); aux follow the A density.
func (rp *residentProof) MSMA(ctx context.Context) (bls12381.G1Jac, error) {
	w, nIn := rp.w, len(rp.w.Inputs)
	return rp.p.engine.G1Device(ctx, rp.st, rp.inputMSM(rp.dk.a, nIn, nil),
		rp.auxMSM(rp.dk.a, int64(nIn)*g1Bytes, w.AAux.Count(), w.AAux.Words))
}

func (rp *residentProof) MSMBG1(ctx context.Context) (bls12381.G1Jac, error) {
	w, bIn := rp.w, rp.w.BInput.Count()
	return rp.p.engine.G1Device(ctx, rp.st, rp.inputMSM(rp.dk.b1, bIn, w.BInput.Words),
		rp.auxMSM(rp.dk.b1, int64(bIn)*g1Bytes, w.BAux.Count(), w.BAux.Words))
}

func (rp *residentProof) MSMBG2(ctx context.Context) (bls12381.G2Jac, error) {
	w, bIn := rp.w, rp.w.BInput.Count()
	return rp.p.engine.G2Device(ctx, rp.st, rp.inputMSM(rp.dk.b2, bIn, w.BInput.Words),
		rp.auxMSM(rp.dk.b2, int64(bIn)*g2Bytes, w.BAux.Count(), w.BAux.Words))
}

// Yield lets a proof of a higher priority (a WinningPoSt's) compute
// between two of this one's sections, each of which ends synchronized.
func (rp *residentProof) Yield(ctx context.Context) error { return rp.yield(ctx) }

// finish releases the compute lock and reads back. The results are already
// on the host: read-back frees the buffers in stream order and waits, so
// that the reservation ends after the memory is really back in the pool.
func (rp *residentProof) Finish() error {
	if err := rp.job.EndCompute(); err != nil {
		return err
	}
	return rp.job.ReadBack(func() error {
		begin := time.Now()
		defer rp.cfg.Report("readback", begin, "device", rp.device)
		return rp.readBack()
	})
}

// close frees the buffers, waits for the stream and destroys it, then ends
// the job: the memory is back before the reservation is released.
func (rp *residentProof) close() {
	rp.freeBuffers()
	rp.st.Close()
	rp.done()
}

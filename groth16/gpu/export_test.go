package gpu

import (
	"context"
	"errors"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/internal/prover"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// Test-only access to the resident path, for the GPU benchmarks.

// DeviceKey is a proving key's points resident on one GPU.
type DeviceKey = deviceKey

// Counts returns the key's section sizes.
func (dk *deviceKey) Counts() groth16.SectionCounts { return dk.counts }

// Free releases the key's device memory and reservation.
func (dk *deviceKey) Free() { dk.free() }

// NewTiledDeviceKey fills a key of counts c on p's device by repeating
// tile1 (G1) and tile2 (G2), waiting for room in p's ledger: the right
// sizes for timing, NOT a proving key. Proofs made with it do not verify.
func (p *Device) NewTiledDeviceKey(ctx context.Context, c groth16.SectionCounts, tile1 []bls12381.G1Affine, tile2 []bls12381.G2Affine) (*DeviceKey, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if len(tile1) == 0 || len(tile2) == 0 {
		return nil, errors.New("gpu: tiled key needs non-empty tiles")
	}
	dk, err := p.newDeviceKey(ctx, c, residentProofBytes(p.device, c), true, false, func(_ context.Context, i int) ([]byte, error) {
		if i == 4 {
			return native.AsBytes(tile2), nil
		}
		return native.AsBytes(tile1), nil
	}, true, nil)
	return dk, classifyDevice(err)
}

// ProveResident proves w (its input rows already appended) with dk, a key
// resident on p's device, walking p's gate; vk supplies the proof's
// constant points.
func (p *Device) ProveResident(ctx context.Context, dk *DeviceKey, vk *groth16.VerifyingKey, w *synth.ProvingAssignment, opts ...groth16.ProveOption) (*groth16.Proof, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	cfg := prover.Configure(opts)
	proof, err := p.proveResident(ctx, dk, nil, vk, w, &cfg)
	return proof, classifyDevice(err)
}

// PinnedKey is a proving key's points in pinned host memory.
type PinnedKey = pinnedKey

// Free releases the pinned memory.
func (hk *pinnedKey) Free() { hk.free() }

// NewTiledPinnedKey fills a pinned key of counts c by repeating tile1 (G1)
// and tile2 (G2): the right sizes for timing, NOT a proving key.
func NewTiledPinnedKey(c groth16.SectionCounts, tile1 []bls12381.G1Affine, tile2 []bls12381.G2Affine) (*PinnedKey, error) {
	if len(tile1) == 0 || len(tile2) == 0 {
		return nil, errors.New("gpu: tiled key needs non-empty tiles")
	}
	hk, off := pinnedLayout(c)
	mem, err := native.AllocPinned(max(off, 1))
	if err != nil {
		return nil, err
	}
	hk.mem = mem
	b := mem.Bytes()
	for s := range groth16.NumSections {
		tile := native.AsBytes(tile1)
		end := off
		if s+1 < groth16.NumSections {
			end = hk.off[s+1]
		}
		if s == groth16.SectionBG2 {
			tile = native.AsBytes(tile2)
		}
		sec := b[hk.off[s]:end]
		_ = par.Range(context.Background(), len(sec), 64<<20, func(lo, hi int) error {
			for pos := lo; pos < hi; {
				t := pos % len(tile) // the section repeats the tile from its start
				pos += copy(sec[pos:hi], tile[t:])
			}
			return nil
		})
	}
	return hk, nil
}

// ReadyStage allocates the device's pinned stage for H's last vector over
// domain m, as Preload does for a streamed key, so that a benchmark's
// first proof does not pay for it.
func (p *Device) ReadyStage(ctx context.Context, m int) error {
	return p.lastStage.ready(ctx, StreamingStageBytes(m))
}

// ProveStreamed proves w (its input rows already appended) with hk on the
// streaming path, walking p's gate; vk supplies the proof's constant points.
func (p *Device) ProveStreamed(ctx context.Context, hk *PinnedKey, vk *groth16.VerifyingKey, w *synth.ProvingAssignment, opts ...groth16.ProveOption) (*groth16.Proof, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	cfg := prover.Configure(opts)
	m, err := checkCounts(hk.counts, vk, w)
	if err != nil {
		return nil, err
	}
	bytes, _ := streamingProofBytes(p.device, hk.counts, m, len(w.Aux), len(w.Inputs))
	proof, err := p.proveStreamed(ctx, hk, nil, vk, w, m, streamedPlan{after: bytes}, &cfg)
	return proof, classifyDevice(err)
}

// EvalOnDevice uploads ms and the witness (inputs, aux) to device, computes
// a, b, c there (deviceMatrices) and returns them with the matrices' device
// bytes.
func EvalOnDevice(device int, ms *pce.Matrices, inputs, aux []fr.Element) (a, b, c []fr.Element, bytes int64, err error) {
	st, err := native.NewStream(device)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	defer st.Close()
	dm, err := copyMatrices(st, ms)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	defer dm.free()
	w := native.Witness{NInputs: len(inputs), NAux: len(aux)}
	for _, x := range []struct {
		dst **native.Buffer
		v   []fr.Element
	}{{&w.Inputs, inputs}, {&w.Aux, aux}} {
		if *x.dst, err = native.Alloc(device, nil, max(int64(len(x.v))*frSize, 1)); err != nil {
			return nil, nil, nil, 0, err
		}
		defer (*x.dst).Free()
		if err := st.CopyToDevice(*x.dst, 0, native.AsBytes(x.v)); err != nil {
			return nil, nil, nil, 0, err
		}
	}
	var outs [3]*native.Buffer
	for i := range outs {
		if outs[i], err = native.Alloc(device, nil, max(int64(ms.Rows())*frSize, 1)); err != nil {
			return nil, nil, nil, 0, err
		}
		defer outs[i].Free()
	}
	if err := dm.eval(st, w, outs[0], outs[1], outs[2]); err != nil {
		return nil, nil, nil, 0, err
	}
	var res [3][]fr.Element
	for i := range res {
		res[i] = make([]fr.Element, ms.Rows())
		if err := st.CopyToHost(native.AsBytes(res[i]), outs[i], 0); err != nil {
			return nil, nil, nil, 0, err
		}
	}
	return res[0], res[1], res[2], dm.bytes(), nil
}

// The streaming path's chunk limits.
const (
	SpMVChunkRows  = spmvChunkRows
	SpMVChunkTerms = spmvChunkTerms
)

// EvalStreamedOnDevice computes a, b, c on device as the streaming path
// does: ms pinned in chunks of at most maxRows rows and maxTerms terms,
// each copied while the previous one is evaluated. Each vector is pad
// elements longer than the rows, filled with ones before the evaluation
// (which must zero them).
func EvalStreamedOnDevice(device int, ms *pce.Matrices, inputs, aux []fr.Element, maxRows, maxTerms, pad int) (a, b, c []fr.Element, err error) {
	hm, err := newPinnedMatrices(context.Background(), ms, maxRows, maxTerms)
	if err != nil {
		return nil, nil, nil, err
	}
	defer hm.free()
	st, err := native.NewStream(device)
	if err != nil {
		return nil, nil, nil, err
	}
	defer st.Close()
	cs, err := native.NewStream(device)
	if err != nil {
		return nil, nil, nil, err
	}
	defer cs.Close()
	pm := &proofMemory{st: st}
	defer func() { pm.freeBuffers(); st.Sync() }()
	slots, err := newSpmvSlots(st, ms, pm.alloc)
	if err != nil {
		return nil, nil, nil, err
	}
	w := native.Witness{NInputs: len(inputs), NAux: len(aux)}
	n := ms.Rows() + pad
	ones := make([]fr.Element, n)
	for i := range ones {
		ones[i].SetOne()
	}
	var outs [3]*native.Buffer
	for _, x := range []struct {
		dst **native.Buffer
		v   []fr.Element
	}{{&w.Inputs, inputs}, {&w.Aux, aux}, {&outs[0], ones}, {&outs[1], ones}, {&outs[2], ones}} {
		if *x.dst, err = pm.alloc(max(int64(len(x.v))*frSize, 1)); err != nil {
			return nil, nil, nil, err
		}
		if err := st.CopyToDevice(*x.dst, 0, native.AsBytes(x.v)); err != nil {
			return nil, nil, nil, err
		}
	}
	var res [3][]fr.Element
	for i := range res {
		if err := hm.eval(st, cs, slots, i, w, outs[i]); err != nil {
			return nil, nil, nil, err
		}
		res[i] = make([]fr.Element, n)
		if err := st.CopyToHost(native.AsBytes(res[i]), outs[i], 0); err != nil {
			return nil, nil, nil, err
		}
	}
	return res[0], res[1], res[2], nil
}

// BesideLimit is the least device memory limit under which device 0 runs
// a streamed proof's aux MSMs beside its h MSM (withABC: a proof that
// evaluates a, b, c from matrices, which that limit then lets it do); ok
// is false when no limit does.
func BesideLimit(c groth16.SectionCounts, m, nAux, nIn int, withABC bool) (limit int64, ok bool) {
	plain, abc := streamingProofBytes(0, c, m, nAux, nIn)
	after := plain
	if withABC {
		after = abc
	}
	layouts := besideLayouts(0, c, m, nAux, nIn, withABC)
	for _, l := range layouts {
		fit := Plan{MemoryLimit: l.bytes, streamed: streamedPlan{after: plain}, streamedABC: streamedPlan{after: abc}}
		if ok && l.bytes >= limit || withABC && !fit.streamedMatricesFit() {
			continue
		}
		if _, yes := chooseBeside(l.bytes, after, func() []besideLayout { return layouts }); yes {
			limit, ok = l.bytes, true
		}
	}
	return limit, ok
}

// OpenBeside opens another prover of p's device under cfg (its Ordinals
// unused) that shares p's pinned host memory (streamed keys and matrices,
// PinnedVectors' registry): another device of p's process, as the devices
// of one Devices are.
func (p *Device) OpenBeside(cfg Config) (*Device, error) {
	dev, err := openDevice(deviceConfig{Device: p.device, NoResident: cfg.NoResident, ComputeWidth: cfg.ComputeWidth,
		MemoryLimit: cfg.MemoryLimit}, p.host)
	return dev, classifyDevice(err)
}

// SetAsideBytes is the device memory set aside on p's device for urgent
// proofs (SetAsideProof).
func (p *Device) SetAsideBytes() int64 { return p.gate.SetAsideBytes() }

// ResidentProofBytes is what a resident proof of pk reserves on p's device.
func (p *Device) ResidentProofBytes(pk *groth16.ProvingKey) int64 {
	return p.plan(pk).ResidentBytes - groth16.KeyBytes(pk.Counts())
}

// ReserveFree reserves, at the default priority, all of p's memory that
// is not held for good, until the returned function is called.
func (p *Device) ReserveFree(ctx context.Context) (release func(), err error) {
	job := p.gate.NewJob()
	if err := job.Reserve(ctx, p.gate.MemoryLimit()-p.gate.Held()); err != nil {
		job.Done()
		return nil, err
	}
	return job.Done, nil
}

package groth16

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

// CUDAProver runs H and the five MSMs on one GPU through the native library;
// synthesis and the final assembly stay on the CPU. Its proofs equal the
// CPU prover's for the same r and s.
//
// With the proving key resident on the device (Preload, or the first Prove
// when the key fits), a proof walks gpulock's protocol on its own stream:
// reserve its buffers, upload a, b, c and the aux assignment, take the
// compute lock for H and the MSMs, release it, then free. Several goroutines
// may call Prove at once (one per worker); their uploads overlap each
// other's kernels. When the key does not fit, each MSM streams its section
// from host memory through the synchronous entries instead.
//
// A CUDAProver must not be copied after first use; Close frees its keys.
type CUDAProver struct {
	Device int
	// Gate, if set, admits proofs (and resident keys) through the device's
	// VRAM ledger and compute lock. Without it, proofs still run on their
	// own streams but nothing bounds how many share the device.
	Gate *gpulock.Device
	// NoResident keeps keys in host memory (the streaming path) even when
	// they would fit on the device.
	NoResident bool

	mu   sync.Mutex
	keys map[*ProvingKey]*DeviceKey
	// unfit remembers keys found too large for the device.
	unfit map[*ProvingKey]bool
}

var _ Prover = (*CUDAProver)(nil)

// Prove implements Prover.
func (p *CUDAProver) Prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, opts ...ProveOption) (*Proof, error) {
	proof, err := p.prove(ctx, pk, w, opts)
	return proof, classifyDevice(err)
}

func (p *CUDAProver) prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, opts []ProveOption) (*Proof, error) {
	if !native.Available() {
		return nil, fmt.Errorf("groth16: CUDA prover: %w", native.ErrNotAvailable)
	}
	begin := time.Now()
	dk, uploaded, err := p.residentKey(ctx, pk)
	if err != nil {
		return nil, err
	}
	if uploaded { // the first proof with this key pays for its upload
		if cfg := configure(opts); cfg.phases != nil {
			cfg.phases("key_upload", begin, time.Now(), "device", p.Device, "bytes", KeyBytes(pk.Counts()))
		}
	}
	if dk == nil {
		return p.proveStreaming(ctx, pk, w, opts)
	}
	synth.AppendInputRows(w, len(w.Inputs))
	return ProveResident(ctx, p.Gate, dk, pk.VerifyingKey(), w, opts...)
}

// Preload uploads pk's query points to the device and keeps them there
// until Evict or Close. It fails when they do not fit.
func (p *CUDAProver) Preload(ctx context.Context, pk *ProvingKey) error {
	return classifyDevice(p.preload(ctx, pk))
}

func (p *CUDAProver) preload(ctx context.Context, pk *ProvingKey) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.keys[pk] != nil {
		return nil
	}
	dk, err := UploadKey(ctx, p.Device, p.Gate, pk)
	if err != nil {
		return err
	}
	if p.keys == nil {
		p.keys = map[*ProvingKey]*DeviceKey{}
	}
	p.keys[pk] = dk
	return nil
}

// Evict frees pk's device copy, if any. Proofs running with it must have
// finished.
func (p *CUDAProver) Evict(pk *ProvingKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if dk := p.keys[pk]; dk != nil {
		dk.Free()
		delete(p.keys, pk)
	}
}

// Close evicts every key and frees the idle pinned staging chunks.
func (p *CUDAProver) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for pk, dk := range p.keys {
		dk.Free()
		delete(p.keys, pk)
	}
	freeIdleStaging()
	return nil
}

// residentKey returns pk's device copy, uploading it when it fits the
// device (nil when it does not or NoResident is set); uploaded says this
// call did the upload.
func (p *CUDAProver) residentKey(ctx context.Context, pk *ProvingKey) (dk *DeviceKey, uploaded bool, err error) {
	if p.NoResident {
		return nil, false, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if dk := p.keys[pk]; dk != nil {
		return dk, false, nil
	}
	if p.unfit[pk] {
		return nil, false, nil
	}
	need := KeyBytes(pk.Counts()) + proofDeviceBytes(pk.Counts(), pk.Counts().H+1, pk.Counts().L)
	if p.Gate != nil {
		if need > p.Gate.Budget() {
			p.markUnfit(pk)
			return nil, false, nil
		}
	} else if free, total, err := native.MemInfo(p.Device); err != nil || int64(free) < need+deviceMarginBytes(int64(total)) {
		p.markUnfit(pk)
		return nil, false, nil
	}
	dk, err = uploadKey(ctx, p.Device, p.Gate, pk, false)
	if errors.Is(err, errKeyNoRoom) {
		return nil, false, nil // stream this proof; try again next time
	}
	if errors.Is(err, native.ErrOutOfMemory) || errors.Is(err, gpulock.ErrTooLarge) {
		p.markUnfit(pk)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if p.keys == nil {
		p.keys = map[*ProvingKey]*DeviceKey{}
	}
	p.keys[pk] = dk
	return dk, true, nil
}

func (p *CUDAProver) markUnfit(pk *ProvingKey) {
	if p.unfit == nil {
		p.unfit = map[*ProvingKey]bool{}
	}
	p.unfit[pk] = true
}

// DeviceKey is a proving key's query points (h, l, a, b_g1, b_g2) resident
// in one device's memory. When uploaded through a gate it holds a ledger
// reservation of its size until Free.
type DeviceKey struct {
	device          int
	counts          SectionCounts
	h, l, a, b1, b2 *native.Buffer
	job             *gpulock.Job
	once            sync.Once
}

// errKeyNoRoom reports that a key's reservation is not free right now.
var errKeyNoRoom = errors.New("groth16: no room for the resident key now")

// allocKey allocates the sections of a key with counts c on the device,
// reserving them in gate (if any) first: waiting for the room when wait is
// set, else failing with errKeyNoRoom at once (a key held for hours must
// not queue ahead of proofs).
func allocKey(ctx context.Context, device int, gate *gpulock.Device, c SectionCounts, wait bool) (*DeviceKey, error) {
	dk := &DeviceKey{device: device, counts: c}
	if gate != nil {
		dk.job = gate.NewJob()
		if wait {
			if err := dk.job.Reserve(ctx, KeyBytes(c)); err != nil {
				return nil, fmt.Errorf("groth16: resident key: %w", err)
			}
		} else if ok, err := dk.job.TryReserve(KeyBytes(c)); err != nil {
			return nil, fmt.Errorf("groth16: resident key: %w", err)
		} else if !ok {
			return nil, errKeyNoRoom
		}
	}
	sizes := []struct {
		buf   **native.Buffer
		bytes int64
	}{{&dk.h, int64(c.H) * g1Bytes}, {&dk.l, int64(c.L) * g1Bytes}, {&dk.a, int64(c.A) * g1Bytes},
		{&dk.b1, int64(c.B) * g1Bytes}, {&dk.b2, int64(c.B) * g2Bytes}}
	for _, s := range sizes {
		b, err := native.Alloc(device, nil, s.bytes)
		if err != nil {
			dk.Free()
			return nil, fmt.Errorf("groth16: resident key: %w", err)
		}
		*s.buf = b
	}
	return dk, nil
}

// UploadKey copies pk's query points to the device, waiting for room in
// gate (which may be nil).
func UploadKey(ctx context.Context, device int, gate *gpulock.Device, pk *ProvingKey) (*DeviceKey, error) {
	return uploadKey(ctx, device, gate, pk, true)
}

func uploadKey(ctx context.Context, device int, gate *gpulock.Device, pk *ProvingKey, wait bool) (*DeviceKey, error) {
	dk, err := allocKey(ctx, device, gate, pk.Counts(), wait)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			dk.Free()
		}
	}()
	s, err := native.NewStream(device)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	g1 := []struct {
		buf *native.Buffer
		get func(context.Context) ([]bls12381.G1Affine, error)
	}{{dk.h, pk.H}, {dk.l, pk.L}, {dk.a, pk.A}, {dk.b1, pk.BG1}}
	for _, sec := range g1 {
		pts, err := sec.get(ctx)
		if err != nil {
			return nil, err
		}
		if err := s.CopyToDevice(sec.buf, 0, native.AsBytes(pts)); err != nil {
			return nil, err
		}
	}
	b2, err := pk.BG2(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.CopyToDevice(dk.b2, 0, native.AsBytes(b2)); err != nil {
		return nil, err
	}
	if err := s.Sync(); err != nil {
		return nil, err
	}
	ok = true
	return dk, nil
}

// NewTiledDeviceKey fills a device key of the given counts by repeating
// tile1 (G1) and tile2 (G2): the right sizes for timing, NOT a proving key.
// Proofs made with it do not verify. For benchmarks only.
func NewTiledDeviceKey(ctx context.Context, device int, gate *gpulock.Device, c SectionCounts,
	tile1 []bls12381.G1Affine, tile2 []bls12381.G2Affine) (*DeviceKey, error) {
	if len(tile1) == 0 || len(tile2) == 0 {
		return nil, errors.New("groth16: tiled key needs non-empty tiles")
	}
	dk, err := allocKey(ctx, device, gate, c, true)
	if err != nil {
		return nil, err
	}
	s, err := native.NewStream(device)
	if err != nil {
		dk.Free()
		return nil, err
	}
	defer s.Close()
	fill := func(buf *native.Buffer, n int, tile []byte, tileLen int, size int64) error {
		for i := 0; i < n; i += tileLen {
			k := min(tileLen, n-i)
			if err := s.CopyToDevice(buf, int64(i)*size, tile[:int64(k)*size]); err != nil {
				return err
			}
		}
		return nil
	}
	t1 := native.AsBytes(tile1)
	for _, sec := range []struct {
		buf *native.Buffer
		n   int
	}{{dk.h, c.H}, {dk.l, c.L}, {dk.a, c.A}, {dk.b1, c.B}} {
		if err := fill(sec.buf, sec.n, t1, len(tile1), g1Bytes); err != nil {
			dk.Free()
			return nil, err
		}
	}
	if err := fill(dk.b2, c.B, native.AsBytes(tile2), len(tile2), g2Bytes); err != nil {
		dk.Free()
		return nil, err
	}
	if err := s.Sync(); err != nil {
		dk.Free()
		return nil, err
	}
	return dk, nil
}

// Counts returns the key's section sizes.
func (dk *DeviceKey) Counts() SectionCounts { return dk.counts }

// Free releases the device memory and the key's reservation.
func (dk *DeviceKey) Free() {
	dk.once.Do(func() {
		for _, b := range []*native.Buffer{dk.h, dk.l, dk.a, dk.b1, dk.b2} {
			b.Free()
		}
		if dk.job != nil {
			dk.job.Done()
		}
	})
}

// ProveResident proves w (its input rows already appended) with a resident
// key on the key's device, walking gate's protocol when gate is set. vk
// supplies the constant points of the proof. The proof equals the CPU
// prover's for the same r and s; with a tiled key it does not verify.
func ProveResident(ctx context.Context, gate *gpulock.Device, dk *DeviceKey, vk *VerifyingKey, w *synth.ProvingAssignment, opts ...ProveOption) (*Proof, error) {
	cfg := configure(opts)
	t := cfg.timings
	start := time.Now()
	r, s, err := blinding(&cfg)
	if err != nil {
		return nil, err
	}
	m, err := checkCounts(dk.counts, vk, w)
	if err != nil {
		return nil, err
	}
	logM := uint32(bits.Len(uint(m)) - 1)
	phase := func(name string, begin time.Time, args ...any) time.Duration {
		end := time.Now()
		if cfg.phases != nil {
			cfg.phases(name, begin, end, append([]any{"device", dk.device}, args...)...)
		}
		return end.Sub(begin)
	}

	// Reserve before allocating anything.
	var job *gpulock.Job
	if gate != nil {
		job = gate.NewJob()
		defer job.Done()
		begin := time.Now()
		reserve := proofDeviceBytes(dk.counts, m, len(w.Aux))
		if err := job.Reserve(ctx, reserve); err != nil {
			return nil, fmt.Errorf("groth16: %w", err)
		}
		phase("wait_vram", begin, "bytes", reserve)
	}
	st, err := native.NewStream(dk.device)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var bufs []*native.Buffer
	defer func() {
		for _, b := range bufs {
			b.Free()
		}
	}()
	alloc := func(bytes int64) (*native.Buffer, error) {
		b, err := native.Alloc(dk.device, st, bytes)
		if err == nil {
			bufs = append(bufs, b)
		}
		return b, err
	}

	// Upload a, b, c (zero-padded to m), aux and inputs.
	var abc [3]*native.Buffer
	var aux, inputs *native.Buffer
	upload := func() error {
		begin := time.Now()
		bytes := int64(len(w.A)+len(w.B)+len(w.C)+len(w.Aux)+len(w.Inputs)) * frSize
		defer phase("upload", begin, "bytes", bytes)
		for i, v := range [][]fr.Element{w.A, w.B, w.C} {
			b, err := alloc(int64(m) * frSize)
			if err != nil {
				return err
			}
			abc[i] = b
			if err := uploadFr(st, b, 0, v); err != nil {
				return err
			}
			n := int64(len(v)) * frSize
			if err := st.Zero(b, n, int64(m)*frSize-n); err != nil {
				return err
			}
		}
		for _, x := range []struct {
			dst **native.Buffer
			v   []fr.Element
		}{{&aux, w.Aux}, {&inputs, w.Inputs}} {
			b, err := alloc(max(int64(len(x.v)), 1) * frSize)
			if err != nil {
				return err
			}
			*x.dst = b
			if err := uploadFr(st, b, 0, x.v); err != nil {
				return err
			}
		}
		return st.Sync()
	}
	if job != nil {
		err = job.Upload(upload)
	} else {
		err = upload()
	}
	if err != nil {
		return nil, fmt.Errorf("groth16: upload: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if job != nil {
		begin := time.Now()
		if err := job.Compute(ctx); err != nil {
			return nil, fmt.Errorf("groth16: %w", err)
		}
		phase("wait_compute", begin)
	}

	var hAcc, lAcc, aAcc, b1Acc bls12381.G1Jac
	var b2Acc bls12381.G2Jac
	nIn := len(w.Inputs)
	bIn := w.BInput.Count()
	g1 := func(acc *bls12381.G1Jac, parts ...native.DeviceMSM) error {
		*acc = bls12381.G1Jac{} // Z = 0: the point at infinity for AddAssign
		for _, part := range parts {
			r, err := st.MSMG1(part)
			if err != nil {
				return err
			}
			acc.AddAssign(&r)
		}
		return nil
	}
	steps := []struct {
		name   string
		points int
		d      *time.Duration
		f      func() error
	}{
		{"H", m, &t.H, func() error {
			if err := st.HDevice(abc[0], abc[1], abc[2], logM); err != nil {
				return err
			}
			abc[1].Free()
			abc[2].Free()
			// The MSMs read canonical scalars.
			for _, x := range []struct {
				b *native.Buffer
				n int
			}{{abc[0], m - 1}, {aux, len(w.Aux)}, {inputs, nIn}} {
				if err := st.FrFromMont(x.b, 0, x.n); err != nil {
					return err
				}
			}
			return st.Sync()
		}},
		{"msm_h", m - 1, &t.MSMH, func() error {
			return g1(&hAcc, native.DeviceMSM{Bases: dk.h, NBases: m - 1, Scalars: abc[0], NScalars: m - 1, Canonical: true})
		}},
		{"msm_l", len(w.Aux), &t.MSML, func() error {
			return g1(&lAcc, native.DeviceMSM{Bases: dk.l, NBases: len(w.Aux), Scalars: aux, NScalars: len(w.Aux), Canonical: true})
		}},
		{"msm_a", dk.counts.A, &t.MSMA, func() error {
			return g1(&aAcc,
				native.DeviceMSM{Bases: dk.a, NBases: nIn, Scalars: inputs, NScalars: nIn, Canonical: true},
				native.DeviceMSM{Bases: dk.a, BasesOff: int64(nIn) * g1Bytes, NBases: w.AAux.Count(),
					Scalars: aux, NScalars: len(w.Aux), Density: w.AAux.Words, Canonical: true})
		}},
		{"msm_b_g1", dk.counts.B, &t.MSMBG1, func() error {
			return g1(&b1Acc,
				native.DeviceMSM{Bases: dk.b1, NBases: bIn, Scalars: inputs, NScalars: nIn, Density: w.BInput.Words, Canonical: true},
				native.DeviceMSM{Bases: dk.b1, BasesOff: int64(bIn) * g1Bytes, NBases: w.BAux.Count(),
					Scalars: aux, NScalars: len(w.Aux), Density: w.BAux.Words, Canonical: true})
		}},
		{"msm_b_g2", dk.counts.B, &t.MSMBG2, func() error {
			in, err := st.MSMG2(native.DeviceMSM{Bases: dk.b2, NBases: bIn, Scalars: inputs, NScalars: nIn, Density: w.BInput.Words, Canonical: true})
			if err != nil {
				return err
			}
			rest, err := st.MSMG2(native.DeviceMSM{Bases: dk.b2, BasesOff: int64(bIn) * g2Bytes, NBases: w.BAux.Count(),
				Scalars: aux, NScalars: len(w.Aux), Density: w.BAux.Words, Canonical: true})
			b2Acc = *in.AddAssign(&rest)
			return err
		}},
	}
	for _, stp := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		begin := time.Now()
		err := stp.f()
		*stp.d = phase(stp.name, begin, "points", stp.points)
		if err != nil {
			return nil, fmt.Errorf("groth16: %s on GPU %d: %w", stp.name, dk.device, err)
		}
	}
	if job != nil {
		if err := job.EndCompute(); err != nil {
			return nil, err
		}
	}
	// Read-back: the results are already on the host; free the buffers in
	// stream order and wait, so the reservation ends after the memory is
	// really back in the pool.
	readBack := func() error {
		begin := time.Now()
		defer phase("readback", begin)
		for _, b := range bufs {
			b.Free()
		}
		bufs = nil
		return st.Sync()
	}
	if job != nil {
		err = job.ReadBack(readBack)
	} else {
		err = readBack()
	}
	if err != nil {
		return nil, err
	}
	proof := assemble(vk, &r, &s, &hAcc, &lAcc, &aAcc, &b1Acc, &b2Acc)
	t.Total = time.Since(start)
	return proof, nil
}

// checkCounts is checkShape against bare section counts.
func checkCounts(c SectionCounts, vk *VerifyingKey, w *synth.ProvingAssignment) (int, error) {
	n := w.NumRows()
	if n < 2 {
		return 0, fmt.Errorf("%w: circuit has %d rows", ErrKeyMismatch, n)
	}
	if n > maxDomain {
		return 0, fmt.Errorf("%w: %d rows exceed the field's 2-adicity", ErrKeyMismatch, n)
	}
	m := synth.DomainSize(n)
	nIn := len(w.Inputs)
	switch {
	case len(vk.IC) != nIn:
		return 0, fmt.Errorf("%w: circuit has %d inputs (ONE included), key %d", ErrKeyMismatch, nIn, len(vk.IC))
	case c.H != m-1:
		return 0, fmt.Errorf("%w: domain 2^%d needs %d h points, key has %d", ErrKeyMismatch, bits.Len(uint(m))-1, m-1, c.H)
	case c.L != len(w.Aux):
		return 0, fmt.Errorf("%w: circuit has %d aux variables, key has %d l points", ErrKeyMismatch, len(w.Aux), c.L)
	case c.A != nIn+w.AAux.Count():
		return 0, fmt.Errorf("%w: circuit needs %d a points, key has %d", ErrKeyMismatch, nIn+w.AAux.Count(), c.A)
	case c.B != w.BInput.Count()+w.BAux.Count():
		return 0, fmt.Errorf("%w: circuit needs %d b points, key has %d", ErrKeyMismatch, w.BInput.Count()+w.BAux.Count(), c.B)
	}
	return m, nil
}

// proveStreaming is the path for keys that do not fit the device: the
// synchronous entries upload each section per call.
func (p *CUDAProver) proveStreaming(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, opts []ProveOption) (*Proof, error) {
	if p.Gate != nil {
		job := p.Gate.NewJob()
		defer job.Done()
		if err := job.Reserve(ctx, streamingBytes(pk, w)); err != nil {
			return nil, err
		}
		if err := job.Compute(ctx); err != nil {
			return nil, err
		}
	}
	h := func(ctx context.Context, a, b, c []fr.Element, m int) ([]fr.Element, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out := make([]fr.Element, m)
		if err := native.H(p.Device, a, b, c, out); err != nil {
			return nil, err
		}
		return out, ctx.Err()
	}
	return prove(ctx, pk, w, msm.CUDA{Device: p.Device}, h, opts)
}

package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// keyEntry is one parameter file's loaded key, shared by the proof types
// that use the file (V1 and V1_1 of a sector size share their circuit and
// so Filecoin's file).
type keyEntry struct {
	pk    *groth16.ProvingKey
	path  string
	bytes int64 // file size: what the decoded sections occupy on the host
	refs  int   // proofs using it now, of every type bound to it
	// onDevices: every GPU holds the key and its host sections were
	// dropped (Preload), so it no longer counts against the host budget.
	onDevices bool

	pvkOnce sync.Once
	pvk     *groth16.PreparedVerifyingKey
}

func (e *keyEntry) prepared() *groth16.PreparedVerifyingKey {
	e.pvkOnce.Do(func() { e.pvk = groth16.PrepareVerifyingKey(e.pk.VerifyingKey()) })
	return e.pvk
}

// shape is what the pipeline needs to know of a proof type's partition circuit.
type shape struct {
	sizes      synth.Sizes // inputs (with ONE), aux, rows without the input rows
	hint       synth.Sizes // capacity of a proving assignment: rows padded to the domain
	domain     int64
	bytes      int64 // host bytes of one partition's working set
	partitions int
}

func newShape(t abi.RegisteredSealProof) (*shape, error) {
	cp, err := porep.CircuitParams(t)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	sp, err := porep.ParamsFor(t)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	s := &shape{sizes: cp.Sizes(), partitions: sp.Partitions}
	s.domain = domainSize(s.sizes)
	s.hint = s.sizes
	s.hint.Rows = int(s.domain)
	s.bytes = groth16.PartitionHostBytes(s.sizes)
	return s, nil
}

// domainSize is the evaluation domain of a circuit: the rows, with one
// input row per input, rounded up to a power of two.
func domainSize(sz synth.Sizes) int64 {
	return int64(sz.Domain())
}

func (p *Prover) shape(t abi.RegisteredSealProof) (*shape, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.shapes[t]; s != nil {
		return s, nil
	}
	s, err := newShape(t)
	if err != nil {
		return nil, err
	}
	p.shapes[t] = s
	return s, nil
}

// acquireKey returns t's parameters, loading them on first use, and counts
// a user until releaseKey. Keys are cached per file: a type whose file is
// already loaded for another type (V1 and V1_1) shares that load.
func (p *Prover) acquireKey(ctx context.Context, t abi.RegisteredSealProof) (*keyEntry, error) {
	if e, err := p.cachedKey(t); e != nil || err != nil {
		return e, err // loaded: no wait behind another type's load
	}
	p.loadMu.Lock()
	defer p.loadMu.Unlock()
	if e, err := p.cachedKey(t); e != nil || err != nil {
		return e, err
	}

	src, err := p.findKey(t)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	e := p.files[src.params]
	p.mu.Unlock()
	loaded := e == nil
	if loaded {
		if e, err = p.openKey(ctx, t, src); err != nil {
			return nil, err
		}
	}
	if err := checkKeyShape(e.pk, t); err != nil {
		if loaded {
			e.pk.Close()
		}
		return nil, fmt.Errorf("%s: %w", e.path, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		if loaded {
			e.pk.Close()
		}
		return nil, ErrClosed
	}
	e.refs++
	p.keys[t] = e
	if loaded {
		p.files[e.path] = e
		p.updateResident()
	}
	return e, nil
}

// cachedKey returns t's loaded parameters with a user counted, or nil.
func (p *Prover) cachedKey(t abi.RegisteredSealProof) (*keyEntry, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	e := p.keys[t]
	if e != nil {
		e.refs++
	}
	return e, nil
}

func (p *Prover) releaseKey(t abi.RegisteredSealProof) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.keys[t]; e != nil {
		e.refs--
	}
}

// updateResident shrinks an automatic host budget by the loaded parameters.
// p.mu is held.
func (p *Prover) updateResident() {
	if !p.budgetAuto {
		return
	}
	var n int64
	for _, e := range p.files {
		if !e.onDevices {
			n += e.bytes
		}
	}
	p.budget.setResident(n)
}

// keySource is where a proof type's parameters come from: Filecoin's
// .params and .vk files, or (vk empty) a TEST-ONLY setup under
// Config.TestParamsDir, which TestParams creates if it is missing.
type keySource struct {
	params, vk string
}

// findKey locates t's parameters without opening them: the real files
// first; else, with TestParamsDir set, an existing TEST-ONLY file of any
// size, or the path where one is created for a test size. A larger size
// without either is an error wrapping ErrParamsMissing that says how to
// make a TEST-ONLY file.
func (p *Prover) findKey(t abi.RegisteredSealProof) (keySource, error) {
	params, vk, err := FindParams(p.cfg.ParamsDir, t)
	if err == nil {
		return keySource{params: params, vk: vk}, nil
	}
	if !errors.Is(err, ErrParamsMissing) || p.cfg.TestParamsDir == "" {
		return keySource{}, err
	}
	path := TestParamsPath(p.cfg.TestParamsDir, t)
	if _, statErr := os.Stat(path); statErr == nil || IsTestSize(t) {
		return keySource{params: path}, nil
	}
	return keySource{}, fmt.Errorf("%w; and no TEST-ONLY setup at %s: %s", err, path, testSetupHint(t, p.cfg.TestParamsDir))
}

func (p *Prover) openKey(ctx context.Context, t abi.RegisteredSealProof, src keySource) (*keyEntry, error) {
	if src.vk != "" {
		pk, err := OpenParamsContext(ctx, src.params, src.vk)
		if err != nil {
			return nil, paramsError(src.params, err)
		}
		p.log.Info("parameters opened", "proof", porep.ProofName(t), "file", src.params)
		return &keyEntry{pk: pk, path: src.params, bytes: fileSize(src.params)}, nil
	}
	pk, path, created, err := TestParams(ctx, p.cfg.TestParamsDir, t)
	if err != nil {
		return nil, paramsError(src.params, err)
	}
	p.log.Warn("using TEST-ONLY parameters (local toxic waste: proofs are not valid on chain)", "proof", porep.ProofName(t), "file", path, "created", created)
	return &keyEntry{pk: pk, path: path, bytes: fileSize(path)}, nil
}

// paramsError classifies an error of opening a parameter file.
func paramsError(path string, err error) error {
	switch {
	case errors.Is(err, ErrParamsMissing), errors.Is(err, ErrParamsCorrupt):
		return err
	case errors.Is(err, groth16.ErrMalformedKey), errors.Is(err, groth16.ErrKeyMismatch):
		return fmt.Errorf("%w: %s: %w", ErrParamsCorrupt, path, err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %w", ErrParamsMissing, err)
	}
	return err
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// checkKeyShape checks the section counts a key must have for t's circuit,
// so a key of another circuit is refused before any synthesis.
func checkKeyShape(pk *groth16.ProvingKey, t abi.RegisteredSealProof) error {
	s, err := newShape(t)
	if err != nil {
		return err
	}
	c := pk.Counts()
	ic := len(pk.VerifyingKey().IC)
	switch {
	case ic != s.sizes.Inputs:
		return fmt.Errorf("%w: the key has %d public inputs, the %v circuit %d", ErrParamsCorrupt, ic, porep.ProofName(t), s.sizes.Inputs)
	case int64(c.H) != s.domain-1:
		return fmt.Errorf("%w: the key has %d h points, the %v circuit needs %d", ErrParamsCorrupt, c.H, porep.ProofName(t), s.domain-1)
	case c.L != s.sizes.Aux:
		return fmt.Errorf("%w: the key has %d l points, the %v circuit has %d aux variables", ErrParamsCorrupt, c.L, porep.ProofName(t), s.sizes.Aux)
	case c.A > s.sizes.Inputs+s.sizes.Aux || c.B > s.sizes.Inputs+s.sizes.Aux:
		return fmt.Errorf("%w: the key's a (%d) or b (%d) section is larger than the %v circuit", ErrParamsCorrupt, c.A, c.B, porep.ProofName(t))
	}
	return nil
}

// Preload loads t's parameters and decodes every section now, so that the
// first proof of t does not pay for it, and with the CUDA backend uploads
// them to each GPU (an error wrapping ErrOutOfDeviceMemory when they do not
// fit; proofs then stream them from the host). They stay loaded until Evict
// or Close.
func (p *Prover) Preload(ctx context.Context, t abi.RegisteredSealProof) error {
	return guard(p.log, "Preload", func() error { return p.preload(ctx, t) })
}

func (p *Prover) preload(ctx context.Context, t abi.RegisteredSealProof) error {
	if err := p.enter(); err != nil {
		return err
	}
	defer p.leave()
	span := p.tracer.Begin(requestTrack, "parameter load", "proof", porep.ProofName(t), "preload", true)
	defer span.End()
	e, err := p.acquireKey(ctx, t)
	if err != nil {
		return err
	}
	defer p.releaseKey(t)
	p.mu.Lock()
	done := e.onDevices
	p.mu.Unlock()
	if done { // an earlier Preload put it on every GPU: decoding it again would only be dropped
		return nil
	}
	g1 := []func(context.Context) ([]bls12381.G1Affine, error){e.pk.H, e.pk.L, e.pk.A, e.pk.BG1}
	for _, f := range g1 {
		if _, err := f(ctx); err != nil {
			return paramsError(e.path, err)
		}
	}
	if _, err := e.pk.BG2(ctx); err != nil {
		return paramsError(e.path, err)
	}
	if !p.cfg.SkipSelfVerify {
		e.prepared()
	}
	uploaded := len(p.deviceProvers) > 0
	for _, d := range p.deviceProvers {
		if err := d.Preload(ctx, e.pk); err != nil {
			return classify(err)
		}
	}
	if uploaded {
		// Every GPU holds the key: drop the decoded host sections of a
		// file-backed key (about 44 GiB at 32 GiB); they are decoded again
		// only if a proof ever has to stream them. The mapped file's pages
		// leave the resident set too, and the freed heap goes back to the
		// OS now rather than at the scavenger's pace.
		e.pk.Evict()
		p.mu.Lock()
		e.onDevices = true
		p.updateResident()
		p.mu.Unlock()
		debug.FreeOSMemory()
	}
	return nil
}

// Evict releases t's parameters (those of its file, so also of another
// proof type sharing the file, as V1 and V1_1 do): unused ones leave the
// GPUs, are unmapped and forgotten (the next proof loads them again); ones
// in use by a proof drop their decoded host sections, which are decoded
// again on demand. Cached proving assignments of t's shape are freed too.
func (p *Prover) Evict(t abi.RegisteredSealProof) error {
	if err := p.enter(); err != nil {
		return err
	}
	defer p.leave()
	p.loadMu.Lock()
	defer p.loadMu.Unlock()
	p.mu.Lock()
	e := p.keys[t]
	s := p.shapes[t]
	var err error
	if e != nil {
		if e.refs > 0 {
			e.pk.Evict()
		} else {
			for u, f := range p.keys {
				if f == e {
					delete(p.keys, u)
				}
			}
			delete(p.files, e.path)
			for _, d := range p.deviceProvers {
				d.Evict(e.pk)
			}
			err = e.pk.Close()
			p.updateResident()
		}
	}
	p.mu.Unlock()
	if s != nil {
		p.budget.dropPool(&s.hint)
	}
	return err
}

package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/synth/pce"
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
	// dropped (preload), so it no longer counts against the host budget.
	onDevices bool

	pvkOnce sync.Once
	pvk     *groth16.PreparedVerifyingKey

	matricesMu        sync.Mutex
	matrices          *pce.Matrices // the circuit's, recorded on its first proof (matricesFor)
	matricesOnDevices bool          // every GPU evaluates a, b, c from them
	// matricesLoad is a load of matrices a preload started beside the
	// key's, until matricesFor takes it over.
	matricesLoad *matricesLoad
	// matricesHostBytes is the host memory the matrices hold (their heap
	// copy, and a pinned one for streaming GPUs); guarded by the cache's mu.
	matricesHostBytes int64
}

func (e *keyEntry) prepared() *groth16.PreparedVerifyingKey {
	e.pvkOnce.Do(func() { e.pvk = groth16.PrepareVerifyingKey(e.pk.VerifyingKey()) })
	return e.pvk
}

// keyCache holds the loaded parameters: each file loaded once, on first
// use, and kept until evicted or closed.
type keyCache struct {
	paramsDir, testParamsDir string
	log                      *slog.Logger
	devices                  *gpu.Devices    // the GPUs that may hold a copy of a key; nil on the CPU
	closing                  <-chan struct{} // closed when the Prover closes: no more loads
	// resident, if set, is told the host bytes of the loaded keys (an
	// automatic host budget leaves room for them).
	resident func(int64)

	loadMu sync.Mutex // one load at a time
	mu     sync.Mutex
	byType map[circuits.Type]*keyEntry // each type's entry of byFile
	byFile map[string]*keyEntry        // by the file's path
}

func newKeyCache(cfg Config, devices *gpu.Devices, closing <-chan struct{}) *keyCache {
	return &keyCache{paramsDir: cfg.ParamsDir, testParamsDir: cfg.TestParamsDir, log: cfg.Logger, devices: devices,
		closing: closing, byType: map[circuits.Type]*keyEntry{}, byFile: map[string]*keyEntry{}}
}

func (c *keyCache) closed() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

// acquire returns t's parameters, loading them on first use, and counts
// a user until release. A type whose file is already loaded for another
// type (V1 and V1_1) shares that load.
func (c *keyCache) acquire(ctx context.Context, t circuits.Type) (*keyEntry, error) {
	if e, err := c.cached(t); e != nil || err != nil {
		return e, err // loaded: no wait behind another type's load
	}
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	if e, err := c.cached(t); e != nil || err != nil {
		return e, err
	}

	src, err := c.find(t)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	e := c.byFile[src.params]
	c.mu.Unlock()
	loaded := e == nil
	if loaded {
		if e, err = c.open(ctx, t, src); err != nil {
			return nil, err
		}
	}
	if err := checkKeyShape(e.pk, t); err != nil {
		if loaded {
			e.pk.Close()
		}
		return nil, fmt.Errorf("%s: %w", e.path, err)
	}
	if c.devices != nil { // before any synthesis: a limit too small for this type
		if err := c.devices.CheckKey(e.pk); err != nil {
			if loaded {
				e.pk.Close()
			}
			return nil, fmt.Errorf("%v: %w", t, err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed() {
		if loaded {
			e.pk.Close()
		}
		return nil, ErrClosed
	}
	e.refs++
	c.byType[t] = e
	if loaded {
		c.byFile[e.path] = e
		c.updateResidentLocked()
	}
	return e, nil
}

// cached returns t's loaded parameters with a user counted, or nil.
func (c *keyCache) cached(t circuits.Type) (*keyEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed() {
		return nil, ErrClosed
	}
	e := c.byType[t]
	if e != nil {
		e.refs++
	}
	return e, nil
}

func (c *keyCache) release(t circuits.Type) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byType[t]; e != nil {
		e.refs--
	}
}

// loaded returns t's parameters if they are loaded, without counting a user.
func (c *keyCache) loaded(t circuits.Type) *keyEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byType[t]
}

// boundTypes are the types bound to a loaded file that match, in no order.
func (c *keyCache) boundTypes(match func(circuits.Type) bool) []circuits.Type {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []circuits.Type
	for t := range c.byType {
		if match(t) {
			out = append(out, t)
		}
	}
	return out
}

// sealTypes are the seal proof types whose parameters are loaded, in order.
func (c *keyCache) sealTypes() []abi.RegisteredSealProof {
	c.mu.Lock()
	var out []abi.RegisteredSealProof
	for t := range c.byType {
		if s, ok := sealType(t); ok {
			out = append(out, s)
		}
	}
	c.mu.Unlock()
	slices.Sort(out)
	return out
}

// anyKey is a loaded key, the first by path; nil when none is.
func (c *keyCache) anyKey() *groth16.ProvingKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first *keyEntry
	for path, e := range c.byFile {
		if first == nil || path < first.path {
			first = e
		}
	}
	if first == nil {
		return nil
	}
	return first.pk
}

// status describes each loaded file, in path order.
func (c *keyCache) status() []KeyStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []KeyStatus
	for path, e := range c.byFile {
		ks := KeyStatus{Path: path, Bytes: e.bytes, InUse: e.refs, Tier: KeyHost}
		var types []circuits.Type
		for t, bound := range c.byType {
			if bound == e {
				addKeyType(&ks, t)
				types = append(types, t)
			}
		}
		slices.Sort(ks.Types)
		slices.Sort(ks.UpdateTypes)
		slices.Sort(ks.PoStTypes)
		ks.Circuits = keyCircuits(types)
		var onAll, pinned bool
		if c.devices != nil {
			onAll, pinned = c.devices.KeyHeld(e.pk)
		}
		switch {
		case onAll:
			ks.Tier = KeyOnDevice
		case pinned:
			ks.Tier = KeyPinned
		}
		out = append(out, ks)
	}
	slices.SortFunc(out, func(a, b KeyStatus) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// updateResidentLocked tells resident the host bytes of the loaded keys
// and their constraint matrices.
func (c *keyCache) updateResidentLocked() {
	if c.resident == nil {
		return
	}
	var n int64
	for _, e := range c.byFile {
		if !e.onDevices {
			n += e.bytes
		}
		n += e.matricesHostBytes
	}
	c.resident(n)
}

// setMatricesHostBytes records the host bytes of e's matrices, which an
// automatic host budget then leaves room for (until e is evicted).
func (c *keyCache) setMatricesHostBytes(e *keyEntry, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.matricesHostBytes = n
	c.updateResidentLocked()
}

// keySource is where a proof type's parameters come from: Filecoin's
// .params and .vk files, or (vk empty) a TEST-ONLY setup under
// Config.TestParamsDir, which TestParams creates if it is missing.
type keySource struct {
	params, vk string
}

// find locates t's parameters without opening them: the real files
// first; else, with a TEST-ONLY directory, an existing TEST-ONLY file of any
// size, or the path where one is created for a test size. A larger size
// without either is an error wrapping ErrParamsMissing that says how to
// make a TEST-ONLY file.
func (c *keyCache) find(t circuits.Type) (keySource, error) {
	params, vk, err := findParams(c.paramsDir, t)
	if err == nil {
		return keySource{params: params, vk: vk}, nil
	}
	if !errors.Is(err, ErrParamsMissing) || c.testParamsDir == "" {
		return keySource{}, missingParamsHint(err, t)
	}
	path := testParamsPath(c.testParamsDir, t)
	present, statErr := testParamsExist(path)
	if statErr != nil {
		return keySource{}, statErr
	}
	if present || t.OnDemandSetup() { // what is there, TestParams opens or names; else it creates a setup
		return keySource{params: path}, nil
	}
	return keySource{}, fmt.Errorf("%w; and no TEST-ONLY setup at %s: %s", err, path, testSetupHint(t, c.testParamsDir))
}

func (c *keyCache) open(ctx context.Context, t circuits.Type, src keySource) (*keyEntry, error) {
	if src.vk != "" {
		pk, err := OpenParamsContext(ctx, src.params, src.vk)
		if err != nil {
			return nil, paramsError(src.params, err)
		}
		c.log.Info("parameters opened", "proof", t.String(), "file", src.params)
		return &keyEntry{pk: pk, path: src.params, bytes: fileSize(src.params)}, nil
	}
	pk, path, created, err := testParams(ctx, c.testParamsDir, t)
	if err != nil {
		return nil, paramsError(src.params, err)
	}
	c.log.Warn("using TEST-ONLY parameters (local toxic waste: proofs are not valid on chain)", "proof", t.String(), "file", path, "created", created)
	return &keyEntry{pk: pk, path: path, bytes: fileSize(path)}, nil
}

// preload loads t's parameters and decodes every section now, with prepare
// also the prepared verifying key, and uploads them to every GPU. Once
// every GPU holds them, their host sections are dropped.
func (c *keyCache) preload(ctx context.Context, t circuits.Type, prepare bool) error {
	e, err := c.acquire(ctx, t)
	if err != nil {
		return err
	}
	defer c.release(t)
	c.mu.Lock()
	done := e.onDevices
	c.mu.Unlock()
	if done { // an earlier preload put it on every GPU: decoding it again would only be dropped
		return nil
	}
	if prepare {
		e.prepared()
	}
	if c.devices == nil { // the CPU: decode every section now
		g1 := []func(context.Context) ([]bls12381.G1Affine, error){e.pk.H, e.pk.L, e.pk.A, e.pk.BG1}
		for _, f := range g1 {
			if _, err := f(ctx); err != nil {
				return paramsError(e.path, err)
			}
		}
		if _, err := e.pk.BG2(ctx); err != nil {
			return paramsError(e.path, err)
		}
		return nil
	}
	// Each GPU uploads the key (resident mode) or it is decoded once into
	// pinned host memory (streaming mode), the host holding the sections in
	// flight while they load, not the whole key.
	var opts []gpu.PreloadOption
	if t.Kind().Urgent { // its proof waits for no other's device memory
		opts = append(opts, gpu.SetAsideProof())
	}
	resident, err := c.devices.Preload(ctx, e.pk, opts...)
	if err != nil {
		return paramsError(e.path, err)
	}
	// Drop the decoded host sections of a file-backed key (about 44 GiB at
	// 32 GiB): the GPUs hold the key or its pinned copy; the sections are
	// decoded again only if a proof ever needs them. The mapped file's
	// pages leave the resident set too, and the freed heap goes back to
	// the OS now rather than at the scavenger's pace. A pinned copy is host
	// memory: only a key on every GPU stops counting against the budget.
	e.pk.Evict()
	c.mu.Lock()
	e.onDevices = resident
	c.updateResidentLocked()
	c.mu.Unlock()
	debug.FreeOSMemory()
	return nil
}

// evict releases t's parameters (those of its file): unused ones leave
// the GPUs, are unmapped and forgotten; ones in use drop their decoded host
// sections, which are decoded again on demand.
func (c *keyCache) evict(t circuits.Type) error {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byType[t]
	switch {
	case e == nil:
		return nil
	case e.refs > 0:
		e.pk.Evict()
		return nil
	}
	for u, f := range c.byType {
		if f == e {
			delete(c.byType, u)
		}
	}
	delete(c.byFile, e.path)
	e.matricesMu.Lock() // not recording: loadMu keeps new proofs of this file out
	if c.devices != nil {
		c.devices.Evict(e.pk, e.matrices)
	}
	e.matrices = nil
	e.matricesMu.Unlock()
	err := e.pk.Close()
	c.updateResidentLocked()
	return err
}

// close unmaps every loaded file. The Prover calls it once no call is in
// flight, after closing the GPUs.
func (c *keyCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, e := range c.byFile {
		errs = append(errs, e.pk.Close())
	}
	clear(c.byType)
	clear(c.byFile)
	return errors.Join(errs...)
}

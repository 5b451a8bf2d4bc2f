package gpuc2

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/aggregate"
)

// SRSFileName is the inner-product SRS that SnarkPack aggregation and its
// verification read from the parameter directory (Config.ParamsDir),
// beside the Groth16 .params files: filecoin-proofs' v{VERSION}-{SRS_SHARED_KEY_NAME}.{SRS_KEY_EXT}
// (storage-proofs-core parameter_cache.rs), published with its digest in
// srs-inner-product.json (paramfetch, so `curio fetch-params` and
// `lotus fetch-params`, fetch it with the parameters).
const SRSFileName = "v28-fil-inner-product-v1.srs"

// srsDigest is srs-inner-product.json's digest of SRSFileName (rust-fil-proofs
// 87348a74): the first 16 bytes of the file's BLAKE2b-512, as for the
// .params files (groth16.CheckDigest).
const srsDigest = "ae20310138f5ba81451d723f858e3797"

// srsMaxProofs is the most proofs one aggregate may hold under Filecoin's
// SRS: filecoin-proofs reads aggregate.FilecoinSRSMaxLen powers of each
// vector, and n proofs need 2n.
const srsMaxProofs = aggregate.FilecoinSRSMaxLen / 2

// testSRSProofs is the most proofs the TEST-ONLY SRS serves: 8192, which
// covers every aggregate the chain takes (819 interactive sectors of 10
// partitions; 65 NI-PoRep sectors of 126) and every padded NI-PoRep
// C2 output (16 or 128 partitions). It takes about 3 s on 2 cores to make.
const testSRSProofs = 8192

// testSRSSeed seeds the TEST-ONLY SRS: every TEST-ONLY SRS is the same, so
// TEST-ONLY aggregates made on one machine verify on another; and anyone
// can forge them, as the seed is here.
var testSRSSeed = sha256.Sum256([]byte("gpuc2 TEST-ONLY SnarkPack SRS: forgeable, never valid on chain"))

// testSRSPath is where the TEST-ONLY SRS is kept under cacheDir, beside the
// TEST-ONLY Groth16 setups; its name says TEST-ONLY and its capacity, so it
// is never taken for SRSFileName.
func testSRSPath(cacheDir string) string {
	return filepath.Join(cacheDir, "gpuc2", "test-params", fmt.Sprintf("TEST-ONLY-fil-inner-product-%d.srs", testSRSProofs))
}

// srsSource is the SRS file aggregates are made and checked with.
type srsSource struct {
	path     string
	testOnly bool
}

// maxProofs is the most proofs one aggregate may hold under s.
func (s srsSource) maxProofs() int {
	if s.testOnly {
		return testSRSProofs
	}
	return srsMaxProofs
}

func (s srsSource) String() string {
	if s.testOnly {
		return "the TEST-ONLY SRS " + s.path
	}
	return s.path
}

// srsKey names one specialized SRS in the cache.
type srsKey struct {
	path string
	n    int
}

// srsEntry is one SRS specialized to a proof count; done closes once
// prover, verifier or err are set.
type srsEntry struct {
	done     chan struct{}
	prover   *aggregate.ProverSRS
	verifier *aggregate.VerifierSRS
	err      error
}

// srsCacheCounts bounds the specialized SRSs a Prover keeps (the largest,
// 16384 proofs, holds about 14 MB).
const srsCacheCounts = 8

// srsCache finds the SRS and keeps it specialized to the proof counts
// used last.
type srsCache struct {
	paramsDir, testParamsDir string
	log                      *slog.Logger

	create sync.Mutex // making the TEST-ONLY file

	mu      sync.Mutex
	entries map[srsKey]*srsEntry
	order   []srsKey // least recently used first
}

func newSRSCache(cfg Config) *srsCache {
	return &srsCache{paramsDir: cfg.ParamsDir, testParamsDir: cfg.TestParamsDir, log: cfg.Logger, entries: map[srsKey]*srsEntry{}}
}

// locate finds the SRS: SRSFileName in the parameter directory; else,
// with a TEST-ONLY directory, the TEST-ONLY SRS there (made if it is
// missing); else an error wrapping ErrParamsMissing that names the file.
func (c *srsCache) locate() (srsSource, error) {
	realPath := filepath.Join(c.paramsDir, SRSFileName)
	_, err := os.Stat(realPath)
	switch {
	case err == nil:
		return srsSource{path: realPath}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return srsSource{}, fmt.Errorf("%w: %w", ErrParamsMissing, err)
	case c.testParamsDir == "":
		return srsSource{}, fmt.Errorf("%w: no %s in %s (SnarkPack's SRS, published in srs-inner-product.json: "+
			"`curio fetch-params` and `lotus fetch-params` fetch it with the parameters, into $%s; or, for tests, "+
			"allow a TEST-ONLY SRS with Config.TestParamsDir)", ErrParamsMissing, SRSFileName, c.paramsDir, EnvParamsDir)
	}
	path := testSRSPath(c.testParamsDir)
	c.create.Lock()
	defer c.create.Unlock()
	present, err := testParamsExist(path)
	if err != nil {
		return srsSource{}, err
	}
	if !present {
		if err := writeTestSRS(path); err != nil {
			return srsSource{}, err
		}
		c.log.Warn("made a TEST-ONLY SnarkPack SRS (from a published seed: its aggregates are forgeable and not valid on chain)",
			"file", path, "proofs", testSRSProofs)
	}
	return srsSource{path: path, testOnly: true}, nil
}

// writeTestSRS makes the TEST-ONLY SRS and writes it to path through a
// temporary file and a rename.
func writeTestSRS(path string) error {
	srs, err := aggregate.TestOnlySRS(rand.NewChaCha8(testSRSSeed), testSRSProofs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return paramsError(path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return paramsError(path, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	_, err = srs.WriteTo(w)
	err = errors.Join(err, w.Flush(), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return paramsError(path, err)
	}
	return nil
}

// get returns the SRS of src specialized to n proofs (a power of two, at
// most src.maxProofs()), read once and kept among the last srsCacheCounts.
func (c *srsCache) get(ctx context.Context, src srsSource, n int) (*aggregate.ProverSRS, *aggregate.VerifierSRS, error) {
	key := srsKey{src.path, n}
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok {
		e = &srsEntry{done: make(chan struct{})}
		c.entries[key] = e
	}
	c.order = append(slices.DeleteFunc(c.order, func(k srsKey) bool { return k == key }), key)
	for len(c.order) > srsCacheCounts {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
	c.mu.Unlock()
	if !ok {
		// Not the caller's context: others may be waiting for the same SRS;
		// reading one takes seconds at most.
		e.prover, e.verifier, e.err = c.read(context.WithoutCancel(ctx), src, n)
		close(e.done)
		if e.err != nil {
			c.forget(key, e)
		}
	}
	select {
	case <-e.done:
		return e.prover, e.verifier, e.err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// forget drops e, which failed, so that a later call reads the file again.
func (c *srsCache) forget(key srsKey, e *srsEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key] == e {
		delete(c.entries, key)
		c.order = slices.DeleteFunc(c.order, func(k srsKey) bool { return k == key })
	}
}

// read reads src's SRS specialized to n proofs: Filecoin's file after its
// digest check, the prefix filecoin-proofs reads (aggregate.FilecoinSRSMaxLen
// powers of each vector), every point decoded checked.
func (c *srsCache) read(ctx context.Context, src srsSource, n int) (*aggregate.ProverSRS, *aggregate.VerifierSRS, error) {
	if !src.testOnly {
		if err := groth16.CheckDigest(ctx, src.path, srsDigest); err != nil {
			return nil, nil, paramsError(src.path, err)
		}
	}
	f, err := os.Open(src.path)
	if err != nil {
		return nil, nil, paramsError(src.path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, paramsError(src.path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s is not a regular file", ErrParamsCorrupt, src.path)
	}
	prover, verifier, err := aggregate.ReadSpecializedSRS(f, st.Size(), aggregate.FilecoinSRSMaxLen, n)
	if err != nil {
		if errors.Is(err, aggregate.ErrSRS) {
			return nil, nil, fmt.Errorf("%w: %s: %w", ErrParamsCorrupt, src.path, err)
		}
		return nil, nil, paramsError(src.path, err)
	}
	if src.testOnly {
		c.log.Warn("using a TEST-ONLY SnarkPack SRS (aggregates are forgeable and not valid on chain)", "file", src.path, "proofs", n)
	} else {
		c.log.Info("SnarkPack SRS read", "file", src.path, "proofs", n)
	}
	return prover, verifier, nil
}

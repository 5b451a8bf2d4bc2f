package gpuc2

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/post"
	"github.com/gpuc2/gpuc2/trace"
)

// The matrices cache: a corrupt file is recorded over, a good one is read
// (and checked) instead of recorded, and "none" neither reads nor writes.
func TestMatricesCache(t *testing.T) {
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	c1, err := porep.SyntheticC1(ctx, spt, abi.ActorID(1000), 3, [32]byte{3})
	require.NoError(t, err)
	sh, err := newShape(sealKind(spt))
	require.NoError(t, err)
	a := sealAdmission(c1)
	a.shape, a.key = sh, &keyEntry{}
	p := &Prover{cfg: Config{MatricesCacheDir: t.TempDir()}, log: slog.Default()}
	path := p.matricesCachePath(a)
	require.NoError(t, os.WriteFile(path, []byte("not matrices"), 0o644))

	ms, from, err := p.loadOrRecord(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, "recorded", from, "a corrupt file is recorded over")
	cached, err := pce.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, ms.Bytes(), cached.Bytes())

	again, from, err := p.loadOrRecord(ctx, a)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(from, "cache "), from)
	assert.Equal(t, ms.Rows(), again.Rows())

	// A request whose partition does not synthesize (a PoSt's faulty
	// sectors) fails with that error after one synthesis: no recording
	// attempted from it, the file kept.
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	bad := *a
	errBad := errors.New("faulty sectors")
	synthesized := 0
	bad.circuit = func(int) (synth.Circuit, error) { synthesized++; return failingCircuit{errBad}, nil }
	_, _, err = p.loadOrRecord(ctx, &bad)
	require.ErrorIs(t, err, errBad)
	assert.Equal(t, 1, synthesized, "recorded again from a request that does not synthesize")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the cache file is not blamed")

	p.cfg.MatricesCacheDir = "none"
	assert.Empty(t, p.matricesCachePath(a))
	_, from, err = p.loadOrRecord(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, "recorded", from)
}

// failingCircuit fails its synthesis with err.
type failingCircuit struct{ err error }

func (c failingCircuit) Synthesize(context.Context, synth.ConstraintSystem) error { return c.err }

var matricesSize = flag.String("matrices-size", "2KiB", "BenchmarkMatricesCache: sector size of the partition circuit")

// BenchmarkMatricesCache times what a proof type's first proof spends on
// its constraint matrices: recording them, writing the cache file, and in
// a later process reading it back, one full synthesis and checking the
// matrices against it (go test -run XXX -bench MatricesCache -matrices-size 32GiB).
func BenchmarkMatricesCache(b *testing.B) {
	ctx := context.Background()
	spt, err := porep.ProofForSectorSize(*matricesSize)
	require.NoError(b, err)
	c1, err := porep.SyntheticC1(ctx, spt, abi.ActorID(1000), 3, [32]byte{3})
	require.NoError(b, err)
	sh, err := newShape(sealKind(spt))
	require.NoError(b, err)
	a := sealAdmission(c1)
	a.shape, a.key = sh, &keyEntry{}
	path := filepath.Join(b.TempDir(), "m.pce")
	for b.Loop() {
		t0 := time.Now()
		ms, err := recordMatrices(ctx, a)
		require.NoError(b, err)
		t1 := time.Now()
		require.NoError(b, ms.WriteFile(path))
		t2 := time.Now()
		ms = nil
		runtime.GC()
		t3 := time.Now()
		got, err := pce.ReadFile(path)
		require.NoError(b, err)
		t4 := time.Now()
		w, err := synthesizeFull(ctx, a)
		require.NoError(b, err)
		t45 := time.Now()
		require.NoError(b, checkMatrices(ctx, a, got, w))
		t5 := time.Now()
		st, err := os.Stat(path)
		require.NoError(b, err)
		b.ReportMetric(t1.Sub(t0).Seconds(), "record-s")
		b.ReportMetric(t2.Sub(t1).Seconds(), "write-s")
		b.ReportMetric(t4.Sub(t3).Seconds(), "read-s")
		b.ReportMetric(t45.Sub(t4).Seconds(), "synth-s")
		b.ReportMetric(t5.Sub(t45).Seconds(), "check-s")
		b.ReportMetric(float64(st.Size())/1e9, "file-GB")
	}
}

// A preload loads the matrices too where proofs use them, from a synthetic
// partition: the cache file is written, the key holds them, and the first
// proof after the preload records nothing (its parameter load is only its
// key's acquisition). With MatricesOff a preload leaves them alone.
func TestPreloadLoadsMatrices(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	pt := abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1
	k := postKind(pt)
	p, err := New(ctx, Config{ParamsDir: t.TempDir(), TestParamsDir: t.TempDir(), Backend: BackendCPU,
		ConstraintMatrices: MatricesOn, MatricesCacheDir: cache})
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.PreloadCircuit(ctx, "wpost-2k"))
	files, err := filepath.Glob(filepath.Join(cache, k.MatricesName()+"-*.pce"))
	require.NoError(t, err)
	assert.Len(t, files, 1, "the matrices' cache file")
	e := p.keys.loaded(k)
	require.NotNil(t, e)
	e.matricesMu.Lock()
	held := e.matrices != nil
	e.matricesMu.Unlock()
	assert.True(t, held, "the loaded key holds the matrices")

	params, err := post.ParamsFor(pt)
	require.NoError(t, err)
	rnd := [32]byte{5}
	proofs, err := post.SyntheticSectorProofs(ctx, params, rnd, []uint64{1, 2}, 3)
	require.NoError(t, err)
	res, err := p.ProvePoSt(ctx, PoStRequest{ProofType: pt, Randomness: rnd[:], VanillaProofs: post.EncodeSectorProofs(proofs)})
	require.NoError(t, err)
	assert.Less(t, res.Timings.ParamLoad, time.Second, "nothing loaded or recorded on the first proof")

	off, err := New(ctx, Config{ParamsDir: t.TempDir(), TestParamsDir: t.TempDir(), Backend: BackendCPU,
		ConstraintMatrices: MatricesOff, MatricesCacheDir: t.TempDir()})
	require.NoError(t, err)
	defer off.Close()
	require.NoError(t, off.PreloadCircuit(ctx, "winning-2k"))
	e = off.keys.loaded(postKind(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1))
	require.NotNil(t, e)
	assert.Nil(t, e.matrices)
}

// spanCount counts tr's spans named name.
func spanCount(tr *trace.Tracer, name string) int {
	n := 0
	for _, e := range tr.Events() {
		if e.Ph == "X" && e.Name == name {
			n++
		}
	}
	return n
}

// A preload starts the matrices' host load before the key's preload (the
// key's decode and upload run beside it: issue 57), and loads them once.
func TestPreloadMatricesBesideKey(t *testing.T) {
	ctx := context.Background()
	tr := trace.New()
	p, err := New(ctx, Config{ParamsDir: t.TempDir(), TestParamsDir: t.TempDir(), Backend: BackendCPU,
		ConstraintMatrices: MatricesOn, MatricesCacheDir: t.TempDir(), Tracer: tr})
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.PreloadCircuit(ctx, "wpost-2k"))
	spans := map[string][]trace.Event{}
	for _, e := range tr.Events() {
		if e.Ph == "X" {
			spans[e.Name] = append(spans[e.Name], e)
		}
	}
	require.Len(t, spans["matrices"], 1)
	require.Len(t, spans["key preload"], 1)
	m, k := spans["matrices"][0], spans["key preload"][0]
	assert.LessOrEqual(t, m.Ts, k.Ts, "the matrices' load begins before the key's preload")
}

// A matrices load started ahead (startMatricesAhead) is taken over by the
// first matricesFor rather than run again; abandoned, it leaves nothing
// behind and matricesFor loads them itself; one whose context ended is
// run again under the caller's.
func TestMatricesAhead(t *testing.T) {
	ctx := context.Background()
	k := postKind(abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1)
	start := func(t *testing.T) (*Prover, *trace.Tracer, *admission) {
		tr := trace.New()
		p, err := New(ctx, Config{ParamsDir: t.TempDir(), TestParamsDir: t.TempDir(), Backend: BackendCPU,
			ConstraintMatrices: MatricesOn, MatricesCacheDir: "none", Tracer: tr})
		require.NoError(t, err)
		t.Cleanup(func() { p.Close() })
		a, err := p.preloadAdmission(ctx, k)
		require.NoError(t, err)
		require.NotNil(t, a)
		t.Cleanup(func() { p.keys.release(k) })
		return p, tr, a
	}
	t.Run("taken over", func(t *testing.T) {
		p, tr, a := start(t)
		abandon := p.startMatricesAhead(ctx, a)
		ms, err := p.matricesFor(ctx, a)
		require.NoError(t, err)
		assert.NotNil(t, ms)
		abandon() // a proof took it: nothing to stop
		assert.Equal(t, 1, spanCount(tr, "matrices"), "loaded once")
		assert.Nil(t, a.key.matricesLoad)
	})
	t.Run("abandoned", func(t *testing.T) {
		p, tr, a := start(t)
		abandon := p.startMatricesAhead(ctx, a)
		abandon()
		assert.Nil(t, a.key.matricesLoad)
		assert.Nil(t, a.key.matrices)
		ms, err := p.matricesFor(ctx, a)
		require.NoError(t, err)
		assert.NotNil(t, ms)
		assert.Equal(t, 2, spanCount(tr, "matrices"), "the abandoned load, then matricesFor's own")
	})
	t.Run("cancelled", func(t *testing.T) {
		p, tr, a := start(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		abandon := p.startMatricesAhead(cctx, a)
		defer abandon()
		ms, err := p.matricesFor(ctx, a)
		require.NoError(t, err)
		assert.NotNil(t, ms)
		assert.Equal(t, 2, spanCount(tr, "matrices"), "the cancelled load, then one under the caller's context")
	})
}

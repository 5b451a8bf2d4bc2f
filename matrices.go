package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// matrices returns the compiled constraint matrices a's partitions are
// proved with, or nil (Config.ConstraintMatrices); the time it takes (a
// recording, on a parameter file's first proof) counts as parameter load.
func (p *Prover) matrices(ctx context.Context, a *admission, timings *ProofTimings) (*pce.Matrices, error) {
	if !p.usesMatrices(a) {
		return nil, nil
	}
	start := time.Now()
	ms, err := p.matricesFor(ctx, a)
	timings.ParamLoad += time.Since(start)
	if err != nil || (p.cfg.ConstraintMatrices == MatricesAuto && !a.key.matricesOnDevices) {
		return nil, err // auto: a GPU had no room for them after all
	}
	return ms, nil
}

// usesMatrices says whether a's partitions are proved with their circuit's
// matrices (Config.ConstraintMatrices; MatricesAuto where every GPU would
// evaluate a, b, c from them).
func (p *Prover) usesMatrices(a *admission) bool {
	switch p.cfg.ConstraintMatrices {
	case MatricesOff:
		return false
	case MatricesAuto:
		return p.matricesFitDevices(a)
	}
	return true
}

// matricesFor returns the compiled constraint matrices of a's circuit,
// recording them from partition 0 of a's C1 on the first proof of its
// parameter file: every partition of every sector of a proof type has the
// same matrices, only the witness changes (and each partition's proof is
// self-verified unless SkipSelfVerify). They stay with the loaded
// parameters, and on each GPU that evaluates a, b, c from them (beside a
// resident key, or pinned on the host for streaming ones): then a
// partition holds only its witness on the host, and the host keeps only
// the matrices' sizes and densities (pce's WithoutArrays), not their
// arrays (5.9 GB at 32 GiB).
// They come from the cache file when it holds good ones (loadOrRecord).
// Recording synthesizes one partition with every term kept (about 100 s
// at 32 GiB); checking a cached file synthesizes one in full. Neither's
// memory is reserved from the host budget. A load a preload started beside
// the key's (startMatricesLoad) is taken over rather than run again.
func (p *Prover) matricesFor(ctx context.Context, a *admission) (*pce.Matrices, error) {
	e := a.key
	e.matricesMu.Lock()
	defer e.matricesMu.Unlock()
	if e.matrices != nil {
		return e.matrices, nil
	}
	name := a.kind.String()
	l := e.matricesLoad
	e.matricesLoad = nil
	if l == nil {
		l = p.startMatricesLoad(ctx, a)
	}
	defer l.stopPreparing()
	<-l.done
	if l.err != nil && l.cancelled && ctx.Err() == nil && !p.keys.closed() {
		// A preload's load, its context cancelled: this proof's own.
		l.stopPreparing()
		l = p.startMatricesLoad(ctx, a)
		defer l.stopPreparing()
		<-l.done
	}
	ms, err := l.ms, l.err
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case p.keys.closed():
		return nil, ErrClosed
	case err != nil:
		return nil, fmt.Errorf("%s: constraint matrices: %w", name, err)
	}
	// A recording, or the cached file's check (a full synthesis), leaves
	// its working memory behind as garbage: back to the OS now, once per
	// parameter file, rather than at the scavenger's pace under the first
	// proofs' working sets (the run's RSS peaked there: BENCHMARKS.md,
	// issue 19).
	debug.FreeOSMemory()
	var place gpu.MatricesPlacement // none on the CPU
	if p.devices != nil {
		if place, err = p.devices.PreloadMatrices(ctx, e.pk, ms); err != nil {
			return nil, fmt.Errorf("%s: constraint matrices: %w", name, err)
		}
		for _, why := range place.Refused {
			p.log.Info("constraint matrices stay on the host", "proof", name, "reason", why)
		}
	}
	onDevices, pinned := place.OnAll, place.PinnedBytes // pinned: the streaming GPUs' copy, one per process
	hostBytes := ms.Bytes() + pinned                    // the heap's copy, for the host's evaluation, and the streaming GPUs' pinned one
	if onDevices {
		// Every GPU holds them, on the device or pinned: the host keeps their
		// sizes and densities, not the arrays (the proofs' steady RSS).
		ms, hostBytes = ms.WithoutArrays(), pinned
	} else { // the partitions will hold a, b, c too: not the witnesses made ahead
		l.stopPreparing()
		<-l.prepared
		p.pipe.Budget().DropSpares(&a.shape.witness)
	}
	p.keys.setMatricesHostBytes(e, hostBytes)
	p.log.Info("constraint matrices ready", "proof", name, "from", l.from, "rows", ms.Rows(), "bytes", ms.Bytes(),
		"took", l.took.Round(time.Millisecond), "on GPUs", onDevices)
	e.matrices, e.matricesOnDevices = ms, onDevices
	if onDevices {
		debug.FreeOSMemory() // the arrays, 5.9 GB at 32 GiB, now that nothing holds them
	}
	return ms, nil
}

// matricesLoad is the host half of loading a circuit's constraint
// matrices (loadOrRecord: the cache file read and checked, or a
// recording) on a goroutine of its own, with the pipeline making the first
// witnesses ahead meanwhile (prepareWitnesses, until stopPreparing). Its
// results are set once done is closed.
type matricesLoad struct {
	done          chan struct{}
	cancelled     bool // its context ended before it did (the caller's, or Close)
	ms            *pce.Matrices
	from          string
	err           error
	took          time.Duration
	prepared      <-chan struct{} // closed when the witnesses made ahead are done
	stopPreparing context.CancelFunc
}

// startMatricesLoad starts a's circuit's matrices' host load under ctx;
// Close cuts it short.
func (p *Prover) startMatricesLoad(ctx context.Context, a *admission) *matricesLoad {
	rctx, cancel := context.WithCancel(ctx)
	pctx, stopPreparing := context.WithCancel(ctx)
	l := &matricesLoad{done: make(chan struct{}), stopPreparing: stopPreparing}
	l.prepared = p.prepareWitnesses(pctx, a)
	go func() { // Close cuts a recording short
		select {
		case <-p.closing:
			cancel()
		case <-l.done:
		}
	}()
	span := p.tracer.Begin(requestTrack, "matrices", "proof", a.kind.String())
	start := time.Now()
	go func() {
		defer close(l.done)
		l.err = par.Recover(func() (err error) { l.ms, l.from, err = p.loadOrRecord(rctx, a); return err })
		l.took = time.Since(start)
		l.cancelled = rctx.Err() != nil
		cancel()
		span.End()
	}()
	return l
}

// startMatricesAhead starts the host load of the matrices a's proofs use
// (preloadAdmission), for a preload to run beside the key's, unless they
// are loaded or loading: the first matricesFor takes it over. The returned func
// abandons it (a key that did not load): it stops it unless a proof has
// taken it over, and waits for it.
func (p *Prover) startMatricesAhead(ctx context.Context, a *admission) (abandon func()) {
	e := a.key
	e.matricesMu.Lock()
	defer e.matricesMu.Unlock()
	if e.matrices != nil || e.matricesLoad != nil {
		return func() {}
	}
	l := p.startMatricesLoad(ctx, a)
	e.matricesLoad = l
	return func() {
		e.matricesMu.Lock()
		ours := e.matricesLoad == l
		if ours {
			e.matricesLoad = nil
		}
		e.matricesMu.Unlock()
		if ours {
			l.stopPreparing()
			<-l.done
			<-l.prepared
		}
	}
}

// prepareWitnesses has the pipeline make the first partitions' witnesses
// of a's shape in pinned memory, on a goroutine of its own while the
// matrices load (until ctx ends; each takes seconds to pin: BENCHMARKS.md,
// issue 18), and returns a channel closed when it is done. Nothing is made
// where the GPUs will not evaluate a, b, c (matricesFitDevices): the
// partitions would hold a, b, c too.
func (p *Prover) prepareWitnesses(ctx context.Context, a *admission) <-chan struct{} {
	done := make(chan struct{})
	if !p.matricesFitDevices(a) || p.enter() != nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		defer p.leave()
		err := par.Recover(func() error {
			p.pipe.PrepareWitnesses(ctx, a.shape.witness, a.shape.witnessBytes, p.cfg.SynthesisConcurrency)
			return nil
		})
		if err != nil {
			p.log.Error("gpuc2: making witnesses ahead", "err", err)
		}
	}()
	return done
}

// matricesFitDevices says whether every GPU (there is one at least)
// evaluates a, b, c from a's circuit's matrices (gpu.Devices.MatricesFit),
// sized before they are recorded: MatricesAuto's condition.
func (p *Prover) matricesFitDevices(a *admission) bool {
	return p.devices != nil && p.devices.MatricesFit(a.key.pk, a.shape.matrices.EstimatedBytes(a.shape.sizes.Rows+a.shape.sizes.Inputs))
}

// partitionBytes is the host working set of a partition of a proved with
// matrices ms: its witness alone when every GPU evaluates a, b, c, else
// what a full synthesis holds (a, b, c are evaluated on the host).
func partitionBytes(a *admission, ms *pce.Matrices) int64 {
	if ms != nil && a.key.matricesOnDevices {
		return a.shape.witnessBytes
	}
	return a.shape.bytes
}

// loadOrRecord returns a's circuit's matrices from the cache file when
// there is a good one (it reads, matches the circuit's sizes and evaluates
// partition 0 of a's C1 exactly as a full synthesis does), else records
// them and writes the file; from says which ("cache" or "recorded"). A
// cache that cannot be read or written is logged and bypassed.
func (p *Prover) loadOrRecord(ctx context.Context, a *admission) (ms *pce.Matrices, from string, err error) {
	path := p.matricesCachePath(a)
	if path != "" {
		// The full synthesis the check compares against runs while the
		// file is read: the two took 28 s one after the other at 32 GiB.
		type synthesized struct {
			w   *synth.ProvingAssignment
			err error
		}
		full := make(chan synthesized, 1)
		sctx, cancel := context.WithCancel(ctx)
		if _, statErr := os.Stat(path); statErr == nil {
			go func() {
				var s synthesized
				s.err = par.Recover(func() error {
					s.w, s.err = synthesizeFull(sctx, a)
					return s.err
				})
				full <- s
			}()
		} else {
			full <- synthesized{err: statErr}
		}
		ms, err := pce.ReadFile(path)
		if err != nil {
			cancel() // no file to check: the synthesis is not needed
		}
		s := <-full
		cancel()
		if err == nil && s.err != nil && ctx.Err() == nil {
			// The request's partition does not synthesize (a PoSt's faulty
			// sectors, post.Circuit.Verify): recording from it would fail
			// the same way, and the file is not to blame.
			return nil, "", s.err
		}
		if err == nil {
			err = s.err
		}
		if err == nil {
			err = checkMatrices(ctx, a, ms, s.w)
		}
		switch {
		case err == nil:
			return ms, "cache " + path, nil
		case ctx.Err() != nil:
			return nil, "", ctx.Err()
		case !errors.Is(err, fs.ErrNotExist):
			p.log.Warn("constraint matrices: the cached file is not used; recording them again", "file", path, "err", err)
		}
	}
	if ms, err = recordMatrices(ctx, a); err != nil {
		return nil, "", err
	}
	if path != "" {
		err := os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = ms.WriteFile(path)
		}
		if err != nil {
			p.log.Warn("constraint matrices: not cached", "file", path, "err", err)
		}
	}
	return ms, "recorded", nil
}

// matricesCachePath is the cache file of a's circuit's matrices, named by
// its proof type and sizes; "" when there is no cache.
func (p *Prover) matricesCachePath(a *admission) string {
	return matricesCacheFile(p.cfg.MatricesCacheDir, a.kind, a.shape.sizes)
}

// matricesCacheFile is the cache file of the matrices of t's circuit of
// sizes sz under dir (Config.MatricesCacheDir); "" when there is no cache.
func matricesCacheFile(dir string, t circuits.Type, sz synth.Sizes) string {
	switch dir {
	case "none":
		return ""
	case "":
		cache, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(cache, "gpuc2", "matrices")
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%d-%d-%d.pce", t.MatricesName(), sz.Inputs, sz.Aux, sz.Rows))
}

// checkMatrices checks matrices read from a file: their sizes against the
// circuit's, then their evaluation of partition 0 of a's C1 against w, a
// full synthesis of it (synthesizeFull), row by row.
func checkMatrices(ctx context.Context, a *admission, ms *pce.Matrices, w *synth.ProvingAssignment) error {
	if err := checkMatricesShape(a, ms); err != nil {
		return err
	}
	return ms.Check(ctx, w.Inputs, w.Aux, w.A, w.B, w.C)
}

// synthesizeFull is partition 0 of a's C1 synthesized in full (a, b, c
// and the input rows), what checkMatrices compares matrices against.
func synthesizeFull(ctx context.Context, a *admission) (*synth.ProvingAssignment, error) {
	circuit, err := a.circuit(0)
	if err != nil {
		return nil, err
	}
	w := synth.NewProvingAssignment(a.shape.hint)
	if err := circuit.Synthesize(ctx, w); err != nil {
		return nil, err
	}
	synth.AppendInputRows(w, len(w.Inputs))
	return w, nil
}

// checkMatricesShape checks ms's sizes against a's circuit's.
func checkMatricesShape(a *admission, ms *pce.Matrices) error {
	sz := a.shape.sizes
	if ms.Inputs() != sz.Inputs || ms.Aux() != sz.Aux || ms.Rows() != sz.Rows+sz.Inputs {
		return fmt.Errorf("%w: %d inputs, %d aux and %d rows; the circuit has %d, %d and %d",
			pce.ErrRecording, ms.Inputs(), ms.Aux(), ms.Rows(), sz.Inputs, sz.Aux, sz.Rows+sz.Inputs)
	}
	return nil
}

// recordMatrices records and compiles partition 0 of a's C1 with its input
// rows appended (as the prover appends them), checking the result against
// the circuit's shape. It takes the proof type's own circuit, not
// partitionCircuit's (which tests replace).
func recordMatrices(ctx context.Context, a *admission) (*pce.Matrices, error) {
	circuit, err := a.circuit(0)
	if err != nil {
		return nil, err
	}
	sz := a.shape.sizes
	rec := synth.NewRecorderSized(sz, a.shape.matrices.RecordingTerms(sz))
	if err := circuit.Synthesize(ctx, rec); err != nil {
		return nil, err
	}
	synth.AppendInputRows(rec, len(rec.Inputs))
	ms, err := pce.Compile(rec)
	if err != nil {
		return nil, err
	}
	if err := checkMatricesShape(a, ms); err != nil {
		return nil, err
	}
	return ms, nil
}

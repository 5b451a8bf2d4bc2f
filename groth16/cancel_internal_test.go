package groth16

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// cancelBound is how soon the CPU prover must return once its context is
// cancelled, at any moment of a proof (issue 15).
const cancelBound = 500 * time.Millisecond

var cancelTrials = flag.Int("cancel-trials", 50, "TestCPUProverCancelLatency: cancellations per sector size")

// cancelDuring runs f, cancels its context after at, and returns how long
// after the cancellation f returned, and f's error; ended reports that f
// returned before at (nothing was cancelled), and late is then how long f ran.
func cancelDuring(f func(context.Context) error, at time.Duration) (late time.Duration, ended bool, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		err error
		end time.Time
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		err := f(ctx)
		done <- result{err, time.Now()}
	}()
	select {
	case r := <-done:
		return r.end.Sub(start), true, r.err
	case <-time.After(at):
	}
	cancelled := time.Now()
	cancel()
	r := <-done
	return r.end.Sub(cancelled), false, r.err
}

// waitGoroutines waits up to a second for the goroutine count to fall back
// to baseline. (assert.Eventually would count the goroutine it polls on.)
func waitGoroutines(baseline int) int {
	for deadline := time.Now().Add(time.Second); runtime.NumGoroutine() > baseline && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}

// TestCPUProverCancelLatency cancels CPU proofs of a real PoRep partition
// witness at random moments and checks that each returns context.Canceled
// within cancelBound and leaves no goroutine behind. The moments are uniform
// over a whole proof (placed within its phases, see below), so the test
// costs about half a proof per cancellation (a 2 KiB proof takes 35 s to
// minutes on the 2 shared cores of the dev machine): set GPUC2_TEST_CANCEL=1
// to run it, and GPUC2_TEST_8MIB=1 as well for the 8 MiB partition.
// TestCancelLatencyPieces is the quick check.
func TestCPUProverCancelLatency(t *testing.T) {
	if testing.Short() || os.Getenv("GPUC2_TEST_CANCEL") == "" {
		t.Skip("set GPUC2_TEST_CANCEL=1 (and allow about 25 proofs' time) to cancel CPU proofs at random moments")
	}
	sizes := []string{"2KiB"}
	if os.Getenv("GPUC2_TEST_8MIB") != "" {
		sizes = append(sizes, "8MiB")
	}
	for _, size := range sizes {
		t.Run(size, func(t *testing.T) { cancelLatency(t, size, *cancelTrials) })
	}
}

func cancelLatency(t *testing.T, size string, trials int) {
	ctx := context.Background()
	spt, err := porep.ProofForSectorSize(size)
	require.NoError(t, err)
	c1, err := porep.SyntheticC1(ctx, spt, 1000, 1, [32]byte{15})
	require.NoError(t, err)
	circuit, err := c1.Circuit(0)
	require.NoError(t, err)
	hint := circuit.Params.Sizes()
	hint.Rows = hint.Domain()
	w0 := synth.NewProvingAssignment(hint)
	require.NoError(t, circuit.Synthesize(ctx, w0))
	pk := tiledKey(t, w0)

	// Prove consumes a, b, c and appends the input rows: each proof gets a
	// copy of the witness in the same reused buffers.
	var w synth.ProvingAssignment
	bufs := [3][]fr.Element{make([]fr.Element, 0, hint.Rows), make([]fr.Element, 0, hint.Rows), make([]fr.Element, 0, hint.Rows)}
	fresh := func() *synth.ProvingAssignment {
		w = *w0
		w.A, w.B, w.C = append(bufs[0][:0], w0.A...), append(bufs[1][:0], w0.B...), append(bufs[2][:0], w0.C...)
		return &w
	}
	prover := &CPUProver{}

	// One whole proof gives the phases the moments are drawn from.
	type span struct {
		name       string
		start, end time.Duration // from the proof's start
	}
	var ref []span
	start := time.Now()
	_, err = prover.Prove(ctx, pk, fresh(), WithPhases(func(name string, s, e time.Time, _ ...any) {
		ref = append(ref, span{name, s.Sub(start), e.Sub(start)})
		t.Logf("%s: uncancelled proof: %s %.2f s", size, name, e.Sub(s).Seconds())
	}))
	require.NoError(t, err)
	t.Logf("%s: whole proof %.1f s (%d rows, domain %d)", size, time.Since(start).Seconds(), len(w0.A), hint.Rows)

	// A moment u, uniform over the uncancelled proof, falls o into its phase
	// k; the trial cancels o after phase k starts (when phase k−1 reports
	// its end). Drawn over wall time alone, moments missed the short last
	// phases whenever the shared machine got busier than during the first
	// proof, and fell past the end when it got less busy.
	runtime.GC()
	baseline := runtime.NumGoroutine()
	var lat []time.Duration
	worst := map[string]time.Duration{}
	for i := 0; len(lat) < trials; i++ {
		require.Less(t, i, 2*trials, "too many proofs ended before their moment")
		u := rand.N(ref[len(ref)-1].end)
		k := 0
		for ref[k].end <= u {
			k++
		}
		o := max(0, u-ref[k].start)
		wi := fresh()
		pctx, cancel := context.WithCancel(ctx)
		var cancelled atomic.Pointer[time.Time]
		var timer *time.Timer
		arm := func() {
			timer = time.AfterFunc(o, func() {
				now := time.Now()
				cancelled.Store(&now)
				cancel()
			})
		}
		if k == 0 {
			arm()
		}
		var phase string // the last phase reported: the one cancelled
		_, err := prover.Prove(pctx, pk, wi, WithPhases(func(name string, _, _ time.Time, _ ...any) {
			phase = name
			if k > 0 && name == ref[k-1].name {
				arm()
			}
		}))
		end := time.Now()
		if timer != nil {
			timer.Stop()
		}
		cancel()
		c := cancelled.Load()
		if c == nil || c.After(end) {
			t.Logf("trial %d: the proof ended before %.3f s into %s", i, o.Seconds(), ref[k].name)
			continue
		}
		late := end.Sub(*c)
		lat = append(lat, late)
		worst[phase] = max(worst[phase], late)
		t.Logf("trial %d: cancelled %.3f s into %s (moment %.2f s), returned from %s after %v",
			i, o.Seconds(), ref[k].name, u.Seconds(), phase, late.Round(100*time.Microsecond))
		assert.Truef(t, errors.Is(err, context.Canceled), "trial %d (%s): error %v", i, phase, err)
		assert.LessOrEqualf(t, late, cancelBound, "trial %d: cancelled in %s", i, phase)
		assert.LessOrEqualf(t, waitGoroutines(baseline), baseline, "trial %d: goroutines left running", i)
	}
	require.NotEmpty(t, lat)
	slices.Sort(lat)
	q := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(time.Millisecond)
	}
	t.Logf("%s: %d cancellations: latency min %v, median %v, p90 %v, max %v (bound %v)",
		size, len(lat), q(0), q(0.5), q(0.9), q(1), cancelBound)
	for _, ph := range ref {
		if d, ok := worst[ph.name]; ok {
			t.Logf("%s: worst latency in %s: %v", size, ph.name, d.Round(time.Millisecond))
		}
	}
}

// tiledKey returns a key with the section counts w needs (its input rows not
// yet appended), made of a few distinct random points tiled: proofs with it
// do not verify, but they cost what real ones cost.
func tiledKey(t *testing.T, w *synth.ProvingAssignment) *ProvingKey {
	t.Helper()
	nIn := len(w.Inputs)
	m := synth.DomainSize(w.NumRows() + nIn)
	a, b := nIn+w.AAux.Count(), w.BInput.Count()+w.BAux.Count()
	g1 := nativetest.G1(max(m-1, len(w.Aux), a, b), 1<<10)
	g2 := nativetest.G2(b, 1<<8)
	_, _, gen1, gen2 := bls12381.Generators()
	vk := &VerifyingKey{AlphaG1: gen1, BetaG1: gen1, DeltaG1: gen1, BetaG2: gen2, GammaG2: gen2, DeltaG2: gen2, IC: g1[:nIn]}
	pk, err := NewProvingKey(vk, g1[:m-1], g1[:len(w.Aux)], g1[:a], g1[:b], g2)
	require.NoError(t, err)
	return pk
}

// TestCancelLatencyPieces is the quick check of TestCPUProverCancelLatency,
// on the two steps whose library calls cannot be interrupted: the quotient
// (a 2^20 domain) and a G1 MSM (2^17 random scalars: before issue 15, one
// call of a second or more on 2 cores). Each is cancelled at 5 moments in
// its first second, where a fast machine may already be done (those
// trials count for nothing).
func TestCancelLatencyPieces(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of FFTs and MSMs")
	}
	const m, n, trials = 1 << 20, 1 << 17, 5
	rng := rand.New(rand.NewPCG(15, 3))
	rows := [3][]fr.Element{randomRows(rng, m-m/4), randomRows(rng, m-m/4), randomRows(rng, m-m/4)}
	bufs := [3][]fr.Element{make([]fr.Element, 0, m), make([]fr.Element, 0, m), make([]fr.Element, 0, m)}
	points, scalars := nativetest.G1(n, 1<<10), nativetest.Scalars(n)
	for _, tc := range []struct {
		name string
		prep func()
		f    func(context.Context) error
	}{
		{"quotient", func() {
			for i := range bufs {
				bufs[i] = append(bufs[i][:0], rows[i]...)
			}
		}, func(ctx context.Context) error {
			_, err := quotient(ctx, bufs[0], bufs[1], bufs[2], m)
			return err
		}},
		{"msm", func() {}, func(ctx context.Context) error {
			_, err := msm.CPU{}.G1(ctx, points, scalars, nil)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			baseline := runtime.NumGoroutine()
			for i := range trials {
				tc.prep()
				at := rand.N(time.Second)
				late, ended, err := cancelDuring(tc.f, at)
				if ended {
					t.Logf("ended before %.3f s", at.Seconds())
					continue
				}
				t.Logf("cancelled at %.3f s: returned after %v", at.Seconds(), late.Round(100*time.Microsecond))
				assert.ErrorIs(t, err, context.Canceled, "trial %d", i)
				assert.LessOrEqual(t, late, cancelBound, "trial %d", i)
				assert.LessOrEqual(t, waitGoroutines(baseline), baseline, "trial %d: goroutines left running", i)
			}
		})
	}
}

package pipeline_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/internal/pipeline"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
)

const partitionBytes = 100

var shape = synth.Sizes{Inputs: 4, Aux: 32, Rows: 32}

// fakeProver "proves" a synthesized assignment: it checks there is one,
// records it, and runs hook (which may block, fail or panic) first.
type fakeProver struct {
	mu   sync.Mutex
	seen []*synth.ProvingAssignment
	hook func(ctx context.Context) error
}

func (f *fakeProver) Prove(ctx context.Context, _ *groth16.ProvingKey, w *synth.ProvingAssignment, _ ...groth16.ProveOption) (*groth16.Proof, error) {
	if len(w.A) == 0 {
		return nil, errors.New("fakeProver: the assignment was not synthesized")
	}
	f.mu.Lock()
	f.seen = append(f.seen, w)
	hook := f.hook
	f.mu.Unlock()
	if hook != nil {
		if err := hook(ctx); err != nil {
			return nil, err
		}
	}
	return &groth16.Proof{}, nil
}

// chain is a small real circuit.
func chain(k int) (synth.Circuit, error) {
	return &testcircuit.Chain{N: 24, Seed: uint64(k + 1), Inputs: 1}, nil
}

// heldCircuit stays in synthesis until released or cancelled.
type heldCircuit struct{ synthesizing, release chan struct{} }

func (c heldCircuit) Synthesize(ctx context.Context, _ synth.ConstraintSystem) error {
	close(c.synthesizing)
	select {
	case <-c.release:
	case <-ctx.Done():
	}
	return ctx.Err()
}

func held() heldCircuit { return heldCircuit{make(chan struct{}), make(chan struct{})} }

// events records the stages reported.
type events struct {
	mu  sync.Mutex
	all []pipeline.Event
}

func (e *events) report(ev pipeline.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) of(s pipeline.Stage) []pipeline.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []pipeline.Event
	for _, ev := range e.all {
		if ev.Stage == s {
			out = append(out, ev)
		}
	}
	return out
}

// newPipeline starts a pipeline of one CPU prover worker and checks, when
// the test ends, that it was closed without goroutines left behind.
func newPipeline(t *testing.T, cfg pipeline.Config) (*pipeline.Pipeline, *fakeProver) {
	t.Helper()
	before := runtime.NumGoroutine()
	f := &fakeProver{}
	if cfg.Provers == nil {
		cfg.Provers = []pipeline.Prover{{Device: -1, Prover: f}}
	}
	p, err := pipeline.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		p.Close()
		deadline := time.Now().Add(5 * time.Second) // not assert.Eventually: it starts goroutines
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines left behind:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
	return p, f
}

func spec(n int, circuit func(int) (synth.Circuit, error), ev *events) pipeline.Spec {
	s := pipeline.Spec{Partitions: n, Circuit: circuit, Shape: shape, Bytes: partitionBytes}
	if ev != nil {
		s.Report = ev.report
	}
	return s
}

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal(what)
	}
}

func collect(j *pipeline.Job) <-chan error {
	got := make(chan error, 1)
	go func() { got <- j.Collect(func(pipeline.Result) error { return nil }) }()
	return got
}

func result(t *testing.T, got <-chan error) error {
	t.Helper()
	select {
	case err := <-got:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Collect did not return")
		return nil
	}
}

// Several jobs under a budget of two partitions: every partition is
// proved; they are scheduled in (proof, partition) order, each through its
// stages in order; two are held at once, never more; a spare assignment is
// reused; at the end only spares stay reserved.
func TestPipelineProvesInOrder(t *testing.T) {
	var ev events
	p, f := newPipeline(t, pipeline.Config{Synthesis: 2, HostBudget: 2*partitionBytes + partitionBytes/2})
	var once sync.Once
	f.hook = func(context.Context) error {
		once.Do(func() { // the next partition is synthesized while this one proves
			assert.Eventually(t, func() bool { return p.Stats().Budget.Reserved == 2*partitionBytes },
				5*time.Second, time.Millisecond, "a second partition was not scheduled beside the first")
		})
		return nil
	}
	const jobs, parts = 3, 3
	var all []*pipeline.Job
	for range jobs {
		j, err := p.Enqueue(context.Background(), spec(parts, chain, &ev))
		require.NoError(t, err)
		all = append(all, j)
	}
	for i, j := range all {
		assert.Equal(t, uint64(i+1), j.Seq())
		var proved []int
		require.NoError(t, j.Collect(func(r pipeline.Result) error {
			assert.NotNil(t, r.Proof)
			assert.Equal(t, -1, r.Device)
			assert.Positive(t, r.Synthesis)
			proved = append(proved, r.Partition)
			return nil
		}))
		slices.Sort(proved)
		assert.Equal(t, []int{0, 1, 2}, proved)
	}

	var order [][2]int
	for _, e := range ev.of(pipeline.Scheduled) {
		order = append(order, [2]int{int(e.Seq), e.Partition})
	}
	assert.Len(t, order, jobs*parts)
	assert.True(t, slices.IsSortedFunc(order, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	}), "scheduling order %v", order)
	want := []pipeline.Stage{pipeline.Queued, pipeline.Scheduled, pipeline.Synthesizing, pipeline.Proving, pipeline.Proved}
	stages := map[[2]int][]pipeline.Stage{}
	for _, e := range ev.all {
		key := [2]int{int(e.Seq), e.Partition}
		stages[key] = append(stages[key], e.Stage)
	}
	for key, got := range stages {
		assert.Equal(t, want, got, "proof %d partition %d", key[0], key[1])
	}

	seen := map[*synth.ProvingAssignment]int{}
	for _, w := range f.seen {
		seen[w]++
	}
	assert.Less(t, len(seen), jobs*parts, "no assignment was reused")
	st := p.Stats()
	assert.Equal(t, int64(2*partitionBytes), st.Budget.Peak, "high-water mark: two partitions")
	assert.Equal(t, st.Budget.Spare, st.Budget.Reserved, "only spares stay reserved")
	assert.Zero(t, st.Jobs)
	assert.Zero(t, st.Queued)
}

// A partition the dispatcher has taken, with a synthesis worker free, and
// that waits for host memory counts as queued and as waiting for memory.
// Under a budget of one partition, the first job's partition is held in
// synthesis; the second's waits for its bytes. Cancelled, both give
// everything back.
func TestPipelineStatsWaitingForMemory(t *testing.T) {
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 2, HostBudget: partitionBytes + partitionBytes/2})
	h := held()
	defer close(h.release)
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel1()
	defer cancel2()
	j1, err := p.Enqueue(ctx1, spec(1, func(int) (synth.Circuit, error) { return h, nil }, nil))
	require.NoError(t, err)
	got1 := collect(j1)
	wait(t, h.synthesizing, "the first partition never reached synthesis")
	j2, err := p.Enqueue(ctx2, spec(1, chain, nil))
	require.NoError(t, err)
	got2 := collect(j2)
	require.Eventually(t, func() bool { return p.Stats().WaitingForMemory == 1 }, 5*time.Second, time.Millisecond)

	s := p.Stats()
	assert.Equal(t, 2, s.Jobs)
	assert.Equal(t, 1, s.Queued, "taken from the queue, the partition still counts as queued")
	assert.Equal(t, 1, s.WaitingForMemory)
	assert.Equal(t, 1, s.Synthesizing)
	assert.Zero(t, s.WaitingProver)
	assert.Zero(t, s.Proving)
	assert.Equal(t, int64(partitionBytes), s.Budget.Reserved, "only the first partition holds memory")

	cancel2()
	cancel1()
	assert.ErrorIs(t, result(t, got2), context.Canceled)
	assert.ErrorIs(t, result(t, got1), context.Canceled)
	s = p.Stats()
	assert.Zero(t, s.Jobs)
	assert.Zero(t, s.Queued)
	assert.Zero(t, s.WaitingForMemory)
	assert.Zero(t, s.Synthesizing)
	assert.Zero(t, s.Budget.Reserved, "a cancelled synthesis leaves no spare")
}

// The first error of a job cancels it: its queued partitions are
// withdrawn and reported failed, Collect returns the error once every
// partition has stopped, and the pipeline goes on with the next job.
func TestPipelineFirstErrorWithdraws(t *testing.T) {
	errProver := errors.New("prover failed")
	errEach := errors.New("each failed")
	cases := []struct {
		name  string
		setup func(f *fakeProver) (circuit func(int) (synth.Circuit, error))
		each  error
		want  error
		text  string
	}{
		{"prover error", func(f *fakeProver) func(int) (synth.Circuit, error) {
			f.hook = func(context.Context) error { return errProver }
			return chain
		}, nil, errProver, "partition 0: prover failed"},
		{"circuit error", func(*fakeProver) func(int) (synth.Circuit, error) {
			return func(k int) (synth.Circuit, error) { return nil, errProver }
		}, nil, errProver, "partition 0: synthesis: prover failed"},
		{"each error", func(f *fakeProver) func(int) (synth.Circuit, error) {
			var calls atomic.Int32
			f.hook = func(ctx context.Context) error {
				if calls.Add(1) == 1 {
					return nil
				}
				<-ctx.Done() // the later partitions prove until the job is cancelled
				return ctx.Err()
			}
			return chain
		}, errEach, errEach, "each failed"},
		{"prover panic", func(f *fakeProver) func(int) (synth.Circuit, error) {
			f.hook = func(context.Context) error { panic("prover bug") }
			return chain
		}, nil, nil, "partition 0: panic: prover bug"},
		{"synthesis panic", func(*fakeProver) func(int) (synth.Circuit, error) {
			return func(int) (synth.Circuit, error) { return panicky{}, nil }
		}, nil, nil, "partition 0: synthesis: panic: gadget bug"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ev events
			p, f := newPipeline(t, pipeline.Config{Synthesis: 1, HostBudget: 10 * partitionBytes})
			j, err := p.Enqueue(context.Background(), spec(4, tc.setup(f), &ev))
			require.NoError(t, err)
			err = j.Collect(func(pipeline.Result) error { return tc.each })
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
			} else {
				var pe *par.PanicError
				require.ErrorAs(t, err, &pe)
			}
			assert.Contains(t, err.Error(), tc.text)
			failed := len(ev.of(pipeline.Failed))
			assert.Equal(t, 4, failed+len(ev.of(pipeline.Proved)), "every partition ends reported")
			assert.Positive(t, failed, "the rest were withdrawn")
			st := p.Stats()
			assert.Zero(t, st.Jobs)
			assert.Equal(t, st.Budget.Spare, st.Budget.Reserved)

			f.mu.Lock()
			f.hook = nil
			f.mu.Unlock()
			j, err = p.Enqueue(context.Background(), spec(2, chain, nil))
			require.NoError(t, err)
			require.NoError(t, j.Collect(func(pipeline.Result) error { return nil }), "the pipeline goes on")
		})
	}
}

// panicky panics in synthesis, on a goroutine of its own as a gadget's bug
// in a parallel synthesis would.
type panicky struct{}

func (panicky) Synthesize(ctx context.Context, _ synth.ConstraintSystem) error {
	return par.Range(ctx, 8, 1, func(lo, _ int) error {
		if lo == 0 {
			panic("gadget bug")
		}
		return nil
	})
}

// Close cuts a job in synthesis short with ErrClosed and refuses new ones.
func TestPipelineClose(t *testing.T) {
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 1, HostBudget: 10 * partitionBytes})
	h := held()
	j, err := p.Enqueue(context.Background(), spec(3, func(int) (synth.Circuit, error) { return h, nil }, nil))
	require.NoError(t, err)
	got := collect(j)
	wait(t, h.synthesizing, "the partition never reached synthesis")
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	assert.ErrorIs(t, result(t, got), pipeline.ErrClosed)
	wait(t, closed, "Close did not return")
	_, err = p.Enqueue(context.Background(), spec(1, chain, nil))
	assert.ErrorIs(t, err, pipeline.ErrClosed)
	p.Close() // idempotent
	assert.Zero(t, p.Stats().Budget.Reserved)
}

// A partition larger than the budget is refused at once; bad
// configurations are refused by New.
func TestPipelineRefuses(t *testing.T) {
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 1, HostBudget: partitionBytes - 1})
	_, err := p.Enqueue(context.Background(), spec(1, chain, nil))
	assert.ErrorIs(t, err, pipeline.ErrBudget)
	assert.Zero(t, p.Stats().Jobs)

	_, err = pipeline.New(pipeline.Config{Synthesis: 0, Provers: []pipeline.Prover{{Device: -1, Prover: &fakeProver{}}}})
	assert.Error(t, err)
	_, err = pipeline.New(pipeline.Config{Synthesis: 1})
	assert.Error(t, err)
}

// Prover workers are named by device in Stats, in their order, and a
// worker's busy flag is set while it proves.
func TestPipelineProverStats(t *testing.T) {
	release := make(chan struct{})
	proving := make(chan struct{})
	gpu := &fakeProver{hook: func(ctx context.Context) error {
		close(proving)
		<-release
		return nil
	}}
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 1, HostBudget: 10 * partitionBytes,
		Provers: []pipeline.Prover{{Device: 3, Prover: gpu}}})
	j, err := p.Enqueue(context.Background(), spec(1, chain, nil))
	require.NoError(t, err)
	got := collect(j)
	wait(t, proving, "the partition never reached its prover")
	st := p.Stats()
	// The device's urgent worker follows Config.Provers' (TestPipelineUrgentProvedAtOnce).
	assert.Equal(t, []pipeline.ProverStats{{Device: 3, Busy: true}, {Device: 3, Urgent: true}}, st.Provers)
	assert.Equal(t, 1, st.Workers())
	assert.Equal(t, 1, st.Proving)
	close(release)
	require.NoError(t, result(t, got))
	assert.Equal(t, []pipeline.ProverStats{{Device: 3}, {Device: 3, Urgent: true}}, p.Stats().Provers)
}

// With a real prover, a partition's report names each section of the proof
// as it starts, once, between Proving and Proved.
func TestPipelineReportsPhases(t *testing.T) {
	c := &testcircuit.Chain{N: 24, Seed: 1, Inputs: 1}
	pk, err := groth16.Setup(context.Background(), c, rand.NewChaCha8([32]byte{1}))
	require.NoError(t, err)
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 1, HostBudget: 2 * partitionBytes,
		Provers: []pipeline.Prover{{Device: -1, Prover: &groth16.CPUProver{}}}})
	var ev events
	s := spec(2, func(int) (synth.Circuit, error) { return c, nil }, &ev)
	s.Key = pk
	j, err := p.Enqueue(context.Background(), s)
	require.NoError(t, err)
	require.NoError(t, result(t, collect(j)))

	want := []string{"queued", "scheduled", "synthesizing", "proving", "proving H", "proving msm_h", "proving msm_l",
		"proving msm_a", "proving msm_b_g1", "proving msm_b_g2", "proved"}
	names := map[pipeline.Stage]string{pipeline.Queued: "queued", pipeline.Scheduled: "scheduled",
		pipeline.Synthesizing: "synthesizing", pipeline.Proving: "proving", pipeline.Proved: "proved", pipeline.Failed: "failed"}
	got := map[int][]string{}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for _, e := range ev.all {
		s := names[e.Stage]
		if e.Phase != "" {
			s += " " + e.Phase
		}
		got[e.Partition] = append(got[e.Partition], s)
	}
	assert.Equal(t, map[int][]string{0: want, 1: want}, got)
}

// With room in the budget for every partition, the pipeline still
// synthesizes no further ahead of a stalled prover than its synthesis
// workers: one partition proving, two synthesized and waiting, the rest
// queued until the prover takes the next.
func TestPipelineSynthesizesNoFurtherAhead(t *testing.T) {
	p, f := newPipeline(t, pipeline.Config{Synthesis: 2, HostBudget: 100 * partitionBytes})
	proving, release := make(chan struct{}, 10), make(chan struct{})
	f.hook = func(ctx context.Context) error {
		proving <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return ctx.Err()
	}
	var ev events
	j, err := p.Enqueue(context.Background(), spec(6, chain, &ev))
	require.NoError(t, err)
	got := collect(j)
	wait(t, proving, "no partition reached the prover")
	require.Eventually(t, func() bool { return p.Stats().WaitingProver == 2 }, 5*time.Second, time.Millisecond)
	time.Sleep(50 * time.Millisecond) // room for a wrong dispatch to show
	s := p.Stats()
	assert.Equal(t, 1, s.Proving)
	assert.Equal(t, 2, s.WaitingProver)
	assert.Zero(t, s.Synthesizing)
	assert.Len(t, ev.of(pipeline.Synthesizing), 3, "the prover's and the two ahead")
	assert.Equal(t, int64(3*partitionBytes), s.Budget.Reserved)
	close(release)
	require.NoError(t, result(t, got))
	assert.Len(t, ev.of(pipeline.Synthesizing), 6)
}

// A job of a higher priority, enqueued behind jobs of a lower one, is
// scheduled before every one of their partitions still queued; the
// partition held in synthesis is not pre-empted, and equal priorities keep
// their order. Stats lists each job with its label and progress, and the
// label of the job a prover worker proves.
func TestPipelinePriorities(t *testing.T) {
	var ev events
	p, f := newPipeline(t, pipeline.Config{Synthesis: 1, HostBudget: 8 * partitionBytes})
	first := held()
	proving := make(chan string, 64) // each proof sends a label per busy worker: its own, perhaps an urgent one
	f.hook = func(context.Context) error {
		for _, w := range p.Stats().Provers {
			if w.Busy {
				proving <- w.Label
			}
		}
		return nil
	}
	mk := func(label string, prio int, circuit func(int) (synth.Circuit, error)) *pipeline.Job {
		s := spec(2, circuit, &ev)
		s.Label, s.Priority = label, prio
		j, err := p.Enqueue(context.Background(), s)
		require.NoError(t, err)
		return j
	}
	heldOnce := func(k int) (synth.Circuit, error) {
		c, err := chain(k)
		if k == 0 {
			c = heldThen{first, c}
		}
		return c, err
	}
	low := mk("low", 0, heldOnce)
	wait(t, first.synthesizing, "the first partition did not start")
	low2 := mk("low2", 0, chain)
	high := mk("high", 2, chain)
	mid := mk("mid", 1, chain)

	st := p.Stats()
	var labels []string
	var started []int
	for _, j := range st.JobList {
		labels = append(labels, j.Label)
		started = append(started, j.Started)
	}
	assert.Equal(t, []string{"low", "low2", "high", "mid"}, labels)
	// high and mid may have started on the urgent workers
	// (TestPipelineUrgentSynthesizedAtOnce); low2 waits.
	assert.Equal(t, []int{1, 0}, started[:2])
	assert.Equal(t, 2, st.JobList[2].Priority)

	close(first.release)
	for _, j := range []*pipeline.Job{low, low2, high, mid} {
		assert.NoError(t, result(t, collect(j)))
	}
	assert.False(t, high.Started().IsZero())
	var order []uint64
	for _, e := range ev.of(pipeline.Scheduled) {
		order = append(order, e.Seq)
	}
	// low's first partition was already synthesizing; then high, mid, low's
	// second, low2.
	assert.Equal(t, []uint64{1, 3, 3, 4, 4, 1, 2, 2}, order)
	close(proving)
	labels = nil
	for l := range proving {
		labels = append(labels, l)
	}
	assert.GreaterOrEqual(t, len(labels), 8, "each proof saw at least its own worker busy")
	assert.Contains(t, labels, "high")
	assert.Empty(t, p.Stats().JobList)
}

// heldThen is a held circuit that synthesizes then once released.
type heldThen struct {
	heldCircuit
	then synth.Circuit
}

func (c heldThen) Synthesize(ctx context.Context, cs synth.ConstraintSystem) error {
	if err := c.heldCircuit.Synthesize(ctx, cs); err != nil {
		return err
	}
	return c.then.Synthesize(ctx, cs)
}

// A partition above the default priority waits neither for room ahead of
// the provers nor for a prover: with the one synthesis worker's partition
// already waiting for the busy prover, a high one is synthesized at once
// (the urgent token) and proved by the device's urgent worker while the
// busy one still proves; a default one waits as before, and the urgent
// worker leaves it (and the partitions ahead) to the busy one.
func TestPipelineUrgentProvedAtOnce(t *testing.T) {
	p, f := newPipeline(t, pipeline.Config{Synthesis: 1, HostBudget: 8 * partitionBytes})
	release := make(chan struct{})
	var once sync.Once
	f.hook = func(ctx context.Context) error {
		first := false
		once.Do(func() { first = true })
		if first {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return ctx.Err()
	}
	mk := func(label string, prio, n int) <-chan error {
		s := spec(n, chain, nil)
		s.Label, s.Priority = label, prio
		j, err := p.Enqueue(context.Background(), s)
		require.NoError(t, err)
		return collect(j)
	}
	low := mk("low", 0, 3)
	require.Eventually(t, func() bool { s := p.Stats(); return s.Proving == 1 && s.WaitingProver == 1 }, 5*time.Second, time.Millisecond)
	normal := mk("normal", 0, 1)
	time.Sleep(50 * time.Millisecond) // room for a wrong dispatch to show
	assert.Equal(t, 1, p.Stats().WaitingProver, "a default partition waits for room ahead")
	high := mk("high", 2, 1)
	require.NoError(t, result(t, high), "proved while the prover worker is held")
	st := p.Stats()
	assert.Equal(t, 1, st.Proving, "low's first partition, still held")
	assert.Equal(t, 1, st.WaitingProver, "low's second waits for its worker, not the urgent one")
	close(release)
	for _, got := range []<-chan error{low, normal} {
		require.NoError(t, result(t, got))
	}
}

// yieldProbe synthesizes a chain and records whether, during its
// synthesis, work on another context had to yield (par.Yield).
type yieldProbe struct{ held chan bool }

func (c yieldProbe) Synthesize(ctx context.Context, cs synth.ConstraintSystem) error {
	if err := par.Yield(ctx); err != nil { // its own parts never wait
		return err
	}
	other := make(chan error, 1)
	go func() { other <- par.Yield(context.Background()) }()
	select {
	case <-other:
		c.held <- false
	case <-time.After(20 * time.Millisecond):
		go func() { <-other; c.held <- true }() // released when the synthesis ends
	}
	return (&testcircuit.Chain{N: 24, Seed: 1, Inputs: 1}).Synthesize(ctx, cs)
}

// The synthesis of a job above the default priority is urgent (par.Urgent):
// the other syntheses' parts yield to it; a default job's is not.
func TestPipelineUrgentSynthesisYields(t *testing.T) {
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 1, HostBudget: 8 * partitionBytes})
	for _, prio := range []int{0, 1} {
		c := yieldProbe{make(chan bool, 1)}
		s := spec(1, func(int) (synth.Circuit, error) { return c, nil }, nil)
		s.Priority = prio
		j, err := p.Enqueue(context.Background(), s)
		require.NoError(t, err)
		require.NoError(t, result(t, collect(j)))
		select {
		case held := <-c.held:
			assert.Equal(t, prio > 0, held, "priority %d: other work yielded", prio)
		case <-time.After(10 * time.Second):
			t.Fatalf("priority %d: the other work still waits", prio)
		}
	}
}

// A partition above the default priority waits for no synthesis to end
// either: with the one synthesis worker held in a low partition's
// synthesis, a high one is synthesized by the urgent worker and proved
// while the other still synthesizes; default ones queue behind it.
func TestPipelineUrgentSynthesizedAtOnce(t *testing.T) {
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 1, HostBudget: 8 * partitionBytes})
	first := held()
	heldOnce := func(k int) (synth.Circuit, error) {
		c, err := chain(k)
		if k == 0 {
			c = heldThen{first, c}
		}
		return c, err
	}
	mk := func(prio int, circuit func(int) (synth.Circuit, error)) <-chan error {
		s := spec(2, circuit, nil)
		s.Priority = prio
		j, err := p.Enqueue(context.Background(), s)
		require.NoError(t, err)
		return collect(j)
	}
	low := mk(0, heldOnce)
	wait(t, first.synthesizing, "the first partition did not start")
	normal := mk(0, chain)
	high := mk(1, chain)
	require.NoError(t, result(t, high), "synthesized and proved while the synthesis worker is held")
	st := p.Stats()
	assert.Equal(t, 1, st.Synthesizing, "low's first partition, still held")
	close(first.release)
	for _, got := range []<-chan error{low, normal} {
		require.NoError(t, result(t, got))
	}
}

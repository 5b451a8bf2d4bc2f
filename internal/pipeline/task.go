package pipeline

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
)

// task is one partition of a job.
type task struct {
	job *Job
	k   int

	enqueued, synthesized time.Time
	reserved              bool                     // holds spec.Bytes of the budget
	ahead                 chan struct{}            // the token it holds: Pipeline.ahead or .urgent; nil: none
	w                     *synth.ProvingAssignment // a spare, or the synthesized one
	queue, synth, prove   time.Duration
	device                int
	proof                 *groth16.Proof
	err                   error
}

func (t *task) args() []any {
	return slices.Concat(t.job.spec.TraceArgs, []any{"proof", t.job.seq, "partition", t.k})
}

func (j *Job) report(t *task, s Stage, err error) {
	if j.spec.Report != nil {
		j.spec.Report(Event{Seq: j.seq, Partition: t.k, Stage: s, Device: t.device, Err: err})
	}
}

// reportPhase reports that t's prover has started the section phase.
func (j *Job) reportPhase(t *task, phase string) {
	if j.spec.Report != nil {
		j.spec.Report(Event{Seq: j.seq, Partition: t.k, Stage: Proving, Device: t.device, Phase: phase})
	}
}

// failure is err of a partition's work, or the job's cancellation cause
// when the job was cancelled (the work most likely stopped for it) — but
// never in place of a panic.
func (j *Job) failure(err error) error {
	var pe *par.PanicError
	if cause := context.Cause(j.ctx); cause != nil && !errors.As(err, &pe) {
		return cause
	}
	return err
}

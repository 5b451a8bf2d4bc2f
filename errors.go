package gpuc2

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/internal/pipeline"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/post"
	"github.com/gpuc2/gpuc2/synth/update"
)

// Errors callers can test with errors.Is. Cancellation returns the
// context's error (context.Canceled, context.DeadlineExceeded).
var (
	// ErrBadInput wraps every problem with what the caller passed: the C1
	// bytes (errors.As then gives a *porep.C1Error naming the field), an
	// update's vanilla proofs (a *update.ProofError naming partition,
	// challenge and field) or commitment CIDs, a PoSt request's vanilla
	// proofs (a *FaultySectorsError listing the faulty sectors) or
	// randomness, the sector identity, a proof type, a SealVerifyInfo, a
	// ReplicaUpdateInfo, a PoSt verify info or a proof, what is aggregated
	// or verified as an aggregate (AggregateSealProofs,
	// VerifyAggregateSeals), a Config's
	// Backend or ConstraintMatrices. A string of the caller's is
	// quoted in the message and cut to 64 bytes, its length said.
	ErrBadInput = errors.New("gpuc2: bad input")
	// ErrParamsCorrupt reports a parameter file that is truncated, malformed,
	// does not match its .vk or its digest, is not a regular file, or does
	// not fit the circuit of its proof type: what the file holds is wrong.
	// An operating-system error on a parameter path (permission denied, a
	// dangling link, a link loop, a directory that cannot be searched)
	// wraps ErrParamsMissing instead: the process cannot get the bytes.
	// Both name the path, once.
	ErrParamsCorrupt = errors.New("gpuc2: parameters corrupt")
	// ErrOutOfDeviceMemory reports a GPU that could not hold a partition's
	// work: the native library's out-of-memory status, or a reservation
	// larger than the device's VRAM budget.
	ErrOutOfDeviceMemory = errors.New("gpuc2: out of device memory")
	// ErrBudget reports a proof whose partition can never fit the host
	// memory budget (Config.HostMemoryBudget); it is returned at once.
	ErrBudget = errors.New("gpuc2: partition larger than the host memory budget")
	// ErrProofInvalid reports a proof that failed self-verification, or
	// one with a point off its curve (never returned, even without
	// self-verification).
	ErrProofInvalid = errors.New("gpuc2: proof failed self-verification")
	// ErrClosed reports a call on a closed Prover, or a proof cut short by Close.
	ErrClosed = errors.New("gpuc2: prover closed")
	// ErrInternal reports a panic inside gpuc2, recovered: the proof or call
	// it met fails (the stack is logged), the Prover and the process go on.
	ErrInternal = errors.New("gpuc2: internal error")
	// ErrUnsupported reports a request gpuc2 cannot serve: today an NI-PoRep
	// proof in VerifySealVK, which has no SRS to check its SnarkPack
	// aggregate with (Prover.VerifySeal has). It also matches
	// errors.ErrUnsupported.
	ErrUnsupported = fmt.Errorf("gpuc2: unsupported: %w", errors.ErrUnsupported)
)

// guard runs a public call's body: nothing panics past the library's
// boundary, and the lower layers' errors leave with the package's sentinels.
func guard(log *slog.Logger, what string, f func() error) error {
	return classify(recovered(log, what, par.Recover(f)))
}

// recovered turns a panic recovered by par.Recover (in err, possibly
// wrapped: the pipeline's goroutines recover theirs too) into an error
// wrapping ErrInternal, and logs its stack.
func recovered(log *slog.Logger, what string, err error) error {
	var pe *par.PanicError
	if !errors.As(err, &pe) || errors.Is(err, ErrInternal) { // not a panic, or told already
		return err
	}
	log.Error("gpuc2: recovered a panic", "in", what, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	return fmt.Errorf("%w: %s: %w", ErrInternal, what, err)
}

// classify maps the lower layers' errors onto the package's sentinels (an
// error already carrying one is left as it is).
func classify(err error) error {
	switch {
	case err == nil, errors.Is(err, ErrBadInput), errors.Is(err, ErrParamsCorrupt), errors.Is(err, ErrOutOfDeviceMemory),
		errors.Is(err, ErrBudget), errors.Is(err, ErrClosed):
		return err
	case errors.Is(err, porep.ErrBadC1), errors.Is(err, porep.ErrUnknownProof),
		errors.Is(err, update.ErrBadVanillaProof), errors.Is(err, update.ErrBadCommitment), errors.Is(err, update.ErrParams),
		errors.Is(err, update.ErrWitness), errors.Is(err, update.ErrPoseidonVariant),
		errors.Is(err, post.ErrProofType), errors.Is(err, post.ErrVanillaProof), errors.Is(err, post.ErrRequest),
		errors.Is(err, post.ErrWitness):
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	case errors.Is(err, gpu.ErrOutOfDeviceMemory):
		return fmt.Errorf("%w: %w", ErrOutOfDeviceMemory, err)
	case errors.Is(err, groth16.ErrKeyMismatch), errors.Is(err, groth16.ErrMalformedKey):
		return fmt.Errorf("%w: %w", ErrParamsCorrupt, err)
	case errors.Is(err, pipeline.ErrBudget):
		return fmt.Errorf("%w: %w", ErrBudget, err)
	case errors.Is(err, pipeline.ErrClosed):
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}

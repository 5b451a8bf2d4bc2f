package gpuc2_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// The shapes of the calls gpuc2 stands in for, declared as their owners
// declare them (filecoin-ffi proofs.go, Curio lib/ffiselect's FFISelect).
type (
	ffiselectSealCommitPhase2 func(ctx context.Context, phase1Output []byte, sectorNum abi.SectorNumber, minerID abi.ActorID) ([]byte, error)
	ffiVerifySeal             func(info proof.SealVerifyInfo) (bool, error)
	// ffi's own SealCommitPhase2 and SealCommitPhase2CircuitProofs take no
	// context; gpuc2's add one in front.
	ffiSealCommitPhase2              func(phase1Output []byte, sectorNum abi.SectorNumber, minerID abi.ActorID) ([]byte, error)
	ffiSealCommitPhase2CircuitProofs func(phase1Output []byte, sectorNum abi.SectorNumber) ([]byte, error)
	// ffi's AggregateSealProofs takes no context either.
	ffiAggregateSealProofs  func(aggregateInfo proof.AggregateSealVerifyProofAndInfos, proofs [][]byte) (out []byte, err error)
	ffiVerifyAggregateSeals func(aggregate proof.AggregateSealVerifyProofAndInfos) (bool, error)
)

// TestDropInSignatures fails to compile if gpuc2's calls drift from the
// types an integrator assigns them to.
func TestDropInSignatures(t *testing.T) {
	var p *gpuc2.Prover
	var _ ffiselectSealCommitPhase2 = p.SealCommitPhase2
	var _ ffiVerifySeal = p.VerifySeal
	ctx := context.Background()
	var _ ffiSealCommitPhase2 = func(b []byte, s abi.SectorNumber, m abi.ActorID) ([]byte, error) {
		return p.SealCommitPhase2(ctx, b, s, m)
	}
	var _ ffiSealCommitPhase2CircuitProofs = func(b []byte, s abi.SectorNumber) ([]byte, error) {
		return p.SealCommitPhase2CircuitProofs(ctx, b, s)
	}
	var _ ffiAggregateSealProofs = func(info proof.AggregateSealVerifyProofAndInfos, proofs [][]byte) ([]byte, error) {
		return p.AggregateSealProofs(ctx, info, proofs)
	}
	var _ ffiVerifyAggregateSeals = p.VerifyAggregateSeals
}

// NI-PoRep: SealCommitPhase2 (whose output is then a SnarkPack aggregate),
// ProveSeal and SealCommitPhase2CircuitProofs check a consistent C1 and get
// as far as the parameters (none here); one with two partitions swapped is
// refused at its challenges. VerifySealVK, which has no SRS, refuses
// NI-PoRep.
func TestNonInteractiveChecks(t *testing.T) {
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	miner, sector := abi.ActorID(1000), abi.SectorNumber(3)
	c1, err := porep.SyntheticC1(ctx, abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep, miner, sector, [32]byte{3})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)

	_, err = p.SealCommitPhase2(ctx, raw, sector, miner)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	assert.ErrorContains(t, err, gpuc2.SRSFileName, "the SRS its aggregate needs is looked for first")
	_, err = p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner})
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	_, err = p.SealCommitPhase2(ctx, raw, sector, miner+1)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput, "replica_id of another miner")

	_, err = p.SealCommitPhase2CircuitProofs(ctx, raw, sector)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	assert.NotContains(t, err.Error(), gpuc2.SRSFileName, "no aggregate, no SRS")

	_, err = gpuc2.VerifySealVK(nil, proof.SealVerifyInfo{SealProof: abi.RegisteredSealProof_StackedDrg32GiBV1_2_Feat_NiPoRep})
	assert.ErrorIs(t, err, gpuc2.ErrUnsupported)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	assert.ErrorContains(t, err, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep")

	c1.VanillaProofs[0], c1.VanillaProofs[1] = c1.VanillaProofs[1], c1.VanillaProofs[0]
	swapped, err := c1.EncodeJSON()
	require.NoError(t, err)
	for _, call := range []func() error{
		func() error { _, err := p.SealCommitPhase2CircuitProofs(ctx, swapped, sector); return err },
		func() error { _, err := p.SealCommitPhase2(ctx, swapped, sector, miner); return err },
	} {
		err := call()
		assert.ErrorIs(t, err, gpuc2.ErrBadInput)
		var c1Err *porep.C1Error
		require.ErrorAs(t, err, &c1Err)
		assert.Equal(t, 0, c1Err.Partition)
	}
}

// captureHandler keeps the messages of the records it handles.
type captureHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Message)
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

// Without Config.Logger, gpuc2 logs through slog.Default(), where a host
// process (Curio, through go-log's SlogHandler) has routed its logs; a
// discarding default hid the TEST-ONLY warning.
func TestLoggerDefaultsToSlogDefault(t *testing.T) {
	h := &captureHandler{}
	old := slog.Default()
	slog.SetDefault(slog.New(h))
	defer slog.SetDefault(old)
	p, err := gpuc2.New(context.Background(), gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	p.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Contains(t, h.msgs, "gpuc2 prover ready")
}

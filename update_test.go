package gpuc2_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/ipfs/go-cid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth/update"
)

// filecoin-ffi's SectorUpdate calls as ffi declares them (proofs.go,
// FunctionsSectorUpdate); gpuc2's prover call adds a context in front.
type (
	ffiGenerateUpdateProofWithVanilla func(proofType abi.RegisteredUpdateProof, oldSealedCID, newSealedCID, unsealedCID cid.Cid,
		vproofs [][]byte) ([]byte, error)
	ffiVerifyUpdateProof func(info proof.ReplicaUpdateInfo) (bool, error)
)

// TestUpdateDropInSignatures fails to compile if gpuc2's update calls drift
// from ffi's shapes.
func TestUpdateDropInSignatures(t *testing.T) {
	var p *gpuc2.Prover
	ctx := context.Background()
	var _ ffiGenerateUpdateProofWithVanilla = func(pt abi.RegisteredUpdateProof, o, n, u cid.Cid, v [][]byte) ([]byte, error) {
		return p.GenerateUpdateProofWithVanilla(ctx, pt, o, n, u, v)
	}
	var _ ffiVerifyUpdateProof = p.VerifyUpdateProof
}

// syntheticUpdate is a made-up update (seed picks it) as ffi's callers
// hold it: CIDs and one bincode vanilla proof per partition.
type syntheticUpdate struct {
	t                                 abi.RegisteredUpdateProof
	oldSealed, newSealed, newUnsealed cid.Cid
	vanilla                           [][]byte
}

func newSyntheticUpdate(t *testing.T, pt abi.RegisteredUpdateProof, seed uint64) syntheticUpdate {
	t.Helper()
	params, err := update.ParamsFor(pt)
	require.NoError(t, err)
	s, err := update.NewSynthetic(params, seed)
	require.NoError(t, err)
	u := syntheticUpdate{t: pt, vanilla: update.EncodeVanillaProofs(s.Proofs)}
	u.oldSealed, u.newSealed, u.newUnsealed, err = s.CIDs()
	require.NoError(t, err)
	return u
}

func (u syntheticUpdate) request() gpuc2.UpdateRequest {
	return gpuc2.UpdateRequest{ProofType: u.t, OldSealed: u.oldSealed, NewSealed: u.newSealed, NewUnsealed: u.newUnsealed,
		VanillaProofs: u.vanilla}
}

// Bad update inputs are refused with ErrBadInput, naming what is wrong,
// before any parameters are looked for.
func TestProveUpdateBadInput(t *testing.T) {
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	u := newSyntheticUpdate(t, abi.RegisteredUpdateProof_StackedDrg2KiBV1, 1)
	other := newSyntheticUpdate(t, abi.RegisteredUpdateProof_StackedDrg2KiBV1, 2)

	flipped := u.request()
	flipped.VanillaProofs = [][]byte{append([]byte(nil), u.vanilla[0]...)}
	flipped.VanillaProofs[0][100] ^= 1
	for name, tc := range map[string]struct {
		req  func() gpuc2.UpdateRequest
		says string
	}{
		"unknown type": {func() gpuc2.UpdateRequest { r := u.request(); r.ProofType = 99; return r }, "99"},
		"no old CID":   {func() gpuc2.UpdateRequest { r := u.request(); r.OldSealed = cid.Undef; return r }, "comm_r_old"},
		"data CID as comm_r_new": {func() gpuc2.UpdateRequest {
			r := u.request()
			r.NewSealed = u.newUnsealed
			return r
		}, "comm_r_new"},
		"two partitions": {func() gpuc2.UpdateRequest {
			r := u.request()
			r.VanillaProofs = append(r.VanillaProofs, r.VanillaProofs[0])
			return r
		}, "partition"},
		"a flipped byte":         {func() gpuc2.UpdateRequest { return flipped }, "partition 0"},
		"another sector's proof": {func() gpuc2.UpdateRequest { r := u.request(); r.VanillaProofs = other.vanilla; return r }, "partition 0"},
		"another comm_d_new":     {func() gpuc2.UpdateRequest { r := u.request(); r.NewUnsealed = other.newUnsealed; return r }, ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := p.ProveUpdate(ctx, tc.req())
			require.ErrorIs(t, err, gpuc2.ErrBadInput)
			assert.Contains(t, err.Error(), tc.says)
			assert.Less(t, len(err.Error()), 600, "bounded error text")
		})
	}
	// Good inputs get as far as the parameters (none here).
	_, err = p.ProveUpdate(ctx, u.request())
	require.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	assert.Contains(t, err.Error(), "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-")

	info := proof.ReplicaUpdateInfo{UpdateProofType: u.t, OldSealedSectorCID: u.oldSealed, NewSealedSectorCID: u.newSealed,
		NewUnsealedSectorCID: u.newUnsealed, Proof: make([]byte, 10)}
	_, err = p.VerifyUpdateProof(info)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing, "no verifying key")

	r, err := gpuc2.UpdateRequirements(abi.RegisteredUpdateProof_StackedDrg32GiBV1, gpuc2.Config{Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	assert.Equal(t, 16, r.Partitions)
	assert.Equal(t, 81_049_499+5, r.Constraints, "tests/circuit.rs' count, with the input rows")
	assert.Equal(t, int64(1)<<27, r.Domain)
}

// A 2 KiB update proved through the facade on the CPU (a TEST-ONLY setup
// made on first use) verifies with VerifyUpdateProof, and fails for a
// flipped commitment and for another sector's commitments; preloading and
// Status name the update type.
func TestProveUpdate2KiB(t *testing.T) {
	needFacadeProofs(t)
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	u := newSyntheticUpdate(t, abi.RegisteredUpdateProof_StackedDrg2KiBV1, 1)
	require.NoError(t, p.PreloadUpdate(ctx, u.t))
	keys := p.Status().Keys
	require.Len(t, keys, 1)
	assert.Equal(t, []abi.RegisteredUpdateProof{u.t}, keys[0].UpdateTypes)
	assert.Empty(t, keys[0].Types)
	assert.Empty(t, p.Status().Loaded, "Loaded lists seal types")

	res, err := p.ProveUpdate(ctx, u.request())
	require.NoError(t, err)
	require.Len(t, res.Proof, groth16.ProofSize)
	out, err := p.GenerateUpdateProofWithVanilla(ctx, u.t, u.oldSealed, u.newSealed, u.newUnsealed, u.vanilla)
	require.NoError(t, err)
	require.Len(t, out, groth16.ProofSize)

	ok, err := p.VerifyUpdateProof(res.VerifyInfo)
	require.NoError(t, err)
	assert.True(t, ok, "the proof verifies")
	ok, err = p.VerifyUpdateProof(proof.ReplicaUpdateInfo{UpdateProofType: u.t, OldSealedSectorCID: u.oldSealed,
		NewSealedSectorCID: u.newSealed, NewUnsealedSectorCID: u.newUnsealed, Proof: out})
	require.NoError(t, err)
	assert.True(t, ok, "GenerateUpdateProofWithVanilla's proof verifies")

	other := newSyntheticUpdate(t, abi.RegisteredUpdateProof_StackedDrg2KiBV1, 2)
	for name, info := range map[string]proof.ReplicaUpdateInfo{
		"another comm_r_old":      {OldSealedSectorCID: other.oldSealed, NewSealedSectorCID: u.newSealed, NewUnsealedSectorCID: u.newUnsealed},
		"another comm_d_new":      {OldSealedSectorCID: u.oldSealed, NewSealedSectorCID: u.newSealed, NewUnsealedSectorCID: other.newUnsealed},
		"another sector's update": {OldSealedSectorCID: other.oldSealed, NewSealedSectorCID: other.newSealed, NewUnsealedSectorCID: other.newUnsealed},
	} {
		info.UpdateProofType, info.Proof = u.t, res.Proof
		ok, err := p.VerifyUpdateProof(info)
		require.NoError(t, err, name)
		assert.False(t, ok, "%s: verifies", name)
	}
	flipped := res.VerifyInfo
	flipped.Proof = append([]byte(nil), res.Proof...)
	flipped.Proof[40] ^= 1
	if ok, err := p.VerifyUpdateProof(flipped); err == nil {
		assert.False(t, ok, "a flipped proof byte verifies")
	} else {
		assert.ErrorIs(t, err, gpuc2.ErrBadInput)
	}
	require.NoError(t, p.EvictUpdate(u.t))
	assert.Empty(t, p.Status().Keys)
}

// One Prover holds a PoRep key and an update key at once (each with its
// own matrices, on the same devices with a GPU) and proves a seal and an
// update in flight together; both verify, and evicting one key leaves the
// other. The backend is automatic: the GPU where the library loads.
func TestSealAndUpdateOnOneProver(t *testing.T) {
	needFacadeProofs(t)
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t)})
	require.NoError(t, err)
	defer p.Close()
	sealType := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	u := newSyntheticUpdate(t, abi.RegisteredUpdateProof_StackedDrg2KiBV1, 3)
	require.NoError(t, p.Preload(ctx, sealType))
	require.NoError(t, p.PreloadUpdate(ctx, u.t))
	keys := p.Status().Keys
	require.Len(t, keys, 2, "two files: the update circuit's key is not PoRep's")
	var seals, updates int
	for _, k := range keys {
		seals += len(k.Types)
		updates += len(k.UpdateTypes)
		assert.False(t, len(k.Types) > 0 && len(k.UpdateTypes) > 0, "a key serves one circuit: %+v", k)
	}
	assert.Equal(t, 1, seals)
	assert.Equal(t, 1, updates)

	miner, sector := abi.ActorID(1234), abi.SectorNumber(7)
	_, raw := syntheticC1JSON(t, miner, sector)
	var (
		sealRes *gpuc2.SealResult
		sealErr error
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		sealRes, sealErr = p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner})
	}()
	updRes, err := p.ProveUpdate(ctx, u.request())
	<-done
	require.NoError(t, err, "the update")
	require.NoError(t, sealErr, "the seal")

	ok, err := p.VerifyUpdateProof(updRes.VerifyInfo)
	require.NoError(t, err)
	assert.True(t, ok, "the update verifies")
	info, err := gpuc2.NewSealVerifyInfo(raw, sealRes.Proof, sector, miner)
	require.NoError(t, err)
	ok, err = p.VerifySeal(info)
	require.NoError(t, err)
	assert.True(t, ok, "the seal verifies")

	require.NoError(t, p.EvictUpdate(u.t))
	keys = p.Status().Keys
	require.Len(t, keys, 1)
	assert.Equal(t, []abi.RegisteredSealProof{sealType}, keys[0].Types, "the PoRep key stays")
	require.NoError(t, p.Evict(sealType))
	assert.Empty(t, p.Status().Keys)
}

// An 8 MiB update (4 partitions of 10,007,503 constraints) proved through
// the facade verifies, and not for another sector's commitments. Its
// TEST-ONLY setup and proof take tens of minutes on the CPU: opt-in, for a
// GPU machine (the backend is automatic):
//
//	GPUC2_TEST_UPDATE_8MIB=1 go test -run TestProveUpdate8MiB -v -timeout 90m .
func TestProveUpdate8MiB(t *testing.T) {
	if testing.Short() || os.Getenv("GPUC2_TEST_UPDATE_8MIB") == "" {
		t.Skip("set GPUC2_TEST_UPDATE_8MIB=1 to prove an 8 MiB update (tens of minutes on a CPU)")
	}
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: ownParamsDir(t)})
	require.NoError(t, err)
	defer p.Close()
	u := newSyntheticUpdate(t, abi.RegisteredUpdateProof_StackedDrg8MiBV1, 8)
	res, err := p.ProveUpdate(ctx, u.request())
	require.NoError(t, err)
	require.Len(t, res.Proof, 4*groth16.ProofSize)
	t.Logf("8 MiB update on %s: %v (params %v, synthesis %v, prove %v, partition sums)", res.Backend, res.Timings.Total,
		res.Timings.ParamLoad, res.Timings.Synthesis, res.Timings.Prove)
	ok, err := p.VerifyUpdateProof(res.VerifyInfo)
	require.NoError(t, err)
	assert.True(t, ok)
	other := newSyntheticUpdate(t, abi.RegisteredUpdateProof_StackedDrg8MiBV1, 9)
	info := res.VerifyInfo
	info.OldSealedSectorCID, info.NewSealedSectorCID, info.NewUnsealedSectorCID = other.oldSealed, other.newSealed, other.newUnsealed
	ok, err = p.VerifyUpdateProof(info)
	require.NoError(t, err)
	assert.False(t, ok, "verifies for another sector")
}

// Without its parameter file, UpdateRequirements at 32 GiB prices the key
// from the circuit's section counts (a file of 34.45 GB), not from the
// bound every variable gives (51.8 GB).
func TestUpdateRequirements32GiBKey(t *testing.T) {
	r, err := gpuc2.UpdateRequirements(abi.RegisteredUpdateProof_StackedDrg32GiBV1,
		gpuc2.Config{Backend: gpuc2.BackendCPU, ParamsDir: t.TempDir()})
	require.NoError(t, err)
	assert.False(t, r.ParamsExact)
	want := groth16.ParamsFileBytes(groth16.SectionCounts{H: 134_217_727, L: 80_978_488, A: 80_743_586, B: 20_983_608}, 5)
	assert.Equal(t, want, r.ParamsBytes)
}

// Curio's stored JSON array splits into its partition proofs as
// synth/update reads it; what is no such array, or an empty one, is bad
// input.
func TestSplitUpdateVanillaProofsJSON(t *testing.T) {
	parts := [][]byte{{1, 2, 3}, {4}, make([]byte, 100)}
	data, err := json.Marshal(parts)
	require.NoError(t, err)
	got, err := gpuc2.SplitUpdateVanillaProofsJSON(data)
	require.NoError(t, err)
	assert.Equal(t, parts, got)
	want, err := update.ParseVanillaProofsJSON(data)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	tooMany, err := json.Marshal(make([][]byte, 65))
	require.NoError(t, err)
	for _, bad := range []string{``, `{"a":1}`, `["not base64!"]`, `[]`, `null`, `[1]`, string(tooMany)} {
		got, err := gpuc2.SplitUpdateVanillaProofsJSON([]byte(bad))
		assert.ErrorIs(t, err, gpuc2.ErrBadInput, "%.20s", bad)
		assert.Nil(t, got)
	}
}

package gpuc2_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// TestRealParams2KiB proves synthetic 2 KiB sectors (V1_1 and Synthetic
// PoRep) with Filecoin's real 2 KiB .params and verifies each proof with
// VerifySealVK and the real .vk, read on its own (its published digest
// checked first). It needs both files in $FIL_PROOFS_PARAMETER_CACHE
// (default /var/tmp/filecoin-proof-parameters); `curio fetch-params 2KiB`
// or `lotus fetch-params 2048` put them there. realproofs'
// TestRealVerifyingKey checks Filecoin's own proofs against the same .vk.
func TestRealParams2KiB(t *testing.T) {
	dir := gpuc2.DefaultParamsDir()
	_, vkPath, err := gpuc2.FindParams(dir, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	if errors.Is(err, gpuc2.ErrParamsMissing) {
		t.Skipf("needs Filecoin's real 2 KiB parameter files: %v; set $%s to their directory or fetch them there with `curio fetch-params 2KiB` or `lotus fetch-params 2048`",
			err, gpuc2.EnvParamsDir)
	}
	require.NoError(t, err)
	ctx := context.Background()
	vk, err := groth16.ReadVerifyingKeyFile(ctx, vkPath, groth16.WithDigestCheck())
	require.NoError(t, err)
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: dir}) // no TestParamsDir: the real files or nothing
	require.NoError(t, err)
	defer p.Close()
	miner := abi.ActorID(1000)
	for i, spt := range []abi.RegisteredSealProof{abi.RegisteredSealProof_StackedDrg2KiBV1_1, abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep} {
		t.Run(porep.ProofName(spt), func(t *testing.T) {
			sector := abi.SectorNumber(10 + i)
			c1, err := porep.SyntheticC1(ctx, spt, miner, sector, sha256.Sum256([]byte("real params")))
			require.NoError(t, err)
			raw, err := c1.EncodeJSON()
			require.NoError(t, err)
			proofBytes, err := p.SealCommitPhase2(ctx, raw, sector, miner)
			require.NoError(t, err)
			info, err := gpuc2.NewSealVerifyInfo(raw, proofBytes, sector, miner)
			require.NoError(t, err)
			ok, err := gpuc2.VerifySealVK(vk, info)
			require.NoError(t, err)
			assert.True(t, ok, "our proof under the real .vk")
			info.Number++
			ok, err = gpuc2.VerifySealVK(vk, info)
			require.NoError(t, err)
			assert.False(t, ok, "the wrong sector number")
		})
	}
}

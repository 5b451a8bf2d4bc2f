package update_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/synth/update"
)

// The decisive check of the circuit's variable and row order: a proof of a
// synthetic update partition under Filecoin's real EmptySectorUpdate
// parameters verifies with Filecoin's real verifying key. It runs where
// the files are in $FIL_PROOFS_PARAMETER_CACHE (else
// /var/tmp/filecoin-proof-parameters), for 2 KiB by default or the
// GPUC2_UPDATE_REAL_SIZE (8MiB, 512MiB, 32GiB, 64GiB), on the GPU where the
// native library is, else the CPU:
//
//	paramfetch / curio fetch-params 2048 (the v28-empty-sector-update-…-8-0-0-fb9e095b… files)
//	go test -run TestRealParams -v ./synth/update
func TestRealParams(t *testing.T) {
	spt := abi.RegisteredUpdateProof_StackedDrg2KiBV1
	for name, p := range map[string]abi.RegisteredUpdateProof{
		"8MiB": abi.RegisteredUpdateProof_StackedDrg8MiBV1, "512MiB": abi.RegisteredUpdateProof_StackedDrg512MiBV1,
		"32GiB": abi.RegisteredUpdateProof_StackedDrg32GiBV1, "64GiB": abi.RegisteredUpdateProof_StackedDrg64GiBV1,
	} {
		if os.Getenv("GPUC2_UPDATE_REAL_SIZE") == name {
			spt = p
		}
	}
	dir := os.Getenv("FIL_PROOFS_PARAMETER_CACHE")
	if dir == "" {
		dir = "/var/tmp/filecoin-proof-parameters"
	}
	base, err := update.ParamsFileBase(spt)
	require.NoError(t, err)
	paramsPath, vkPath := filepath.Join(dir, base+".params"), filepath.Join(dir, base+".vk")
	if _, err := os.Stat(paramsPath); err != nil {
		t.Skipf("no %s in %s", base+".params", dir)
	}
	ctx := context.Background()
	pk, err := groth16.OpenProvingKeyContext(ctx, paramsPath, groth16.WithDigestCheck())
	require.NoError(t, err)
	defer pk.Close()
	vk, err := groth16.ReadVerifyingKeyFile(ctx, vkPath, groth16.WithDigestCheck())
	require.NoError(t, err)

	p, err := update.ParamsFor(spt)
	require.NoError(t, err)
	s, err := update.NewSynthetic(p, 1)
	require.NoError(t, err)
	var prover groth16.Prover = &groth16.CPUProver{}
	if gpu.CUDAAvailable() {
		devs, err := gpu.Open(gpu.Config{Ordinals: []int{0}})
		require.NoError(t, err)
		defer devs.Close()
		prover = devs.Device(0)
	}
	for _, k := range []int{0, p.Partitions - 1} {
		w, err := s.Witness(k)
		require.NoError(t, err)
		start := time.Now()
		proof, err := groth16.Prove(ctx, prover, pk, &update.Circuit{Params: p, Witness: w})
		require.NoError(t, err)
		public, err := s.PublicInputs(k)
		require.NoError(t, err)
		ok, err := groth16.Verify(vk, proof, public)
		require.NoError(t, err)
		require.True(t, ok, "%s partition %d: the proof does not verify with Filecoin's verifying key", update.ProofName(spt), k)
		t.Logf("%s partition %d: proved in %v, verifies with Filecoin's key", update.ProofName(spt), k, time.Since(start))
	}
}

package gpuc2_test

import (
	"context"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/native"
)

// On a GPU, Status names the device and its memory, and a preloaded key is
// on the device (what gpuc2d reports as HOT); a labelled proof is listed
// while it runs and gone after.
func TestStatusKeysOnGPU(t *testing.T) {
	if testing.Short() || !native.Available() {
		t.Skip("needs the native CUDA library and a GPU")
	}
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t), Backend: gpuc2.BackendCUDA})
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Preload(ctx, spt))
	st := p.Status()
	require.NotEmpty(t, st.Devices)
	for _, d := range st.Devices {
		assert.NotEmpty(t, d.Name)
		assert.Positive(t, d.TotalBytes)
		assert.Empty(t, d.Proving)
	}
	require.Len(t, st.Keys, 1)
	assert.Equal(t, []abi.RegisteredSealProof{spt}, st.Keys[0].Types)
	assert.Equal(t, gpuc2.KeyOnDevice, st.Keys[0].Tier)
	assert.Positive(t, st.Keys[0].Bytes)
	assert.Zero(t, st.Keys[0].InUse)

	_, raw := syntheticC1JSON(t, 1000, 7)
	res, err := p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: 7, Miner: 1000, Label: "job-7", Priority: gpuc2.PriorityHigh})
	require.NoError(t, err)
	assert.NotEmpty(t, res.Devices)
	assert.Empty(t, p.Status().Proofs)
	require.NoError(t, p.Evict(spt))
	assert.Empty(t, p.Status().Keys)
}

//go:build unix

package gpuc2_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
)

// A FIFO at the .params path (no writer will ever come) is refused at
// once, not waited on past the caller's deadline.
func TestParamsFIFORefused(t *testing.T) {
	dir := t.TempDir()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	params, vk := paramsPaths(t, filepath.Join(dir, "real"), spt)
	require.NoError(t, syscall.Mkdir(filepath.Dir(params), 0o755))
	require.NoError(t, syscall.Mkfifo(params, 0o644))
	require.NoError(t, syscall.Mkfifo(vk, 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: filepath.Dir(params), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	start := time.Now()
	err = p.Preload(ctx, spt)
	assert.ErrorIs(t, err, gpuc2.ErrParamsCorrupt)
	assert.Less(t, time.Since(start), 2*time.Second)
}

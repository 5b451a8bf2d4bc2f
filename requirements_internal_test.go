package gpuc2

import (
	"context"
	"fmt"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/native"
)

// Requirements sizes a proof by the configuration a New'd Prover runs: the
// same defaults, resolved by the same code, for a zero and an explicit
// Config; and both refuse a backend neither knows.
func TestRequirementsAgreeWithNew(t *testing.T) {
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	type resolved struct {
		name string
		cfg  Config
		want Config // the resolved values checked
	}
	auto := func(workers, conc int) Config { // defaults of the CPU backend but the counts
		return Config{ParamsDir: DefaultParamsDir(), Backend: BackendCPU, WorkersPerDevice: workers,
			SynthesisConcurrency: conc, HostMemoryBudget: defaultHostBudget()}
	}
	cases := []resolved{
		{"zero, cpu", Config{Backend: BackendCPU}, auto(1, 1)},
		{"explicit", Config{ParamsDir: t.TempDir(), Backend: BackendCPU, WorkersPerDevice: 3, SynthesisConcurrency: 2, HostMemoryBudget: 3 << 30},
			Config{Backend: BackendCPU, WorkersPerDevice: 3, SynthesisConcurrency: 2, HostMemoryBudget: 3 << 30}},
		{"negative", Config{Backend: BackendCPU, WorkersPerDevice: -1, SynthesisConcurrency: -2, HostMemoryBudget: -1}, auto(1, 1)},
	}
	if !native.Available() {
		// auto is the CPU here; with GPUs New counts them all, Requirements one.
		cases = append(cases, resolved{"zero", Config{}, auto(1, 1)})
	} else {
		// One GPU: the synthesis feeds its workers plus one.
		one, two := auto(1, 2), auto(2, 3)
		one.Backend, two.Backend = BackendCUDA, BackendCUDA
		cases = append(cases, resolved{"cuda, device 0", Config{Backend: BackendCUDA, Devices: []int{0}}, one},
			resolved{"cuda, device 0, 2 workers", Config{Devices: []int{0}, WorkersPerDevice: 2}, two})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want.ParamsDir == "" {
				tc.want.ParamsDir = tc.cfg.ParamsDir
			}
			r, got, err := requirements(sealKind(spt), tc.cfg)
			require.NoError(t, err)
			p, err := New(ctx, tc.cfg)
			require.NoError(t, err)
			defer p.Close()
			for _, c := range []Config{got, p.cfg} {
				assert.Equal(t, tc.want.ParamsDir, c.ParamsDir)
				assert.Equal(t, tc.want.Backend, c.Backend)
				assert.Equal(t, tc.want.WorkersPerDevice, c.WorkersPerDevice)
				assert.Equal(t, tc.want.SynthesisConcurrency, c.SynthesisConcurrency)
				assert.Equal(t, tc.want.HostMemoryBudget, c.HostMemoryBudget)
				assert.NotNil(t, c.Logger)
			}
			// What the Prover runs is what it was configured with.
			assert.Equal(t, tc.want.Backend, p.Backend())
			assert.Equal(t, tc.want.WorkersPerDevice*max(len(p.Status().Devices), 1), p.pipe.Stats().Workers()) // and an urgent one per device
			assert.Equal(t, tc.want.SynthesisConcurrency, p.pipe.Stats().SynthesisWorkers)
			st := p.Status()
			assert.Equal(t, tc.want.HostMemoryBudget, st.HostBudgetBytes)
			assert.Equal(t, tc.cfg.HostMemoryBudget <= 0, p.budgetAuto)
			// And what Requirements sized on the CPU: the key and the
			// working sets of the partitions the workers hold, as many as
			// the budget New runs has room for (an automatic one less the
			// loaded key), the heap's garbage beside them, the runtime.
			if tc.want.Backend == BackendCPU {
				room := tc.want.HostMemoryBudget
				if p.budgetAuto {
					room -= r.ParamsBytes
				}
				n := min(int64(tc.want.SynthesisConcurrency+tc.want.WorkersPerDevice), max(1, room/r.PartitionHostBytes))
				key, parts := cpuHeapSlackPercent()
				slack := r.ParamsBytes*key/100 + n*r.PartitionHostBytes*parts/100 + cpuCoreSlackBytes()
				assert.Equal(t, r.ParamsBytes+n*r.PartitionHostBytes+slack+runtimeHostBytes, r.HostBytes)
			}
			require.NoError(t, p.Close())
		})
	}

	if native.Available() {
		// Every visible GPU by default, the synthesis feeding all their workers.
		devs, err := native.Devices()
		require.NoError(t, err)
		p, err := New(ctx, Config{WorkersPerDevice: 2})
		require.NoError(t, err)
		assert.Len(t, p.Status().Devices, len(devs))
		assert.Equal(t, 2*len(devs), p.pipe.Stats().Workers())
		assert.Equal(t, 2*len(devs)+1, p.pipe.Stats().SynthesisWorkers)
		require.NoError(t, p.Close())
		_, err = New(ctx, Config{Devices: []int{0, len(devs)}})
		assert.ErrorContains(t, err, fmt.Sprintf("no CUDA device %d", len(devs)))
	}

	_, err := New(ctx, Config{Backend: "tpu"})
	assert.ErrorContains(t, err, `unknown backend "tpu"`)
	_, err = Requirements(spt, Config{Backend: "tpu"})
	assert.ErrorContains(t, err, `unknown backend "tpu"`, "Requirements refuses what New refuses")
}

func TestDefaultHostBudget(t *testing.T) {
	n := defaultHostBudget()
	assert.GreaterOrEqual(t, n, int64(1<<30))
	if total := memTotal(); total > 0 {
		assert.Less(t, n, total)
	}
}

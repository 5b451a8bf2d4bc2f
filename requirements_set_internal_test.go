package gpuc2

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/circuits"
)

// setConfig is a 32 GiB node's configuration with its GPUs under limit
// (0: the CPU), whatever this machine has: two workers, a host budget of
// its own.
func setConfig(t *testing.T, limit int64) Config {
	cfg := Config{ParamsDir: t.TempDir(), Backend: BackendCPU, WorkersPerDevice: 2, HostMemoryBudget: 128 << 30}
	if limit > 0 {
		cfg.Backend, cfg.DeviceMemoryLimit = BackendCUDA, limit
	}
	return cfg
}

var all32 = []string{"porep-32g", "snap-32g", "wpost-32g", "winning-32g"}

// A set of one circuit is that circuit's Requirements: its Resources, and
// for the set its preloaded host peak, pinned memory and VRAM.
func TestCircuitsRequirementsOfOne(t *testing.T) {
	for _, limit := range []int64{0, 16 << 30, 24 << 30, 80 << 30, 140 << 30} {
		for _, id := range append(all32, "porep-2k", "wpost-2k") {
			cfg := setConfig(t, limit)
			c, ok := circuits.CircuitByID(id)
			require.True(t, ok)
			want, _, err := requirements(c.Type, cfg)
			require.NoError(t, err)
			s, err := CircuitsRequirements([]string{id}, cfg)
			require.NoError(t, err, "%s, limit %d", id, limit)
			require.Len(t, s.Circuits, 1)
			got := s.Circuits[0]
			assert.Equal(t, want, got.Resources, "%s, limit %d", id, limit)
			assert.Equal(t, id, got.ID)
			assert.Empty(t, s.Stall)
			assert.Empty(t, got.Stall)
			assert.Equal(t, want.ParamsBytes, s.KeysBytes)
			assert.Equal(t, want.PreloadedHostBytes, s.HostBytes, "%s, limit %d", id, limit)
			assert.Equal(t, want.PinnedBytes, s.PinnedBytes, "%s, limit %d", id, limit)
			assert.Equal(t, want.VRAMBytes, s.VRAMBytes, "%s, limit %d", id, limit)
			assert.Equal(t, want.DeviceMemoryLimit, s.DeviceMemoryLimit)
			switch {
			case limit == 0:
				assert.Equal(t, KeyHost, got.Key)
				assert.Zero(t, got.KeyDeviceBytes)
			case want.Mode == "resident":
				assert.Equal(t, KeyOnDevice, got.Key)
			default:
				assert.Equal(t, KeyPinned, got.Key)
			}
		}
	}
}

// Four circuits: the keys add up (on the CPU's heap, or pinned where they
// stream), the working sets do not: the largest circuit's counts. Without
// the matrices every circuit's host figure is its key and its working sets,
// and under 16 GiB PoRep's are the largest.
func TestCircuitsRequirementsKeysAddUp(t *testing.T) {
	for _, limit := range []int64{0, 16 << 30} {
		cfg := setConfig(t, limit)
		cfg.ConstraintMatrices = MatricesOff
		s, err := CircuitsRequirements(all32, cfg)
		require.NoError(t, err)
		require.Empty(t, s.Stall)
		var keys, hostKeys, pinnedKeys, largest, sumHost, sumPinned int64
		for i, id := range all32 {
			c, _ := circuits.CircuitByID(id)
			alone, _, err := requirements(c.Type, cfg)
			require.NoError(t, err)
			got := s.Circuits[i]
			assert.Equal(t, id, got.ID)
			keys += alone.ParamsBytes
			key := alone.ParamsBytes // on the host: the CPU's heap, or pinned
			if got.Key == KeyOnDevice {
				key = 0
			} else if limit > 0 {
				pinnedKeys += got.KeyDeviceBytes
			}
			hostKeys += key
			largest = max(largest, alone.PreloadedHostBytes-key)
			sumHost += alone.PreloadedHostBytes
			sumPinned += alone.PinnedBytes
		}
		assert.Equal(t, keys, s.KeysBytes)
		if limit == 0 {
			// The CPU's heap garbage grows with every key (cpuHeapSlackPercent).
			assert.Greater(t, s.HostBytes, hostKeys+largest)
		} else {
			assert.Equal(t, hostKeys+largest, s.HostBytes, "the keys and PoRep's working sets")
			assert.Equal(t, []KeyTier{KeyPinned, KeyPinned, KeyPinned, KeyOnDevice},
				[]KeyTier{s.Circuits[0].Key, s.Circuits[1].Key, s.Circuits[2].Key, s.Circuits[3].Key})
			assert.Greater(t, s.PinnedBytes, pinnedKeys)
			assert.Less(t, s.PinnedBytes, sumPinned, "the working sets' pinned vectors are not added up")
			assert.LessOrEqual(t, s.VRAMBytes, cfg.DeviceMemoryLimit)
		}
		assert.Less(t, s.HostBytes, sumHost, "the working sets are not added up")
	}
}

// Under a small limit the large keys stream from pinned memory and only
// the WinningPoSt key, small, is resident; under none all four fit.
func TestCircuitsRequirementsSmallLimitStreams(t *testing.T) {
	s, err := CircuitsRequirements(all32, setConfig(t, 16<<30))
	require.NoError(t, err)
	require.Empty(t, s.Stall)
	for _, c := range s.Circuits {
		assert.Empty(t, c.Stall, c.ID)
		if c.ID == "winning-32g" {
			assert.Equal(t, KeyOnDevice, c.Key)
			continue
		}
		assert.Equal(t, KeyPinned, c.Key, c.ID)
		assert.Equal(t, "streaming", string(c.Mode), c.ID)
		assert.Equal(t, 1, c.ProofsPerGPU, c.ID)
	}
	assert.LessOrEqual(t, s.VRAMBytes, int64(16<<30))

	s, err = CircuitsRequirements(all32, setConfig(t, 1<<50))
	require.NoError(t, err)
	assert.Empty(t, s.Stall)
	for _, c := range s.Circuits {
		assert.Equal(t, KeyOnDevice, c.Key, c.ID)
	}
}

// Keys are made resident in load order while they fit, with one of their
// proofs, beside the keys before them; the others stream (before gpulock's
// held reservations, such a preload waited for ever). A proof that does not
// fit beside the keys held fails at once. The order decides which keys are
// resident.
func TestCircuitsRequirementsStalls(t *testing.T) {
	// An H100's limit: PoRep's and SnapDeals' keys are each resident alone,
	// not together: SnapDeals' streams.
	s, err := CircuitsRequirements(all32, setConfig(t, 79_134_000_000))
	require.NoError(t, err)
	assert.Equal(t, KeyOnDevice, s.Circuits[0].Key)
	assert.Equal(t, KeyPinned, s.Circuits[1].Key)
	for _, c := range s.Circuits {
		assert.NotEmpty(t, c.Key, c.ID)
	}

	// SnapDeals first: PoRep's streams instead.
	s, err = CircuitsRequirements([]string{"snap-32g", "porep-32g"}, setConfig(t, 79_134_000_000))
	require.NoError(t, err)
	assert.Equal(t, []KeyTier{KeyOnDevice, KeyPinned}, []KeyTier{s.Circuits[0].Key, s.Circuits[1].Key})

	// The README's order at an H100's default: PoRep and WinningPoSt
	// resident, the others streamed, every proof served.
	s, err = CircuitsRequirements([]string{"porep-32g", "winning-32g", "wpost-32g", "snap-32g"}, setConfig(t, 79_134_000_000))
	require.NoError(t, err)
	assert.Empty(t, s.Stall)
	assert.Equal(t, []KeyTier{KeyOnDevice, KeyOnDevice, KeyPinned, KeyPinned},
		[]KeyTier{s.Circuits[0].Key, s.Circuits[1].Key, s.Circuits[2].Key, s.Circuits[3].Key})

	// At 18 GiB a streamed PoRep proof's layout takes nearly the whole
	// limit; the WinningPoSt key is still resident, loaded after it or
	// before, and PoRep's proofs take a layout for the room it leaves (one
	// with the aux MSMs after the h MSM), as the device does
	// (gpu.Plan.Beside). Before, loaded first, it left them none: every
	// PoRep proof failed (an H100 under 16 GiB, 2026-12-07).
	for _, ids := range [][]string{all32, {"winning-32g", "porep-32g"}} {
		s, err = CircuitsRequirements(ids, setConfig(t, 18<<30))
		require.NoError(t, err)
		assert.Empty(t, s.Stall, ids)
		for _, c := range s.Circuits {
			assert.Positive(t, c.ProofsPerGPU, c.ID)
			if c.ID == "winning-32g" {
				assert.Equal(t, KeyOnDevice, c.Key)
				assert.Zero(t, c.SetAsideBytes, "PoRep's proofs need the room: no memory set aside (gpu's fitsHeld)")
			}
		}
		assert.LessOrEqual(t, s.VRAMBytes, int64(18<<30))
	}

	// Without SnapDeals the three fit, WindowPoSt streaming.
	s, err = CircuitsRequirements([]string{"porep-32g", "wpost-32g", "winning-32g"}, setConfig(t, 79_134_000_000))
	require.NoError(t, err)
	assert.Empty(t, s.Stall)
	assert.Equal(t, []KeyTier{KeyOnDevice, KeyPinned, KeyOnDevice}, []KeyTier{s.Circuits[0].Key, s.Circuits[1].Key, s.Circuits[2].Key})

	// Every key fits beside the others with a proof of each; the matrices
	// would not leave the proofs room, so they stay on the host and every
	// proof fits (before, they took it and PoRep's proofs never did).
	s, err = CircuitsRequirements([]string{"porep-32g", "winning-32g", "wpost-32g"}, setConfig(t, 130<<30))
	require.NoError(t, err)
	for _, c := range s.Circuits {
		assert.Equal(t, KeyOnDevice, c.Key, c.ID)
		assert.Positive(t, c.ProofsPerGPU, c.ID)
	}
	assert.Empty(t, s.Stall)

	// An automatic host budget leaves room for the streamed keys: on a
	// small machine, none for a partition.
	cfg := setConfig(t, 16<<30)
	cfg.HostMemoryBudget = 0
	if defaultHostBudget() < 150<<30 {
		s, err = CircuitsRequirements(all32, cfg)
		require.NoError(t, err)
		assert.Equal(t, StallBudget, s.Circuits[0].Stall)
		assert.Contains(t, s.Stall, "ErrBudget")
	}
}

func TestCircuitsRequirementsBadInput(t *testing.T) {
	cfg := setConfig(t, 0)
	for _, ids := range [][]string{nil, {"porep-32g", "porep-33g"}, {"snap-32g", "snap-32g"}} {
		_, err := CircuitsRequirements(ids, cfg)
		require.ErrorIs(t, err, ErrBadInput, "%q", ids)
	}
	_, err := CircuitsRequirements([]string{"porep-32g", "porep-33g"}, cfg)
	assert.ErrorContains(t, err, `"porep-33g"`)
}

// Under an H100's and an H200's default limits the set pins a key whose
// own plan is resident (SnapDeals' behind PoRep's at 73.7 GiB, WindowPoSt's
// behind both at 130.5): its proofs stream it, as gpu.Device does with a
// key found unfit, so its figures are a streamed proof's (Mode, the key
// over the bus each partition) and the set's pinned memory holds its key.
func TestCircuitsRequirementsPinnedBesideOthersStreams(t *testing.T) {
	for _, tc := range []struct {
		limit  int64
		pinned string
	}{{73<<30 + 700<<20, "snap-32g"}, {130<<30 + 512<<20, "wpost-32g"}} {
		cfg := setConfig(t, tc.limit)
		s, err := CircuitsRequirements(all32, cfg)
		require.NoError(t, err)
		require.Empty(t, s.Stall)
		var pinnedKeys int64
		for i, id := range all32 {
			got := s.Circuits[i]
			if got.Key == KeyPinned {
				pinnedKeys += got.KeyDeviceBytes
			}
			if id != tc.pinned {
				continue
			}
			c, _ := circuits.CircuitByID(id)
			alone, _, err := requirements(c.Type, cfg)
			require.NoError(t, err)
			require.Equal(t, "resident", string(alone.Mode), "%s alone under %d", id, tc.limit)
			assert.Equal(t, KeyPinned, got.Key, id)
			assert.Equal(t, "streaming", string(got.Mode), id)
			assert.Greater(t, got.PartitionBusBytes, got.KeyDeviceBytes, "%s: the key crosses the bus each partition", id)
		}
		assert.Greater(t, s.PinnedBytes, pinnedKeys, "every pinned key's copy is in PinnedBytes")
	}
}

// A resident WinningPoSt key holds one of its proofs' device memory beside
// it (gpu.SetAsideProof) where no other key's proof wants that room at its
// own layout, in either load order: beside a resident PoRep key on an
// H200's default limit, not beside a streamed one (its layouts are sized
// to the whole limit), whichever was loaded first.
func TestCircuitsRequirementsSetAside(t *testing.T) {
	alone, err := CircuitsRequirements([]string{"winning-32g"}, setConfig(t, 16<<30))
	require.NoError(t, err)
	aside := alone.Circuits[0].SetAsideBytes
	require.Positive(t, aside)
	for _, tc := range []struct {
		limit int64
		aside int64
	}{{140_140_000_000, aside}, {24 << 30, 0}} {
		for _, ids := range [][]string{{"winning-32g", "porep-32g"}, {"porep-32g", "winning-32g"}} {
			s, err := CircuitsRequirements(ids, setConfig(t, tc.limit))
			require.NoError(t, err)
			assert.Empty(t, s.Stall, ids)
			for _, c := range s.Circuits {
				if c.ID == "winning-32g" {
					assert.Equal(t, tc.aside, c.SetAsideBytes, "%v at %d", ids, tc.limit)
				} else {
					assert.Zero(t, c.SetAsideBytes)
					assert.Positive(t, c.ProofsPerGPU, ids)
				}
			}
		}
	}
	s, err := CircuitsRequirements([]string{"porep-32g", "winning-32g"}, setConfig(t, 0))
	require.NoError(t, err)
	assert.Zero(t, s.Circuits[1].SetAsideBytes, "the CPU")
}

package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parentCacheManifest is rust-fil-proofs storage-proofs-porep/parent_cache.json:
// cache id → SHA-256 of the parent cache file (14 u32 LE parents per node).
var parentCacheManifest = map[string]string{
	"v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117": "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da",
	"v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42": "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5",
	"v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899": "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d",
	"v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b": "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03",
	"v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b": "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97",
	"v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5": "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab",
	"v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34": "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a",
	"v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6": "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c",
	"v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc": "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce",
	"v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13": "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6",
}

// parentCacheID is the file stem rust-fil-proofs gives a graph's parent
// cache (cache.rs cache_path): it binds the graph identifier and the
// Feistel keys.
func parentCacheID(g *Graph) string {
	h := sha256.New()
	h.Write([]byte("poseidon_hasher"))
	fmt.Fprintf(h, "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %d; degree: 6; hasher: poseidon_hasher} }", g.nodes)
	for _, k := range g.keys {
		binary.Write(h, binary.LittleEndian, k)
	}
	binary.Write(h, binary.LittleEndian, uint32(g.nodes))
	return "v28-sdr-parent-" + hex.EncodeToString(h.Sum(nil))
}

func parentCacheDigest(t testing.TB, g *Graph) string {
	h := sha256.New()
	buf := make([]byte, 0, 56*4096)
	for n := uint64(0); n < g.nodes; n++ {
		drg, exp, err := g.Parents(n)
		require.NoError(t, err)
		for _, p := range drg {
			buf = binary.LittleEndian.AppendUint32(buf, p)
		}
		for _, p := range exp {
			buf = binary.LittleEndian.AppendUint32(buf, p)
		}
		if len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// TestGraphParentCacheKnownAnswer checks every parent of whole graphs against
// the digests of the production parent caches.
func TestGraphParentCacheKnownAnswer(t *testing.T) {
	proofs := []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1, abi.RegisteredSealProof_StackedDrg2KiBV1_1,
		abi.RegisteredSealProof_StackedDrg8MiBV1, abi.RegisteredSealProof_StackedDrg8MiBV1_1,
	}
	for _, p := range proofs {
		t.Run(ProofName(p), func(t *testing.T) {
			if sz, _ := p.SectorSize(); testing.Short() && sz > 2048 {
				t.Skip("short")
			}
			g, err := NewGraph(p)
			require.NoError(t, err)
			id := parentCacheID(g)
			want, ok := parentCacheManifest[id]
			require.True(t, ok, "cache id %s not in the manifest", id)
			assert.Equal(t, want, parentCacheDigest(t, g))
		})
	}
}

func TestGraphCacheIDs(t *testing.T) {
	// Every production V1 and V1_1 graph's cache id is in the manifest,
	// which checks the Feistel key derivation for all sizes.
	for p := abi.RegisteredSealProof(0); p < 10; p++ {
		g, err := NewGraph(p)
		require.NoError(t, err)
		_, ok := parentCacheManifest[parentCacheID(g)]
		assert.True(t, ok, ProofName(p))
	}
}

// TestGraphParentCacheLarge checks the 512 MiB graphs (2^24 nodes) against
// the manifest; set POREP_LARGE_GRAPHS=1 (about 8 CPU-minutes each).
func TestGraphParentCacheLarge(t *testing.T) {
	if os.Getenv("POREP_LARGE_GRAPHS") == "" {
		t.Skip("set POREP_LARGE_GRAPHS=1")
	}
	for _, p := range []abi.RegisteredSealProof{abi.RegisteredSealProof_StackedDrg512MiBV1, abi.RegisteredSealProof_StackedDrg512MiBV1_1} {
		g, err := NewGraph(p)
		require.NoError(t, err)
		buf := make([]byte, g.nodes*56)
		var wg sync.WaitGroup
		workers := uint64(runtime.NumCPU())
		for w := uint64(0); w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := w; n < g.nodes; n += workers {
					drg, exp, _ := g.Parents(n)
					b := buf[n*56:]
					for k, q := range drg {
						binary.LittleEndian.PutUint32(b[4*k:], q)
					}
					for k, q := range exp {
						binary.LittleEndian.PutUint32(b[24+4*k:], q)
					}
				}
			}()
		}
		wg.Wait()
		sum := sha256.Sum256(buf)
		id := parentCacheID(g)
		want, ok := parentCacheManifest[id]
		require.True(t, ok)
		assert.Equal(t, want, hex.EncodeToString(sum[:]), ProofName(p))
		t.Logf("%v: %s ok", ProofName(p), id)
	}
}

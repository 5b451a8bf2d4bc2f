package gpuc2_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// Curio's call: SealCommitPhase2 has the shape of filecoin-ffi's (Curio
// assigns it to ffiselect.FFISelect.SealCommitPhase2), and VerifySeal takes
// the proof.SealVerifyInfo the chain checks. A synthetic 2 KiB sector stands
// in for a real C1 output; a TEST-ONLY setup (made once under the user cache
// directory, about a minute at 2 KiB) for Filecoin's parameter files, which
// are used instead wherever $FIL_PROOFS_PARAMETER_CACHE holds them.
func Example() {
	ctx := context.Background()
	cache, err := os.UserCacheDir()
	if err != nil {
		log.Fatal(err)
	}
	p, err := gpuc2.New(ctx, gpuc2.Config{TestParamsDir: cache})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	miner, sector := abi.ActorID(1000), abi.SectorNumber(1)
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, sha256.Sum256([]byte("example sector")))
	if err != nil {
		log.Fatal(err)
	}
	c1JSON, err := c1.EncodeJSON() // what filecoin-ffi's SealCommitPhase1 returns
	if err != nil {
		log.Fatal(err)
	}

	proofBytes, err := p.SealCommitPhase2(ctx, c1JSON, sector, miner)
	if err != nil {
		log.Fatal(err)
	}
	info, err := gpuc2.NewSealVerifyInfo(c1JSON, proofBytes, sector, miner)
	if err != nil {
		log.Fatal(err)
	}
	ok, err := p.VerifySeal(info)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d-byte proof, verified: %v\n", len(proofBytes), ok)
	// Output: 192-byte proof, verified: true
}

// What a scheduler admits a task by, before any Prover exists: here a
// 32 GiB sector on the CPU (ten partitions of 130 M constraints; the
// memory figures depend on the configuration and the machine).
func ExampleRequirements() {
	need, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg32GiBV1_1, gpuc2.Config{Backend: gpuc2.BackendCPU})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d partitions of %d constraints, domain 2^%d, %d GPUs\n",
		need.Partitions, need.Constraints, bitLen(need.Domain)-1, need.GPUs)
	fmt.Println("host RAM beyond the parameters' own size:", need.HostBytes > need.ParamsBytes)
	// Output:
	// 10 partitions of 130278869 constraints, domain 2^27, 0 GPUs
	// host RAM beyond the parameters' own size: true
}

func bitLen(n int64) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// Config.Progress reports each partition's stage, in order, from a
// goroutine of the Prover's, and delivers a call's reports before the call
// returns; within StageProving, Progress.Phase names the prover's phase.
// Here the host cancels a 2 KiB proof as its prover starts H: the
// partition ends in StageFailed and the call returns the context's error.
func ExampleConfig_progress() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cache, err := os.UserCacheDir()
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	var stages []gpuc2.Stage
	progress := func(e gpuc2.Progress) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Phase {
		case "":
			stages = append(stages, e.Stage)
		case "H":
			cancel()
		}
	}
	p, err := gpuc2.New(ctx, gpuc2.Config{TestParamsDir: cache, Progress: progress})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	c1, err := porep.SyntheticC1(ctx, spt, 1000, 2, sha256.Sum256([]byte("progress example")))
	if err != nil {
		log.Fatal(err)
	}
	c1JSON, err := c1.EncodeJSON()
	if err != nil {
		log.Fatal(err)
	}
	_, err = p.SealCommitPhase2(ctx, c1JSON, 2, 1000)
	mu.Lock()
	defer mu.Unlock()
	fmt.Println(stages)
	fmt.Println("cancelled:", errors.Is(err, context.Canceled))
	// Output:
	// [queued scheduled synthesis proving failed]
	// cancelled: true
}

// A proving daemon lists the circuits it serves by their cuzk ids, and
// loads, evicts and looks up each by its id alone (PreloadCircuit,
// EvictCircuit, FindCircuitParams), whatever its kind.
func ExampleCircuits() {
	for _, c := range gpuc2.Circuits() {
		fmt.Println(c.ID, c.ProofKind, c.Kind, c.SectorSize.ShortString())
	}
	// Output:
	// porep-2k POREP_SEAL_COMMIT PoRep 2KiB
	// porep-8m POREP_SEAL_COMMIT PoRep 8MiB
	// porep-512m POREP_SEAL_COMMIT PoRep 512MiB
	// porep-32g POREP_SEAL_COMMIT PoRep 32GiB
	// porep-64g POREP_SEAL_COMMIT PoRep 64GiB
	// snap-2k SNAP_DEALS_UPDATE SnapDeals 2KiB
	// snap-8m SNAP_DEALS_UPDATE SnapDeals 8MiB
	// snap-512m SNAP_DEALS_UPDATE SnapDeals 512MiB
	// snap-32g SNAP_DEALS_UPDATE SnapDeals 32GiB
	// snap-64g SNAP_DEALS_UPDATE SnapDeals 64GiB
	// wpost-2k WINDOW_POST_PARTITION WindowPoSt 2KiB
	// wpost-8m WINDOW_POST_PARTITION WindowPoSt 8MiB
	// wpost-512m WINDOW_POST_PARTITION WindowPoSt 512MiB
	// wpost-32g WINDOW_POST_PARTITION WindowPoSt 32GiB
	// wpost-64g WINDOW_POST_PARTITION WindowPoSt 64GiB
	// winning-2k WINNING_POST WinningPoSt 2KiB
	// winning-8m WINNING_POST WinningPoSt 8MiB
	// winning-512m WINNING_POST WinningPoSt 512MiB
	// winning-32g WINNING_POST WinningPoSt 32GiB
	// winning-64g WINNING_POST WinningPoSt 64GiB
}

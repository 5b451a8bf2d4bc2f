package gpuc2

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/synth"
)

// kindFacts are what the facade says of a proof type, as strings: its
// name, the parameter files it looks for, its TEST-ONLY setup and matrices'
// cache file names, its circuit's shape and estimated key.
type kindFacts struct {
	str      string // String
	missing  string // missingParamsHint of an ErrParamsMissing
	find     string // findParams' error in an empty directory
	test     string // testParamsPath's base name
	matrices string // matricesCacheFile's base name, for sizes 1, 2, 3
	blank    string // the blank circuit's type
	shape    string // newShape's sizes and partitions
	hint     string // testSetupHint
	counts   string // estimatedKeyShape
	onDemand string // keyCache.find without the file: the setup's path (made on demand) or why not
}

func errOr(s string, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return s
}

// large reports whether the facts of k's shape are left out: an update
// circuit is measured by synthesizing its blank top level and a challenge
// (8 s at 8 MiB, 15 at 32 GiB on 2 cores). -short leaves out all but 2 KiB's,
// a full run all but 2 KiB's and 32 GiB's (the one with known counts), as
// internal/circuits checks every size and count.
func large(k string) bool {
	return strings.HasPrefix(k, "update ") && k != "update StackedDrg2KiBV1" &&
		(testing.Short() || k != "update StackedDrg32GiBV1")
}

func factsOf(k circuits.Type) kindFacts {
	f := kindFacts{str: k.String()}
	f.missing = missingParamsHint(fmt.Errorf("%w: x", ErrParamsMissing), k).Error()
	_, _, err := findParams("/params", k)
	f.find = errOr("", err)
	f.test = filepath.Base(testParamsPath("/c", k))
	f.matrices = filepath.Base(matricesCacheFile("/m", k, synth.Sizes{Inputs: 1, Aux: 2, Rows: 3}))
	blank, err := k.BlankCircuit()
	f.blank = errOr(fmt.Sprintf("%T", blank), err)
	if large(f.str) {
		return f
	}
	sh, err := newShape(k)
	if err == nil {
		f.shape = fmt.Sprintf("%+v %d", sh.sizes, sh.partitions)
		c, ic, n := estimatedKeyShape(k, sh)
		f.counts = fmt.Sprintf("%+v %d %d", c, ic, n)
	} else {
		f.shape = errOr("", err)
	}
	f.hint = testSetupHint(k, "/cache")
	src, err := (&keyCache{paramsDir: "/params", testParamsDir: "/c"}).find(k)
	f.onDemand = errOr(src.params+" "+src.vk, err)
	return f
}

// TestKindFacts pins what the facade says of every seal and update proof
// type (and of a type outside each range), as it said it before the table
// of circuit kinds: the same names, files and messages.
func TestKindFacts(t *testing.T) {
	for _, tc := range kindFactsWant {
		t.Run(tc.k.String(), func(t *testing.T) {
			want := tc.want
			got := factsOf(tc.k)
			if large(want.str) {
				want.shape, want.hint, want.counts, want.onDemand = "", "", "", ""
			}
			assert.Equal(t, want, got)
		})
	}
}

// kindFactsWant are the facts the facade gave before the table of circuit
// kinds (the code of proofKind's isUpdate branches), recorded by factsOf.
var kindFactsWant = []struct {
	k    circuits.Type
	want kindFacts
}{
	{sealKind(-1), kindFacts{
		str:      "RegisteredSealProof(-1)",
		missing:  "gpuc2: parameters missing: x",
		find:     "error: porep: unknown registered seal proof: -1",
		test:     "TEST-ONLY-RegisteredSealProof(-1).params",
		matrices: "RegisteredSealProof(-1)-1-2-3.pce",
		blank:    "error: porep: unknown registered seal proof: -1",
		shape:    "error: gpuc2: bad input: porep: unknown registered seal proof: -1",
		hint:     "porep: unknown registered seal proof: -1",
		counts:   "",
		onDemand: "error: porep: unknown registered seal proof: -1"}},
	{sealKind(0), kindFacts{
		str:      "StackedDrg2KiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 2KiB` or `lotus fetch-params 2KiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params in /params",
		test:     "TEST-ONLY-StackedDrg2KiBV1_1.params",
		matrices: "StackedDrg2KiBV1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:2685673 Rows:2687921} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 2KiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 2 GB of disk)",
		counts:   "{H:4194303 L:2685673 A:2685713 B:2685713} 40 1691796216",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg2KiBV1_1.params "}},
	{sealKind(1), kindFacts{
		str:      "StackedDrg8MiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 8MiB` or `lotus fetch-params 8MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params in /params",
		test:     "TEST-ONLY-StackedDrg8MiBV1_1.params",
		matrices: "StackedDrg8MiBV1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:3842449 Rows:3844929} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 8MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 2 GB of disk)",
		counts:   "{H:4194303 L:3842449 A:3842489 B:3842489} 40 2247048696",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg8MiBV1_1.params "}},
	{sealKind(2), kindFacts{
		str:      "StackedDrg512MiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 512MiB` or `lotus fetch-params 512MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params in /params",
		test:     "TEST-ONLY-StackedDrg512MiBV1_1.params",
		matrices: "StackedDrg512MiBV1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:4420837 Rows:4423433} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 512MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 3 GB of disk)",
		counts:   "{H:8388607 L:4420837 A:4420877 B:4420877} 40 2927328120",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg512MiBV1_1.params "}},
	{sealKind(3), kindFacts{
		str:      "StackedDrg32GiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 32GiB` or `lotus fetch-params 32GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params in /params",
		test:     "TEST-ONLY-StackedDrg32GiBV1_1.params",
		matrices: "StackedDrg32GiBV1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:328 Aux:130169893 Rows:130278541} 10",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 32GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 47 GB of disk)",
		counts:   "{H:134217727 L:130169893 A:129753620 B:33112282} 328 47373928632",
		onDemand: "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-StackedDrg32GiBV1_1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 32GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 47 GB of disk)"}},
	{sealKind(4), kindFacts{
		str:      "StackedDrg64GiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 64GiB` or `lotus fetch-params 64GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params in /params",
		test:     "TEST-ONLY-StackedDrg64GiBV1_1.params",
		matrices: "StackedDrg64GiBV1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:328 Aux:131076643 Rows:131185849} 10",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 64GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 76 GB of disk)",
		counts:   "{H:134217727 L:131076643 A:131076971 B:131076971} 328 75801848760",
		onDemand: "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-StackedDrg64GiBV1_1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 64GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 76 GB of disk)"}},
	{sealKind(5), kindFacts{
		str:      "StackedDrg2KiBV1_1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 2KiB` or `lotus fetch-params 2KiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params in /params",
		test:     "TEST-ONLY-StackedDrg2KiBV1_1.params",
		matrices: "StackedDrg2KiBV1_1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:2685673 Rows:2687921} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 2KiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 2 GB of disk)",
		counts:   "{H:4194303 L:2685673 A:2685713 B:2685713} 40 1691796216",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg2KiBV1_1.params "}},
	{sealKind(6), kindFacts{
		str:      "StackedDrg8MiBV1_1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 8MiB` or `lotus fetch-params 8MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params in /params",
		test:     "TEST-ONLY-StackedDrg8MiBV1_1.params",
		matrices: "StackedDrg8MiBV1_1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:3842449 Rows:3844929} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 8MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 2 GB of disk)",
		counts:   "{H:4194303 L:3842449 A:3842489 B:3842489} 40 2247048696",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg8MiBV1_1.params "}},
	{sealKind(7), kindFacts{
		str:      "StackedDrg512MiBV1_1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 512MiB` or `lotus fetch-params 512MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params in /params",
		test:     "TEST-ONLY-StackedDrg512MiBV1_1.params",
		matrices: "StackedDrg512MiBV1_1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:4420837 Rows:4423433} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 512MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 3 GB of disk)",
		counts:   "{H:8388607 L:4420837 A:4420877 B:4420877} 40 2927328120",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg512MiBV1_1.params "}},
	{sealKind(8), kindFacts{
		str:      "StackedDrg32GiBV1_1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 32GiB` or `lotus fetch-params 32GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params in /params",
		test:     "TEST-ONLY-StackedDrg32GiBV1_1.params",
		matrices: "StackedDrg32GiBV1_1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:328 Aux:130169893 Rows:130278541} 10",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 32GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 47 GB of disk)",
		counts:   "{H:134217727 L:130169893 A:129753620 B:33112282} 328 47373928632",
		onDemand: "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-StackedDrg32GiBV1_1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 32GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 47 GB of disk)"}},
	{sealKind(9), kindFacts{
		str:      "StackedDrg64GiBV1_1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 64GiB` or `lotus fetch-params 64GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params in /params",
		test:     "TEST-ONLY-StackedDrg64GiBV1_1.params",
		matrices: "StackedDrg64GiBV1_1-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:328 Aux:131076643 Rows:131185849} 10",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 64GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 76 GB of disk)",
		counts:   "{H:134217727 L:131076643 A:131076971 B:131076971} 328 75801848760",
		onDemand: "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-StackedDrg64GiBV1_1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 64GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 76 GB of disk)"}},
	{sealKind(10), kindFacts{
		str:      "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 2KiB` or `lotus fetch-params 2KiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params in /params",
		test:     "TEST-ONLY-StackedDrg2KiBV1_1.params",
		matrices: "StackedDrg2KiBV1_1_Feat_SyntheticPoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:2685673 Rows:2687921} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 2KiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 2 GB of disk)",
		counts:   "{H:4194303 L:2685673 A:2685713 B:2685713} 40 1691796216",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg2KiBV1_1.params "}},
	{sealKind(11), kindFacts{
		str:      "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 8MiB` or `lotus fetch-params 8MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params in /params",
		test:     "TEST-ONLY-StackedDrg8MiBV1_1.params",
		matrices: "StackedDrg8MiBV1_1_Feat_SyntheticPoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:3842449 Rows:3844929} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 8MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 2 GB of disk)",
		counts:   "{H:4194303 L:3842449 A:3842489 B:3842489} 40 2247048696",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg8MiBV1_1.params "}},
	{sealKind(12), kindFacts{
		str:      "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 512MiB` or `lotus fetch-params 512MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params in /params",
		test:     "TEST-ONLY-StackedDrg512MiBV1_1.params",
		matrices: "StackedDrg512MiBV1_1_Feat_SyntheticPoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:4420837 Rows:4423433} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 512MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 3 GB of disk)",
		counts:   "{H:8388607 L:4420837 A:4420877 B:4420877} 40 2927328120",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg512MiBV1_1.params "}},
	{sealKind(13), kindFacts{
		str:      "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 32GiB` or `lotus fetch-params 32GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params in /params",
		test:     "TEST-ONLY-StackedDrg32GiBV1_1.params",
		matrices: "StackedDrg32GiBV1_1_Feat_SyntheticPoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:328 Aux:130169893 Rows:130278541} 10",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 32GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 47 GB of disk)",
		counts:   "{H:134217727 L:130169893 A:129753620 B:33112282} 328 47373928632",
		onDemand: "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-StackedDrg32GiBV1_1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 32GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 47 GB of disk)"}},
	{sealKind(14), kindFacts{
		str:      "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 64GiB` or `lotus fetch-params 64GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params in /params",
		test:     "TEST-ONLY-StackedDrg64GiBV1_1.params",
		matrices: "StackedDrg64GiBV1_1_Feat_SyntheticPoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:328 Aux:131076643 Rows:131185849} 10",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 64GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 76 GB of disk)",
		counts:   "{H:134217727 L:131076643 A:131076971 B:131076971} 328 75801848760",
		onDemand: "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-StackedDrg64GiBV1_1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 64GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 76 GB of disk)"}},
	{sealKind(15), kindFacts{
		str:      "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 2KiB` or `lotus fetch-params 2KiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params in /params",
		test:     "TEST-ONLY-StackedDrg2KiBV1_1.params",
		matrices: "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:2685673 Rows:2687921} 13",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 2KiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 2 GB of disk)",
		counts:   "{H:4194303 L:2685673 A:2685713 B:2685713} 40 1691796216",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg2KiBV1_1.params "}},
	{sealKind(16), kindFacts{
		str:      "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 8MiB` or `lotus fetch-params 8MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params in /params",
		test:     "TEST-ONLY-StackedDrg8MiBV1_1.params",
		matrices: "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:3842449 Rows:3844929} 13",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 8MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 2 GB of disk)",
		counts:   "{H:4194303 L:3842449 A:3842489 B:3842489} 40 2247048696",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg8MiBV1_1.params "}},
	{sealKind(17), kindFacts{
		str:      "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 512MiB` or `lotus fetch-params 512MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params in /params",
		test:     "TEST-ONLY-StackedDrg512MiBV1_1.params",
		matrices: "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:40 Aux:4420837 Rows:4423433} 13",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 512MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 3 GB of disk)",
		counts:   "{H:8388607 L:4420837 A:4420877 B:4420877} 40 2927328120",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-StackedDrg512MiBV1_1.params "}},
	{sealKind(18), kindFacts{
		str:      "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 32GiB` or `lotus fetch-params 32GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params in /params",
		test:     "TEST-ONLY-StackedDrg32GiBV1_1.params",
		matrices: "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:328 Aux:130169893 Rows:130278541} 126",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 32GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 47 GB of disk)",
		counts:   "{H:134217727 L:130169893 A:129753620 B:33112282} 328 47373928632",
		onDemand: "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-StackedDrg32GiBV1_1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 32GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 47 GB of disk)"}},
	{sealKind(19), kindFacts{
		str:      "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 64GiB` or `lotus fetch-params 64GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params in /params",
		test:     "TEST-ONLY-StackedDrg64GiBV1_1.params",
		matrices: "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep-1-2-3.pce",
		blank:    "*stacked.Circuit",
		shape:    "{Inputs:328 Aux:131076643 Rows:131185849} 126",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 64GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 76 GB of disk)",
		counts:   "{H:134217727 L:131076643 A:131076971 B:131076971} 328 75801848760",
		onDemand: "error: gpuc2: parameters missing: no v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-StackedDrg64GiBV1_1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -sector-size 64GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 76 GB of disk)"}},
	{sealKind(20), kindFacts{
		str:      "RegisteredSealProof(20)",
		missing:  "gpuc2: parameters missing: x",
		find:     "error: porep: unknown registered seal proof: 20",
		test:     "TEST-ONLY-RegisteredSealProof(20).params",
		matrices: "RegisteredSealProof(20)-1-2-3.pce",
		blank:    "error: porep: unknown registered seal proof: 20",
		shape:    "error: gpuc2: bad input: porep: unknown registered seal proof: 20",
		hint:     "porep: unknown registered seal proof: 20",
		counts:   "",
		onDemand: "error: porep: unknown registered seal proof: 20"}},
	{updateKind(-1), kindFacts{
		str:      "update RegisteredUpdateProof(-1)",
		missing:  "gpuc2: parameters missing: x",
		find:     "error: update: unsupported parameters: unknown update proof type -1",
		test:     "TEST-ONLY-EmptySectorUpdate-RegisteredUpdateProof(-1).params",
		matrices: "EmptySectorUpdate-RegisteredUpdateProof(-1)-1-2-3.pce",
		blank:    "error: update: unsupported parameters: unknown update proof type -1",
		shape:    "error: gpuc2: bad input: update: unsupported parameters: unknown update proof type -1",
		hint:     "update: unsupported parameters: unknown update proof type -1",
		counts:   "",
		onDemand: "error: update: unsupported parameters: unknown update proof type -1"}},
	{updateKind(0), kindFacts{
		str:      "update StackedDrg2KiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 2KiB` or `lotus fetch-params 2KiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params in /params",
		test:     "TEST-ONLY-EmptySectorUpdate-StackedDrg2KiBV1.params",
		matrices: "EmptySectorUpdate-StackedDrg2KiBV1-1-2-3.pce",
		blank:    "*update.Circuit",
		shape:    "{Inputs:5 Aux:1703569 Rows:1705039} 1",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -update -sector-size 2KiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 1 GB of disk)",
		counts:   "{H:2097151 L:1703569 A:1703574 B:1703574} 5 1019042904",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-EmptySectorUpdate-StackedDrg2KiBV1.params "}},
	{updateKind(1), kindFacts{
		str:      "update StackedDrg8MiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 8MiB` or `lotus fetch-params 8MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params in /params",
		test:     "TEST-ONLY-EmptySectorUpdate-StackedDrg8MiBV1.params",
		matrices: "EmptySectorUpdate-StackedDrg8MiBV1-1-2-3.pce",
		blank:    "*update.Circuit",
		shape:    "{Inputs:5 Aux:9998039 Rows:10007503} 4",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -update -sector-size 8MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 6 GB of disk)",
		counts:   "{H:16777215 L:9998039 A:9998044 B:9998044} 5 6409674648",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-EmptySectorUpdate-StackedDrg8MiBV1.params "}},
	{updateKind(2), kindFacts{
		str:      "update StackedDrg512MiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 512MiB` or `lotus fetch-params 512MiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params in /params",
		test:     "TEST-ONLY-EmptySectorUpdate-StackedDrg512MiBV1.params",
		matrices: "EmptySectorUpdate-StackedDrg512MiBV1-1-2-3.pce",
		blank:    "*update.Circuit",
		shape:    "{Inputs:5 Aux:57401314 Rows:57450479} 16",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -update -sector-size 512MiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 34 GB of disk)",
		counts:   "{H:67108863 L:57401314 A:57401319 B:57401319} 5 33995084856",
		onDemand: "/c/gpuc2/test-params/TEST-ONLY-EmptySectorUpdate-StackedDrg512MiBV1.params "}},
	{updateKind(3), kindFacts{
		str:      "update StackedDrg32GiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 32GiB` or `lotus fetch-params 32GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params in /params",
		test:     "TEST-ONLY-EmptySectorUpdate-StackedDrg32GiBV1.params",
		matrices: "EmptySectorUpdate-StackedDrg32GiBV1-1-2-3.pce",
		blank:    "*update.Circuit",
		shape:    "{Inputs:5 Aux:80978488 Rows:81049499} 16",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -update -sector-size 32GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 34 GB of disk)",
		counts:   "{H:134217727 L:80978488 A:80743586 B:20983608} 5 34453501368",
		onDemand: "error: gpuc2: parameters missing: no v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-EmptySectorUpdate-StackedDrg32GiBV1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -update -sector-size 32GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 34 GB of disk)"}},
	{updateKind(4), kindFacts{
		str:      "update StackedDrg64GiBV1",
		missing:  "gpuc2: parameters missing: x (fetch Filecoin's files with `curio fetch-params 64GiB` or `lotus fetch-params 64GiB`, into $FIL_PROOFS_PARAMETER_CACHE; or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on first use up to 512 MiB sectors, beforehand with examples/testsetup for larger ones; its proofs verify only against its own key)",
		find:     "error: gpuc2: parameters missing: no v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params in /params",
		test:     "TEST-ONLY-EmptySectorUpdate-StackedDrg64GiBV1.params",
		matrices: "EmptySectorUpdate-StackedDrg64GiBV1-1-2-3.pce",
		blank:    "*update.Circuit",
		shape:    "{Inputs:5 Aux:84931220 Rows:85006101} 16",
		hint:     "test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -update -sector-size 64GiB -cache /cache` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 54 GB of disk)",
		counts:   "{H:134217727 L:84931220 A:84931225 B:84931225} 5 53651890680",
		onDemand: "error: gpuc2: parameters missing: no v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params in /params; and no TEST-ONLY setup at /c/gpuc2/test-params/TEST-ONLY-EmptySectorUpdate-StackedDrg64GiBV1.params: test setups are made on demand only up to 512 MiB sectors; make this one beforehand with `go run ./examples/testsetup -update -sector-size 64GiB -cache /c` (it needs a GPU — about 3 minutes on an H200 at 32 GiB — and about 54 GB of disk)"}},
	{updateKind(5), kindFacts{
		str:      "update RegisteredUpdateProof(5)",
		missing:  "gpuc2: parameters missing: x",
		find:     "error: update: unsupported parameters: unknown update proof type 5",
		test:     "TEST-ONLY-EmptySectorUpdate-RegisteredUpdateProof(5).params",
		matrices: "EmptySectorUpdate-RegisteredUpdateProof(5)-1-2-3.pce",
		blank:    "error: update: unsupported parameters: unknown update proof type 5",
		shape:    "error: gpuc2: bad input: update: unsupported parameters: unknown update proof type 5",
		hint:     "update: unsupported parameters: unknown update proof type 5",
		counts:   "",
		onDemand: "error: update: unsupported parameters: unknown update proof type 5"}},
}

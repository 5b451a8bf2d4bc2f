package realproofs_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/realproofs"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// publicInputsDigest pins the public inputs gpuc2 computes for the 124
// records: SHA-256 of every input's 32 big-endian bytes, record by record.
// A change in replica_id, the challenges or the graph's parents shows here
// before a verifying key is at hand (TestRealVerifyingKey).
const publicInputsDigest = "767cdb2078c44bc06614a8a013484b33d386268254fe3f8fc1417289327de21f"

func TestRecordsDecode(t *testing.T) {
	recs, err := realproofs.Records2KiB()
	require.NoError(t, err)
	require.Len(t, recs, 124)
	kinds := map[string]int{}
	h := sha256.New()
	for i := range recs {
		r := &recs[i]
		kinds[r.Kind()]++
		ps, err := r.Proofs()
		require.NoError(t, err, "line %d", r.Line)
		require.Len(t, ps, 1, "line %d", r.Line)
		for _, p := range ps {
			assert.True(t, p.A.IsOnCurve() && p.A.IsInSubGroup(), "line %d: A", r.Line)
			assert.True(t, p.B.IsOnCurve() && p.B.IsInSubGroup(), "line %d: B", r.Line)
			assert.True(t, p.C.IsOnCurve() && p.C.IsInSubGroup(), "line %d: C", r.Line)
		}
		again, err := groth16.MarshalProofs(ps)
		require.NoError(t, err)
		assert.Equal(t, r.Proof, again, "line %d: re-encoded", r.Line)
		public, err := r.PublicInputs()
		require.NoError(t, err, "line %d", r.Line)
		for _, in := range public {
			require.Len(t, in, 3+2*porep.InputsPerChallenge, "line %d: 2 challenges at 2 KiB", r.Line)
			for k := range in {
				b := in[k].Bytes()
				h.Write(b[:])
			}
		}
	}
	assert.Equal(t, map[string]int{"2KiB V1_0_0": 31, "2KiB V1_1_0": 31, "2KiB V1_2_0": 31, "2KiB V1_2_0 SyntheticPoRep": 31}, kinds)
	assert.Equal(t, publicInputsDigest, hex.EncodeToString(h.Sum(nil)))
}

// Where a record's porep_id is its registered proof's own (V1_0_0: 0,
// V1_1_0: 5), its public inputs are the ones VerifySeal's code computes
// for that proof type.
func TestRecordsMatchRegisteredProofs(t *testing.T) {
	recs, err := realproofs.Records2KiB()
	require.NoError(t, err)
	seen := 0
	for i := range recs {
		r := &recs[i]
		var pt abi.RegisteredSealProof
		switch r.Kind() {
		case "2KiB V1_0_0":
			pt = abi.RegisteredSealProof_StackedDrg2KiBV1
		case "2KiB V1_1_0":
			pt = abi.RegisteredSealProof_StackedDrg2KiBV1_1
		default:
			continue
		}
		sp, err := porep.ParamsFor(pt)
		require.NoError(t, err)
		require.Equal(t, sp.PoRepID, r.PoRepID, "line %d", r.Line)
		want, err := porep.PublicInputsFor(nil, pt, r.ReplicaID(), r.CommD, r.CommR, r.Seed, 0)
		require.NoError(t, err)
		got, err := r.PublicInputs()
		require.NoError(t, err)
		assert.Equal(t, want, got[0], "line %d", r.Line)
		seen++
	}
	assert.Equal(t, 62, seen)
}

func TestTamperedChangeInputs(t *testing.T) {
	recs, err := realproofs.Records2KiB()
	require.NoError(t, err)
	r := &recs[0]
	orig, err := r.PublicInputs()
	require.NoError(t, err)
	for _, tc := range r.Tampered() {
		if tc.What == "a bit of the proof flipped" {
			_, err := tc.Record.Proofs()
			assert.ErrorIs(t, err, realproofs.ErrBadRecord, tc.What)
			assert.ErrorIs(t, err, groth16.ErrMalformedProof, tc.What)
			continue
		}
		in, err := tc.Record.PublicInputs()
		require.NoError(t, err, tc.What)
		assert.NotEqual(t, orig, in, tc.What)
	}
	again, err := realproofs.Records2KiB()
	require.NoError(t, err)
	assert.Equal(t, again[0], *r, "Tampered leaves the record alone")
}

func TestParseErrors(t *testing.T) {
	recs, err := realproofs.Records2KiB()
	require.NoError(t, err)
	good := firstLine(t)
	for _, tc := range []struct{ name, line, want string }{
		{"not JSON", "{", "unexpected EOF"},
		{"unknown field", strings.Replace(good, `"seed"`, `"seeds"`, 1), "unknown field"},
		{"short comm_r", strings.Replace(good, `"comm_r":[165,`, `"comm_r":[`, 1), "comm_r has 31 bytes"},
		{"byte out of range", strings.Replace(good, `"comm_r":[165,`, `"comm_r":[365,`, 1), "cannot unmarshal"},
		{"no sector_id", strings.Replace(good, `"sector_id":9259733836259213201,`, ``, 1), "no sector_id"},
		{"api version", strings.Replace(good, `"V1_0_0"`, `"V2_0_0"`, 1), `api_version "V2_0_0"`},
		{"feature", strings.Replace(good, `"api_features":[]`, `"api_features":["NonInteractivePoRep"]`, 1), "api_features"},
		{"synthetic before V1_2_0", strings.Replace(good, `"api_features":[]`, `"api_features":["SyntheticPoRep"]`, 1), "needs api_version V1_2_0"},
		{"sector size", strings.Replace(good, `"sector_size":2048`, `"sector_size":4096`, 1), "sector_size 4096"},
		{"partitions", strings.Replace(good, `"partitions":1`, `"partitions":2`, 1), "2 partitions"},
		{"short proof", strings.Replace(good, `"proof":[141,`, `"proof":[`, 1), "the proof has 191 bytes"},
		{"two values", good + " {}", "more than one JSON value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := realproofs.Parse(strings.NewReader(good + "\n" + tc.line + "\n"))
			require.ErrorIs(t, err, realproofs.ErrBadRecord)
			assert.ErrorContains(t, err, "line 2: ")
			assert.ErrorContains(t, err, tc.want)
		})
	}
	one, err := realproofs.Parse(strings.NewReader("\n" + good + "\n\n"))
	require.NoError(t, err)
	require.Len(t, one, 1)
	assert.Equal(t, 2, one[0].Line)
	assert.Equal(t, recs[0].Proof, one[0].Proof)
	assert.Equal(t, uint64(9259733836259213201), one[0].SectorID)
	_, err = realproofs.Parse(strings.NewReader(strings.Repeat(" ", 70<<10)))
	assert.ErrorIs(t, err, realproofs.ErrBadRecord, "a line over the bound")
}

// firstLine is the embedded file's first record, as written.
func firstLine(t testing.TB) string {
	recs, err := realproofs.Records2KiB()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	line, _, _ := strings.Cut(realproofs.Raw2KiB(), "\n")
	return line
}

func FuzzParse(f *testing.F) {
	good := firstLine(f)
	f.Add(good)
	f.Add(good + "\n" + good)
	f.Add(strings.Replace(good, `"V1_0_0","api_features":[]`, `"V1_2_0","api_features":["SyntheticPoRep"]`, 1))
	f.Add(`{"porep_config":{}}`)
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := realproofs.Parse(strings.NewReader(s))
		if err != nil {
			require.ErrorIs(t, err, realproofs.ErrBadRecord)
			return
		}
		for i := range recs {
			r := &recs[i]
			_, err := r.PublicInputs() // any accepted record has inputs
			require.NoError(t, err)
			if _, err := r.Proofs(); err != nil {
				require.ErrorIs(t, err, realproofs.ErrBadRecord)
			}
		}
	})
}

// TestRealVerifyingKey checks the records against Filecoin's real 2 KiB
// verifying key, where it is: every record verifies, every tampered copy
// fails. It needs the .vk in $FIL_PROOFS_PARAMETER_CACHE (default
// /var/tmp/filecoin-proof-parameters); `curio fetch-params 2KiB` or
// `lotus fetch-params 2048` put it there.
func TestRealVerifyingKey(t *testing.T) {
	vk := realVerifyingKey(t)
	recs, err := realproofs.Records2KiB()
	require.NoError(t, err)
	results := realproofs.Check(vk, recs)
	require.Len(t, results, 4)
	for _, res := range results {
		assert.NoError(t, res.Err, res.Kind)
		assert.Equal(t, res.Records, res.Verified, "%s: real proofs verified", res.Kind)
		assert.Equal(t, 4*res.Records, res.Tampered, res.Kind)
		assert.Equal(t, res.Tampered, res.Rejected, "%s: tampered copies rejected", res.Kind)
		t.Logf("%s: %d of %d verified, %d of %d tampered copies rejected", res.Kind, res.Verified, res.Records, res.Rejected, res.Tampered)
	}
}

// realVerifyingKey reads Filecoin's 2 KiB .vk, its published digest
// checked first, or skips naming the file and where to get it.
func realVerifyingKey(t *testing.T) *groth16.PreparedVerifyingKey {
	t.Helper()
	dir := gpuc2.DefaultParamsDir()
	path, err := gpuc2.FindVerifyingKey(dir, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	if errors.Is(err, gpuc2.ErrParamsMissing) {
		t.Skipf("needs Filecoin's real 2 KiB verifying key: %v; set $%s to its directory or fetch it there with `curio fetch-params 2KiB` or `lotus fetch-params 2048`",
			err, gpuc2.EnvParamsDir)
	}
	require.NoError(t, err)
	vk, err := groth16.ReadVerifyingKeyFile(context.Background(), path, groth16.WithDigestCheck())
	require.NoError(t, err, "the real .vk, its digest checked against parameters.json's")
	return groth16.PrepareVerifyingKey(vk)
}

// inputsCircuit has the given public inputs and nothing else (one row
// each, x·1 = x): a key and proofs for any record's inputs in milliseconds,
// to see Verify and Check accept a valid proof without Filecoin's key.
type inputsCircuit struct{ in []fr.Element }

func (c *inputsCircuit) Synthesize(_ context.Context, cs synth.ConstraintSystem) error {
	for _, x := range c.in {
		v := cs.AllocInput(x)
		cs.Enforce(synth.LC(v), synth.LC(synth.One), synth.LC(v))
	}
	return nil
}

// Check counts a record whose proof is valid (here under a key of the
// records' input count, proven for each record's computed inputs) and
// rejects its four tampered copies; a record proven for another record's
// inputs fails.
func TestCheckAcceptsValidProofs(t *testing.T) {
	ctx := context.Background()
	recs, err := realproofs.Records2KiB()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(realproofs.Raw2KiB()), "\n")
	first, _ := recs[0].PublicInputs()
	pk, err := groth16.Setup(ctx, &inputsCircuit{in: first[0]}, rand.Reader)
	require.NoError(t, err)
	var text []string
	for _, i := range []int{0, 1, 2, 3, 4} { // one of each kind, then the first's proof for the second's sector
		in, err := recs[i%4].PublicInputs()
		require.NoError(t, err)
		proof, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, &inputsCircuit{in: in[0]})
		require.NoError(t, err)
		b, err := proof.MarshalBinary()
		require.NoError(t, err)
		line := lines[i%4]
		if i == 4 {
			line = lines[1]
		}
		text = append(text, replaceProof(t, line, b))
	}
	ours, err := realproofs.Parse(strings.NewReader(strings.Join(text, "\n")))
	require.NoError(t, err)
	results := realproofs.Check(groth16.PrepareVerifyingKey(pk.VerifyingKey()), ours)
	require.Len(t, results, 4)
	for k, res := range results {
		want := realproofs.Result{Kind: recs[k].Kind(), Records: 1, Verified: 1, Tampered: 4, Rejected: 4}
		if k == 1 {
			want.Records, want.Verified, want.Tampered, want.Rejected = 2, 1, 8, 8 // line 5 holds recs[0]'s proof
		}
		assert.Equal(t, want, res, res.Kind)
		assert.Equal(t, k != 1, res.OK(), res.Kind)
	}
}

// replaceProof puts proof in place of a record line's proof array.
func replaceProof(t *testing.T, line string, proof []byte) string {
	i := strings.Index(line, `"proof":[`)
	require.GreaterOrEqual(t, i, 0)
	j := strings.Index(line[i:], "]")
	nums := make([]string, len(proof))
	for k, b := range proof {
		nums[k] = strconv.Itoa(int(b))
	}
	return line[:i] + `"proof":[` + strings.Join(nums, ",") + line[i+j:]
}

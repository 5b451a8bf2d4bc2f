package gpuc2_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// Every error of the public API wraps one of the documented sentinels, and
// ErrBadInput's text fits what was bad: a C1, a proof type, an info.
func TestErrorsWrapSentinels(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: dir, Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	miner, sector := abi.ActorID(1234), abi.SectorNumber(99)
	c1, raw := syntheticC1JSON(t, miner, sector)
	env, err := porep.EncodeCommit2In(c1, sector)
	require.NoError(t, err)
	const unknown = abi.RegisteredSealProof(99)
	sealed, err := commcid.ReplicaCommitmentV1ToCID(make([]byte, 32))
	require.NoError(t, err)
	unsealed, err := commcid.DataCommitmentV1ToCID(c1.CommD[:])
	require.NoError(t, err)
	info := proof.SealVerifyInfo{SealProof: c1.RegisteredProof, SectorID: abi.SectorID{Miner: miner, Number: sector},
		Randomness: c1.Ticket[:], InteractiveRandomness: c1.Seed[:], Proof: make([]byte, 191),
		SealedCID: sealed, UnsealedCID: unsealed}

	for _, tc := range []struct {
		name string
		call func() error
		want error
		text string // in the message
	}{
		{"truncated C1", func() error {
			_, err := p.SealCommitPhase2(ctx, raw[:len(raw)/2], sector, miner)
			return err
		}, gpuc2.ErrBadInput, "C1"},
		{"envelope for another sector", func() error {
			_, err := p.SealCommitPhase2(ctx, env, sector+1, miner)
			return err
		}, gpuc2.ErrBadInput, "the envelope is for sector 99, the request for sector 100"},
		{"wrong miner", func() error {
			_, err := p.SealCommitPhase2(ctx, raw, sector, miner+1)
			return err
		}, gpuc2.ErrBadInput, "replica_id"},
		{"unknown proof type in VerifySeal", func() error {
			_, err := p.VerifySeal(proof.SealVerifyInfo{SealProof: unknown})
			return err
		}, gpuc2.ErrBadInput, "unknown registered seal proof: 99"},
		{"unknown proof type in Preload", func() error { return p.Preload(ctx, unknown) }, gpuc2.ErrBadInput, "99"},
		{"unknown proof type in FindParams", func() error {
			_, _, err := gpuc2.FindParams(dir, unknown)
			return err
		}, gpuc2.ErrBadInput, "99"},
		{"unknown proof type in Requirements", func() error {
			_, err := gpuc2.Requirements(unknown, gpuc2.Config{Backend: gpuc2.BackendCPU})
			return err
		}, gpuc2.ErrBadInput, "99"},
		{"short proof in VerifySealVK", func() error {
			_, err := gpuc2.VerifySealVK(nil, info)
			return err
		}, gpuc2.ErrBadInput, "the proof has 191 bytes"},
		{"NI-PoRep in VerifySealVK", func() error {
			_, err := gpuc2.VerifySealVK(nil, proof.SealVerifyInfo{SealProof: abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep})
			return err
		}, gpuc2.ErrUnsupported, "NI-PoRep"},
		{"NI-PoRep in VerifySeal, no CIDs", func() error {
			_, err := p.VerifySeal(proof.SealVerifyInfo{SealProof: abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep})
			return err
		}, gpuc2.ErrBadInput, "SealedCID (comm_r) is undefined"},
		{"a directory at the .params path", func() error {
			params, vk := paramsPaths(t, filepath.Join(dir, "real"), c1.RegisteredProof)
			require.NoError(t, os.MkdirAll(params, 0o755))
			require.NoError(t, os.WriteFile(vk, []byte("vk"), 0o644))
			q, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: filepath.Dir(params), Backend: gpuc2.BackendCPU})
			require.NoError(t, err)
			defer q.Close()
			return q.Preload(ctx, c1.RegisteredProof)
		}, gpuc2.ErrParamsCorrupt, "not a regular file"},
		{"a directory at the TEST-ONLY path", func() error {
			tdir := filepath.Join(dir, "test")
			require.NoError(t, os.MkdirAll(gpuc2.TestParamsPath(tdir, c1.RegisteredProof), 0o755))
			q, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: dir, TestParamsDir: tdir, Backend: gpuc2.BackendCPU})
			require.NoError(t, err)
			defer q.Close()
			return q.Preload(ctx, c1.RegisteredProof)
		}, gpuc2.ErrParamsCorrupt, "not a regular file"},
		{"a 16 MiB proof name", func() error {
			long := strings.Replace(string(raw), `"StackedDrg2KiBV1_1"`, `"`+strings.Repeat("X", 16<<20)+`"`, 1)
			_, err := p.SealCommitPhase2(ctx, []byte(long), sector, miner)
			return err
		}, gpuc2.ErrBadInput, `"XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"… (16777216 bytes)`},
		{"an unknown backend", func() error {
			_, err := gpuc2.New(ctx, gpuc2.Config{Backend: gpuc2.Backend(strings.Repeat("b", 1<<20))})
			return err
		}, gpuc2.ErrBadInput, "(1048576 bytes)"},
		{"no parameters", func() error {
			_, err := p.SealCommitPhase2(ctx, raw, sector, miner)
			return err
		}, gpuc2.ErrParamsMissing, "params"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.text)
			assert.Less(t, len(err.Error()), 1024, "a caller's strings are cut (errtext.MaxBytes)")
			if errors.Is(err, gpuc2.ErrBadInput) {
				assert.True(t, strings.HasPrefix(err.Error(), "gpuc2: bad input: "), err.Error())
			}
		})
	}
}

// paramsPaths are the names FindParams looks for in dir, for a proof type's
// real .params and .vk files.
func paramsPaths(t *testing.T, dir string, spt abi.RegisteredSealProof) (params, vk string) {
	_, _, err := gpuc2.FindParams(dir, spt)
	require.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	// The error names the file it looked for; FindParams matches its name
	// up to the hash's first 8 digits, and another hash after them is no
	// published file (so its digest comes from a sidecar).
	msg := err.Error()
	i := strings.Index(msg, "v28-")
	j := strings.Index(msg, "sha256_hasher-")
	require.True(t, i >= 0 && j > i, msg)
	base := filepath.Join(dir, msg[i:j+len("sha256_hasher-")+8]+"0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0")
	return base + ".params", base + ".vk"
}

// Every fault of a parameter file's path wraps ErrParamsMissing (the OS
// would not give the bytes) or ErrParamsCorrupt (the bytes are wrong),
// names the path once, and never starts a TEST-ONLY setup: only a path
// where os.Lstat finds nothing may (issue 44: a dangling link or a link
// loop at the TEST-ONLY path started a 33 s setup that replaced the link;
// a mode-0000 file or sidecar wrapped no sentinel). The permission cases
// need a user the OS refuses: they skip as root, whose links and
// directories fail the same way.
func TestParamsFaultsNamed(t *testing.T) {
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	root := os.Geteuid() == 0
	loop := func(path string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.Symlink(filepath.Base(path), path))
	}
	for _, tc := range []struct {
		name    string
		real    bool // the fault is in ParamsDir, else in TestParamsDir
		asUser  bool // needs a user the OS refuses
		fault   func(t *testing.T, params string) (named string)
		want    error
		text    string
		symlink bool // the path must still be a link afterwards
	}{
		{".params a link loop", true, false, func(t *testing.T, params string) string {
			loop(params)
			return params
		}, gpuc2.ErrParamsMissing, "too many levels of symbolic links", true},
		{".params mode 0000", true, true, func(t *testing.T, params string) string {
			require.NoError(t, os.Chmod(params, 0))
			return params
		}, gpuc2.ErrParamsMissing, "permission denied", false},
		{"TEST-ONLY a dangling link", false, false, func(t *testing.T, params string) string {
			require.NoError(t, os.MkdirAll(filepath.Dir(params), 0o755))
			require.NoError(t, os.Symlink("nowhere.params", params))
			return params
		}, gpuc2.ErrParamsMissing, "no such file or directory", true},
		{"TEST-ONLY a link loop", false, false, func(t *testing.T, params string) string {
			loop(params)
			return params
		}, gpuc2.ErrParamsMissing, "too many levels of symbolic links", true},
		{"TEST-ONLY directory a file", false, false, func(t *testing.T, params string) string {
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Dir(params)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Dir(params), nil, 0o644))
			return params
		}, gpuc2.ErrParamsMissing, "not a directory", false},
		{"TEST-ONLY directory unsearchable", false, true, func(t *testing.T, params string) string {
			require.NoError(t, os.MkdirAll(filepath.Dir(params), 0o755))
			require.NoError(t, os.Chmod(filepath.Dir(params), 0o600))
			t.Cleanup(func() { os.Chmod(filepath.Dir(params), 0o755) })
			return params
		}, gpuc2.ErrParamsMissing, "permission denied", false},
		{"TEST-ONLY digest sidecar a link loop", false, false, func(t *testing.T, params string) string {
			writeTestOnly(t, params)
			side := groth16.DigestSidecarPath(params)
			require.NoError(t, os.Remove(side))
			loop(side)
			return side
		}, gpuc2.ErrParamsMissing, "too many levels of symbolic links", false},
		{"TEST-ONLY digest sidecar mode 0000", false, true, func(t *testing.T, params string) string {
			writeTestOnly(t, params)
			side := groth16.DigestSidecarPath(params)
			require.NoError(t, os.Chmod(side, 0))
			return side
		}, gpuc2.ErrParamsMissing, "permission denied", false},
		{"TEST-ONLY truncated", false, false, func(t *testing.T, params string) string {
			writeTestOnly(t, params)
			st, err := os.Stat(params)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(params, st.Size()-1))
			return params
		}, gpuc2.ErrParamsCorrupt, "BLAKE2b digest", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.asUser && root {
				t.Skip("root reads any file")
			}
			dir := t.TempDir()
			cfg := gpuc2.Config{ParamsDir: filepath.Join(dir, "real"), Backend: gpuc2.BackendCPU, SkipSelfVerify: true}
			require.NoError(t, os.MkdirAll(cfg.ParamsDir, 0o755))
			var params string
			if tc.real {
				var vk string
				params, vk = paramsPaths(t, cfg.ParamsDir, spt)
				require.NoError(t, os.WriteFile(vk, []byte("vk"), 0o644))
				if !tc.symlink {
					require.NoError(t, os.WriteFile(params, []byte("params"), 0o644))
				}
			} else {
				cfg.TestParamsDir = filepath.Join(dir, "test")
				params = gpuc2.TestParamsPath(cfg.TestParamsDir, spt)
			}
			named := tc.fault(t, params)

			// A setup takes minutes on 2 cores: the deadline bounds a
			// run of the code before the fix, where one started.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			p, err := gpuc2.New(ctx, cfg)
			require.NoError(t, err)
			defer p.Close()
			err = p.Preload(ctx, spt)
			require.ErrorIs(t, err, tc.want)
			msg := err.Error()
			assert.Contains(t, msg, tc.text)
			side := groth16.DigestSidecarPath(named) // a sidecar named beside its file is no repeat
			assert.Equal(t, 1, strings.Count(msg, named)-strings.Count(msg, side), "the path named once: %s", msg)
			_, err = gpuc2.Requirements(spt, cfg)
			if err != nil { // Requirements reads only the real files' and TEST-ONLY files' headers
				assert.True(t, errors.Is(err, gpuc2.ErrParamsMissing) || errors.Is(err, gpuc2.ErrParamsCorrupt), err.Error())
			}
			if tc.symlink {
				st, err := os.Lstat(params)
				require.NoError(t, err)
				assert.Equal(t, os.ModeSymlink, st.Mode().Type(), "the link was replaced")
			}
		})
	}
}

// writeTestOnly writes a small key (of another circuit) and its digest
// sidecar at a TEST-ONLY path: its digest checks out, its shape does not.
func writeTestOnly(t *testing.T, path string) {
	pk, err := groth16.Setup(context.Background(), &testcircuit.Chain{N: 20, Seed: 1, Inputs: 1}, rand.Reader)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, groth16.WriteParams(path, pk))
	_, err = os.Stat(groth16.DigestSidecarPath(path))
	require.NoError(t, err, "WriteParams writes the sidecar")
}

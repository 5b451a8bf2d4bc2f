package gpuc2_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
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
		{"NI-PoRep in VerifySeal", func() error {
			_, err := p.VerifySeal(proof.SealVerifyInfo{SealProof: abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep})
			return err
		}, gpuc2.ErrUnsupported, "NI-PoRep"},
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
		{"no parameters", func() error {
			_, err := p.SealCommitPhase2(ctx, raw, sector, miner)
			return err
		}, gpuc2.ErrParamsMissing, "params"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.text)
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

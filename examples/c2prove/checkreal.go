package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/realproofs"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// checkRealParams finds Filecoin's 2 KiB .params and .vk in -params for
// -check-real; without them it is a usage error naming the file.
func (o *options) checkRealParams() error {
	o.spt = abi.RegisteredSealProof_StackedDrg2KiBV1_1
	params, vk, err := gpuc2.FindParams(o.paramsDir, o.spt)
	if err != nil {
		return cli.Usagef("-check-real needs Filecoin's real 2 KiB parameter files: %w; fetch them with `curio fetch-params 2KiB` "+
			"or `lotus fetch-params 2048` (into $%s, else /var/tmp/filecoin-proof-parameters), or name their directory with -params",
			err, gpuc2.EnvParamsDir)
	}
	o.params, o.vk = params, vk
	return nil
}

// checkReal verifies rust-fil-proofs' real 2 KiB proofs with Filecoin's
// real verifying key (and that tampered copies fail), then proves a
// synthetic 2 KiB sector of each kind gpuc2 proves with the real .params
// and verifies it with the real .vk. Any failure is an error (exit 1).
func checkReal(ctx context.Context, o *options, d *display) error {
	d.printf("backend: %s (%s)", o.backend, o.backendWhy)
	vk, err := groth16.ReadVerifyingKeyFile(ctx, o.vk, groth16.WithDigestCheck())
	if err != nil {
		return fmt.Errorf("the real 2 KiB verifying key: %w", err)
	}
	d.printf("verifying key: %s (its BLAKE2b digest is the one Filecoin publishes in parameters.json)", o.vk)
	recs, err := realproofs.Records2KiB()
	if err != nil {
		return err
	}
	d.printf("real proofs: %d from %s", len(recs), realproofs.Source)
	var failed []string
	for _, res := range realproofs.Check(groth16.PrepareVerifyingKey(vk), recs) {
		line := fmt.Sprintf("  %s: %d of %d real Filecoin proofs verified; %d of %d tampered copies rejected",
			res.Kind, res.Verified, res.Records, res.Rejected, res.Tampered)
		if res.Err != nil {
			line += " (first error: " + res.Err.Error() + ")"
		}
		d.printf("%s", line)
		if !res.OK() {
			failed = append(failed, res.Kind+" real proofs")
		}
	}

	cfg := gpuc2.Config{ParamsDir: o.paramsDir, Backend: gpuc2.Backend(o.backend), Devices: o.devices,
		WorkersPerDevice: o.workers, DeviceMemoryLimit: o.deviceMem, ConstraintMatrices: o.matricesMode(),
		Logger: slog.New(slog.NewTextHandler(d.stderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))}
	p, err := gpuc2.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer p.Close()
	d.printf("our proofs: synthetic 2 KiB sectors proved with %s", o.params)
	miner := abi.ActorID(o.miner)
	for i, spt := range []abi.RegisteredSealProof{abi.RegisteredSealProof_StackedDrg2KiBV1_1, abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep} {
		sector := abi.SectorNumber(o.sector) + abi.SectorNumber(i)
		verdict, err := proveUnderRealKey(ctx, p, vk, spt, miner, sector, d)
		if err != nil {
			return err
		}
		d.printf("  %s: %s", porep.ProofName(spt), verdict)
		if verdict != ourProofVerified {
			failed = append(failed, porep.ProofName(spt)+" our proof")
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("check-real failed: %v", failed)
	}
	d.printf("check-real: ok: every real Filecoin proof verified (and every tampered copy failed); our proofs verified under the real key")
	return nil
}

const ourProofVerified = "our proof verified under the real key"

// proveUnderRealKey proves a synthetic sector of spt through p (with the
// real .params) and checks the proof with VerifySealVK and the real .vk.
func proveUnderRealKey(ctx context.Context, p *gpuc2.Prover, vk *groth16.VerifyingKey, spt abi.RegisteredSealProof,
	miner abi.ActorID, sector abi.SectorNumber, d *display) (string, error) {
	_, raw, err := syntheticC1(ctx, spt, miner, sector)
	if err != nil {
		return "", err
	}
	start := time.Now()
	d.begin(func() string {
		return fmt.Sprintf("  %s: proving… %.0f s", porep.ProofName(spt), time.Since(start).Seconds())
	})
	proofBytes, err := p.SealCommitPhase2(ctx, raw, sector, miner)
	d.end()
	switch {
	case errors.Is(err, gpuc2.ErrProofInvalid):
		return "our proof did not verify under the real key: " + err.Error(), nil // self-verification, with the .params' key
	case err != nil:
		return "", err
	}
	info, err := gpuc2.NewSealVerifyInfo(raw, proofBytes, sector, miner)
	if err != nil {
		return "", err
	}
	ok, err := gpuc2.VerifySealVK(vk, info)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return "our proof did not verify under the real key (VerifySealVK with the .vk file)", nil
	}
	return ourProofVerified, nil
}

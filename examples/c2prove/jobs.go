package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/synth/update"
)

// proofJob is one proof c2prove puts in flight: a sector's C2 or, with
// -update, a sector update's proof.
type proofJob struct {
	label string // "sector 5", "update 2"
	run   func(ctx context.Context, p *gpuc2.Prover) (*outcome, error)
}

// outcome is a finished proof and how to check it with the prover's
// verifying call (VerifySeal, VerifyUpdateProof).
type outcome struct {
	proof   []byte
	timings gpuc2.ProofTimings
	devices []int
	checkBy string
	check   func(p *gpuc2.Prover) (bool, error)
}

// proofJobs are the o.count proofs to make: sectors' C2 (requests), or
// synthetic sector updates.
func proofJobs(ctx context.Context, o *options, d *display) ([]proofJob, error) {
	if o.update {
		return updateJobs(o, d)
	}
	reqs, err := requests(ctx, o, d)
	if err != nil {
		return nil, err
	}
	jobs := make([]proofJob, len(reqs))
	for i, req := range reqs {
		jobs[i] = proofJob{label: fmt.Sprintf("sector %d", req.Sector), run: func(ctx context.Context, p *gpuc2.Prover) (*outcome, error) {
			r, err := p.ProveSeal(ctx, req)
			if err != nil {
				return nil, err
			}
			return &outcome{proof: r.Proof, timings: r.Timings, devices: r.Devices, checkBy: "VerifySeal",
				check: func(p *gpuc2.Prover) (bool, error) { return p.VerifySeal(r.VerifyInfo) }}, nil
		}}
	}
	return jobs, nil
}

// updateJobs are o.count synthetic updates of o's sector size (each its own
// made-up sector, from seed -sector-number + i), sent as Curio sends them:
// CIDs and one vanilla proof per partition.
func updateJobs(o *options, d *display) ([]proofJob, error) {
	params, err := update.ParamsFor(o.upt)
	if err != nil {
		return nil, err
	}
	d.printf("update: synthetic %s sector update(s) (generated test data, not real sectors)", o.sectorSize)
	start := time.Now()
	d.begin(func() string {
		return fmt.Sprintf("update: making the synthetic updates… %.0f s", time.Since(start).Seconds())
	})
	defer d.end()
	jobs := make([]proofJob, o.count)
	for i := range jobs {
		req, err := syntheticUpdate(o, params, o.sector+uint64(i))
		if err != nil {
			return nil, err
		}
		jobs[i] = proofJob{label: fmt.Sprintf("update %d", i+1), run: func(ctx context.Context, p *gpuc2.Prover) (*outcome, error) {
			r, err := p.ProveUpdate(ctx, req)
			if err != nil {
				return nil, err
			}
			return &outcome{proof: r.Proof, timings: r.Timings, devices: r.Devices, checkBy: "VerifyUpdateProof",
				check: func(p *gpuc2.Prover) (bool, error) { return p.VerifyUpdateProof(r.VerifyInfo) }}, nil
		}}
	}
	d.printf("update: %s, %d partitions × %d challenges (checked by the facade)", o.proofName(), params.Partitions, params.Challenges)
	return jobs, nil
}

// syntheticUpdate is the request of the synthetic update made from seed.
func syntheticUpdate(o *options, params update.Params, seed uint64) (gpuc2.UpdateRequest, error) {
	s, err := update.NewSynthetic(params, seed)
	if err != nil {
		return gpuc2.UpdateRequest{}, err
	}
	req := gpuc2.UpdateRequest{ProofType: o.upt, VanillaProofs: update.EncodeVanillaProofs(s.Proofs)}
	req.OldSealed, req.NewSealed, req.NewUnsealed, err = s.CIDs()
	return req, err
}

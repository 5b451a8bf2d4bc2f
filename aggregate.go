package gpuc2

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/aggregate"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// FIP-0092's bounds on the NI-PoRep sectors aggregated together, where
// there are more than one (filecoin-proofs constants.rs,
// FIP92_MIN_NI_POREP_AGGREGATION_PROOFS and FIP92_MAX_NI_POREP_AGGREGATION_PROOFS,
// checked by aggregate_seal_commit_proofs; rust-fil-proofs 87348a74).
const (
	fip92MinNIAggregation = 1
	fip92MaxNIAggregation = 65
)

// AggregateSealProofs aggregates the C2 outputs of several sectors into
// one SnarkPack proof: filecoin-ffi's AggregateSealProofs (with a context).
// proofs[i] is Infos[i]'s sector's C2 output, its partition proofs (192
// bytes each); of the infos only SealedCID (comm_r) and
// InteractiveRandomness (the seed) are read, as ffi reads them. The
// partition proofs, in order, are padded to a power of two (at least 2) by
// repeating the last; the transcript includes SHA-256 of the (seed,
// comm_r) pairs, of the comm_rs alone for NI-PoRep; AggregateProof
// SnarkPackV1 or SnarkPackV2 picks the version. It needs SRSFileName (or
// Config.TestParamsDir's TEST-ONLY SRS). Errors wrap ErrBadInput and name
// the problem: an unknown proof or aggregation type, no proofs, as many
// infos as proofs not given, more than 65 NI-PoRep sectors (FIP-0092),
// more proofs than the SRS serves, a proof of the wrong length or with a
// point off its curve or subgroup.
func (p *Prover) AggregateSealProofs(ctx context.Context, aggregateInfo proof.AggregateSealVerifyProofAndInfos, proofs [][]byte) (out []byte, err error) {
	err = guard(p.log, "AggregateSealProofs", func() error {
		if err := p.enter(); err != nil {
			return err
		}
		defer p.leave()
		out, err = p.aggregateSealProofs(ctx, aggregateInfo, proofs)
		return err
	})
	return out, err
}

func (p *Prover) aggregateSealProofs(ctx context.Context, info proof.AggregateSealVerifyProofAndInfos, outputs [][]byte) ([]byte, error) {
	sp, err := porep.ParamsFor(info.SealProof)
	if err != nil {
		return nil, fmt.Errorf("%w: SealProof: %w", ErrBadInput, err)
	}
	v, err := aggregateVersion(info.AggregateProof)
	if err != nil {
		return nil, err
	}
	switch n := len(outputs); {
	case n == 0:
		return nil, fmt.Errorf("%w: no proofs to aggregate", ErrBadInput)
	case n != len(info.Infos):
		return nil, fmt.Errorf("%w: %d proofs and %d infos: one info per sector's proof", ErrBadInput, n, len(info.Infos))
	case sp.NonInteractive() && n > 1 && (n < fip92MinNIAggregation || n > fip92MaxNIAggregation):
		return nil, fmt.Errorf("%w: %d NI-PoRep sectors, outside FIP-0092's bounds [%d, %d]", ErrBadInput, n,
			fip92MinNIAggregation, fip92MaxNIAggregation)
	}
	commRs := make([][32]byte, len(outputs))
	seeds := make([][32]byte, len(outputs))
	var proofs []groth16.Proof
	for i, b := range outputs {
		in := &info.Infos[i]
		if commRs[i], err = commitmentOf(in.SealedCID, commcid.CIDToReplicaCommitmentV1, "SealedCID (comm_r)"); err != nil {
			return nil, fmt.Errorf("Infos[%d] (sector %d): %w", i, in.Number, err)
		}
		if len(in.InteractiveRandomness) != 32 {
			return nil, fmt.Errorf("%w: Infos[%d] (sector %d): interactive randomness of %d bytes, want 32", ErrBadInput, i, in.Number, len(in.InteractiveRandomness))
		}
		copy(seeds[i][:], in.InteractiveRandomness)
		if want := sp.Partitions * groth16.ProofSize; len(b) != want {
			return nil, fmt.Errorf("%w: proofs[%d] (sector %d) has %d bytes, a %s proof %d (%d partitions of %d)", ErrBadInput, i, in.Number,
				len(b), porep.ProofName(info.SealProof), want, sp.Partitions, groth16.ProofSize)
		}
		ps, err := groth16.UnmarshalProofs(b)
		if err != nil {
			return nil, fmt.Errorf("%w: proofs[%d] (sector %d): %w", ErrBadInput, i, in.Number, err)
		}
		proofs = append(proofs, ps...)
	}
	return p.aggregateSeals(ctx, sp, commRs, seeds, proofs, v)
}

// VerifyAggregateSeals checks a SnarkPack aggregate of seal proofs:
// filecoin-ffi's VerifyAggregateSeals. Each info's public inputs are
// computed as VerifySeal computes them (replica_id from the Miner, the
// sector number, ticket and comm_d), partition by partition, sector after
// sector, then padded as the proofs were; the transcript and version are
// AggregateSealProofs'. A proof that does not verify is (false, nil);
// malformed input (an unknown proof or aggregation type, no infos, an
// info's CIDs or randomness, an aggregate that does not decode or holds
// another number of proofs than the infos' partitions padded) is an error
// wrapping ErrBadInput.
func (p *Prover) VerifyAggregateSeals(aggregate proof.AggregateSealVerifyProofAndInfos) (ok bool, err error) {
	err = guard(p.log, "VerifyAggregateSeals", func() error {
		if err := p.enter(); err != nil {
			return err
		}
		defer p.leave()
		ok, err = p.verifyAggregateSealProofs(context.Background(), aggregate)
		return err
	})
	return ok, err
}

func (p *Prover) verifyAggregateSealProofs(ctx context.Context, info proof.AggregateSealVerifyProofAndInfos) (bool, error) {
	sp, err := porep.ParamsFor(info.SealProof)
	if err != nil {
		return false, fmt.Errorf("%w: SealProof: %w", ErrBadInput, err)
	}
	v, err := aggregateVersion(info.AggregateProof)
	if err != nil {
		return false, err
	}
	if len(info.Infos) == 0 {
		return false, fmt.Errorf("%w: no seal verify infos", ErrBadInput)
	}
	sectors := make([]sealSector, len(info.Infos))
	for i, in := range info.Infos {
		if sectors[i], err = checkSealSector(info.SealProof, info.Miner, in.Number, in.SealedCID, in.UnsealedCID,
			in.Randomness, in.InteractiveRandomness); err != nil {
			return false, fmt.Errorf("Infos[%d] (sector %d): %w", i, in.Number, err)
		}
	}
	agg, err := decodeAggregate(info.Proof)
	if err != nil {
		return false, err
	}
	vk, err := p.verifyingKey(sealKind(info.SealProof))
	if err != nil {
		return false, err
	}
	return p.verifySealAggregate(ctx, sp, vk, sectors, agg, v)
}

// aggregateVersion is the SnarkPack version of an aggregation type, as
// filecoin-proofs-api maps RegisteredAggregationProof to AggregateVersion.
func aggregateVersion(t abi.RegisteredAggregationProof) (aggregate.Version, error) {
	switch t {
	case abi.RegisteredAggregationProof_SnarkPackV1:
		return aggregate.V1, nil
	case abi.RegisteredAggregationProof_SnarkPackV2:
		return aggregate.V2, nil
	}
	return 0, fmt.Errorf("%w: AggregateProof %d: not SnarkPackV1 (%d) or SnarkPackV2 (%d), the aggregation types there are",
		ErrBadInput, int64(t), abi.RegisteredAggregationProof_SnarkPackV1, abi.RegisteredAggregationProof_SnarkPackV2)
}

// aggregateTargetLen is the proof count n proofs are padded to for
// aggregation: filecoin-proofs' get_aggregate_target_len, the next power of
// two, and 2 for 1 (SnarkPack aggregates at least two).
func aggregateTargetLen(n int) int {
	if n == 1 {
		return 2
	}
	t := 1
	for t < n {
		t <<= 1
	}
	return t
}

// padProofs pads proofs (at least one) to target by repeating the last,
// as filecoin-proofs' pad_proofs_to_target.
func padProofs(proofs []groth16.Proof, target int) []groth16.Proof {
	out := make([]groth16.Proof, len(proofs), target)
	copy(out, proofs)
	for len(out) < target {
		out = append(out, proofs[len(proofs)-1])
	}
	return out
}

// padInputs pads the public inputs of the proofs of an aggregate of
// nproofs (one set per proof, in order) as filecoin-proofs'
// verify_aggregate_seal_commit_proofs does with pad_inputs_to_target: sets
// per proof get_aggregate_target_len(len(inputs))/nproofs, the last that
// many sets repeated up to nproofs times that. Counts that do not fit are
// refused as there; Verify refuses what still differs from nproofs.
func padInputs(inputs [][]fr.Element, nproofs int) ([][]fr.Element, error) {
	n := len(inputs)
	if n == 0 {
		return nil, fmt.Errorf("%w: no public inputs", ErrBadInput)
	}
	perProof := aggregateTargetLen(n) / nproofs
	target := nproofs * perProof
	if target == n {
		return inputs, nil
	}
	if target < n {
		return nil, fmt.Errorf("%w: %d sets of public inputs (the infos' partitions) for an aggregate of %d proofs", ErrBadInput, n, nproofs)
	}
	out := append(make([][]fr.Element, 0, target), inputs...)
	last := inputs[n-perProof:]
	for len(out) < target {
		out = append(out, last...)
	}
	if len(out) > target {
		return nil, fmt.Errorf("%w: %d sets of public inputs (the infos' partitions) do not pad to an aggregate of %d proofs", ErrBadInput, n, nproofs)
	}
	return out, nil
}

// transcriptInclude is the bytes filecoin-proofs adds to the SnarkPack
// transcript: SHA-256 over each sector's seed then comm_r, or over the
// comm_rs alone for NI-PoRep, whose challenges do not depend on a seed.
func transcriptInclude(sp porep.SealParams, commRs, seeds [][32]byte) []byte {
	h := sha256.New()
	for i := range commRs {
		if !sp.NonInteractive() {
			h.Write(seeds[i][:])
		}
		h.Write(commRs[i][:])
	}
	return h.Sum(nil)
}

// aggregateSeals is filecoin-proofs' aggregate_seal_commit_proofs from
// its flattened partition proofs on: pad, hash the transcript's include,
// aggregate under the SRS specialized to the padded count.
func (p *Prover) aggregateSeals(ctx context.Context, sp porep.SealParams, commRs, seeds [][32]byte, proofs []groth16.Proof, v aggregate.Version) ([]byte, error) {
	target := aggregateTargetLen(len(proofs))
	srs, _, err := p.specializedSRS(ctx, target)
	if err != nil {
		return nil, err
	}
	agg, err := aggregate.Aggregate(ctx, srs, padProofs(proofs, target), transcriptInclude(sp, commRs, seeds), v)
	if err != nil {
		return nil, classifyAggregate(err)
	}
	b, err := agg.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInternal, err)
	}
	return b, nil
}

// decodeAggregate decodes an aggregate's bytes, as bellperson's
// AggregateProof::read and parsing_check check them; errors wrap
// ErrBadInput.
func decodeAggregate(b []byte) (*aggregate.Proof, error) {
	agg, err := aggregate.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%w: the aggregate proof: %w", ErrBadInput, err)
	}
	return agg, nil
}

// verifySealAggregate is filecoin-proofs' verify_aggregate_seal_commit_proofs
// for sectors, whose public inputs it computes.
func (p *Prover) verifySealAggregate(ctx context.Context, sp porep.SealParams, vk *groth16.VerifyingKey, sectors []sealSector,
	agg *aggregate.Proof, v aggregate.Version) (bool, error) {
	nproofs := int(agg.TMIPP.GIPA.NProofs) // Decode checked: a power of two, at least 2
	public, err := sealPublicInputs(ctx, sp, sectors)
	if err != nil {
		return false, err
	}
	if public, err = padInputs(public, nproofs); err != nil {
		return false, err
	}
	_, srs, err := p.specializedSRS(ctx, nproofs)
	if err != nil {
		return false, err
	}
	commRs := make([][32]byte, len(sectors))
	seeds := make([][32]byte, len(sectors))
	for i := range sectors {
		commRs[i], seeds[i] = sectors[i].commR, sectors[i].seed
	}
	ok, err := aggregate.Verify(ctx, srs, vk, public, agg, transcriptInclude(sp, commRs, seeds), v)
	if err != nil {
		return false, classifyAggregate(err)
	}
	return ok, nil
}

// specializedSRS is the SRS specialized to n proofs, or an error wrapping
// ErrBadInput where n is more than it serves.
func (p *Prover) specializedSRS(ctx context.Context, n int) (*aggregate.ProverSRS, *aggregate.VerifierSRS, error) {
	src, err := p.srs.locate()
	if err != nil {
		return nil, nil, err
	}
	if n > src.maxProofs() {
		return nil, nil, fmt.Errorf("%w: %d proofs (padded), more than the %d that %s serves", ErrBadInput, n, src.maxProofs(), src)
	}
	return p.srs.get(ctx, src, n)
}

// classifyAggregate maps package aggregate's errors: bad input or a
// malformed proof wraps ErrBadInput; the SRS was read and checked, so
// anything else about it is gpuc2's fault.
func classifyAggregate(err error) error {
	switch {
	case errors.Is(err, aggregate.ErrInput), errors.Is(err, aggregate.ErrFormat):
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	case errors.Is(err, aggregate.ErrSRS):
		return fmt.Errorf("%w: %w", ErrInternal, err)
	}
	return err
}

// sealAggregate is what filecoin-proofs' seal_commit_phase2 returns for an
// NI-PoRep sector: the aggregate (V2) of its own partition proofs, with
// its comm_r and seed, and checked (unless Config.SkipSelfVerify) as its
// verify_seal checks it, timed into timings.
func (p *Prover) sealAggregate(ctx context.Context, a *admission, partitions []groth16.Proof, timings *ProofTimings) ([]byte, error) {
	c := a.c1
	sp, err := porep.ParamsFor(c.RegisteredProof)
	if err != nil {
		return nil, err
	}
	sector := sealSectorOf(c)
	start := time.Now()
	agg, err := p.aggregateSeals(ctx, sp, [][32]byte{sector.commR}, [][32]byte{sector.seed}, partitions, aggregate.V2)
	timings.Aggregate = time.Since(start)
	if err != nil || p.cfg.SkipSelfVerify {
		return agg, err
	}
	span := p.tracer.Begin(requestTrack, "self-verify aggregate", "proof", a.kind.String())
	start = time.Now()
	err = p.checkOwnAggregate(ctx, sp, a.key.pk.VerifyingKey(), sector, agg)
	timings.Verify += time.Since(start)
	span.End()
	if err != nil {
		return nil, err
	}
	return agg, nil
}

// checkOwnAggregate checks an NI-PoRep sector's aggregate as
// filecoin-proofs' verify_seal does; errors wrap ErrProofInvalid (or are
// ctx's).
func (p *Prover) checkOwnAggregate(ctx context.Context, sp porep.SealParams, vk *groth16.VerifyingKey, sector sealSector, b []byte) error {
	agg, err := decodeAggregate(b)
	ok := false
	if err == nil {
		ok, err = p.verifySealAggregate(ctx, sp, vk, []sealSector{sector}, agg, aggregate.V2)
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("%w: the NI-PoRep aggregate: %w", ErrProofInvalid, err)
	case !ok:
		return fmt.Errorf("%w: the NI-PoRep aggregate of the partition proofs does not verify", ErrProofInvalid)
	}
	return nil
}

package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/post"
)

// PoStRequest is one PoSt SNARK: a WindowPoSt partition or a WinningPoSt.
type PoStRequest struct {
	ProofType  abi.RegisteredPoStProof
	Miner      abi.ActorID
	Randomness abi.PoStRandomness // 32 bytes, a canonical field element (Lotus and Curio clear the top two bits)
	// VanillaProofs are the sector proofs filecoin-ffi's
	// GenerateSingleVanillaProof returns, one per challenged sector, in
	// ascending sector order (the order the chain verifies them in): at
	// most the partition's sector count for a WindowPoSt, exactly one for
	// a WinningPoSt.
	VanillaProofs [][]byte
	// Partition is a WindowPoSt partition's index (Curio's partitionIdx);
	// 0 for a WinningPoSt. The live window types' challenges do not depend
	// on it; it names the partition in logs and errors.
	Partition int
	Priority  Priority // as SealRequest's: Curio sends WindowPoSt HIGH, WinningPoSt CRITICAL
	Label     string   // names the proof in Status, as SealRequest's
}

// PoStResult is a finished, self-verified (unless SkipSelfVerify) PoSt proof.
type PoStResult struct {
	Proof   proof.PoStProof    // the proof type and its 192 bytes
	Sectors []abi.SectorNumber // the sectors proved, in order
	// Partition is the proof, decoded.
	Partition groth16.Proof
	Backend   Backend
	Devices   []int        // as SealResult's
	Timings   ProofTimings // Parse covers the vanilla proofs' decode and check (less the hashes: synthesis checks those)
}

// FaultySectorsError reports the sectors of a PoSt request whose vanilla
// proofs do not hold, as filecoin-ffi reports FaultySectors: a path that
// does not reach comm_r_last, comm_r ≠ H(comm_c, comm_r_last), a proof made
// for other challenges (another randomness), a malformed proof. Curio
// declares such sectors faulty and proves the rest. Nothing is proved. It
// wraps ErrBadInput; errors.As also finds each sector's
// *post.SectorError. The faults the hashes find (a path, comm_r) are
// found as the witness is synthesized, which computes those hashes anyway,
// so they come after the key's admission; the others before any work.
type FaultySectorsError struct {
	Sectors []abi.SectorNumber
	// Reasons holds each faulty sector's first problem, in Sectors' order.
	Reasons []string
	err     *post.FaultsError
}

func (e *FaultySectorsError) Error() string {
	parts := make([]string, len(e.Sectors))
	for i, s := range e.Sectors {
		parts[i] = fmt.Sprintf("sector %d: %s", s, e.Reasons[i])
	}
	return fmt.Sprintf("%v: faulty sectors %v: %s", ErrBadInput, e.Sectors, strings.Join(parts, "; "))
}

// Unwrap returns ErrBadInput and the sectors' errors.
func (e *FaultySectorsError) Unwrap() []error { return []error{ErrBadInput, e.err} }

func faultySectors(fe *post.FaultsError) *FaultySectorsError {
	out := &FaultySectorsError{err: fe}
	for _, f := range fe.Faults {
		out.Sectors = append(out.Sectors, abi.SectorNumber(f.Sector))
		reason := f.Msg
		if f.Challenge >= 0 {
			reason = fmt.Sprintf("challenge %d: %s", f.Challenge, reason)
		}
		if f.Field != "" {
			reason = f.Field + ": " + reason
		}
		out.Reasons = append(out.Reasons, reason)
	}
	return out
}

// GenerateSinglePartitionWindowPoStWithVanilla proves one WindowPoSt
// partition: filecoin-ffi's call of the same name (ffi answers an
// *ffi.PartitionProof, a proof.PoStProof), the call Curio's WdPost task
// makes. Faulty sectors are a *FaultySectorsError.
func (p *Prover) GenerateSinglePartitionWindowPoStWithVanilla(ctx context.Context, t abi.RegisteredPoStProof,
	miner abi.ActorID, randomness abi.PoStRandomness, vanillaProofs [][]byte, partitionIndex uint) (*proof.PoStProof, error) {
	res, err := p.ProvePoSt(ctx, PoStRequest{ProofType: t, Miner: miner, Randomness: randomness,
		VanillaProofs: vanillaProofs, Partition: int(partitionIndex), Priority: PriorityHigh})
	if err != nil {
		return nil, err
	}
	return &res.Proof, nil
}

// GenerateWinningPoStWithVanilla proves a WinningPoSt: filecoin-ffi's call
// of the same name, the call Curio's WinningPoSt task makes.
func (p *Prover) GenerateWinningPoStWithVanilla(ctx context.Context, t abi.RegisteredPoStProof,
	miner abi.ActorID, randomness abi.PoStRandomness, vanillaProofs [][]byte) ([]proof.PoStProof, error) {
	res, err := p.ProvePoSt(ctx, PoStRequest{ProofType: t, Miner: miner, Randomness: randomness,
		VanillaProofs: vanillaProofs, Priority: PriorityCritical})
	if err != nil {
		return nil, err
	}
	return []proof.PoStProof{res.Proof}, nil
}

// ProvePoSt proves one WindowPoSt partition or one WinningPoSt through the
// pipeline, beside whatever other proofs are in flight (its priority
// orders it among them): the vanilla proofs are decoded and checked first
// (faults a *FaultySectorsError, other bad input an error wrapping
// ErrBadInput), then the one circuit is synthesized, proved with the
// type's parameters and self-verified.
func (p *Prover) ProvePoSt(ctx context.Context, req PoStRequest) (res *PoStResult, err error) {
	err = guard(p.log, "ProvePoSt", func() error {
		res, err = p.provePoSt(ctx, req)
		return err
	})
	return res, err
}

func (p *Prover) provePoSt(ctx context.Context, req PoStRequest) (*PoStResult, error) {
	start := time.Now()
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &PoStResult{Backend: p.cfg.Backend}
	parseStart := time.Now()
	in, err := parsePoSt(ctx, req)
	res.Timings.Parse = time.Since(parseStart)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	a := in.admission()
	if err := p.admitShape(ctx, a, &res.Timings); err != nil {
		return nil, faultsFromSynthesis(err)
	}
	defer p.keys.release(a.kind)
	var verifier partitionChecker
	if !p.cfg.SkipSelfVerify {
		verifier = &postVerifier{pvk: a.key.prepared(), in: in}
	}
	meta := requestMeta{miner: req.Miner, priority: req.Priority, label: req.Label}
	proofs, devices, err := p.provePartitions(ctx, a, meta, verifier, &res.Timings)
	if err != nil {
		return nil, faultsFromSynthesis(err)
	}
	b, err := marshalProofs(proofs)
	if err != nil {
		return nil, err
	}
	res.Partition = proofs[0]
	res.Proof = proof.PoStProof{PoStProof: req.ProofType, ProofBytes: b}
	for _, s := range in.public {
		res.Sectors = append(res.Sectors, abi.SectorNumber(s.ID))
	}
	res.Devices = usedDevices(devices)
	res.Timings.Total = time.Since(start)
	return res, nil
}

// postInputs are a PoSt request's decoded, checked inputs.
type postInputs struct {
	t          abi.RegisteredPoStProof
	params     post.Params
	randomness [32]byte
	proofs     []*post.SectorProof
	public     []post.PublicSector
}

// faultsFromSynthesis is err, or where a synthesis found faulty sectors
// (post.Circuit.Verify), the *FaultySectorsError parsePoSt would have given.
func faultsFromSynthesis(err error) error {
	var fe *post.FaultsError
	if errors.As(err, &fe) {
		return faultySectors(fe)
	}
	return err
}

// parsePoSt decodes and checks req's vanilla proofs as filecoin-proofs does
// before it synthesizes, less the hashes (post.DecodeAndCheckShape): the
// synthesis checks those as it computes them for the witness
// (post.Circuit.Verify), so that they are computed once. Faults become a
// *FaultySectorsError, here or from the synthesis.
func parsePoSt(ctx context.Context, req PoStRequest) (*postInputs, error) {
	params, err := post.ParamsFor(req.ProofType)
	if err != nil {
		return nil, err
	}
	if req.Partition < 0 || params.Kind == post.Winning && req.Partition != 0 {
		return nil, fmt.Errorf("%w: partition %d for %s", ErrBadInput, req.Partition, post.ProofName(req.ProofType))
	}
	in := &postInputs{t: req.ProofType, params: params}
	if in.randomness, err = post.Randomness(req.Randomness); err != nil {
		return nil, err
	}
	in.proofs, err = post.DecodeAndCheckShape(ctx, params, in.randomness, req.VanillaProofs)
	var fe *post.FaultsError
	if errors.As(err, &fe) {
		return nil, faultySectors(fe)
	}
	if err != nil {
		return nil, err
	}
	for _, sp := range in.proofs {
		in.public = append(in.public, post.PublicSector{ID: sp.SectorID, CommR: sp.CommR})
	}
	return in, nil
}

// admission is in's admission before its shape and key: one partition,
// whose circuit is made when the pipeline synthesizes it.
func (in *postInputs) admission() *admission {
	circuit := func(k int) (synth.Circuit, error) {
		if k != 0 {
			return nil, fmt.Errorf("%w: partition %d of a PoSt proof, which has one", ErrBadInput, k)
		}
		w, err := post.WitnessFor(in.params, in.proofs)
		if err != nil {
			return nil, err
		}
		return &post.Circuit{Params: in.params, Witness: w, Verify: true}, nil
	}
	return &admission{kind: postKind(in.t), partitions: 1, circuit: circuit, pipelined: circuit}
}

// postVerifier self-verifies a PoSt proof with the public inputs the
// chain's verifier computes from the sectors' comm_r alone.
type postVerifier struct {
	pvk *groth16.PreparedVerifyingKey
	in  *postInputs
}

func (v *postVerifier) verify(proof *groth16.Proof, k int) error {
	public, err := v.in.params.PublicInputs(v.in.randomness, v.in.public, 0)
	if err != nil {
		return err
	}
	return verifyPartition(v.pvk, proof, public, k)
}

// VerifyWindowPoSt verifies a WindowPoSt as filecoin-ffi's VerifyWindowPoSt
// does: one PoStProof holding every partition's 192 bytes in order, the
// challenged sectors taken in ascending sector order (a repeated sector
// once), each partition's public inputs from their comm_r and the
// randomness alone, with the type's verifying key (the .vk file beside the
// parameters, or the loaded parameters, TEST-ONLY ones included). The
// prover id does not enter a PoSt proof (the chain binds the sectors
// through comm_r). A proof that does not verify is (false, nil); malformed
// info is an error wrapping ErrBadInput.
func (p *Prover) VerifyWindowPoSt(info proof.WindowPoStVerifyInfo) (ok bool, err error) {
	err = guard(p.log, "VerifyWindowPoSt", func() error {
		if err := p.enter(); err != nil {
			return err
		}
		defer p.leave()
		ok, err = p.verifyPoSt(post.Window, info.Randomness, info.Proofs, info.ChallengedSectors, nil)
		return err
	})
	return ok, err
}

// VerifyWinningPoSt verifies a WinningPoSt as filecoin-ffi's
// VerifyWinningPoSt does: one PoStProof of 192 bytes for one challenged
// sector, whose seal type's WinningPoSt type must be the proof's.
func (p *Prover) VerifyWinningPoSt(info proof.WinningPoStVerifyInfo) (ok bool, err error) {
	err = guard(p.log, "VerifyWinningPoSt", func() error {
		if err := p.enter(); err != nil {
			return err
		}
		defer p.leave()
		check := func(t abi.RegisteredPoStProof, s proof.SectorInfo) error {
			st, err := s.SealProof.RegisteredWinningPoStProof()
			if err != nil {
				return fmt.Errorf("%w: sector %d: seal type %d: %w", ErrBadInput, s.SectorNumber, s.SealProof, err)
			}
			if st != t {
				return fmt.Errorf("%w: sector %d's seal type %d has WinningPoSt type %s, not the proof's %s", ErrBadInput,
					s.SectorNumber, s.SealProof, post.ProofName(st), post.ProofName(t))
			}
			return nil
		}
		ok, err = p.verifyPoSt(post.Winning, info.Randomness, info.Proofs, info.ChallengedSectors, check)
		return err
	})
	return ok, err
}

func (p *Prover) verifyPoSt(kind post.Kind, randomness abi.PoStRandomness, proofs []proof.PoStProof, sectors []proof.SectorInfo,
	check func(abi.RegisteredPoStProof, proof.SectorInfo) error) (bool, error) {
	if len(proofs) != 1 {
		return false, fmt.Errorf("%w: %d PoSt proofs: filecoin-ffi verifies one (every partition's bytes in it)", ErrBadInput, len(proofs))
	}
	t := proofs[0].PoStProof
	params, err := post.ParamsFor(t)
	if err != nil {
		return false, err
	}
	if params.Kind != kind {
		return false, fmt.Errorf("%w: %s is a %v type, not %v", ErrBadInput, post.ProofName(t), params.Kind, kind)
	}
	rnd, err := post.Randomness(randomness)
	if err != nil {
		return false, err
	}
	if len(sectors) == 0 {
		return false, fmt.Errorf("%w: no challenged sector", ErrBadInput)
	}
	// the verifier's BTreeMap: ascending, a repeated sector once (the last)
	byNumber := map[abi.SectorNumber]post.PublicSector{}
	for _, s := range sectors {
		if check != nil {
			if err := check(t, s); err != nil {
				return false, err
			}
		}
		commR, err := commitmentOf(s.SealedCID, commcid.CIDToReplicaCommitmentV1, fmt.Sprintf("sector %d's sealed CID", s.SectorNumber))
		if err != nil {
			return false, err
		}
		var e fr.Element
		if e, err = fr.LittleEndian.Element(&commR); err != nil {
			return false, fmt.Errorf("%w: sector %d's comm_r is not a field element", ErrBadInput, s.SectorNumber)
		}
		byNumber[s.SectorNumber] = post.PublicSector{ID: uint64(s.SectorNumber), CommR: e}
	}
	numbers := make([]abi.SectorNumber, 0, len(byNumber))
	for n := range byNumber {
		numbers = append(numbers, n)
	}
	slices.Sort(numbers)
	public := make([]post.PublicSector, len(numbers))
	for i, n := range numbers {
		public[i] = byNumber[n]
	}
	if kind == post.Winning && len(public) != params.Sectors {
		return false, fmt.Errorf("%w: %d challenged sectors, a WinningPoSt proves %d", ErrBadInput, len(public), params.Sectors)
	}
	partitions := params.Partitions(len(public))
	if want := partitions * groth16.ProofSize; len(proofs[0].ProofBytes) != want {
		return false, fmt.Errorf("%w: the proof has %d bytes, %d partitions of %s take %d", ErrBadInput, len(proofs[0].ProofBytes),
			partitions, post.ProofName(t), want)
	}
	parts, err := groth16.UnmarshalProofs(proofs[0].ProofBytes)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	inputs := make([][]fr.Element, partitions)
	for k := range inputs {
		if inputs[k], err = params.PublicInputs(rnd, public, k); err != nil {
			return false, err
		}
	}
	vk, err := p.verifyingKey(postKind(t))
	if err != nil {
		return false, err
	}
	ok, err := groth16.BatchVerify(vk, parts, inputs)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return ok, nil
}

// PreloadPoSt is Preload for a PoSt proof type's parameters (they stay
// loaded until EvictPoSt or Close). A WinningPoSt key is small (about 0.2
// GB at 32 GiB): keep it loaded where blocks may be won.
func (p *Prover) PreloadPoSt(ctx context.Context, t abi.RegisteredPoStProof) error {
	return p.preload(ctx, "PreloadPoSt", postKind(t))
}

// EvictPoSt is Evict for a PoSt proof type's parameters.
func (p *Prover) EvictPoSt(t abi.RegisteredPoStProof) error {
	return p.evict("EvictPoSt", postKind(t), nil)
}

// PoStRequirements is Requirements for a PoSt proof type: the same model
// over its circuit's shape (one partition). Where its parameter file is
// absent, the 32 GiB keys' section counts are the table of circuit kinds'
// (from the circuits' synthesis), other sizes' a and b sections bounded by
// the circuit's variables.
func PoStRequirements(t abi.RegisteredPoStProof, cfg Config) (r Resources, err error) {
	err = guard(slog.Default(), "PoStRequirements", func() error {
		r, _, err = requirements(postKind(t), cfg)
		return err
	})
	return r, err
}

// FindPoStParams returns the paths of t's real Filecoin .params and .vk
// files in dir (v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-…),
// or ErrParamsMissing naming the file it looked for.
func FindPoStParams(dir string, t abi.RegisteredPoStProof) (params, vk string, err error) {
	err = guard(slog.Default(), "FindPoStParams", func() error {
		params, vk, err = findParams(dir, postKind(t))
		return err
	})
	return params, vk, err
}

// PoStTestParamsPath is where the TEST-ONLY setup of t is kept under
// cacheDir (made on demand for WindowPoSt up to 512 MiB sectors and for
// WinningPoSt at every size: its circuit is small).
func PoStTestParamsPath(cacheDir string, t abi.RegisteredPoStProof) string {
	return testParamsPath(cacheDir, postKind(t))
}

// PoStTestParams is TestParams for a PoSt proof type.
func PoStTestParams(ctx context.Context, cacheDir string, t abi.RegisteredPoStProof) (pk *groth16.ProvingKey, path string, created bool, err error) {
	err = guard(slog.Default(), "PoStTestParams", func() error {
		pk, path, created, err = testParams(ctx, cacheDir, postKind(t))
		return err
	})
	return pk, path, created, err
}

// PoStProofName is t's name as go-state-types spells it
// ("StackedDrgWindow32GiBV1_1"; the Rust API names that type
// StackedDrgWindow32GiBV1_2).
func PoStProofName(t abi.RegisteredPoStProof) string { return post.ProofName(t) }

// PoStProofCircuit returns the circuit that proves PoSt proof type t
// ("wpost-32g", "winning-32g"), and false for a type gpuc2 does not serve.
func PoStProofCircuit(t abi.RegisteredPoStProof) (CircuitInfo, bool) {
	return circuitOf(postKind(t))
}

// IsWinningPoSt reports whether t is a served WinningPoSt type (false for
// a WindowPoSt type and for a type gpuc2 does not serve).
func IsWinningPoSt(t abi.RegisteredPoStProof) bool {
	return postKind(t).Kind() == circuits.WinningPoSt
}

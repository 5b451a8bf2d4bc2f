package post

import (
	"context"
	"fmt"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// FaultsError lists the sectors whose vanilla proofs do not hold, in the
// request's order: filecoin-ffi's FaultySectors, with each sector's first
// problem. It wraps ErrVanillaProof.
type FaultsError struct {
	Faults []*SectorError
}

// Sectors are the faulty sectors' numbers.
func (e *FaultsError) Sectors() []uint64 {
	out := make([]uint64, len(e.Faults))
	for i, f := range e.Faults {
		out[i] = f.Sector
	}
	return out
}

func (e *FaultsError) Error() string {
	parts := make([]string, len(e.Faults))
	for i, f := range e.Faults {
		parts[i] = f.Error()
	}
	return fmt.Sprintf("post: faulty sectors %v: %s", e.Sectors(), strings.Join(parts, "; "))
}

// Unwrap returns ErrVanillaProof and each sector's error.
func (e *FaultsError) Unwrap() []error {
	out := []error{ErrVanillaProof}
	for _, f := range e.Faults {
		out = append(out, f)
	}
	return out
}

// DecodeAndCheck decodes one vanilla proof per sector and checks them as
// Check does. A proof that does not decode is that sector's fault.
func DecodeAndCheck(ctx context.Context, p Params, randomness [32]byte, raw [][]byte) ([]*SectorProof, error) {
	if err := checkCount(p, len(raw)); err != nil {
		return nil, err
	}
	proofs := make([]*SectorProof, len(raw))
	return proofs, check(ctx, p, randomness, proofs, raw, true)
}

// DecodeAndCheckShape is DecodeAndCheck less its hashes: comm_r against
// comm_c and comm_r_last, and each path from its leaf to comm_r_last, which
// are nearly all of its work. A Circuit with Verify computes the same
// hashes for its witness and checks them there: a prover that synthesizes
// takes this and saves the check's hashing (about half the host work of a
// 32 GiB WindowPoSt partition).
func DecodeAndCheckShape(ctx context.Context, p Params, randomness [32]byte, raw [][]byte) ([]*SectorProof, error) {
	if err := checkCount(p, len(raw)); err != nil {
		return nil, err
	}
	proofs := make([]*SectorProof, len(raw))
	return proofs, check(ctx, p, randomness, proofs, raw, false)
}

// Check checks a proof's vanilla sector proofs as filecoin-proofs does
// before it synthesizes (single_partition_vanilla_proofs' verify), and
// more: the count (1 … Sectors; WinningPoSt exactly 1), ascending distinct
// sector numbers (the order the chain verifies a WindowPoSt in), then per
// sector one opening of Challenges inclusion proofs in tree R's shape,
// each opening the leaf the randomness challenges, every path reaching
// comm_r_last from its leaf, and comm_r = Poseidon(comm_c, comm_r_last).
// Count and order are ErrRequest; a sector's faults are collected for
// every sector into a *FaultsError.
func Check(ctx context.Context, p Params, randomness [32]byte, proofs []*SectorProof) error {
	if err := checkCount(p, len(proofs)); err != nil {
		return err
	}
	return check(ctx, p, randomness, proofs, nil, true)
}

func checkCount(p Params, n int) error {
	switch {
	case p.Kind == Winning && n != p.Sectors:
		return fmt.Errorf("%w: %d vanilla proofs, a WinningPoSt proves exactly %d sector", ErrRequest, n, p.Sectors)
	case n == 0:
		return fmt.Errorf("%w: no vanilla proof", ErrRequest)
	case n > p.Sectors:
		return fmt.Errorf("%w: %d vanilla proofs, more than a %s partition's %d sectors", ErrRequest, n, ProofName(p.Type), p.Sectors)
	}
	return nil
}

// checkChunk is how many sectors a core takes at a time: small enough
// that cores finishing early (or slowed by other work) share the tail, a
// sector being some 100 Poseidon hashes.
const checkChunk = 16

// check checks every sector, decoding proofs[i] from raw[i] first where raw
// is not nil (a proof that does not decode is that sector's fault), then
// the order; the hashes only if hashes is set.
func check(ctx context.Context, p Params, randomness [32]byte, proofs []*SectorProof, raw [][]byte, hashes bool) error {
	faults := make([]*SectorError, len(proofs))
	err := par.Chunks(ctx, len(proofs), checkChunk, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if raw != nil {
				sp, err := DecodeSectorProof(raw[i], i)
				if err != nil {
					faults[i] = err.(*SectorError)
					continue
				}
				proofs[i] = sp
			}
			if proofs[i] != nil {
				faults[i] = checkSector(&p, randomness, i, proofs[i], hashes)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var fe FaultsError
	for _, f := range faults {
		if f != nil {
			fe.Faults = append(fe.Faults, f)
		}
	}
	if len(fe.Faults) > 0 {
		return &fe
	}
	for i := 1; i < len(proofs); i++ {
		if a, b := proofs[i-1].SectorID, proofs[i].SectorID; b <= a {
			return fmt.Errorf("%w: vanilla proof %d is of sector %d after sector %d: the sectors must be distinct and ascending, "+
				"the order the chain verifies them in", ErrRequest, i, b, a)
		}
	}
	return nil
}

// The faults the hashes find, worded once for check and Circuit.Verify.
const (
	commRField   = "comm_r"
	commRFault   = "comm_r ≠ H(comm_c, comm_r_last): the proof is of another replica, or comm_c or comm_r_last is wrong"
	pathFault    = "the path does not lead from its leaf to comm_r_last"
	commRChecked = -1 // the Challenge of a comm_r fault
)

// inclusionField names inclusion proof n of a sector's opening.
func inclusionField(n int, sub string) string {
	return fmt.Sprintf("vanilla_proof.sectors[0].inclusion_proofs[%d]%s", n, sub)
}

// checkSector returns sector i's first fault, or nil; the hashes only if
// hashes is set.
func checkSector(p *Params, randomness [32]byte, i int, sp *SectorProof, hashes bool) *SectorError {
	bad := func(challenge int, field, format string, args ...any) *SectorError {
		return &SectorError{Sector: sp.SectorID, Index: i, Challenge: challenge, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if len(sp.Openings) != 1 {
		return bad(-1, "vanilla_proof.sectors", "%d openings, want 1 (as GenerateSingleVanillaProof makes)", len(sp.Openings))
	}
	o := &sp.Openings[0]
	if len(o.Inclusions) != p.Challenges {
		return bad(-1, "vanilla_proof.sectors[0].inclusion_proofs", "%d inclusion proofs, want %d for %s",
			len(o.Inclusions), p.Challenges, ProofName(p.Type))
	}
	if hashes {
		h, err := poseidon.Hash([]fr.Element{o.CommC, o.CommRLast})
		if err != nil {
			return bad(commRChecked, "", "hashing comm_c and comm_r_last: %v", err)
		}
		if h != sp.CommR {
			return bad(commRChecked, commRField, "%s", commRFault)
		}
	}
	challenges := p.SectorChallenges(randomness, sp.SectorID, i)
	field := inclusionField
	wrongLeaves := 0
	var first *SectorError
	for n := range o.Inclusions {
		m := &o.Inclusions[n]
		if f, msg := m.CheckShape(p.Shape, p.leaves()); msg != "" {
			return bad(n, field(n, f), "%s", msg)
		}
		if got := m.PathIndex(p.Shape); got != challenges[n] {
			wrongLeaves++
			if first == nil {
				first = bad(n, field(n, ""), "opens leaf %d, but this randomness challenges leaf %d", got, challenges[n])
			}
			continue
		}
		if m.Root != o.CommRLast {
			return bad(n, field(n, ".root"), "the root is not comm_r_last")
		}
		path, err := m.Path()
		if err != nil {
			return bad(n, field(n, ""), "%v", err)
		}
		if hashes && !path.Verify(merkle.PoseidonHash, m.Leaf, o.CommRLast) {
			return bad(n, field(n, ""), "%s", pathFault)
		}
	}
	if wrongLeaves == len(o.Inclusions) {
		first.Challenge = -1
		first.Field = "vanilla_proof.sectors[0].inclusion_proofs"
		first.Msg = fmt.Sprintf("no inclusion proof opens a challenged leaf (the first opens %d, the randomness challenges %d): "+
			"the vanilla proof was made for another randomness", o.Inclusions[0].PathIndex(p.Shape), challenges[0])
	}
	return first
}

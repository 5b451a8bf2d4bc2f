package update

import (
	"context"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"golang.org/x/sync/errgroup"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// Validate checks that the partition proofs have exactly the shape p needs:
// partition, apex-leaf and challenge counts, the Merkle proof variant,
// levels, sibling counts and indices of every path (tree R in p.TreeR's
// shape, tree D binary of depth ChallengeBits), and that every tree-D value
// is a canonical field element (the circuit reads them as Fr). Errors are
// *ProofError.
func Validate(p Params, proofs []*PartitionProof) error {
	if len(proofs) != p.Partitions {
		return badProof(-1, -1, "", "got %d partition proofs, want %d for %d-byte sectors", len(proofs), p.Partitions, p.SectorSize)
	}
	if _, err := p.TreeR.Arities(p.Nodes); err != nil {
		return badProof(-1, -1, "", "%v", err)
	}
	for k, pp := range proofs {
		if err := validatePartition(&p, k, pp); err != nil {
			return err
		}
	}
	return nil
}

// validatePartition is Validate for partition k's proof alone.
func validatePartition(p *Params, k int, pp *PartitionProof) error {
	if pp == nil {
		return badProof(k, -1, "", "missing")
	}
	if len(pp.ApexLeaves) != p.ApexLeaves {
		return badProof(k, -1, "apex_leafs", "got %d, want %d", len(pp.ApexLeaves), p.ApexLeaves)
	}
	for j := range pp.ApexLeaves {
		if !canonical(&pp.ApexLeaves[j]) {
			return badProof(k, -1, fmt.Sprintf("apex_leafs[%d]", j), "value is not a canonical field element (>= r)")
		}
	}
	if len(pp.Challenges) != p.Challenges {
		return badProof(k, -1, "challenge_proofs", "got %d, want %d", len(pp.Challenges), p.Challenges)
	}
	for i := range pp.Challenges {
		c := &pp.Challenges[i]
		if f, m := c.ROld.CheckShape(p.TreeR, p.Nodes); m != "" {
			return badProof(k, i, "proof_r_old"+f, "%s", m)
		}
		if f, m := c.DNew.CheckShape(merkle.Shape{Base: 2}, 1<<p.ChallengeBits()); m != "" {
			return badProof(k, i, "proof_d_new"+f, "%s", m)
		}
		if f, m := c.RNew.CheckShape(p.TreeR, p.Nodes); m != "" {
			return badProof(k, i, "proof_r_new"+f, "%s", m)
		}
	}
	return nil
}

func canonical(b *[32]byte) bool {
	_, err := fr.LittleEndian.Element(b)
	return err == nil
}

// Check checks the partition proofs completely against the sector's
// commitments and h, as the vanilla verifier does and more precisely:
// Validate; no commitment is zero (get_sector_update_inputs refuses them);
// per partition, Poseidon(comm_c, root) is comm_r_old and comm_r_new for
// the roots of the first challenge's tree-R proofs; per challenge, the
// three proofs open the challenge derived from comm_r_new, every path leads
// to its root (tree R old and new: the partition's roots; tree D:
// comm_d_new), the new replica node is old + data·rho, the tree-D path
// passes through this partition's apex leaf and apex root (computed from
// the apex leaves), and its top (the partition path) is the same for every
// challenge. Partitions are checked in parallel; the error returned is the
// first in partition and challenge order, a *ProofError.
func Check(ctx context.Context, p Params, proofs []*PartitionProof, h int, commROld, commDNew, commRNew fr.Element) error {
	if err := Validate(p, proofs); err != nil {
		return err
	}
	if _, err := p.HSelect(h); err != nil {
		return &ProofError{Partition: -1, Challenge: -1, Field: "h", Msg: "not allowed", Err: err}
	}
	for _, c := range []struct {
		name string
		v    *fr.Element
	}{{"comm_r_old", &commROld}, {"comm_d_new", &commDNew}, {"comm_r_new", &commRNew}} {
		if c.v.IsZero() {
			return badProof(-1, -1, c.name, "all-zero commitment")
		}
	}
	errs := make([]error, len(proofs))
	eg, gctx := errgroup.WithContext(ctx)
	eg.SetLimit(runtime.GOMAXPROCS(0))
	for k := range proofs {
		eg.Go(par.Guard(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			errs[k] = checkPartition(&p, k, proofs[k], h, &commROld, &commDNew, &commRNew)
			return nil
		}))
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func checkPartition(p *Params, k int, pp *PartitionProof, h int, commROld, commDNew, commRNew *fr.Element) error {
	rootROld, rootRNew := pp.Challenges[0].ROld.Root, pp.Challenges[0].RNew.Root
	c2, err := poseidon.ConstantsFor(2)
	if err != nil {
		return err
	}
	if v, _ := c2.Hash([]fr.Element{pp.CommC, rootROld}); v != *commROld {
		return badProof(k, -1, "comm_c", "Poseidon(comm_c, root of proof_r_old) is not comm_r_old")
	}
	if v, _ := c2.Hash([]fr.Element{pp.CommC, rootRNew}); v != *commRNew {
		return badProof(k, -1, "comm_c", "Poseidon(comm_c, root of proof_r_new) is not comm_r_new")
	}
	chals, err := Challenges(*p, *commRNew, k)
	if err != nil {
		return err
	}
	apexLeaves := make([]fr.Element, len(pp.ApexLeaves))
	for j := range apexLeaves {
		apexLeaves[j], _ = fr.LittleEndian.Element(&pp.ApexLeaves[j]) // canonical: Validate
	}
	apex, err := merkle.NewSHA256(apexLeaves)
	if err != nil {
		return badProof(k, -1, "apex_leafs", "%v", err)
	}
	env := challengeEnv{
		p: p, phi: Phi(*commDNew, *commROld), shift: uint(p.ChallengeBits() - h),
		rootROld: rootROld, rootRNew: rootRNew, commDNew: leBytes(commDNew),
		apexLeaves: apexLeaves, apexRoot: apex.Root(),
		top: pp.Challenges[0].DNew.Base[p.ChallengeBits()-p.PartitionBits():],
	}
	for i, c := range chals {
		if f, m := env.check(&pp.Challenges[i], c); m != "" {
			return badProof(k, i, f, "%s", m)
		}
	}
	return nil
}

// challengeEnv is what the challenges of one partition share; read-only.
type challengeEnv struct {
	p                  *Params
	phi                fr.Element
	shift              uint // c >> shift is c's h high bits
	rootROld, rootRNew fr.Element
	commDNew           [32]byte
	apexLeaves         []fr.Element
	apexRoot           fr.Element
	top                []merkle.ProofElement[[32]byte] // challenge 0's partition path
}

func (e *challengeEnv) check(cp *ChallengeProof, c uint32) (field, msg string) {
	p := e.p
	for _, r := range []struct {
		name string
		m    *merkle.Proof[fr.Element]
		root fr.Element
	}{{"proof_r_old", &cp.ROld, e.rootROld}, {"proof_r_new", &cp.RNew, e.rootRNew}} {
		if got := r.m.PathIndex(p.TreeR); got != uint64(c) {
			return r.name, fmt.Sprintf("path proves node %d, want challenge %d", got, c)
		}
		if r.m.Root != r.root {
			return r.name, "root differs from the first challenge's"
		}
		if root, err := rPath(r.m).Compute(merkle.PoseidonHash, r.m.Leaf); err != nil || root != r.m.Root {
			return r.name, "path does not lead to its root"
		}
	}

	d := &cp.DNew
	if got := d.PathIndex(merkle.Shape{Base: 2}); got != uint64(c) {
		return "proof_d_new", fmt.Sprintf("path proves node %d, want challenge %d", got, c)
	}
	if d.Root != e.commDNew {
		return "proof_d_new.data.Single.root", "differs from comm_d_new"
	}
	path, leaf := dPath(d)
	toApex := p.ChallengeBits() - p.PartitionBits() - p.ApexBits()
	node, err := path[:toApex].Compute(merkle.SHA256Hash, leaf)
	if err != nil {
		return "proof_d_new", err.Error()
	}
	if want := e.apexLeaves[int(c>>uint(toApex))&(p.ApexLeaves-1)]; node != want {
		return "proof_d_new", "path does not pass through this partition's apex leaf"
	}
	if node, err = path[toApex:toApex+p.ApexBits()].Compute(merkle.SHA256Hash, node); err != nil || node != e.apexRoot {
		return "proof_d_new", "path does not pass through the root of the apex leaves"
	}
	if node, err = path[toApex+p.ApexBits():].Compute(merkle.SHA256Hash, node); err != nil || leBytes(&node) != d.Root {
		return "proof_d_new", "path does not lead to comm_d_new"
	}
	for j, t := range d.Base[toApex+p.ApexBits():] {
		if t.Hashes[0] != e.top[j].Hashes[0] {
			return fmt.Sprintf("proof_d_new.data.Single.path[%d]", toApex+p.ApexBits()+j), "partition path differs from the first challenge's"
		}
	}

	rho := Rho(e.phi, c>>e.shift)
	var want fr.Element
	want.Mul(&leaf, &rho)
	want.Add(&want, &cp.ROld.Leaf)
	if cp.RNew.Leaf != want {
		return "proof_r_new.leaf", "is not proof_r_old's leaf + proof_d_new's leaf · rho (wrong encoding, comm_d_new, comm_r_old or h?)"
	}
	return "", ""
}

// rPath is a tree-R proof's path, all levels leaf to root (shape checked).
func rPath(m *merkle.Proof[fr.Element]) merkle.Path {
	p, _ := m.Path() // fr.Element values: no error
	return p
}

// dPath is a tree-D proof's path and leaf as field elements (canonical:
// Validate).
func dPath(m *merkle.Proof[[32]byte]) (merkle.Path, fr.Element) {
	p, _ := m.Path()
	leaf, _ := merkle.Element(m.Leaf)
	return p, leaf
}

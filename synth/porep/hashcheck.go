package porep

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"golang.org/x/sync/errgroup"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/gpuc2/gpuc2/synth/hash/sha256"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// labelInputBytes is the SHA-256 input of one SDR label: replica_id,
// layer, node and zero padding (64 bytes), then 37 parent labels.
const labelInputBytes = 64 + TotalParents*32

// Label computes the SDR label of node at layer (1-based) from its 37
// expanded parent labels, as labeling_proof.rs create_label does: SHA-256
// over replica_id ‖ layer (u32 BE) ‖ node (u64 BE) ‖ 20 zero bytes ‖ the
// parents (32-byte little-endian each), with the top two bits cleared.
func Label(replicaID [32]byte, layer uint32, node uint64, parents []fr.Element) (fr.Element, error) {
	if len(parents) != TotalParents {
		return fr.Element{}, fmt.Errorf("porep: label needs %d parents, got %d", TotalParents, len(parents))
	}
	var lb labeler
	return lb.label(&replicaID, layer, node, parents), nil
}

// labeler holds the input buffer of label, so that checking a challenge
// does not allocate per label.
type labeler struct{ buf [labelInputBytes]byte }

// label is Label for exactly TotalParents parents, or for none: node 0,
// which has no parents, hashes only the first 64 bytes.
func (lb *labeler) label(replicaID *[32]byte, layer uint32, node uint64, parents []fr.Element) fr.Element {
	b := &lb.buf
	copy(b[:32], replicaID[:])
	binary.BigEndian.PutUint32(b[32:], layer)
	binary.BigEndian.PutUint64(b[36:], node)
	clear(b[44:64])
	for j := range parents {
		fr.LittleEndian.PutElement((*[32]byte)(b[64+32*j:]), parents[j])
	}
	d := sha256.Sum254(b[:64+32*len(parents)])
	e, _ := fr.LittleEndian.Element(&d) // cannot fail: d < 2^254 < r
	return e
}

// poseidonSet maps an arity to its Poseidon constants (trees R and C use
// 2, 8; columns 2 or 11; comm_r 2).
type poseidonSet [poseidon.MaxWidth]*poseidon.Constants

func newPoseidonSet() (*poseidonSet, error) {
	var s poseidonSet
	for _, a := range []int{2, 4, 8, 11} {
		c, err := poseidon.ConstantsFor(a)
		if err != nil {
			return nil, err
		}
		s[a] = c
	}
	return &s, nil
}

func (s *poseidonSet) hash(in []fr.Element) (fr.Element, error) {
	if len(in) >= len(s) || s[len(in)] == nil {
		return fr.Element{}, fmt.Errorf("%w: %d", poseidon.ErrArity, len(in))
	}
	return s[len(in)].Hash(in)
}

// rootRC returns the root that m's leaf and path lead to in tree R or C.
func (s *poseidonSet) rootRC(m *merkle.Proof[fr.Element], shape merkle.Shape) (fr.Element, error) {
	var buf [poseidon.MaxWidth]fr.Element
	cur := m.Leaf
	for l, lv := range [3][]merkle.ProofElement[fr.Element]{m.Base, m.Sub, m.Top} {
		arity := [3]int{shape.Base, shape.Sub, shape.Top}[l]
		for _, e := range lv {
			if len(e.Hashes) != arity-1 || e.Index >= uint64(arity) {
				return fr.Element{}, fmt.Errorf("path element does not fit arity %d", arity)
			}
			// the node goes back among its siblings at its index
			i := int(e.Index)
			copy(buf[:i], e.Hashes[:i])
			buf[i] = cur
			copy(buf[i+1:arity], e.Hashes[i:])
			var err error
			if cur, err = s.hash(buf[:arity]); err != nil {
				return fr.Element{}, err
			}
		}
	}
	return cur, nil
}

// rootD returns the root that m's leaf and path lead to in tree D.
func rootD(m *merkle.Proof[[32]byte]) ([32]byte, error) {
	cur := m.Leaf
	for _, e := range m.Base {
		if len(e.Hashes) != 1 || e.Index > 1 {
			return cur, fmt.Errorf("path element does not fit arity 2")
		}
		if e.Index == 0 {
			cur = sha256.HashNodes(cur, e.Hashes[0])
		} else {
			cur = sha256.HashNodes(e.Hashes[0], cur)
		}
	}
	return cur, nil
}

// CheckHashes recomputes every hash of c's vanilla proofs with the native
// hashes, as rust-fil-proofs' vanilla verification does, for every
// partition and challenge: the tree-D path of the data leaf (binary
// SHA-254) to comm_d; the tree-R path (Poseidon, 8-0-0, 8-8-0 or 8-8-2) of
// the replica node to comm_r_last; the hash of each of the 15 columns
// (Poseidon over the layer labels) and its tree-C path to comm_c; the label
// of every layer from the labeling proof's parents, which must be the
// parent columns' rows in the expanded order, against the challenged
// column's row; the encoding replica = data + last label (in Fr); and
// comm_r = Poseidon(comm_c, comm_r_last). comm_c and comm_r_last are the
// roots of the first challenge proof.
//
// It does not check that the proofs answer the challenges derived from
// replica_id and seed, nor replica_id itself: CheckAll does both. It runs
// Validate first, so any C1 is safe to pass. Challenges are checked in
// parallel on GOMAXPROCS goroutines; the error returned is the one of the
// first bad challenge in partition and challenge order, a *C1Error.
func (c *C1) CheckHashes(ctx context.Context) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return c.checkProofs(ctx, nil, nil)
}

// CheckAll checks c completely before synthesis: Validate, Check
// (replica_id from miner, sector, ticket and comm_d; the challenges derived
// from replica_id and seed, graph parents, path indices) and CheckHashes,
// in one parallel pass over the challenges. Each challenge proof is checked
// for its hashes first, so that a corrupted value is named where it sits
// rather than where it stops matching. Errors are *C1Error; the one
// returned is the first in partition and challenge order.
func (c *C1) CheckAll(ctx context.Context, miner abi.ActorID, sector abi.SectorNumber) error {
	return c.checkAll(ctx, func() error { return c.CheckReplicaID(miner, sector) })
}

// CheckAllButReplicaID is CheckAll for a caller that knows no miner (as
// filecoin-ffi's SealCommitPhase2CircuitProofs): replica_id is taken as c
// states it, and everything derived from it is checked.
func (c *C1) CheckAllButReplicaID(ctx context.Context) error {
	return c.checkAll(ctx, func() error { return nil })
}

func (c *C1) checkAll(ctx context.Context, checkReplicaID func() error) error {
	if err := c.Validate(); err != nil {
		return err
	}
	// replica_id derives from comm_d: name comm_d when it is the odd one out
	if c.CommD != c.VanillaProofs[0][0].CommDProof.Root {
		return badC1("comm_d", "differs from the tree-D root of the first challenge proof")
	}
	if err := checkReplicaID(); err != nil {
		return err
	}
	sp, _ := ParamsFor(c.RegisteredProof) // known: Validate passed
	replicaID, commR := leBytes(&c.ReplicaID), leBytes(&c.CommR)
	chals := make([][]uint64, len(c.VanillaProofs))
	for k := range chals {
		var err error
		if chals[k], err = Challenges(c.RegisteredProof, replicaID, commR, c.Seed, k); err != nil {
			return &C1Error{Partition: k, Challenge: -1, Msg: "cannot derive challenges", Err: err}
		}
	}
	return c.checkProofs(ctx, newGraph(sp.Nodes, sp.PoRepID, sp.APIVersion), chals)
}

// checkProofs checks every challenge proof in parallel, and then comm_r. If
// g is not nil, each proof is also checked against its derived challenge
// chals[k][i] (CheckChallenges). c must have passed Validate.
func (c *C1) checkProofs(ctx context.Context, g *Graph, chals [][]uint64) error {
	sp, err := ParamsFor(c.RegisteredProof)
	if err != nil {
		return &C1Error{Partition: -1, Challenge: -1, Field: "registered_proof", Msg: "unknown proof type", Err: err}
	}
	ps, err := newPoseidonSet()
	if err != nil {
		return err
	}
	first := &c.VanillaProofs[0][0]
	env := checkEnv{
		sp:        &sp,
		ps:        ps,
		g:         g,
		replicaID: leBytes(&c.ReplicaID),
		commD:     &c.CommD,
		commC:     &first.ReplicaColumnProofs.CX.InclusionProof.Root,
		commRLast: &first.CommRLastProof.Root,
	}

	perPart := sp.ChallengesPerPartition
	total := len(c.VanillaProofs) * perPart
	errs := make([]*C1Error, total)
	// firstBad is the lowest failing index so far: later challenges are
	// skipped, earlier ones still run, so the error reported does not
	// depend on scheduling.
	var firstBad atomic.Int64
	firstBad.Store(int64(total))
	eg, gctx := errgroup.WithContext(ctx)
	eg.SetLimit(runtime.GOMAXPROCS(0))
	for idx := 0; idx < total && int64(idx) < firstBad.Load() && gctx.Err() == nil; idx++ {
		eg.Go(par.Guard(func() error {
			if int64(idx) > firstBad.Load() {
				return nil
			}
			if err := gctx.Err(); err != nil {
				return err
			}
			k, i := idx/perPart, idx%perPart
			var ch uint64
			if chals != nil {
				ch = chals[k][i]
			}
			var lb labeler
			field, msg := env.check(&lb, &c.VanillaProofs[k][i], ch)
			if msg == "" {
				return nil
			}
			errs[idx] = &C1Error{Partition: k, Challenge: i, Field: field, Msg: msg}
			for {
				cur := firstBad.Load()
				if int64(idx) >= cur || firstBad.CompareAndSwap(cur, int64(idx)) {
					return nil
				}
			}
		}))
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if bad := firstBad.Load(); bad < int64(total) {
		return errs[bad]
	}

	h, err := ps.hash([]fr.Element{*env.commC, *env.commRLast})
	if err != nil {
		return err
	}
	if h != c.CommR {
		return badC1("comm_r", "is not Poseidon(comm_c, comm_r_last) of the proofs' roots")
	}
	return nil
}

// checkEnv is what every challenge check shares; it is read-only.
type checkEnv struct {
	sp               *SealParams
	ps               *poseidonSet
	g                *Graph // nil: no check against the derived challenges
	replicaID        [32]byte
	commD            *[32]byte
	commC, commRLast *fr.Element
}

// check checks one challenge proof p (and, when e.g is set, that it
// answers the derived challenge ch) and returns the field and message of
// its first problem, or "", "".
// Merkle paths and column hashes come first, then the structural checks,
// then labels and the encoding, which are only meaningful once the values
// they read are known to be the committed ones.
func (e *checkEnv) check(lb *labeler, p *ChallengeProof, ch uint64) (field, msg string) {
	d := &p.CommDProof
	if d.Root != *e.commD {
		return "comm_d_proofs.data.Single.root", "differs from comm_d"
	}
	if root, err := rootD(d); err != nil {
		return "comm_d_proofs", err.Error()
	} else if root != d.Root {
		return "comm_d_proofs", "path does not lead to comm_d (wrong data leaf or path hash)"
	}

	rc := &p.ReplicaColumnProofs
	if f, m := e.checkColumn(&rc.CX); m != "" {
		return "replica_column_proofs.c_x" + f, m
	}
	for j := range rc.DRGParents {
		if f, m := e.checkColumn(&rc.DRGParents[j]); m != "" {
			return fmt.Sprintf("replica_column_proofs.drg_parents[%d]%s", j, f), m
		}
	}
	for j := range rc.ExpParents {
		if f, m := e.checkColumn(&rc.ExpParents[j]); m != "" {
			return fmt.Sprintf("replica_column_proofs.exp_parents[%d]%s", j, f), m
		}
	}

	r := &p.CommRLastProof
	if f, m := e.checkPath(r, e.commRLast, "comm_r_last"); m != "" {
		return "comm_r_last_proof" + f, m
	}

	if e.g != nil {
		if f, m := checkChallenge(e.sp, e.g, p, ch, e.commD, e.commC, e.commRLast); m != "" {
			return f, m
		}
	}

	for l := range p.LabelingProofs {
		lp := &p.LabelingProofs[l]
		if j, want := checkExpansion(rc, l, lp.Parents); j >= 0 {
			return fmt.Sprintf("labeling_proofs[%d].parents[%d]", l, j), "differs from the parent columns (" + want + ")"
		}
		if lb.label(&e.replicaID, lp.LayerIndex, lp.Node, lp.Parents) != rc.CX.Column.Rows[l] {
			return fmt.Sprintf("labeling_proofs[%d]", l), fmt.Sprintf(
				"label of node %d at layer %d differs from replica_column_proofs.c_x.column.rows[%d] (wrong replica_id or parent labels?)",
				lp.Node, lp.LayerIndex, l)
		}
	}

	ep := &p.EncodingProof
	key := lb.label(&e.replicaID, ep.LayerIndex, ep.Node, ep.Parents)
	data, err := fr.LittleEndian.Element(&d.Leaf)
	if err != nil {
		return "comm_d_proofs.data.Single.leaf", "value is not a canonical field element (>= r)"
	}
	var replica fr.Element
	replica.Add(&data, &key)
	if replica != r.Leaf {
		return "encoding_proof", "comm_r_last_proof leaf is not comm_d_proofs leaf + the label of the encoding proof"
	}
	return "", ""
}

// checkColumn checks that a column's hash is its inclusion proof's leaf
// and that the proof leads to comm_c.
func (e *checkEnv) checkColumn(cp *ColumnProof) (string, string) {
	h, err := e.ps.hash(cp.Column.Rows)
	if err != nil {
		return ".column.rows", err.Error()
	}
	if h != cp.InclusionProof.Leaf {
		return "", "the hash of column.rows is not inclusion_proof's leaf"
	}
	if f, m := e.checkPath(&cp.InclusionProof, e.commC, "comm_c"); m != "" {
		return ".inclusion_proof" + f, m
	}
	return "", ""
}

// checkPath checks a tree R or C proof: its root is want and its leaf and
// path lead there.
func (e *checkEnv) checkPath(m *merkle.Proof[fr.Element], want *fr.Element, name string) (string, string) {
	if m.Root != *want {
		return ".data." + m.Kind.String() + ".root", "differs from " + name
	}
	root, err := e.ps.rootRC(m, e.sp.Shape)
	if err != nil {
		return "", err.Error()
	}
	if root != m.Root {
		return "", "path does not lead to " + name
	}
	return "", ""
}

package stacked

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/merkle"
)

// Partition is the witness of one partition circuit, independent of any C1
// encoding. Field elements are values in Fr (a 32-byte commitment or node is
// its little-endian integer).
type Partition struct {
	ReplicaID fr.Element
	CommD     fr.Element // root of tree D (public)
	CommR     fr.Element // Poseidon2(CommC, CommRLast) (public)
	CommC     fr.Element // root of tree C
	CommRLast fr.Element // root of tree R
	// Challenges in the partition's order (the C1 order).
	Challenges []Challenge
}

// Challenge is one challenged node: what rust-fil-proofs' circuit Proof
// (stacked/circuit/params.rs) takes from a vanilla proof. Labels and the
// encoded node are not part of it: the circuit recomputes them from the
// parent columns.
type Challenge struct {
	Node     uint64
	DataLeaf fr.Element  // the node's value in tree D (unsealed data)
	TreeD    merkle.Path // data leaf → CommD, TreeDDepth binary levels
	TreeR    merkle.Path // encoded node → CommRLast
	// ColumnC is the challenged node's own column. The circuit uses only its
	// Path (column hash of the recomputed labels → CommC); Rows, if set,
	// are the node's labels, for native checks and C1 writers.
	ColumnC Column
	DRG     [DRGParents]Column // base (DRG) parents, in graph order
	Exp     [ExpParents]Column // expander parents, in graph order
}

// Column is a node's column: its label in every layer and the tree-C path of
// the column hash. The node index is the path's leaf index.
type Column struct {
	Rows []fr.Element // Rows[l-1] is the layer-l label
	Path merkle.Path
}

// Blank returns the all-zero witness of the parameters' shape (every index
// 0). It synthesizes the same variables and rows as a real witness, as
// rust-fil-proofs' blank_circuit does; it does not satisfy the circuit.
func (p Params) Blank() (*Partition, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	ar, _ := p.TreeArities()
	d := make([]int, p.TreeDDepth)
	for i := range d {
		d[i] = 2
	}
	col := func() Column { return Column{Rows: make([]fr.Element, p.Layers), Path: blankPath(ar)} }
	w := &Partition{Challenges: make([]Challenge, p.Challenges)}
	for i := range w.Challenges {
		c := &w.Challenges[i]
		c.TreeD = blankPath(d)
		c.TreeR = blankPath(ar)
		c.ColumnC = col()
		for k := range c.DRG {
			c.DRG[k] = col()
		}
		for k := range c.Exp {
			c.Exp[k] = col()
		}
	}
	return w, nil
}

func blankPath(arities []int) merkle.Path {
	p := make(merkle.Path, len(arities))
	for i, a := range arities {
		p[i] = merkle.PathElement{Siblings: make([]fr.Element, a-1)}
	}
	return p
}

// Validate checks that the witness has the shape p requires: the number of
// challenges, the path lengths and arities, the column heights, and that
// every path of a challenge opens the challenged node. The values themselves
// are checked by the circuit.
func (w *Partition) Validate(p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if len(w.Challenges) != p.Challenges {
		return fmt.Errorf("%w: %d challenges, want %d", ErrWitness, len(w.Challenges), p.Challenges)
	}
	ar, _ := p.TreeArities()
	for i := range w.Challenges {
		if err := w.Challenges[i].validate(p, ar); err != nil {
			return fmt.Errorf("%w: challenge %d: %w", ErrWitness, i, err)
		}
	}
	return nil
}

func (c *Challenge) validate(p Params, ar []int) error {
	if c.Node >= p.Nodes {
		return fmt.Errorf("node %d out of range (%d nodes)", c.Node, p.Nodes)
	}
	if err := checkPath(c.TreeD, nil, p.TreeDDepth); err != nil {
		return fmt.Errorf("tree-D path: %w", err)
	}
	if err := checkPath(c.TreeR, ar, 0); err != nil {
		return fmt.Errorf("tree-R path: %w", err)
	}
	if err := checkPath(c.ColumnC.Path, ar, 0); err != nil {
		return fmt.Errorf("tree-C path: %w", err)
	}
	// The verifier supplies the node as every one of these inputs, so a
	// mismatch would give a proof that never verifies.
	for _, o := range []struct {
		name string
		idx  uint64
	}{{"tree-D", c.TreeD.LeafIndex()}, {"tree-R", c.TreeR.LeafIndex()}, {"tree-C", c.ColumnC.Path.LeafIndex()}} {
		if o.idx != c.Node {
			return fmt.Errorf("%s path opens node %d, not the challenged node %d", o.name, o.idx, c.Node)
		}
	}
	for k := range c.DRG {
		if err := c.DRG[k].validate(p, ar); err != nil {
			return fmt.Errorf("DRG parent %d: %w", k, err)
		}
	}
	for k := range c.Exp {
		if err := c.Exp[k].validate(p, ar); err != nil {
			return fmt.Errorf("expander parent %d: %w", k, err)
		}
	}
	return nil
}

func (c *Column) validate(p Params, ar []int) error {
	if len(c.Rows) != p.Layers {
		return fmt.Errorf("column has %d rows, want %d", len(c.Rows), p.Layers)
	}
	if err := checkPath(c.Path, ar, 0); err != nil {
		return fmt.Errorf("tree-C path: %w", err)
	}
	return nil
}

// checkPath checks a path against the level arities (binary of the given
// depth when arities is nil).
func checkPath(path merkle.Path, arities []int, depth int) error {
	want := len(arities)
	if arities == nil {
		want = depth
	}
	if len(path) != want {
		return fmt.Errorf("%d levels, want %d", len(path), want)
	}
	for l, e := range path {
		a := 2
		if arities != nil {
			a = arities[l]
		}
		if len(e.Siblings) != a-1 {
			return fmt.Errorf("level %d has %d siblings, want %d", l, len(e.Siblings), a-1)
		}
		if e.Index < 0 || e.Index >= a {
			return fmt.Errorf("level %d has index %d, arity %d", l, e.Index, a)
		}
	}
	return nil
}

// PublicInputs returns the partition's public inputs as the circuit
// allocates them (ONE not included): replica_id, comm_d, comm_r, then per
// challenge the node, the 6 DRG and 8 expander parent indices (from their
// paths), and the node three more times (challenge, tree R, tree C). For a
// consistent witness this is StackedCompound::generate_public_inputs.
func (w *Partition) PublicInputs() []fr.Element {
	out := make([]fr.Element, 0, 3+18*len(w.Challenges))
	out = append(out, w.ReplicaID, w.CommD, w.CommR)
	u := func(x uint64) fr.Element { var e fr.Element; e.SetUint64(x); return e }
	for i := range w.Challenges {
		c := &w.Challenges[i]
		out = append(out, u(c.TreeD.LeafIndex()))
		for k := range c.DRG {
			out = append(out, u(c.DRG[k].Path.LeafIndex()))
		}
		for k := range c.Exp {
			out = append(out, u(c.Exp[k].Path.LeafIndex()))
		}
		out = append(out, u(c.Node), u(c.TreeR.LeafIndex()), u(c.ColumnC.Path.LeafIndex()))
	}
	return out
}

// witness returns the validated witness (or the blank one) and the tree
// arities.
func (c *Circuit) witness() (*Partition, []int, error) {
	w := c.Witness
	if w == nil {
		var err error
		if w, err = c.Params.Blank(); err != nil {
			return nil, nil, err
		}
	} else if err := w.Validate(c.Params); err != nil {
		return nil, nil, err
	}
	ar, err := c.TreeArities()
	return w, ar, err
}

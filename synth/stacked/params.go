package stacked

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// Graph degrees of Filecoin's stacked DRG (storage-proofs-core BASE_DEGREE,
// storage-proofs-porep EXP_DEGREE) and the label's parent slots.
const (
	DRGParents   = 6
	ExpParents   = 8
	LabelParents = 37 // TOTAL_PARENTS: the parents repeated to 37 slots
)

// Errors for bad input. Every error wraps one of them and names the
// challenge and field at fault.
var (
	ErrParams  = errors.New("stacked: bad parameters")
	ErrWitness = errors.New("stacked: malformed witness")
)

// Params fix the circuit's shape. Two circuits with equal Params have the same
// variables and rows, whatever the witness.
type Params struct {
	Layers     int          // 2 or 11; also the column-hash arity
	Nodes      uint64       // 32-byte nodes in the sector
	TreeDDepth int          // levels of the binary SHA-256 tree D (log2 Nodes)
	TreeShape  merkle.Shape // shape of trees R and C
	Challenges int          // challenges per partition
}

// Production shapes (filecoin-proofs constants.rs): one partition's circuit.
var (
	Params2KiB   = Params{Layers: 2, Nodes: 1 << 6, TreeDDepth: 6, TreeShape: merkle.Shape{Base: 8}, Challenges: 2}
	Params8MiB   = Params{Layers: 2, Nodes: 1 << 18, TreeDDepth: 18, TreeShape: merkle.Shape{Base: 8}, Challenges: 2}
	Params512MiB = Params{Layers: 2, Nodes: 1 << 24, TreeDDepth: 24, TreeShape: merkle.Shape{Base: 8}, Challenges: 2}
	Params32GiB  = Params{Layers: 11, Nodes: 1 << 30, TreeDDepth: 30, TreeShape: merkle.Shape{Base: 8, Sub: 8}, Challenges: 18}
	Params64GiB  = Params{Layers: 11, Nodes: 1 << 31, TreeDDepth: 31, TreeShape: merkle.Shape{Base: 8, Sub: 8, Top: 2}, Challenges: 18}
)

// ParamsForSectorSize returns the production parameters of a sector size in
// bytes (2 KiB, 8 MiB, 512 MiB, 32 GiB or 64 GiB).
func ParamsForSectorSize(size uint64) (Params, error) {
	switch size {
	case 2 << 10:
		return Params2KiB, nil
	case 8 << 20:
		return Params8MiB, nil
	case 512 << 20:
		return Params512MiB, nil
	case 32 << 30:
		return Params32GiB, nil
	case 64 << 30:
		return Params64GiB, nil
	}
	return Params{}, fmt.Errorf("%w: no PoRep circuit for sector size %d", ErrParams, size)
}

// TestCircuitParams returns the shape of rust-fil-proofs'
// storage-proofs-porep tests/stacked_circuit.rs for a tree shape: 2 layers,
// 1 challenge, nodes = 8 × the number of base trees.
func TestCircuitParams(shape merkle.Shape) Params {
	n := uint64(8)
	if shape.Sub != 0 {
		n *= uint64(shape.Sub)
	}
	if shape.Top != 0 {
		n *= uint64(shape.Top)
	}
	return Params{Layers: 2, Nodes: n, TreeDDepth: bits.TrailingZeros64(n), TreeShape: shape, Challenges: 1}
}

// Validate reports whether the parameters describe a circuit this package
// can build.
func (p Params) Validate() error {
	if p.Layers != 2 && p.Layers != 11 {
		// hash_single_column has Poseidon constants for columns of 2 and 11.
		return fmt.Errorf("%w: %d layers (2 or 11)", ErrParams, p.Layers)
	}
	if p.Nodes < 2 || p.Nodes&(p.Nodes-1) != 0 || p.Nodes > 1<<40 {
		return fmt.Errorf("%w: %d nodes", ErrParams, p.Nodes)
	}
	if 1<<uint(p.TreeDDepth) != p.Nodes {
		return fmt.Errorf("%w: tree D depth %d for %d nodes", ErrParams, p.TreeDDepth, p.Nodes)
	}
	if p.Challenges < 1 || p.Challenges > 1<<16 {
		return fmt.Errorf("%w: %d challenges", ErrParams, p.Challenges)
	}
	if _, err := p.TreeArities(); err != nil {
		return err
	}
	return nil
}

// TreeArities returns the level arities of trees R and C, leaf to root.
func (p Params) TreeArities() ([]int, error) {
	ar, err := p.TreeShape.Arities(int(p.Nodes))
	if err != nil {
		return nil, fmt.Errorf("%w: tree R/C: %w", ErrParams, err)
	}
	for _, a := range ar {
		if a != 2 && a != 4 && a != 8 {
			// insert (insertion.rs) is hand-written for 2, 4 and 8 only.
			return nil, fmt.Errorf("%w: tree R/C arity %d", ErrParams, a)
		}
	}
	return ar, nil
}

// Costs of the gadgets (CIRCUIT-SPEC-POREP.md §3.7, §4.3, §5.4); rows equal
// aux for Poseidon.
func poseidonCost(arity int) int {
	rp := map[int]int{2: 55, 4: 56, 8: 57, 11: 57}[arity]
	return 3*arity + 28*(arity+1) + 4*rp + 1
}

func insertCost(arity int) int { return map[int]int{2: 2, 4: 8, 8: 22}[arity] }

const (
	shaLevelRows, shaLevelAux = 45382, 45335   // tree-D level: bit, sibling, 2 picks, node hash
	labelRows, labelAux       = 522269, 521749 // create_label_circuit without the parent bits
	topRows, topAux           = 571, 571
)

// inclusionCost is one private-root PoR with Var leaf and root (enforce_inclusion).
func inclusionCost(arities []int) (rows, aux int) {
	for _, a := range arities {
		nb := bits.TrailingZeros(uint(a))
		rows += nb + insertCost(a) + poseidonCost(a)
		aux += nb + (a - 1) + insertCost(a) + poseidonCost(a)
	}
	return rows + 2, aux
}

// challengeParts are the sizes of a challenge's parts in synthesis order,
// along which SynthesizeParallel forks. They are exact (tested against
// synthesis).
type challengeParts struct {
	leaf, treeD, columns synth.Sizes
	layers               []synth.Sizes // parent bits and label, per layer
	tail                 synth.Sizes   // encode, tree R, column hash, tree C
}

// challengeParts returns the parts of p's challenges, or the error of p's
// tree shape (wrapping ErrParams).
func (p Params) challengeParts() (challengeParts, error) {
	ar, err := p.TreeArities()
	if err != nil {
		return challengeParts{}, err
	}
	incRows, incAux := inclusionCost(ar)
	col := poseidonCost(p.Layers)
	var c challengeParts
	c.leaf = synth.Sizes{Aux: 1}
	c.treeD = synth.Sizes{Inputs: 1, Aux: p.TreeDDepth * shaLevelAux, Rows: p.TreeDDepth*shaLevelRows + 2}
	c.columns = synth.Sizes{
		Inputs: DRGParents + ExpParents + 1, // the columns' tree-C paths, the challenge
		Aux:    (DRGParents+ExpParents)*(p.Layers+col+incAux) + 64,
		Rows:   (DRGParents+ExpParents)*(col+incRows) + 65,
	}
	for layer := 1; layer <= p.Layers; layer++ {
		n := DRGParents
		if layer > 1 {
			n += ExpParents
		}
		c.layers = append(c.layers, synth.Sizes{Aux: n*255 + labelAux, Rows: n*256 + labelRows})
	}
	c.tail = synth.Sizes{Inputs: 2, Aux: 1 + 2*incAux + col, Rows: 1 + 2*incRows + col}
	return c, nil
}

// total is the size of the whole challenge.
func (c *challengeParts) total() synth.Sizes {
	return add(add(c.leaf, c.treeD), c.rest())
}

// rest is the size of everything after tree D.
func (c *challengeParts) rest() synth.Sizes {
	s := add(c.columns, c.tail)
	for _, l := range c.layers {
		s = add(s, l)
	}
	return s
}

func add(a, b synth.Sizes) synth.Sizes {
	return synth.Sizes{Inputs: a.Inputs + b.Inputs, Aux: a.Aux + b.Aux, Rows: a.Rows + b.Rows}
}

// ChallengeSizes returns the inputs, aux variables and rows one challenge adds.
// It is exact (tested against synthesis) and serves as a capacity hint. It
// is zero for Params that do not Validate (Synthesize returns the error).
func (p Params) ChallengeSizes() synth.Sizes {
	if p.Validate() != nil {
		return synth.Sizes{}
	}
	c, err := p.challengeParts()
	if err != nil {
		return synth.Sizes{}
	}
	return c.total()
}

// Sizes returns the counts of a whole partition circuit: inputs with ONE,
// aux, and circuit rows without the input rows. It is zero for Params that
// do not Validate (Synthesize returns the error), not a plausible shape.
func (p Params) Sizes() synth.Sizes {
	c := p.ChallengeSizes()
	if c == (synth.Sizes{}) { // Params that do not Validate
		return synth.Sizes{}
	}
	return synth.Sizes{
		Inputs: 4 + p.Challenges*c.Inputs,
		Aux:    topAux + p.Challenges*c.Aux,
		Rows:   topRows + p.Challenges*c.Rows,
	}
}

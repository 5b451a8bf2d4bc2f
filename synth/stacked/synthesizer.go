package stacked

import (
	"context"
	"fmt"
	"runtime"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/gadgets/por"
	"github.com/gpuc2/gpuc2/synth/gadgets/poseidon"
	"github.com/gpuc2/gpuc2/synth/gadgets/sha256"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// shared holds what the top level allocates and every challenge reads.
type shared struct {
	replicaBits          []boolean.Boolean // reverse_bit_numbering(to_bits_le(replica_id)): 256
	commD, commC, commRL num.Num
}

// synthesizer owns the gadgets over one system; one per goroutine.
type synthesizer struct {
	p       *Params
	arities []int
	b       *boolean.Builder
	sha     *sha256.Gadget
	pos     *poseidon.Gadget
	shaH    shaHasher
	posH    posHasher
	msg     []boolean.Boolean
	onStep  func(string)
}

type shaHasher struct{ g *sha256.Gadget }

func (h shaHasher) HashNode(c []num.Num) (num.Num, error) { return h.g.HashLeaves(c...) }

type posHasher struct{ g *poseidon.Gadget }

func (h posHasher) HashNode(c []num.Num) (num.Num, error) { return h.g.Hash(c) }

func newSynthesizer(cs synth.ConstraintSystem, p *Params, ar []int, onStep func(string)) *synthesizer {
	b := boolean.NewBuilder(cs)
	s := &synthesizer{p: p, arities: ar, b: b, sha: sha256.NewWithBuilder(b), pos: poseidon.New(b), onStep: onStep}
	s.shaH, s.posH = shaHasher{s.sha}, posHasher{s.pos}
	s.msg = make([]boolean.Boolean, 0, (2+LabelParents)*256)
	return s
}

func (s *synthesizer) step(format string, args ...any) {
	if s.onStep != nil {
		s.onStep(fmt.Sprintf(format, args...))
	}
}

// top is StackedCircuit::synthesize up to the challenge loop: 4 inputs with
// ONE, 571 aux, 571 rows.
func (s *synthesizer) top(w *Partition) (*shared, error) {
	g := s.b
	s.step("replica_id")
	rid := num.Alloc(g, w.ReplicaID)
	num.Inputize(g, rid)
	s.step("replica_id bits")
	sh := &shared{replicaBits: num.ReverseBitNumbering(num.ToBitsLE(g, rid))}
	s.step("comm_d")
	sh.commD = num.Alloc(g, w.CommD)
	num.Inputize(g, sh.commD)
	s.step("comm_r")
	commR := num.Alloc(g, w.CommR)
	num.Inputize(g, commR)
	s.step("comm_r_last, comm_c")
	sh.commRL = num.Alloc(g, w.CommRLast)
	sh.commC = num.Alloc(g, w.CommC)
	s.step("comm_r hash")
	// hash2_circuit(comm_c, comm_r_last): comm_c first.
	h, err := s.pos.Hash([]num.Num{sh.commC, sh.commRL})
	if err != nil {
		return nil, err
	}
	s.step("comm_r equality")
	num.Equal(g, commR.Var, h.Var) // A = comm_r, C = hash
	return sh, nil
}

// inclusion is params.rs enforce_inclusion: PoRCircuit with Var leaf and
// root, private root; its one input is the packed path index.
func (s *synthesizer) inclusion(h por.Hasher, leaf num.Num, path merkle.Path, root num.Num) error {
	_, err := por.Synthesize(s.b, h, por.Var(leaf), path, por.Var(root), true)
	return err
}

// column allocates a column's rows, hashes them (hash_single_column) and
// proves the hash in tree C.
func (s *synthesizer) column(col *Column, commC num.Num, out []num.Num) error {
	for l := range out {
		out[l] = num.Alloc(s.b, col.Rows[l])
	}
	h, err := s.pos.Hash(out)
	if err != nil {
		return err
	}
	return s.inclusion(s.posH, h, col.Path, commC)
}

// challenge is params.rs Proof::synthesize. Its parts are separate methods
// so that SynthesizeParallel can fork along them.
func (s *synthesizer) challenge(ctx context.Context, sh *shared, i int, ch *Challenge) error {
	dataLeaf := s.dataLeaf(i, ch)
	if err := s.treeD(sh, i, ch, dataLeaf); err != nil {
		return err
	}
	cols, node, err := s.columns(sh, i, ch)
	if err != nil {
		return err
	}
	labels := make([]num.Num, s.p.Layers)
	for layer := 1; layer <= s.p.Layers; layer++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if labels[layer-1], err = s.layer(sh, i, layer, cols, &node); err != nil {
			return err
		}
	}
	return s.tail(sh, i, ch, dataLeaf, labels)
}

func (s *synthesizer) dataLeaf(i int, ch *Challenge) num.Num {
	s.step("ch%d data_leaf", i)
	return num.Alloc(s.b, ch.DataLeaf)
}

func (s *synthesizer) treeD(sh *shared, i int, ch *Challenge, dataLeaf num.Num) error {
	s.step("ch%d tree-D inclusion", i)
	if err := s.inclusion(s.shaH, dataLeaf, ch.TreeD, sh.commD); err != nil {
		return fmt.Errorf("challenge %d: tree D: %w", i, err)
	}
	return nil
}

// columns synthesizes the parent columns (6 DRG then 8 expander, each rows,
// hash, tree-C inclusion) and the challenge bits with their input; cols[k]
// are parent k's rows.
func (s *synthesizer) columns(sh *shared, i int, ch *Challenge) (cols [][]num.Num, node num.UInt64, err error) {
	L := s.p.Layers
	cols = make([][]num.Num, DRGParents+ExpParents)
	all := make([]num.Num, (DRGParents+ExpParents)*L)
	for k := range cols {
		cols[k] = all[k*L : (k+1)*L : (k+1)*L]
		col, name, j := &ch.DRG[k%DRGParents], "DRG", k
		if k >= DRGParents {
			col, name, j = &ch.Exp[k-DRGParents], "expander", k-DRGParents
		}
		s.step("ch%d %s parent %d column", i, name, j)
		if err := s.column(col, sh.commC, cols[k]); err != nil {
			return nil, node, fmt.Errorf("challenge %d: %s parent %d: %w", i, name, j, err)
		}
	}
	s.step("ch%d challenge bits", i)
	node = num.AllocUInt64(s.b, ch.Node)
	s.step("ch%d challenge input", i)
	node.PackIntoInput(s.b)
	return cols, node, nil
}

// layer synthesizes one layer's parent bits and label.
func (s *synthesizer) layer(sh *shared, i, layer int, cols [][]num.Num, node *num.UInt64) (num.Num, error) {
	g := s.b
	s.step("ch%d layer %d parent bits", i, layer)
	parents := make([][]boolean.Boolean, 0, DRGParents+ExpParents)
	// DRG parents: this layer's row; expander parents (from layer 2): the
	// previous layer's row.
	for k := 0; k < DRGParents; k++ {
		parents = append(parents, num.ReverseBitNumbering(num.ToBitsLE(g, cols[k][layer-1])))
	}
	if layer > 1 {
		for k := DRGParents; k < DRGParents+ExpParents; k++ {
			parents = append(parents, num.ReverseBitNumbering(num.ToBitsLE(g, cols[k][layer-2])))
		}
	}
	s.step("ch%d layer %d create_label", i, layer)
	l, err := s.label(sh.replicaBits, uint32(layer), node, parents)
	if err != nil {
		return l, fmt.Errorf("challenge %d: layer %d label: %w", i, layer, err)
	}
	return l, nil
}

// tail is the rest of the challenge: encoding, tree R, the column hash of
// the labels and tree C.
func (s *synthesizer) tail(sh *shared, i int, ch *Challenge, dataLeaf num.Num, labels []num.Num) error {
	g := s.b
	s.step("ch%d encode", i)
	// encode(key = last label, value = data leaf).
	encoded := num.Add(g, labels[len(labels)-1], dataLeaf)
	s.step("ch%d tree-R inclusion", i)
	if err := s.inclusion(s.posH, encoded, ch.TreeR, sh.commRL); err != nil {
		return fmt.Errorf("challenge %d: tree R: %w", i, err)
	}
	s.step("ch%d column hash", i)
	h, err := s.pos.Hash(labels)
	if err != nil {
		return fmt.Errorf("challenge %d: column hash: %w", i, err)
	}
	s.step("ch%d tree-C inclusion", i)
	if err := s.inclusion(s.posH, h, ch.ColumnC.Path, sh.commC); err != nil {
		return fmt.Errorf("challenge %d: tree C: %w", i, err)
	}
	return nil
}

// label is create_label_circuit: SHA-256 over replica_id ‖ layer (u32 BE,
// constant) ‖ node (u64 BE) ‖ zero padding to 64 bytes ‖ 37 parent slots,
// then the first 254 bits of the byte-reversed digest packed into one aux
// variable. parents holds the distinct parents (6 or 14); slot s takes
// parents[s mod len], which is rust-fil-proofs' expansion for both layer
// kinds (6×6+1 and 14+14+9).
func (s *synthesizer) label(replica []boolean.Boolean, layer uint32, node *num.UInt64, parents [][]boolean.Boolean) (num.Num, error) {
	msg := append(s.msg[:0], replica...)
	for len(msg) < 256 {
		msg = append(msg, boolean.Constant(false))
	}
	for k := 31; k >= 0; k-- {
		msg = append(msg, boolean.Constant(layer>>uint(k)&1 == 1))
	}
	msg = append(msg, node.BitsBE()...)
	for len(msg) < 512 {
		msg = append(msg, boolean.Constant(false))
	}
	for slot := 0; slot < LabelParents; slot++ {
		msg = append(msg, parents[slot%len(parents)]...)
		for len(msg)%256 != 0 {
			msg = append(msg, boolean.Constant(false))
		}
	}
	s.msg = msg
	return s.sha.HashToField(msg)
}

// workerCount resolves a Workers setting.
func workerCount(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

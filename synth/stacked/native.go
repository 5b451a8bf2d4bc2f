package stacked

import (
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/gpuc2/gpuc2/synth/hash/sha256"
)

// Label computes a node's label natively, as the circuit's create_label does
// (and the vanilla create_label/single.rs): sha254 of replica_id ‖ layer
// (u32 BE) ‖ node (u64 BE) ‖ 20 zero bytes ‖ 37 parent slots of 32 bytes,
// values little-endian. parents are the distinct parents in graph order:
// the 6 DRG parents' layer-l labels for layer 1, else those followed by the
// 8 expander parents' layer-(l−1) labels; slot s holds parents[s mod n].
func Label(replicaID *fr.Element, layer uint32, node uint64, parents []fr.Element) (fr.Element, error) {
	if n := len(parents); n != DRGParents && n != DRGParents+ExpParents {
		return fr.Element{}, fmt.Errorf("%w: label of node %d needs %d or %d parents, got %d",
			ErrWitness, node, DRGParents, DRGParents+ExpParents, n)
	}
	var buf [(2 + LabelParents) * 32]byte
	rid := sha256.FromFr(replicaID)
	copy(buf[:32], rid[:])
	binary.BigEndian.PutUint32(buf[32:], layer)
	binary.BigEndian.PutUint64(buf[36:], node)
	for s := 0; s < LabelParents; s++ {
		v := sha256.FromFr(&parents[s%len(parents)])
		copy(buf[64+32*s:], v[:])
	}
	return sha256.ToFr(sha256.Sum254(buf[:]))
}

// ColumnHash is hash_single_column: Poseidon with the column's height as
// arity (2 or 11).
func ColumnHash(rows []fr.Element) (fr.Element, error) { return poseidon.Hash(rows) }

// CommR is comm_r = Poseidon2(comm_c, comm_r_last).
func CommR(commC, commRLast fr.Element) fr.Element {
	h, _ := poseidon.Hash([]fr.Element{commC, commRLast}) // arity 2 always exists
	return h
}

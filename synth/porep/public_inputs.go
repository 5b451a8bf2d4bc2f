package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
)

// InputsPerChallenge is the number of public inputs each challenge adds:
// c, 6 DRG parents, 8 expander parents, c (UInt64), c (tree R), c (tree C).
const InputsPerChallenge = 1 + DRGDegree + ExpDegree + 3

// PublicInputs returns the Groth16 public inputs (without ONE) of partition
// k of c's sector, as StackedCompound::generate_public_inputs computes them:
// replica_id, comm_d, comm_r, then InputsPerChallenge values per challenge,
// derived from the graph and the challenge derivation, never from the
// vanilla proofs. It first checks that c's replica_id is the one derived
// from miner, sector, ticket and comm_d.
func PublicInputs(c *C1, miner abi.ActorID, sector abi.SectorNumber, partition int) ([]fr.Element, error) {
	if err := c.CheckReplicaID(miner, sector); err != nil {
		return nil, err
	}
	sp, err := ParamsFor(c.RegisteredProof)
	if err != nil {
		return nil, err
	}
	return sp.PublicInputs(nil, leBytes(&c.ReplicaID), c.CommD, leBytes(&c.CommR), c.Seed, partition)
}

// PublicInputsFor computes partition k's public inputs from the on-chain
// values alone (what a verifier does). g may be nil; pass NewGraph(p) to
// reuse a graph across partitions.
func PublicInputsFor(g *Graph, p abi.RegisteredSealProof, replicaID, commD, commR, seed [32]byte, partition int) ([]fr.Element, error) {
	sp, err := ParamsFor(p)
	if err != nil {
		return nil, err
	}
	return sp.PublicInputs(g, replicaID, commD, commR, seed, partition)
}

// PublicInputs computes partition k's public inputs under sp, which need
// not be a registered proof's own: rust-fil-proofs' PoRepConfig pairs any
// porep_id with any API version (its regression records do). g may be nil;
// else it must be sp.Graph().
func (sp SealParams) PublicInputs(g *Graph, replicaID, commD, commR, seed [32]byte, partition int) ([]fr.Element, error) {
	if g == nil {
		g = sp.Graph()
	}
	chals, err := sp.PartitionChallenges(replicaID, commR, seed, partition)
	if err != nil {
		return nil, err
	}
	out := make([]fr.Element, 3, 3+InputsPerChallenge*len(chals))
	for k, v := range [3]*[32]byte{&replicaID, &commD, &commR} {
		e, err := fr.LittleEndian.Element(v)
		if err != nil {
			return nil, fmt.Errorf("porep: %s is not a canonical field element", [3]string{"replica_id", "comm_d", "comm_r"}[k])
		}
		out[k] = e
	}
	var x fr.Element
	for _, c := range chals {
		drg, exp, err := g.Parents(c)
		if err != nil {
			return nil, err
		}
		out = append(out, *x.SetUint64(c))
		for _, p := range drg {
			out = append(out, *x.SetUint64(uint64(p)))
		}
		for _, p := range exp {
			out = append(out, *x.SetUint64(uint64(p)))
		}
		x.SetUint64(c)
		out = append(out, x, x, x)
	}
	return out, nil
}

package post

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// PublicSector is a challenged sector as the verifier knows it.
type PublicSector struct {
	ID    uint64
	CommR fr.Element
}

// Partitions is the number of partitions a WindowPoSt of n sectors has
// (get_partitions_for_window_post); 1 for a WinningPoSt.
func (p Params) Partitions(n int) int {
	if p.Kind == Winning || n <= p.Sectors {
		return 1
	}
	return (n + p.Sectors - 1) / p.Sectors
}

// PublicInputs are partition k's public inputs, without ONE
// (compound.rs generate_public_inputs, as verify_window_post and
// verify_winning_post call it): for each circuit sector comm_r, then each
// challenge's leaf index (PoRCompound's packed path bits); a partition
// short of sectors repeats its last sector's inputs. sectors are all the
// proof's sectors in order (a WindowPoSt's, ascending); a WinningPoSt's one
// sector stands for each of its circuit sectors.
func (p Params) PublicInputs(randomness [32]byte, sectors []PublicSector, k int) ([]fr.Element, error) {
	if p.Kind == Winning {
		if len(sectors) != p.Sectors {
			return nil, fmt.Errorf("%w: %d sectors, a WinningPoSt proves exactly %d", ErrRequest, len(sectors), p.Sectors)
		}
		one := sectors[0]
		sectors = make([]PublicSector, p.CircuitSectors)
		for i := range sectors {
			sectors[i] = one
		}
	}
	lo := k * p.CircuitSectors
	if k < 0 || lo >= len(sectors) {
		return nil, fmt.Errorf("%w: partition %d of a proof of %d sectors (%d a partition)", ErrRequest, k, len(sectors), p.CircuitSectors)
	}
	chunk := sectors[lo:min(lo+p.CircuitSectors, len(sectors))]
	per := 1 + p.CircuitChallenges
	out := make([]fr.Element, 0, p.CircuitSectors*per)
	for i, s := range chunk {
		out = append(out, s.CommR)
		for n := range p.CircuitChallenges {
			idx := challengeIndex(p.PerSectorIndex, lo+i, p.CircuitChallenges, n)
			var e fr.Element
			e.SetUint64(LeafChallenge(randomness, s.ID, idx, p.Nodes))
			out = append(out, e)
		}
	}
	for len(out) < p.CircuitSectors*per {
		out = append(out, out[len(out)-per:]...)
	}
	return out, nil
}

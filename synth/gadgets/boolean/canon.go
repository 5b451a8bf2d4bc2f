package boolean

import "github.com/gpuc2/gpuc2/synth"

// Canon sorts a short linear combination by variable and merges repeated
// variables in place, so that the constraint system receives it in the
// canonical form bellperson's map-based LC has and can skip its own
// normalization. It is meant for the few-term rows of the bit gadgets
// (insertion sort); a merged coefficient of zero is kept, as in bellperson.
func Canon(lc synth.LinearCombination) synth.LinearCombination {
	n := len(lc)
	sorted := true
	for i := 1; i < n; i++ {
		if lc[i].Var <= lc[i-1].Var {
			sorted = false
			break
		}
	}
	if sorted {
		return lc
	}
	for i := 1; i < n; i++ {
		t := lc[i]
		j := i
		for j > 0 && lc[j-1].Var > t.Var {
			lc[j] = lc[j-1]
			j--
		}
		lc[j] = t
	}
	w := 0
	for i := 1; i < n; i++ {
		if lc[i].Var == lc[w].Var {
			lc[w].Coeff.Add(&lc[w].Coeff, &lc[i].Coeff)
			continue
		}
		w++
		lc[w] = lc[i]
	}
	return lc[:w+1]
}

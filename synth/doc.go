// Package synth is gpuc2's rank-1 constraint system layer with bellperson's
// semantics, so that circuits written against it allocate the same variables
// and rows, in the same order, as their Rust counterparts (the Filecoin
// parameters bind every index).
//
// A circuit implements Circuit and synthesizes into a ConstraintSystem:
//
//	x := cs.Alloc(value)                      // Aux(0), Aux(1), … in call order
//	y := cs.AllocInput(value)                 // Input(1), …; Input(0) is One
//	cs.Enforce(synth.LC(x), synth.LC(x), synth.LC(y)) // x·x = y
//
// Values are given at allocation, so gadgets compute their witness natively
// and no closure runs per variable. Three systems implement the interface:
//
//   - ProvingAssignment: keeps the witness, a, b, c per row and bellperson's
//     density bitmaps; what the prover consumes. NewWitnessAssignment makes
//     one that keeps the witness alone and only counts rows: a, b, c and the
//     densities then come from the circuit's recorded matrices (synth/pce);
//   - Checker: finds the first unsatisfied row and counts rows, variables,
//     non-zeros and densities;
//   - Recorder: records A, B, C as CSR matrices (for setups and pre-compiled
//     evaluation).
//
// Linear combinations are flat []Term slices. Repeated variables are merged
// where it matters (densities, non-zero counts, matrices), as bellperson's
// map-based combinations do. Systems are not safe for concurrent use.
package synth

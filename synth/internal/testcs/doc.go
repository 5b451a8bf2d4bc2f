// Package testcs holds test helpers for the gadget packages: the R1CS
// digest the circuit specs define (to compare a gadget's exact rows with
// the specs' independent models) and a constraint system that corrupts one
// allocated value (to show the checker catches a wrong witness).
package testcs

// Package codec holds what the circuit packages' input decoders share, so
// that synth/merkle, synth/porep, synth/update (and PoSt next) read their
// formats one way:
//
//   - Reader, a bincode reader whose every length is capped and checked
//     against the bytes left before anything is allocated, and whose
//     errors (*Error) name the field being read and the offset;
//   - Fields, the field path errors name ("data.Sub.base_proof.path[2]"),
//     also used by porep's JSON decoder;
//   - Slab, exact-size slices cut from large blocks, so that decoding a
//     C1's tens of thousands of small lists costs a few hundred allocations;
//   - ErrorText and Unwrap, the text and the chain of the located errors
//     each circuit package exports (porep.C1Error, update.ProofError), which
//     keep their own type, sentinel and package prefix.
//
// Usage, inside a decoder:
//
//	r := codec.NewReader(b)
//	r.Push("apex_leafs", -1)
//	n, err := r.Len(maxApexLeaves, 32, "apex leaves")
//	r.Pop()
//	…
//	if err := r.End(); err != nil { … } // trailing bytes
//
// A Reader is not safe for concurrent use.
package codec

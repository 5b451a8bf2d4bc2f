// Package sha256 holds Filecoin's SHA-256 helpers: sha254 (SHA-256 with the
// top two bits of the last byte cleared, so that the digest read as a
// little-endian integer is below 2^254 and hence a field element) and the
// tree-D node hash, sha254(left ‖ right) over two 32-byte nodes.
//
// Field elements are 32-byte little-endian canonical values, as Filecoin
// stores them (filecoin-hashers' Sha256Domain, fr32).
//
// Usage:
//
//	node := sha256.HashNodes(left, right)
//	x, err := sha256.ToFr(node)
package sha256

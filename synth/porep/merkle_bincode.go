package porep

// The bincode form of one storage-proofs-core MerkleProof, exported for the
// other proofs that embed it (storage-proofs-update's vanilla partition
// proofs): the format lives here, beside C1's.

// DecodeMerkleProofBincode decodes the bincode MerkleProof at the start of
// b and returns it with the number of bytes it took. T is fr.Element for
// Poseidon trees (values must be canonical) or [32]byte for SHA-256 trees
// (taken as they are). Lengths are capped before allocation, as for C1.
// Errors are *C1Error with Partition and Challenge −1, naming the field
// ("data.Single.path[3].hashes") and the offset in b.
func DecodeMerkleProofBincode[T Domain](b []byte) (MerkleProof[T], int, error) {
	d := &bdec{b: b, part: -1, chal: -1}
	var m MerkleProof[T]
	if err := binDecodeMerkle(d, &m); err != nil {
		return MerkleProof[T]{}, d.i, err
	}
	return m, d.i, nil
}

// AppendMerkleProofBincode appends m's bincode form to b.
func AppendMerkleProofBincode[T Domain](b []byte, m *MerkleProof[T]) []byte {
	e := &benc{b: b}
	binMerkle(e, m)
	return e.b
}

package groth16

// publishedDigests are the digests Filecoin publishes for the v28 PoRep
// (stacked-proof-of-replication) parameter and verifying-key files, by file
// name: the "digest" fields of parameters.json in rust-fil-proofs (also
// lotus build/proof-params/parameters.json), which paramfetch checks.
var publishedDigests = map[string]string{
	// 2 KiB
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params": "434fb1338ecfaf0f59256f30dde4968f",
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk":     "dc1ade9929ade1708238f155343044ac",
	// 8 MiB
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params": "09e612e4eeb7a0eb95679a88404f960c",
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.vk":     "b687beb9adbd9dabe265a7e3620813e4",
	// 512 MiB
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params": "6c77597eb91ab936c1cef4cf19eba1b3",
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.vk":     "065179da19fbe515507267677f02823e",
	// 32 GiB
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params": "6a388072a518cf46ebd661f5cc46900a",
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk":     "0c7b4aac1c40fdb7eb82bc355b41addf",
	// 64 GiB
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params": "1801f8a6e1b00bceb00cc27314bb5ce3",
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk":     "a89884252c04c298d0b3c81bfd884164",
}

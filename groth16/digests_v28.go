package groth16

// publishedDigests are the digests Filecoin publishes for the v28 PoRep
// (stacked-proof-of-replication) and SnapDeals (empty-sector-update)
// parameter and verifying-key files, by file name: the "digest" fields of
// parameters.json in rust-fil-proofs (also lotus
// build/proof-params/parameters.json), which paramfetch checks. The
// empty-sector-update-poseidon files are left out on purpose: no proof
// type uses that circuit (synth/update.ErrPoseidonVariant).
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

	// SnapDeals update (EmptySectorUpdate), 2 KiB
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params": "311f92a3e75036ced01b1c0025f1fa0c",
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk":     "eadad9784969890d30f2749708c79771",
	// update, 8 MiB
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params": "5aedd2cf3e5c0a15623d56a1b43110ad",
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.vk":     "abd80269054d391a734febdac0d2e687",
	// update, 512 MiB
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params": "c3ad7bb549470b82ad52ed070aebb4f4",
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.vk":     "994c5b7d450ca9da348c910689f2dc7f",
	// update, 32 GiB
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params": "1b3cfd761a961543f9eb273e435a06a2",
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk":     "3a6941983754737fde880d29c7094905",
	// update, 64 GiB
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params": "1a392e7b759fb18e036c7559b5ece816",
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk":     "80e366df2f1011953c2d01c7b7c9ee8e",
}

package post

import "github.com/gpuc2/gpuc2/synth/pce"

// MatricesProfile sizes the FallbackPoSt circuit's matrices (WindowPoSt's
// and WinningPoSt's: the same gadgets per challenge) before they are
// recorded. Poseidon's rows hold more terms than PoRep's SHA-256: A's the
// largest measured, 6.8814 (WindowPoSt 512 MiB; 6.8658 to 6.8796 at 2 KiB
// and 8 MiB, WinningPoSt 6.8438 to 6.8738), B 1.0166, C 1.2560; 9.1554
// over the three for the 32 GiB WindowPoSt partition (8,386,990,412 bytes
// recorded for 125,305,057 rows, an H100 host, 2026-12-07); at most 979
// distinct coefficients measured (512 MiB).
var MatricesProfile = pce.Profile{
	TermsPerRow: [3]float64{6.8814, 1.0166, 1.2560},
	Terms:       9.1554,
	Coeffs:      979,
}

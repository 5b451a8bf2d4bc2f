package update

import "github.com/gpuc2/gpuc2/synth/pce"

// MatricesProfile sizes the update circuit's matrices before they are
// recorded, from its recordings at 2 KiB and 8 MiB (A 2.3641 and 2.3267
// terms per row, B 1.0009 and 1.0008, C 2.1211 and 2.1287; 5.4861 and
// 5.4561 over the three; 1,516 distinct coefficients). The 32 GiB circuit
// has not been recorded with its terms counted; a recording that needs
// more room grows.
var MatricesProfile = pce.Profile{
	TermsPerRow: [3]float64{2.3641, 1.0009, 2.1287},
	Terms:       5.4861,
	Coeffs:      1516,
}

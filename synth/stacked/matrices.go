package stacked

import "github.com/gpuc2/gpuc2/synth/pce"

// MatricesProfile sizes the PoRep partition circuit's matrices before they
// are recorded: A, B and C's terms per row the largest measured (A 2.3888,
// 2.4417 and 2.3751 at 2 KiB, 8 MiB and the 32 GiB shape with one
// challenge; B 1.0004, 1.0008, 1.0004; C 2.1670, 2.1417, 2.1695), 5.545
// over the three at 32 GiB (722,388,891 terms over 130,278,869 rows), and
// 1,526 distinct coefficients.
var MatricesProfile = pce.Profile{
	TermsPerRow: [3]float64{2.4417, 1.0008, 2.1695},
	Terms:       722_388_891.0 / 130_278_869,
	Coeffs:      1526,
}

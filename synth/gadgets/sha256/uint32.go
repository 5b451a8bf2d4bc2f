package sha256

import "github.com/gpuc2/gpuc2/synth/gadgets/boolean"

// UInt32 is bellperson's UInt32: 32 Booleans, least significant first.
type UInt32 struct {
	Bits  [32]boolean.Boolean
	Value uint32
}

// ConstantUInt32 is UInt32::constant: 32 constant bits, nothing allocated.
func ConstantUInt32(v uint32) UInt32 {
	u := UInt32{Value: v}
	for i := range u.Bits {
		u.Bits[i] = boolean.Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// AllocUInt32 is UInt32::alloc: 32 allocated bits, LSB first.
func AllocUInt32(g *boolean.Builder, v uint32) UInt32 {
	u := UInt32{Value: v}
	for i := range u.Bits {
		u.Bits[i] = g.AllocBit(v>>uint(i)&1 == 1)
	}
	return u
}

// FromBitsBE is UInt32::from_bits_be: bits[0] is the most significant.
func FromBitsBE(bits []boolean.Boolean) UInt32 {
	var u UInt32
	for i := 0; i < 32; i++ {
		b := bits[31-i]
		u.Bits[i] = b
		if b.Value {
			u.Value |= 1 << uint(i)
		}
	}
	return u
}

// AppendBitsBE appends the 32 bits, most significant first.
func (u *UInt32) AppendBitsBE(dst []boolean.Boolean) []boolean.Boolean {
	for i := 31; i >= 0; i-- {
		dst = append(dst, u.Bits[i])
	}
	return dst
}

// IsConstant reports whether every bit is constant.
func (u *UInt32) IsConstant() bool {
	for i := range u.Bits {
		if !u.Bits[i].IsConstant() {
			return false
		}
	}
	return true
}

// Rotr rotates right by n: new bit i is old bit (i + n) mod 32.
func (u UInt32) Rotr(n int) UInt32 {
	var r UInt32
	for i := range r.Bits {
		r.Bits[i] = u.Bits[(i+n)&31]
	}
	r.Value = u.Value>>uint(n&31) | u.Value<<uint((32-n)&31)
	return r
}

// Shr shifts right by n, shifting in Const(false).
func (u UInt32) Shr(n int) UInt32 {
	var r UInt32
	for i := range r.Bits {
		if i+n < 32 {
			r.Bits[i] = u.Bits[i+n]
		} else {
			r.Bits[i] = boolean.Constant(false)
		}
	}
	r.Value = u.Value >> uint(n)
	return r
}

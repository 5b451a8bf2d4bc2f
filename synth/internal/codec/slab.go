package codec

// Slab hands out exact-size sub-slices of large blocks, so that a C1 costs
// a few hundred allocations instead of hundreds of thousands. The slices it
// returns have their capacity cut to their length: appending to one never
// writes into the next. The zero value is ready.
type Slab[T any] struct {
	buf   []T
	chunk int
}

func (s *Slab[T]) refill(n int) {
	s.chunk = min(max(2*s.chunk, 256), 8192)
	s.buf = make([]T, max(n, s.chunk))
}

// Take returns a copy of vals (nil if empty).
func (s *Slab[T]) Take(vals []T) []T {
	n := len(vals)
	if n == 0 {
		return nil
	}
	if n > len(s.buf) {
		s.refill(n)
	}
	out := s.buf[:n:n]
	copy(out, vals)
	s.buf = s.buf[n:]
	return out
}

// Alloc returns n zero values.
func (s *Slab[T]) Alloc(n int) []T {
	if n > len(s.buf) {
		s.refill(n)
	}
	out := s.buf[:n:n]
	s.buf = s.buf[n:]
	return out
}

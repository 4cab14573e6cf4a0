package session

// slab hands out elements of T carved from shared arrays, so that
// decoding a large file makes a few thousand allocations rather than one
// per message, content block and usage. An array lives as long as any
// element taken from it, which suits a log kept whole in memory. Arrays
// start small and double up to a limit, so that decoding a single
// line allocates no more than it needs.
type slab[T any] struct {
	free []T
	size int // the length of the last array
}

// take returns n zero elements, in a slice whose capacity is n so that
// appending to it never reaches elements handed out to others. Arrays
// grow up to limit elements (or n, if more).
func (s *slab[T]) take(n, limit int) []T {
	if len(s.free) < n {
		s.size = min(2*s.size+1, limit)
		s.free = make([]T, max(s.size, n))
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// next returns the k-th of the elements take would hand out next, to be
// filled in place before taking k+1 or more of them (or dropping them);
// the first k have been. If the array lacks room, next moves them to a
// new one, with room for as many again.
func (s *slab[T]) next(k, limit int) *T {
	if k >= len(s.free) {
		s.size = min(2*s.size+1, limit)
		free := make([]T, max(s.size, 2*k+1))
		copy(free, s.free[:k])
		clear(s.free[:k])
		s.free = free
	}
	return &s.free[k]
}

// drop clears the first n elements next filled in place, which will not
// be taken.
func (s *slab[T]) drop(n int) { clear(s.free[:n]) }

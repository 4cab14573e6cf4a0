package session

// entryList stores entries in chunks, so that growing it never copies what it
// holds (a session can have hundreds of thousands of entries) and pointers to
// its entries stay valid. A chunk is either allocated by grow, with room for
// up to chunkSize entries (fewer in a short list), or adopted: the array a worker decoded the lines of one
// block of the file into, which the loader then keeps without copying.
type entryList struct {
	chunks [][]Entry
	// starts[c] is the index of the first entry of chunks[c]. Only the
	// last chunk is ever added to, so a chunk's entries are contiguous.
	starts []int
	// dir[k] is the chunk that holds entry k*chunkSize: where at looks
	// first. Chunks hold about chunkSize entries or more, except for
	// files of very long lines, so it seldom has to look further.
	dir []int32
	n   int
}

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
)

// listOf wraps es without copying it.
func listOf(es []Entry) entryList {
	l := entryList{n: len(es)}
	for i := 0; i < len(es); i += chunkSize {
		end := min(i+chunkSize, len(es))
		l.dir = append(l.dir, int32(len(l.chunks)))
		l.chunks = append(l.chunks, es[i:end:end])
		l.starts = append(l.starts, i)
	}
	return l
}

func (l *entryList) len() int { return l.n }

// at returns the i-th entry; 0 <= i < len().
func (l *entryList) at(i int) *Entry {
	c := int(l.dir[i>>chunkBits])
	for i-l.starts[c] >= len(l.chunks[c]) {
		c++
	}
	return &l.chunks[c][i-l.starts[c]]
}

// added accounts for an entry added at the end of the last chunk.
func (l *entryList) added() {
	if l.n&(chunkSize-1) == 0 {
		l.dir = append(l.dir, int32(len(l.chunks)-1))
	}
	l.n++
}

// grow adds a zero entry at the end and returns it.
func (l *entryList) grow() *Entry {
	c := len(l.chunks) - 1
	if c < 0 || len(l.chunks[c]) == cap(l.chunks[c]) {
		// A new session starts with a small chunk and doubles up to
		// chunkSize, so that a short run does not allocate room for a
		// thousand entries.
		l.chunks = append(l.chunks, make([]Entry, 0, min(chunkSize, max(16, l.n))))
		l.starts = append(l.starts, l.n)
		c++
	}
	l.chunks[c] = append(l.chunks[c], Entry{})
	l.added()
	return &l.chunks[c][len(l.chunks[c])-1]
}

// adopt starts a chunk made of the array es, which holds entries not yet
// in the list (see claim). The list owns es from then on.
func (l *entryList) adopt(es []Entry) {
	l.chunks = append(l.chunks, es[:0])
	l.starts = append(l.starts, l.n)
}

// claim adds the entry at es[k] to the list, where es is the array last
// adopted and k is at or after the end of its chunk, moving it to that end
// when entries before it were not claimed. It returns the entry's place.
func (l *entryList) claim(k int) *Entry {
	c := len(l.chunks) - 1
	w := len(l.chunks[c])
	chunk := l.chunks[c][:w+1]
	if k != w {
		es := chunk[:cap(chunk)]
		chunk[w], es[k] = es[k], Entry{}
	}
	l.chunks[c] = chunk
	l.added()
	return &chunk[w]
}

// seal clears what was never claimed of the last chunk's array, so that
// it holds on to no memory.
func (l *entryList) seal() {
	if c := len(l.chunks) - 1; c >= 0 {
		chunk := l.chunks[c]
		clear(chunk[len(chunk):cap(chunk)])
	}
}

// shrink removes the last entry, which grow or claim added.
func (l *entryList) shrink() {
	c := len(l.chunks) - 1
	l.chunks[c][len(l.chunks[c])-1] = Entry{}
	l.chunks[c] = l.chunks[c][:len(l.chunks[c])-1]
	if l.n--; l.n&(chunkSize-1) == 0 {
		l.dir = l.dir[:len(l.dir)-1]
	}
}

// all returns a copy of every entry, in order.
func (l *entryList) all() []Entry {
	out := make([]Entry, 0, l.n)
	for _, c := range l.chunks {
		out = append(out, c...)
	}
	return out
}

// get returns the entry with this ID.
func (l *log) get(id string) (*Entry, bool) {
	i, ok := l.index[id]
	if !ok {
		return nil, false
	}
	return l.entries.at(i), true
}

// isTree reports whether id names a tree entry.
func (l *log) isTree(id string) bool {
	e, ok := l.get(id)
	return ok && e.IsTree()
}

package session

// entryList stores entries in fixed-size chunks, so that growing it never
// copies what it holds (a session can have hundreds of thousands of
// entries) and pointers to its entries stay valid.
type entryList struct {
	chunks [][]Entry
	n      int
}

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
)

// listOf wraps es without copying it.
func listOf(es []Entry) entryList {
	l := entryList{n: len(es)}
	for i := 0; i < len(es); i += chunkSize {
		l.chunks = append(l.chunks, es[i:min(i+chunkSize, len(es)):min(i+chunkSize, len(es))])
	}
	return l
}

func (l *entryList) len() int { return l.n }

// at returns the i-th entry; 0 <= i < len().
func (l *entryList) at(i int) *Entry { return &l.chunks[i>>chunkBits][i&(chunkSize-1)] }

// grow adds a zero entry at the end and returns it.
func (l *entryList) grow() *Entry {
	c := l.n >> chunkBits
	if c == len(l.chunks) {
		l.chunks = append(l.chunks, make([]Entry, 0, chunkSize))
	}
	l.chunks[c] = append(l.chunks[c], Entry{})
	l.n++
	return &l.chunks[c][len(l.chunks[c])-1]
}

// shrink removes the last entry.
func (l *entryList) shrink() {
	c := (l.n - 1) >> chunkBits
	l.chunks[c][len(l.chunks[c])-1] = Entry{}
	l.chunks[c] = l.chunks[c][:len(l.chunks[c])-1]
	l.n--
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

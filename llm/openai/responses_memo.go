package openai

// A template remembers the last delta event read, so that the next one is
// read by comparing bytes: the deltas of an item differ only in a few
// values (delta, obfuscation, sequence_number), while type, item_id,
// output_index, content_index, logprobs… repeat byte for byte.
//
// The event is cut into holes, the values of those members that change
// from one delta to the next, and the bytes between them. An event that
// holds the same bytes between values read as the holes' values are is
// read exactly as the template's event was, but for the holes: the
// members between them leave the fields they set as they were left then.
// Anything else is read in full, so that every event decodes, and fails,
// as it would without the template.
type template struct {
	kind eventKind // the name of the event remembered; evOther for none
	n    uint8     // holes used
	bad  bool      // the event being read in full cannot become the template

	// The fields of respEvent that the members between the holes set.
	typ          eventKind
	hasType      bool
	hasIndex     bool
	outputIndex  int
	summaryIndex int

	data  []byte // the event's data, copied, then its item id
	size  int    // of the event's data in data
	holes [maxHoles]hole
}

// maxHoles bounds the holes of a template; deltas have three or four.
const maxHoles = 6

// hole is the value of a member read anew in every event: data[start:end]
// of the template's data, the value of member key.
type hole struct {
	start, end int32
	key        respKey
}

// isDelta reports whether events of kind k are worth a template: they
// come by the hundred, all alike.
func isDelta(k eventKind) bool {
	return k == evTextDelta || k == evReasoningDelta || k == evArgsDelta
}

// begin forgets the template, to note the members of an event of kind
// read in full instead.
func (t *template) begin() {
	t.kind, t.n, t.bad = evOther, 0, false
}

// note records the member k just read, whose value starts at vs in the
// scanner's input and ends at its offset.
func (t *template) note(s *scanner, k respKey, vs int) {
	switch k {
	case keyType, keyItemID, keyOutputIndex, keySummaryIndex:
		return // the same on every delta of an item
	case keyDelta, keyText, keyArguments, keySequence, keyObfuscation:
	case keyOther:
		if s.Offset()-vs <= 16 {
			return // content_index, logprobs:[]…: likely to repeat
		}
	default:
		// The members of other events set fields of their own, which
		// a template does not restore.
		t.bad = true
		return
	}
	if int(t.n) == maxHoles {
		t.bad = true
		return
	}
	t.holes[t.n] = hole{start: int32(vs), end: int32(s.Offset()), key: k}
	t.n++
}

// commit makes the event just read without error, named kind, the
// template.
func (t *template) commit(kind eventKind, data []byte, ev *respEvent) {
	if t.bad {
		return
	}
	t.kind = kind
	if n := len(data) + len(ev.itemID); cap(t.data) < n {
		t.data = make([]byte, 0, n+n/4) // deltas vary in size a little
	}
	t.data = append(append(t.data[:0], data...), ev.itemID...)
	t.size = len(data)
	t.typ, t.hasType = ev.kind, ev.hasType
	t.outputIndex, t.hasIndex = ev.outputIndex, ev.hasIndex
	t.summaryIndex = ev.summaryIndex
}

// fill reads the event in the scanner's input (reset, and d.ev cleared)
// by comparing it with the template, and reports whether it could; when
// it could not, both must be reset before the event is read in full.
func (d *respDecoder) fill() bool {
	t, s, ev := &d.tmpl, &d.sc, &d.ev
	data, tdata := s.Input(), t.data[:t.size]
	p, from := 0, 0
	for _, h := range t.holes[:t.n] {
		seg := tdata[from:h.start]
		if !hasAt(data, p, seg) {
			return false
		}
		s.SetOffset(p + len(seg))
		d.value(h.key)
		if s.Err() != nil {
			return false
		}
		p, from = s.Offset(), int(h.end)
	}
	if seg := tdata[from:]; len(data)-p != len(seg) || !hasAt(data, p, seg) {
		return false
	}
	s.SetOffset(len(data))
	ev.kind, ev.hasType = t.typ, t.hasType
	if id := t.data[t.size:]; len(id) > 0 {
		ev.itemID = id
	}
	ev.outputIndex, ev.hasIndex = t.outputIndex, t.hasIndex
	ev.summaryIndex = t.summaryIndex
	return true
}

// hasAt reports whether data holds p at offset off.
func hasAt(data []byte, off int, p []byte) bool {
	return len(data)-off >= len(p) && string(data[off:off+len(p)]) == string(p)
}

package builtin

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// numberedLine matches a line copied from read output with its number.
var numberedLine = regexp.MustCompile(`^\s*\d+\t`)

// notFoundProblem explains why old (with LF endings) is not in content
// and shows the lines the model most likely meant.
func notFoundProblem(content string, idx lineIndex, old string) string {
	var b strings.Builder
	b.WriteString("old_text was not found in the file.")
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	numbered := true
	for _, l := range oldLines {
		if !numberedLine.MatchString(l) {
			numbered = false
			break
		}
	}
	if numbered {
		b.WriteString(" It seems to include line numbers from read output; leave out the number and the tab at the start of each line.")
	}
	fileLines := strings.Split(content, "\n")
	for i, l := range fileLines {
		fileLines[i] = strings.TrimSuffix(l, "\r")
	}
	if wins := whitespaceMatches(fileLines, oldLines, 3); len(wins) > 0 {
		b.WriteString(" It does occur when whitespace is ignored (indentation, tabs or spaces, trailing spaces differ). The file has:\n")
		for i, j := range wins {
			if i > 0 {
				b.WriteString("…\n")
			}
			writeNumbered(&b, fileLines, j, j+len(oldLines))
		}
		b.WriteString("Copy old_text exactly from these lines (without the line numbers).")
		return b.String()
	}
	anchor, wins := similarLines(fileLines, oldLines, 3)
	if len(wins) == 0 {
		b.WriteString(" Nothing similar is in the file either; read the file to see its current content.")
		return b.String()
	}
	fmt.Fprintf(&b, " The closest lines to %q are:\n", cutString(strings.TrimSpace(oldLines[anchor]), 80))
	for i, j := range wins {
		if i > 0 {
			b.WriteString("…\n")
		}
		from := max(0, j-anchor)
		writeNumbered(&b, fileLines, from, from+min(len(oldLines), 12))
	}
	b.WriteString("Read the file around these lines and copy old_text exactly.")
	return b.String()
}

// writeNumbered writes fileLines[from:to] (0-based) in read's format.
func writeNumbered(b *strings.Builder, fileLines []string, from, to int) {
	to = min(to, len(fileLines))
	if to-from > 20 {
		to = from + 20
	}
	for i := from; i < to; i++ {
		fmt.Fprintf(b, "%6d\t%s\n", i+1, cutString(fileLines[i], 300))
	}
}

// squash removes all white space from s.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// whitespaceMatches returns the 0-based first lines of up to n windows of
// fileLines that equal oldLines once white space is removed; the first
// and last old lines may be the end and start of a file line.
func whitespaceMatches(fileLines, oldLines []string, n int) []int {
	so := make([]string, len(oldLines))
	total := 0
	for i, l := range oldLines {
		so[i] = squash(l)
		total += len(so[i])
	}
	if total == 0 {
		return nil
	}
	k := len(so)
	var out []int
	sq := make(map[int]string)
	get := func(j int) string {
		s, ok := sq[j]
		if !ok {
			s = squash(fileLines[j])
			sq[j] = s
		}
		return s
	}
	for j := 0; j+k <= len(fileLines) && len(out) < n; j++ {
		if k == 1 {
			if so[0] != "" && strings.Contains(get(j), so[0]) {
				out = append(out, j)
			}
			continue
		}
		if !strings.HasSuffix(get(j), so[0]) {
			continue
		}
		ok := true
		for m := 1; m < k-1 && ok; m++ {
			ok = get(j+m) == so[m]
		}
		if ok && strings.HasPrefix(get(j+k-1), so[k-1]) {
			out = append(out, j)
		}
	}
	return out
}

// similarLines picks the longest old line as an anchor and returns its
// index and the 0-based file lines most similar to it (bigram overlap of
// at least one half), best first.
func similarLines(fileLines, oldLines []string, n int) (anchor int, out []int) {
	for i, l := range oldLines {
		if len(strings.TrimSpace(l)) > len(strings.TrimSpace(oldLines[anchor])) {
			anchor = i
		}
	}
	a := bigrams(strings.TrimSpace(oldLines[anchor]), nil)
	if len(a) == 0 {
		return anchor, nil
	}
	type scored struct {
		line  int
		score float64
	}
	var best []scored
	var buf []uint16
	for j, l := range fileLines {
		l = strings.TrimSpace(l)
		if len(l) < len(a)/3 || len(l) > len(a)*3+3 {
			continue
		}
		buf = bigrams(l, buf[:0])
		if len(buf) == 0 {
			continue
		}
		s := 2 * float64(common(a, buf)) / float64(len(a)+len(buf))
		if s >= 0.5 {
			best = append(best, scored{j, s})
		}
	}
	slices.SortStableFunc(best, func(x, y scored) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return 0
	})
	for i := 0; i < len(best) && i < n; i++ {
		out = append(out, best[i].line)
	}
	return anchor, out
}

// bigrams appends the sorted byte pairs of s to buf.
func bigrams(s string, buf []uint16) []uint16 {
	for i := 0; i+1 < len(s); i++ {
		buf = append(buf, uint16(s[i])<<8|uint16(s[i+1]))
	}
	slices.Sort(buf)
	return buf
}

// common counts the elements two sorted multisets share.
func common(a, b []uint16) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}

// cutString shortens s to about n bytes on a rune boundary.
func cutString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// Limits of the diff shown after an edit.
const (
	diffContext  = 2
	diffMaxLines = 12
	diffMaxBytes = 4000
)

// snippet renders a short unified-style diff of matches applied to
// content and counts the lines added and removed.
func snippet(content string, idx lineIndex, matches []match) (diff string, added, removed int) {
	type region struct {
		a, b int // whole lines of content
		ms   []match
	}
	lineEnd := func(off int) int {
		l := idx.line(off)
		if l < len(idx) {
			return idx[l]
		}
		return len(content)
	}
	var regions []region
	for _, m := range matches {
		a := idx.start(idx.line(m.start))
		b := lineEnd(max(m.start, m.end-1))
		if n := len(regions); n > 0 && a < regions[n-1].b {
			regions[n-1].b = max(regions[n-1].b, b)
			regions[n-1].ms = append(regions[n-1].ms, m)
			continue
		}
		regions = append(regions, region{a, b, []match{m}})
	}
	total := len(idx)
	if len(content) == 0 || content[len(content)-1] == '\n' {
		total--
	}
	lineText := func(n int) string { // 1-based line of content
		s := content[idx.start(n):lineEnd(idx.start(n))]
		return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	}
	var out strings.Builder
	delta := 0
	cut := false
	for _, r := range regions {
		var nb strings.Builder
		pos := r.a
		for _, m := range r.ms {
			nb.WriteString(content[pos:m.start])
			nb.WriteString(m.repl)
			pos = m.end
		}
		nb.WriteString(content[pos:r.b])
		oldL, newL := splitKeep(content[r.a:r.b]), splitKeep(nb.String())
		p := 0
		for p < len(oldL) && p < len(newL) && oldL[p] == newL[p] {
			p++
		}
		s := 0
		for s < len(oldL)-p && s < len(newL)-p && oldL[len(oldL)-1-s] == newL[len(newL)-1-s] {
			s++
		}
		chOld, chNew := oldL[p:len(oldL)-s], newL[p:len(newL)-s]
		removed += len(chOld)
		added += len(chNew)
		first := idx.line(r.a) + p // first changed line of content
		ctxFrom := max(1, first-diffContext)
		after := first + len(chOld)
		ctxTo := min(total+1, after+diffContext) // exclusive
		oldCount := first - ctxFrom + len(chOld) + ctxTo - after
		newCount := first - ctxFrom + len(chNew) + ctxTo - after
		if cut || out.Len() > diffMaxBytes {
			cut = true
			delta += len(chNew) - len(chOld)
			continue
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", ctxFrom, oldCount, ctxFrom+delta, newCount)
		for n := ctxFrom; n < first; n++ {
			out.WriteString(" " + cutString(lineText(n), 300) + "\n")
		}
		writeChanged(&out, "-", chOld)
		writeChanged(&out, "+", chNew)
		for n := after; n < ctxTo; n++ {
			out.WriteString(" " + cutString(lineText(n), 300) + "\n")
		}
		delta += len(chNew) - len(chOld)
	}
	if cut {
		out.WriteString("… (more changes; read the file to see them)\n")
	}
	return out.String(), added, removed
}

func writeChanged(b *strings.Builder, sign string, lines []string) {
	for i, l := range lines {
		if i == diffMaxLines {
			fmt.Fprintf(b, "%s… (%d more lines)\n", sign, len(lines)-i)
			return
		}
		l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
		b.WriteString(sign + cutString(l, 300) + "\n")
	}
}

// splitKeep splits s into lines that keep their line breaks.
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

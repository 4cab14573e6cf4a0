package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/reinhq/rein/tool"
)

// EditMaxBytes is the largest file edit changes; bigger files are left to
// bash (sed, patch).
const EditMaxBytes = 10 << 20

const bom = "\xef\xbb\xbf"

// EditOp is one replacement of an edit call.
type EditOp struct {
	OldText string `json:"old_text" jsonschema:"Exact text to replace, whitespace included; must occur once."`
	NewText string `json:"new_text" jsonschema:"Replacement text (empty deletes)."`
}

type editArgs struct {
	Path  string   `json:"path" jsonschema:"File in the workspace (relative or absolute)."`
	Edits []EditOp `json:"edits" jsonschema:"Replacements, all matched against the file before this call."`
}

// EditDetails is the Details of an edit result.
type EditDetails struct {
	Path    string `json:"path"`
	Edits   int    `json:"edits"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Diff    string `json:"diff"`
}

const editDescription = `Replace exact text in a workspace file. Each old_text must occur exactly once in the file as it was before the call (copy it from read output without line numbers). Edits must not overlap and apply all or none; an error shows the closest lines or every match. Returns a diff.`

// Edit returns the edit tool: exact, all-or-nothing text replacements.
func Edit(w Workspace) *tool.Tool {
	t := tool.MustNew("edit", editDescription, func(ctx context.Context, call *tool.Call, in editArgs) (tool.Result, error) {
		return editFile(ctx, w, in)
	})
	t.Mode = tool.Sequential
	return t
}

// match is one edit located in the original content.
type match struct {
	edit       int
	start, end int
	repl       string
}

func editFile(ctx context.Context, w Workspace, in editArgs) (tool.Result, error) {
	if len(in.Edits) == 0 {
		return tool.Result{}, errors.New("edits is empty; give at least one {old_text, new_text} pair")
	}
	if in.Path == "" {
		return tool.Result{}, errors.New("path is empty; give the file to edit")
	}
	p, err := w.openRooted(in.Path)
	if err != nil {
		return tool.Result{}, err
	}
	defer p.root.Close()
	abs := p.abs()
	shown := w.display(abs)
	f, fi, err := p.openRegular()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Result{}, fmt.Errorf("%s; to create a new file use write", w.notFound(abs))
	case errors.Is(err, ErrOutside):
		return tool.Result{}, err
	case err != nil:
		return tool.Result{}, fmt.Errorf("cannot edit %s: %v", shown, err)
	}
	defer f.Close()
	switch {
	case fi.IsDir():
		return tool.Result{}, fmt.Errorf("%s is a directory, not a file", shown)
	case !fi.Mode().IsRegular():
		return tool.Result{}, fmt.Errorf("%s is not a regular file (%s)", shown, fi.Mode().Type())
	case fi.Size() > EditMaxBytes:
		return tool.Result{}, fmt.Errorf("%s is %s, larger than the %s edit handles; use bash (sed, patch) for it", shown, humanSize(fi.Size()), humanSize(EditMaxBytes))
	}
	raw, err := io.ReadAll(io.LimitReader(f, EditMaxBytes+1))
	if text, handled, terr := w.readThrough(ctx, p); handled || terr != nil {
		raw, err = []byte(text), terr
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot read %s: %v", shown, err)
	}
	if len(raw) > EditMaxBytes {
		return tool.Result{}, fmt.Errorf("%s is %s, larger than the %s edit handles; use bash (sed, patch) for it", shown, humanSize(int64(len(raw))), humanSize(EditMaxBytes))
	}
	if looksBinary(raw[:min(len(raw), sniffSize)]) {
		return tool.Result{}, fmt.Errorf("%s is a binary file (%s); edit only changes text files", shown, humanSize(int64(len(raw))))
	}
	content := string(raw)
	prefix := ""
	if strings.HasPrefix(content, bom) {
		prefix, content = bom, content[len(bom):]
	}
	idx := newLineIndex(content)
	crlf := dominantCRLF(content)

	var problems []string
	var matches []match
	for i, e := range in.Edits {
		label := ""
		if len(in.Edits) > 1 {
			label = fmt.Sprintf("edit %d: ", i+1)
		}
		m, problem := locate(content, idx, crlf, e)
		if problem != "" {
			problems = append(problems, label+problem)
			continue
		}
		m.edit = i
		matches = append(matches, m)
	}
	if len(problems) == 0 {
		slices.SortFunc(matches, func(a, b match) int { return a.start - b.start })
		for k := 1; k < len(matches); k++ {
			a, b := matches[k-1], matches[k]
			if b.start < a.end {
				problems = append(problems, fmt.Sprintf("edits %d and %d overlap (both change line %d); merge them into one edit",
					min(a.edit, b.edit)+1, max(a.edit, b.edit)+1, idx.line(b.start)))
			}
		}
	}
	if len(problems) > 0 {
		return tool.Result{}, fmt.Errorf("%s was not changed.\n%s", shown, strings.Join(problems, "\n\n"))
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}

	var b strings.Builder
	b.Grow(len(content) + 256)
	pos := 0
	for _, m := range matches {
		b.WriteString(content[pos:m.start])
		b.WriteString(m.repl)
		pos = m.end
	}
	b.WriteString(content[pos:])
	updated := b.String()

	mode := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	if err := w.write(ctx, p, []byte(prefix+updated), mode); err != nil {
		if errors.Is(err, ErrOutside) {
			return tool.Result{}, err
		}
		return tool.Result{}, fmt.Errorf("cannot write %s: %v", shown, err)
	}
	diff, added, removed := snippet(content, idx, matches)
	d := EditDetails{Path: shown, Edits: len(matches), Added: added, Removed: removed, Diff: diff}
	text := fmt.Sprintf("Edited %s: applied %s (+%d −%d lines).\n%s", shown, plural(len(matches), "edit"), added, removed, diff)
	return tool.Result{Content: tool.Text(text).Content, Details: d}, nil
}

// locate finds the one place e.OldText occurs in content. It tries the
// text as given (with LF line endings) and, for multi-line text, with
// CRLF endings; the replacement gets the endings of the form that
// matched. problem explains a failure.
func locate(content string, idx lineIndex, crlf bool, e EditOp) (m match, problem string) {
	if e.OldText == "" {
		return m, "old_text is empty; give the exact text to replace (to create a file or replace all of it, use write)"
	}
	oldLF := strings.ReplaceAll(e.OldText, "\r\n", "\n")
	newLF := strings.ReplaceAll(e.NewText, "\r\n", "\n")
	if oldLF == newLF {
		return m, "old_text and new_text are the same; there is nothing to change"
	}
	type variant struct{ old, repl string }
	var variants []variant
	if strings.Contains(oldLF, "\n") {
		variants = []variant{{oldLF, newLF}, {toCRLF(oldLF), toCRLF(newLF)}}
		if crlf {
			variants[0], variants[1] = variants[1], variants[0]
		}
	} else {
		repl := newLF
		if crlf {
			repl = toCRLF(newLF)
		}
		variants = []variant{{oldLF, repl}}
	}
	const maxShown = 10
	var at []int
	for _, v := range variants {
		found := findAll(content, v.old, maxShown+1)
		if len(found) > 0 && len(at) == 0 {
			m = match{start: found[0], end: found[0] + len(v.old), repl: v.repl}
		}
		at = append(at, found...)
	}
	switch {
	case len(at) == 1:
		return m, ""
	case len(at) == 0:
		return m, notFoundProblem(content, idx, oldLF)
	}
	slices.Sort(at)
	lines := make([]string, 0, len(at))
	for i, p := range at {
		if i == maxShown {
			break
		}
		lines = append(lines, fmt.Sprint(idx.line(p)))
	}
	more := ""
	if len(at) > maxShown {
		more = " and more"
		return m, fmt.Sprintf("old_text was found more than %d times (at lines %s%s); include more surrounding lines in old_text so it matches exactly once",
			maxShown, strings.Join(lines, ", "), more)
	}
	return m, fmt.Sprintf("old_text was found %d times (at lines %s); include more surrounding lines in old_text so it matches exactly once",
		len(at), strings.Join(lines, ", "))
}

// findAll returns the offsets of up to n occurrences of sub in s,
// overlapping ones included.
func findAll(s, sub string, n int) []int {
	var out []int
	for from := 0; len(out) < n; {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			break
		}
		out = append(out, from+i)
		from += i + 1
	}
	return out
}

func toCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// dominantCRLF reports whether most line breaks in s are CRLF.
func dominantCRLF(s string) bool {
	crlf := strings.Count(s, "\r\n")
	return crlf > 0 && crlf*2 >= strings.Count(s, "\n")
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets at which lines start

func newLineIndex(s string) lineIndex {
	idx := lineIndex{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the 1-based line holding offset off.
func (x lineIndex) line(off int) int {
	return sort.Search(len(x), func(i int) bool { return x[i] > off })
}

// start returns the offset at which 1-based line n starts.
func (x lineIndex) start(n int) int { return x[n-1] }

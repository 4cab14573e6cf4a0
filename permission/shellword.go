package permission

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// The words of a parsed command: what each word says once expanded,
// whether it can be known before the command runs, and the source text
// of a node.

// fields appends the words w expands to: brace expansion is done, and an
// unquoted variable of known value is split on blanks.
func (a *analyser) fields(c *command, w *syntax.Word) {
	if !hasBrace(w) {
		a.field(c, w)
		return
	}
	cp := *w
	cp.Parts = append([]syntax.WordPart(nil), w.Parts...)
	if !syntax.SplitBraces(&cp) {
		a.field(c, w)
		return
	}
	ws := expand.Braces(&cp)
	if len(ws) > maxBraces {
		c.words = append(c.words, source(w))
		c.lit = append(c.lit, false)
		return
	}
	for _, w := range ws {
		a.field(c, w)
	}
}

// field appends the words one brace-free word expands to.
func (a *analyser) field(c *command, w *syntax.Word) {
	if len(w.Parts) == 1 {
		if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && simpleParam(pe) {
			if v, known := a.vars[pe.Param.Value]; known && !a.ifs {
				for _, f := range strings.Fields(v) {
					c.words = append(c.words, f)
					c.lit = append(c.lit, true)
				}
				return
			}
		}
	}
	v, ok := a.word(w)
	c.words = append(c.words, v)
	c.lit = append(c.lit, ok)
}

// plainWord reports whether w holds no command substitution or other
// node that can run something: quotes and literals only.
func plainWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

func hasBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

func simpleParam(x *syntax.ParamExp) bool {
	return x.Param != nil && x.Exp == nil && x.Index == nil && x.Repl == nil && !x.Length && !x.Excl && x.Slice == nil && !x.Short && x.Names == 0
}

// operands are the words that do not start with a dash.
func operands(words []string) []string {
	var out []string
	for _, w := range words {
		if !strings.HasPrefix(w, "-") || w == "-" {
			out = append(out, w)
		}
	}
	return out
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return out
}

func isProcSubst(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	_, ok := w.Parts[0].(*syntax.ProcSubst)
	return ok
}

// word evaluates w: quotes removed, known variables expanded, $HOME and
// ~ kept as "~". ok is false when some part cannot be known statically;
// the result then holds the source text of those parts.
func (a *analyser) word(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			return unescape(l.Value, false), true // most words: no builder
		}
	}
	var b strings.Builder
	ok := a.parts(&b, w.Parts, false)
	return b.String(), ok
}

func (a *analyser) parts(b *strings.Builder, parts []syntax.WordPart, quoted bool) bool {
	ok := true
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, quoted))
		case *syntax.SglQuoted:
			if x.Dollar {
				// $'…' escapes can spell any name: not taken as known.
				ok = false
				b.WriteString(source(x))
				continue
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if !a.parts(b, x.Parts, true) {
				ok = false
			}
		case *syntax.ParamExp:
			if simpleParam(x) {
				if x.Param.Value == "HOME" {
					b.WriteString("~")
					continue
				}
				if v, known := a.vars[x.Param.Value]; known && (quoted || !a.ifs) {
					b.WriteString(v)
					continue
				}
			}
			ok = false
			b.WriteString(source(x))
		default:
			ok = false
			b.WriteString(source(x))
		}
	}
	return ok
}

func source(n syntax.Node) string {
	var buf bytes.Buffer
	syntax.NewPrinter().Print(&buf, n)
	return buf.String()
}

// unescape removes the backslashes of a literal: before any character
// outside quotes, before $ ` " \ inside double quotes.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!quoted || strings.IndexByte("$`\"\\", s[i+1]) >= 0) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

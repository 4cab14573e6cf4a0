// Package injection defends the model against instructions planted in
// text it did not get from the user: context files (AGENTS.md and the
// like) and the output of external tools (MCP servers, web fetches).
//
// Scan looks for three signs: phrases that try to override the system
// prompt, invisible or direction-changing Unicode characters, and
// commands that would send secrets out (curl/wget with a $VARIABLE, URLs
// carrying a key). ContextFile turns a scanned file into what the model
// is shown: the file with a warning, or a placeholder when the policy
// withholds flagged files. Wrap marks external content as untrusted with
// delimiters the content cannot forge, and Rule is the sentence for the
// stable system prompt that tells the model what the delimiters mean.
//
// Scanning finds the common, known shapes of an attack; a determined
// author can phrase an injection it does not match. The wrapping and the
// rule, and the sandbox and permissions around tools, are the defences
// that do not depend on spotting it.
package injection

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Kind is the sort of sign a Finding reports.
type Kind string

const (
	KindInjection    Kind = "injection"
	KindInvisible    Kind = "invisible"
	KindExfiltration Kind = "exfiltration"
	// KindConfig is text that asks for a change to the configuration
	// that decides what runs and how it is confined: rein's .rein/ and
	// security.json, git's hooks and code-running options, an agent's
	// .claude/settings.json or .mcp.json, the workspace's trust.
	KindConfig Kind = "config"
)

// Finding is one sign of injection in a text.
type Finding struct {
	Kind Kind `json:"kind"`
	// What names the pattern in words.
	What string `json:"what"`
	// Line is the 1-based line it is on.
	Line int `json:"line"`
	// Excerpt is the matched text (invisible characters shown as U+XXXX).
	Excerpt string `json:"excerpt"`
}

func (f Finding) String() string {
	return fmt.Sprintf("line %d: %s (%s): %q", f.Line, f.What, f.Kind, f.Excerpt)
}

type rule struct {
	kind Kind
	what string
	re   *regexp.Regexp
}

var rules = sync.OnceValue(func() []rule {
	return []rule{
		{KindInjection, "asks to ignore previous instructions", regexp.MustCompile(`(?i)\b(ignore|forget|disregard|skip)\s+(all\s+|any\s+|the\s+|your\s+)*(previous|prior|above|earlier|preceding|system)\s+(instructions|prompts?|rules|messages|directions|guidance|commands)`)},
		{KindInjection, "asks to forget everything before it", regexp.MustCompile(`(?i)\b(forget|ignore|disregard)\s+(everything|all|anything)\s+(you\s+(were|have\s+been)\s+told|(that\s+)?(came\s+|was\s+said\s+)?(above|before|earlier|previously))`)},
		{KindInjection, "announces a new system prompt", regexp.MustCompile(`(?i)\b(new|updated|revised|real|actual)\s+system\s+(prompt|instructions|message)`)},
		{KindInjection, "tries to change the assistant's identity", regexp.MustCompile(`(?i)\byou\s+are\s+now\s+(a|an|the|in|no\s+longer|DAN)\b`)},
		{KindInjection, "names a jailbreak (DAN, developer mode)", regexp.MustCompile(`(?i)\bdo\s+anything\s+now\b|\bjailbr(eak|oken)\b|\b(developer|god|admin|debug|dan)\s+mode\s+(is\s+)?(enabled|activated|on)\b|\bin\s+(developer|god)\s+mode\s+you\b`)},
		{KindInjection, "asks to act without restrictions", regexp.MustCompile(`(?i)\b(pretend|imagine|act\s+as\s+if)\s+(that\s+)?you\s+(have|had)\s+no\s+(restrictions|rules|limits|filters|guidelines)|\bno\s+(rules|restrictions)\s+(or|and)\s+(filters|limits|restrictions)\b|\b(unrestricted|unfiltered|uncensored)\s+(assistant|ai|mode|model)\b`)},
		{KindInjection, "claims to override the user or the rules", regexp.MustCompile(`(?i)\b(system|admin|developer)\s+override\b|\btakes?\s+precedence\s+over\b|\bsupersedes?\s+(all|any|your|the)\b|\bnew\s+instructions\s*:|\byour\s+(real|true|actual|new)\s+(task|objective|goal|instructions?|purpose)\s+(is|are)\b|\b(stop|cease)\s+following\s+(your|the|all)\s+(instructions|rules)|\bfollow\s+only\s+the\s+instructions\s+in\s+this\b`)},
		{KindInjection, "asks to ignore the user's request", regexp.MustCompile(`(?i)\b(ignore|disregard)\s+(the\s+)?user'?s?\s+(request|question|instructions|message)`)},
		{KindInjection, "asks for the system prompt", regexp.MustCompile(`(?i)\b(reveal|print|show|output|repeat|leak)\s+(me\s+)?(your|the)\s+(system\s+prompt|hidden\s+instructions|initial\s+instructions)`)},
		{KindInjection, "asks to disregard or override the rules", regexp.MustCompile(`(?i)\b(disregard|override|bypass)\s+(your|all|any|the)\s+(rules|instructions|guidelines|restrictions|safety|system)`)},
		{KindInjection, "asks to hide actions from the user", regexp.MustCompile(`(?i)\b(do\s+not|don't|never)\s+(tell|inform|mention\s+(this|it)\s+to|show)\s+(the\s+)?user`)},
		{KindInjection, "fakes a conversation role marker", regexp.MustCompile(`(?im)^\s*(<\|?(system|im_start)\|?>|\[\s*system\s*\]|###\s*system\s*:|</?(system|user|assistant)>|\[/?INST\])`)},
		{KindInjection, "asks to decode text and follow it", regexp.MustCompile(`(?i)\bdecode\b[^\n]{0,40}\b(and|then)\s+(follow|execute|run|obey)`)},
		{KindInjection, "asks to ignore instructions (not in English)", regexp.MustCompile(`(?i)\b(ignora|ignore|olvida|olvide)\s+(todas?\s+)?(las\s+instrucciones|lo\s+anterior|todo\s+lo\s+anterior|las\s+indicaciones)|\bignora\s+(tutte\s+)?le\s+istruzioni|\b(ignore|ignora|esque[çc]a)\s+(todas\s+)?as\s+instru[çc]|\b(ignore[zs]?|oublie[zs]?)\s+(toutes\s+)?(les\s+instructions|tout\s+ce\s+qui\s+pr[ée]c[èe]de)|\b(vergiss|vergessen\s+sie|ignorier\w*)\b[^\n]{0,30}(anweisungen|regeln|instruktionen|vorgaben)|(игнорируй|проигнорируй|забудь)[^\n]{0,30}(инструкци|указани|правил)|(忽略|无视|忘记|忘掉|無視)[^\n]{0,10}(指令|指示|说明|提示|規則|规则)|(指示|命令|指令)[^\n]{0,10}(無視|忘れ)|(지시|명령|지침)[^\n]{0,10}(무시|잊)`)},
		{KindConfig, "asks to change rein's, git's or an agent's configuration", regexp.MustCompile(`(?i)\b(write|create|add|update|edit|modify|change|overwrite|append|set|put|echo|printf|tee)\b[^\n]{0,100}(\.rein/|\bsecurity\.json|\.claude/settings|\.git/hooks/|\.git/config\b|\.mcp\.json)`)},
		{KindConfig, "turns the sandbox off", regexp.MustCompile(`(?i)"sandbox"\s*:\s*"off"`)},
		{KindConfig, "sets a git option that runs programs", regexp.MustCompile(`(?i)\bcore\.fsmonitor\b|\bgit\s+(-c\s+|config\b)[^\n]{0,40}\b(core\.(hookspath|sshcommand|askpass|pager|editor)|alias\.\w+\s*=?\s*["']?!|filter\.\w+\.(clean|smudge|process)|credential\.helper)`)},
		{KindConfig, "asks to trust the workspace", regexp.MustCompile("(?i)\\b(run|execute)\\s+`?rein\\s+trust\\b")},
		{KindExfiltration, "sends secrets somewhere", regexp.MustCompile(`(?i)\b(send|post|upload|exfiltrate|transmit|forward)\s+(all\s+|the\s+|your\s+)*(environment\s+variables|env\s+vars|secrets|credentials|api\s+keys?|tokens|\.env|ssh\s+keys?)\b[^\n]{0,40}\b(to|at)\b`)},
		{KindExfiltration, "sends a variable out with curl or wget", regexp.MustCompile(`(?i)\b(curl|wget|nc|ncat)\b[^\n]*\$\{?[A-Za-z_][A-Za-z0-9_]*`)},
		{KindExfiltration, "puts a secret variable in a URL", regexp.MustCompile(`(?i)https?://[^\s"']*\$\{?[A-Za-z_]*(KEY|SECRET|TOKEN|PASSWORD)`)},
		{KindExfiltration, "reads a process's environment", regexp.MustCompile(`/proc/(\$\w+|\d+|self|\*|\$\{?\w+\}?)/environ`)},
		{KindExfiltration, "reads credentials to send them", regexp.MustCompile(`(?i)(cat|base64|tar|scp|curl[^\n]*-d\s*@)[^\n]*(\.ssh/id_|\.aws/credentials|\.netrc|/proc/[^\s]*/environ|\.env\b)`)},
	}
})

// invisible reports characters that change what a reader sees: zero-width
// characters, bidirectional controls, the BOM inside text, tag
// characters (which can spell hidden ASCII) and other format controls.
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, // zero-width space … right-to-left mark
		r >= 0x202A && r <= 0x202E, // bidi embeddings and overrides
		r >= 0x2060 && r <= 0x2064, // word joiner, invisible operators
		r >= 0x2066 && r <= 0x2069, // bidi isolates
		r == 0xFEFF, r == 0x00AD, r == 0x180E,
		r >= 0xE0000 && r <= 0xE007F: // tag characters
		return true
	}
	return false
}

// Scan returns the signs of injection in text, in order of position.
// A BOM at the very start of the text is not counted.
func Scan(text string) []Finding {
	var out []Finding
	lineOf := func(off int) int { return strings.Count(text[:off], "\n") + 1 }
	body := strings.TrimPrefix(text, "\uFEFF")
	shift := len(text) - len(body)
	count := 0
	first := -1
	for i, r := range body {
		if r == utf8.RuneError || !invisible(r) {
			continue
		}
		if first < 0 {
			first = i
		}
		count++
	}
	if count > 0 {
		out = append(out, Finding{Kind: KindInvisible, What: fmt.Sprintf("%d invisible or direction-changing characters", count),
			Line: lineOf(first + shift), Excerpt: showInvisible(excerpt(body, first))})
	}
	// Match on the text with invisible characters removed, so they cannot
	// split a phrase to hide it.
	clean := StripInvisible(text)
	out = append(out, matchRules(clean)...)
	return append(out, scanEncoded(clean)...)
}

// matchRules returns the phrase findings in clean text.
func matchRules(clean string) []Finding {
	var out []Finding
	for _, ru := range rules() {
		for _, m := range ru.re.FindAllStringIndex(clean, 3) {
			out = append(out, Finding{Kind: ru.kind, What: ru.what, Line: strings.Count(clean[:m[0]], "\n") + 1, Excerpt: trim(clean[m[0]:m[1]])})
		}
	}
	return out
}

// StripInvisible removes the characters Scan reports as invisible.
func StripInvisible(s string) string {
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)
}

func excerpt(s string, at int) string {
	start := max(0, at-20)
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	end := min(len(s), at+40)
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	return s[start:end]
}

func showInvisible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func trim(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

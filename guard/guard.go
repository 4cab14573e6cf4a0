package guard

import (
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
	"mvdan.cc/sh/v3/syntax"
)

// Action is what a decision does with a call.
type Action uint8

// The actions, from the mildest to the strongest.
const (
	// Allow runs the call untouched.
	Allow Action = iota
	// Hint runs the call and appends a short note after its result.
	Hint
	// Warn runs the call and puts the warning before its result.
	Warn
	// Cached answers the call from the read cache without running it.
	Cached
	// Block does not run the call; the model is told why and what to do.
	Block
	// Stop does not run the call and ends the run.
	Stop
)

func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Hint:
		return "hint"
	case Warn:
		return "warn"
	case Cached:
		return "cached"
	case Block:
		return "block"
	case Stop:
		return "stop"
	}
	return "unknown"
}

// runs reports whether a call decided so runs.
func (a Action) runs() bool { return a == Allow || a == Hint || a == Warn }

// Call is one tool call as the rules see it.
type Call struct {
	// Tool is the name the model called.
	Tool string
	// Args is the arguments object the model produced.
	Args json.RawMessage
	// Turn is the 1-based turn of the run the call belongs to.
	Turn int
	// Unknown marks a call to a tool that does not exist.
	Unknown bool
	// Recorded is, in replay, the result the call produced when it was
	// recorded. In Offline mode the read cache compares it with the cached
	// copy to notice files that changed by other means; otherwise it is
	// ignored.
	Recorded *tool.Result
}

// Decision is the verdict of the rules on one call.
type Decision struct {
	Action Action
	// Rule is the id of the rule that decided, or "" when every rule
	// allowed the call ("passthrough" for exempt tools).
	Rule string
	// Message is what the model is told: the note (Hint), the warning
	// (Warn), the reason and
	// what to do instead (Block), the stop reason (Stop) or the cache
	// marker (Cached). Empty for Allow.
	Message string
	// Content is the result to return for Cached: the marker followed by
	// the cached content.
	Content []llm.Content

	// Computed by Decide for Record.
	keyed bool
	epoch int
	key   uint64
	bash  *bashInfo
	poll  bool
	// the file a read or a bash view looks at (resolved; "" for other
	// calls) and the part of it, for the read cache (see viewKey).
	path string
	view readView
}

// Options configures a Guard.
type Options struct {
	// Config holds the rule settings; nil means DefaultConfig. Zero fields
	// take their defaults.
	Config *Config
	// Workdir is the workspace root: relative read paths are resolved
	// against it for the read cache.
	Workdir string
	// Tools lists the tools the model has. The unknown-tool message names
	// them and mismatch only redirects to a tool in the list. Nil means
	// rein's coding toolset (read, write, edit, bash, grep, find, ls).
	Tools []string
	// Offline makes the read cache judge freshness from recorded results
	// (Call.Recorded) instead of the file system: the mode of replay.
	Offline bool
	// Stat returns a file's information for the read cache; nil means
	// os.Stat.
	Stat func(name string) (fs.FileInfo, error)
}

// Guard holds the state of the rules. Every call goes through Decide
// before it runs and Record after; Middleware composes the two around a
// tool handler. A Guard is safe for concurrent use (the calls of a
// parallel batch are decided at the same time). One Guard may serve one
// run or several in sequence (a harness's prompts): a turn number lower
// than the last one starts a new run, whose reads are not served from
// the copies of earlier runs; the other rules see the calls of earlier
// runs as recent history.
type Guard struct {
	s        settings
	opts     Options
	tools    map[string]bool
	toolList string
	parsers  sync.Pool

	bashMu sync.Mutex
	bash   map[string]*bashInfo

	mu sync.Mutex
	// turn is the turn of the latest call; cascade counts restart with it.
	// epoch counts runs: it grows when the turn number goes back (a new run
	// of the same guard), and read-cache copies of another epoch expire.
	turn, epoch int
	// cascade: the tool (and bash command) of the current streak.
	casTool, casSub string
	casN            int
	// error_retry: the current streak of identical failures, by tool.
	errs map[string]*errStreak
	// read_cache by resolved path.
	files map[string]*fileViews
	// loop detectors: a ring of the latest calls.
	hist     []record
	histLen  int
	histNext int
	// available tools as the registry listed them in an unknown-tool error.
	listed string
	// mismatch hints given, by kind of command. They are given once per
	// guard: a harness keeps one guard per session, and a hint given in an
	// earlier run of the session is still in the conversation.
	hinted map[string]bool
	// loop warnings given, by call key: a warning is given once per
	// streak, not at every call of it.
	warned map[uint64]string
	// outputs: the last output of each call, by call key (same_output).
	outputs map[uint64]output
}

// codingTools are rein's coding toolset, assumed when Options.Tools is nil.
var codingTools = [...]string{"read", "write", "edit", "bash", "grep", "find", "ls"}

// New returns a Guard for one run.
func New(opts Options) *Guard {
	cfg := DefaultConfig()
	if opts.Config != nil {
		cfg = *opts.Config
	}
	g := &Guard{s: resolve(cfg), opts: opts, bash: map[string]*bashInfo{}, files: map[string]*fileViews{}, errs: map[string]*errStreak{}, hinted: map[string]bool{}, warned: map[uint64]string{}, outputs: map[uint64]output{}}
	g.hist = make([]record, g.s.history)
	names := opts.Tools
	if names == nil {
		names = codingTools[:]
	}
	g.tools = make(map[string]bool, len(names))
	for _, n := range names {
		g.tools[n] = true
	}
	g.toolList = strings.Join(names, ", ")
	g.parsers.New = func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }
	return g
}

func (g *Guard) hasTool(name string) bool { return g.tools[name] }

func (g *Guard) on(rule string) bool { return !g.s.off[rule] }

// Decide returns the verdict of the rules on c, evaluated in order:
// passthrough, error_retry, read_cache, cascade, mismatch, then the loop
// detectors; the first rule that does not allow the call decides, except
// that a circuit-breaker stop overrides every other verdict. Each Decide
// must be followed by one Record for the same call.
func (g *Guard) Decide(c Call) Decision {
	if g.s.passes(c.Tool) {
		return Decision{Rule: RulePassthrough}
	}
	d := Decision{keyed: true, key: callKey(c.Tool, c.Args)}
	if c.Tool == "bash" {
		d.bash = g.bashInfo(c.Args)
	}
	d.poll = isPoll(c.Tool, c.Args, d.bash)
	if c.Tool == "read" || d.bash != nil {
		var buf [512]byte
		if v, p, ok := g.viewKey(buf[:0], &c, d.bash, d.key); ok {
			d.view, d.path = v, string(p)
		}
	}
	var hit cacheHit
	if d.path != "" && g.on(RuleReadCache) {
		hit = g.lookupView(&c, d.view, d.path)
	}
	binary := g.on(RuleMismatch) && g.binaryView(&c, d.bash)

	g.mu.Lock()
	defer g.mu.Unlock()
	if c.Turn != g.turn {
		if c.Turn < g.turn {
			g.epoch++
		}
		g.turn, g.casTool, g.casSub, g.casN = c.Turn, "", "", 0
	}
	d.epoch = g.epoch
	sub := ""
	if d.bash != nil {
		sub = d.bash.key
	}
	if g.casTool == c.Tool && g.casSub == sub {
		g.casN++
	} else {
		g.casTool, g.casSub, g.casN = c.Tool, sub, 1
	}

	loop := g.detectLoops(&c, d.key, d.poll)
	if loop.Action == Stop {
		return d.with(loop)
	}
	if r, ok := g.decideErrorRetry(&c, d.key); ok {
		return d.with(r)
	}
	if r, ok := g.decideReadCache(&c, hit); ok {
		return d.with(r)
	}
	if r, ok := g.decideCascade(&c, sub); ok {
		return d.with(r)
	}
	// A mismatch block outranks a loop warning; a hint, the mildest
	// verdict, gives way to any loop verdict.
	if g.on(RuleMismatch) && (g.s.block || loop.Action == Allow) {
		if r, ok := g.decideMismatch(&c, d.bash, binary); ok {
			return d.with(r)
		}
	}
	if loop.Action != Allow {
		return d.with(loop)
	}
	return d
}

// with returns d carrying the verdict of r.
func (d Decision) with(r Decision) Decision {
	d.Action, d.Rule, d.Message, d.Content = r.Action, r.Rule, r.Message, r.Content
	return d
}

// Record reports how call c, decided as d, ended: res is the tool's
// result when d let it run (Allow or Warn), or what the model was told
// instead (Cached, Block, Stop). Replay passes the recorded result with
// an Allow decision, since the recorded call did run.
func (g *Guard) Record(c Call, d Decision, res tool.Result) {
	g.record(&c, &d, &res, stamp{}, false)
}

func (g *Guard) record(c *Call, d *Decision, res *tool.Result, st stamp, stamped bool) {
	if g.s.passes(c.Tool) {
		return
	}
	key := d.key
	if !d.keyed {
		key = callKey(c.Tool, c.Args)
	}
	bi := d.bash
	if bi == nil && c.Tool == "bash" {
		bi = g.bashInfo(c.Args)
	}
	text := res.Text()
	// A call whose output same_output replaced did run; its output
	// repeats an earlier one and is not remembered as a newer copy.
	same := d.Rule == RuleSameOutput
	ran := d.Action.runs() || same
	var rh uint64
	if ran || d.Action == Cached {
		rh = resultHash(res.IsError, text)
	}
	var view readView
	var path string
	if ran && !same && !res.IsError {
		view, path = d.view, d.path
		if !d.keyed && (c.Tool == "read" || c.Tool == "bash") {
			var buf [512]byte
			if v, p, ok := g.viewKey(buf[:0], c, bi, key); ok {
				view, path = v, string(p)
			}
		}
		if path != "" && !g.opts.Offline && !stamped {
			st, stamped = g.stat(path)
		}
	}

	g.mu.Lock()
	defer g.mu.Unlock()
	epoch := d.epoch
	if !d.keyed {
		epoch = g.epoch
	}
	g.trackErrors(c, key, ran, d.Action == Cached && !same, res.IsError, text, bi)
	if ran && !same {
		g.rememberOutput(key, c.Turn, epoch, res.IsError, text)
	}
	if ran {
		switch c.Tool {
		case "read":
			if path != "" {
				g.storeRead(path, view, c.Turn, epoch, res.Content, text, st, stamped)
			}
		case "write", "edit":
			if _, p := g.readTarget(c.Args); p != "" {
				delete(g.files, p)
			}
		case "bash":
			if bi == nil || bi.modifies {
				clear(g.files)
			} else if path != "" {
				g.storeRead(path, view, c.Turn, epoch, res.Content, text, st, stamped)
			}
		}
	}
	if !ran && d.Action != Cached {
		// The call did not run: nothing changed, so it repeats the last
		// result of the same call when there was one.
		if prev, ok := g.lastResult(key); ok {
			rh = prev
		} else {
			rh = resultHash(true, text)
		}
	}
	if c.Unknown && strings.Contains(text, "Available tools: ") {
		g.listed = availableTools(text)
	}
	g.push(record{key: key, res: rh, tool: c.Tool, unknown: c.Unknown, poll: d.poll})
}

// bashInfo returns the classification of the call's command, parsing it
// at most once per distinct command.
func (g *Guard) bashInfo(args []byte) *bashInfo {
	raw, ok := field(args, "command")
	if !ok {
		return &bashInfo{key: "bash", modifies: true}
	}
	g.bashMu.Lock()
	bi, ok := g.bash[string(raw)]
	g.bashMu.Unlock()
	if ok {
		return bi
	}
	cmd, ok := stringValue(raw)
	if !ok {
		bi = &bashInfo{key: "bash", modifies: true}
	} else {
		p := g.parsers.Get().(*syntax.Parser)
		bi = classifyBash(p, cmd)
		g.parsers.Put(p)
	}
	g.bashMu.Lock()
	if len(g.bash) >= 1024 {
		clear(g.bash)
	}
	g.bash[string(raw)] = bi
	g.bashMu.Unlock()
	return bi
}

func (g *Guard) stat(path string) (stamp, bool) {
	stat := g.opts.Stat
	if stat == nil {
		stat = os.Stat
	}
	fi, err := stat(path)
	if err != nil {
		return stamp{}, false
	}
	return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}, true
}

// errorLine picks the line of an error output that best names the error:
// the first line that mentions a failure, else the last line, skipping
// rules made of = or - signs.
func errorLine(s string) string {
	last := ""
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if line == "" || decorative(line) {
			continue
		}
		l := strings.ToLower(line)
		for _, w := range failureWords {
			if strings.Contains(l, w) {
				return shorten(line, 160)
			}
		}
		last = line
	}
	return shorten(last, 160)
}

var failureWords = [...]string{"fail", "error", "exception", "panic", "not found", "no such", "denied", "cannot", "can't", "undefined", "invalid", "refused", "timed out", "traceback"}

// decorative reports whether a line is mostly rule characters.
func decorative(line string) bool {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '=', '-', '_', '*', '#', '~', ' ':
			n++
		}
	}
	return n*10 >= len(line)*4
}

// availableTools extracts the list from rein's unknown-tool error.
func availableTools(text string) string {
	i := strings.Index(text, "Available tools: ")
	s := text[i+len("Available tools: "):]
	if j := strings.IndexAny(s, "\n"); j >= 0 {
		s = s[:j]
	}
	return shorten(strings.TrimSuffix(strings.TrimSpace(s), "."), 300)
}

// describe names a call in messages: the tool, and the command for bash.
func describe(c *Call) string {
	if c.Tool == "bash" {
		if cmd, ok := fieldString(c.Args, "command"); ok {
			return "bash `" + shorten(strings.TrimSpace(cmd), 60) + "`"
		}
	}
	return c.Tool
}

// isPoll reports whether a call checks on something running: tools named
// like status or poll checks, a process tool asked to poll, or a bash
// status command.
func isPoll(name string, args []byte, bi *bashInfo) bool {
	if bi != nil {
		return bi.poll
	}
	if containsFold(name, "status") || containsFold(name, "poll") ||
		len(name) > 6 && equalFold(name[len(name)-6:], "output") {
		return true
	}
	if name == "process" {
		if a, ok := field(args, "action"); ok {
			switch string(a) {
			case `"poll"`, `"log"`, `"status"`:
				return true
			}
		}
	}
	return false
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if equalFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

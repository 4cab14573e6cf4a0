package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Rule ids, in the order the rules are evaluated. They appear in
// decisions, in replay output and in the "disable" list of the
// configuration ("loop" disables every loop detector).
const (
	RulePassthrough    = "passthrough"
	RuleErrorRetry     = "error_retry"
	RuleReadCache      = "read_cache"
	RuleSameOutput     = "same_output"
	RuleCascade        = "cascade"
	RuleMismatch       = "mismatch"
	RuleGenericRepeat  = "loop.generic_repeat"
	RuleUnknownTool    = "loop.unknown_tool"
	RulePollNoProgress = "loop.poll_no_progress"
	RulePingPong       = "loop.ping_pong"
	RuleCircuitBreaker = "loop.circuit_breaker"
)

// Rules returns every rule id in evaluation order.
func Rules() []string {
	return []string{RulePassthrough, RuleErrorRetry, RuleReadCache, RuleSameOutput, RuleCascade, RuleMismatch,
		RuleGenericRepeat, RuleUnknownTool, RulePollNoProgress, RulePingPong, RuleCircuitBreaker}
}

// Defaults.
const (
	DefaultCascadeThreshold        = 8
	DefaultErrorRetryLimit         = 2
	DefaultReadCacheTurns          = 6
	DefaultHistorySize             = 30
	DefaultWarningThreshold        = 10
	DefaultCriticalThreshold       = 20
	DefaultCircuitBreakerThreshold = 30
)

// Config is the guard configuration, in the shape of the file
// .rein/harness-config.json. Zero fields mean "the default"; files are
// merged over DefaultConfig with Merge.
type Config struct {
	// Tools holds per-tool settings by tool name; the name "*" sets them
	// for every tool without its own entry.
	Tools map[string]ToolConfig `json:"tools,omitempty"`
	// Disable lists rule ids to turn off.
	Disable []string `json:"disable,omitempty"`
	// LoopDetection tunes the loop detectors.
	LoopDetection LoopConfig `json:"loopDetection,omitzero"`
	// ErrorRetryLimit is how many identical failures in a row error_retry
	// lets through before blocking the next identical call.
	ErrorRetryLimit int `json:"errorRetryLimit,omitempty"`
	// ReadCacheTurns is how many turns after a read the read cache serves
	// the same view of the file.
	ReadCacheTurns int `json:"readCacheTurns,omitempty"`
	// Mismatch is what the mismatch rule does with a bash command that
	// only views what a dedicated tool shows better: "hint" (the default)
	// runs it and, when its output is longer than the tool's page (so the
	// tool would have sent less), appends a note naming the call to make,
	// once per kind of command in a session; "always" appends the note
	// whatever the output's length; "block" does not run the command.
	Mismatch string `json:"mismatch,omitempty"`
	// ReadCache is what a re-read of an unchanged file is answered with:
	// "reference" (the default) says the earlier result is still current
	// without sending it again; "copy" sends the cached copy again, as
	// pi's harness does, for applications that drop earlier results from
	// the conversation without telling the guard (see Guard.ForgetReads).
	ReadCache string `json:"readCache,omitempty"`
}

// Read cache modes, the values of Config.ReadCache.
const (
	// ReadCacheReference answers a re-read with a short note pointing at
	// the earlier result, which is still in the conversation.
	ReadCacheReference = "reference"
	// ReadCacheCopy answers a re-read with the cached copy.
	ReadCacheCopy = "copy"
)

// ToolConfig holds the settings of one tool.
type ToolConfig struct {
	// CascadeThreshold is how many consecutive calls of the tool one turn
	// may make; the next is blocked.
	CascadeThreshold int `json:"cascadeThreshold,omitempty"`
	// PassThrough exempts the tool from every rule.
	PassThrough *bool `json:"passThrough,omitempty"`
}

// LoopConfig tunes the loop detectors.
type LoopConfig struct {
	// HistorySize is how many recent calls the detectors look at.
	HistorySize int `json:"historySize,omitempty"`
	// WarningThreshold is the count at which a repeat is warned about (and
	// an unknown tool blocked).
	WarningThreshold int `json:"warningThreshold,omitempty"`
	// CriticalThreshold is the count at which a repeat without progress
	// is blocked.
	CriticalThreshold int `json:"criticalThreshold,omitempty"`
	// CircuitBreakerThreshold is the count of calls without progress at
	// which the run is stopped.
	CircuitBreakerThreshold int `json:"circuitBreakerThreshold,omitempty"`
}

// DefaultConfig returns the built-in configuration: every rule on, ask_user
// passed through.
func DefaultConfig() Config {
	pass := true
	return Config{
		Tools: map[string]ToolConfig{"ask_user": {PassThrough: &pass}},
		LoopDetection: LoopConfig{
			HistorySize:             DefaultHistorySize,
			WarningThreshold:        DefaultWarningThreshold,
			CriticalThreshold:       DefaultCriticalThreshold,
			CircuitBreakerThreshold: DefaultCircuitBreakerThreshold,
		},
		ErrorRetryLimit: DefaultErrorRetryLimit,
		ReadCacheTurns:  DefaultReadCacheTurns,
		Mismatch:        MismatchHint,
		ReadCache:       ReadCacheReference,
	}
}

// Merge returns c with the settings of over laid on top: tool entries
// field by field, disabled rules added, non-zero numbers replaced.
func (c Config) Merge(over Config) Config {
	out := c
	out.Tools = make(map[string]ToolConfig, len(c.Tools)+len(over.Tools))
	for k, v := range c.Tools {
		out.Tools[k] = v
	}
	for k, v := range over.Tools {
		cur := out.Tools[k]
		if v.CascadeThreshold != 0 {
			cur.CascadeThreshold = v.CascadeThreshold
		}
		if v.PassThrough != nil {
			cur.PassThrough = v.PassThrough
		}
		out.Tools[k] = cur
	}
	out.Disable = slices.Clone(c.Disable)
	for _, id := range over.Disable {
		if !slices.Contains(out.Disable, id) {
			out.Disable = append(out.Disable, id)
		}
	}
	setIf := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	setIf(&out.LoopDetection.HistorySize, over.LoopDetection.HistorySize)
	setIf(&out.LoopDetection.WarningThreshold, over.LoopDetection.WarningThreshold)
	setIf(&out.LoopDetection.CriticalThreshold, over.LoopDetection.CriticalThreshold)
	setIf(&out.LoopDetection.CircuitBreakerThreshold, over.LoopDetection.CircuitBreakerThreshold)
	setIf(&out.ErrorRetryLimit, over.ErrorRetryLimit)
	setIf(&out.ReadCacheTurns, over.ReadCacheTurns)
	if over.Mismatch != "" {
		out.Mismatch = over.Mismatch
	}
	if over.ReadCache != "" {
		out.ReadCache = over.ReadCache
	}
	return out
}

// Check returns the problems of a configuration as one error, or nil:
// unknown rule ids and numbers that are negative or out of order.
func (c Config) Check() error {
	var errs []error
	known := Rules()
	for _, id := range c.Disable {
		if id != "loop" && !slices.Contains(known, id) {
			errs = append(errs, fmt.Errorf("disable: unknown rule %q (rules: loop, %s)", id, strings.Join(known, ", ")))
		}
	}
	for name, t := range c.Tools {
		if t.CascadeThreshold < 0 {
			errs = append(errs, fmt.Errorf("tools.%s.cascadeThreshold is negative (%d)", name, t.CascadeThreshold))
		}
	}
	if c.Mismatch != "" && c.Mismatch != MismatchHint && c.Mismatch != MismatchAlways && c.Mismatch != MismatchBlock {
		errs = append(errs, fmt.Errorf("mismatch: unknown mode %q (use %q, %q or %q)", c.Mismatch, MismatchHint, MismatchAlways, MismatchBlock))
	}
	if c.ReadCache != "" && c.ReadCache != ReadCacheReference && c.ReadCache != ReadCacheCopy {
		errs = append(errs, fmt.Errorf("readCache: unknown mode %q (use %q or %q)", c.ReadCache, ReadCacheReference, ReadCacheCopy))
	}
	l := c.LoopDetection
	for _, f := range []struct {
		name string
		v    int
	}{{"loopDetection.historySize", l.HistorySize}, {"loopDetection.warningThreshold", l.WarningThreshold},
		{"loopDetection.criticalThreshold", l.CriticalThreshold}, {"loopDetection.circuitBreakerThreshold", l.CircuitBreakerThreshold},
		{"errorRetryLimit", c.ErrorRetryLimit}, {"readCacheTurns", c.ReadCacheTurns}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s is negative (%d)", f.name, f.v))
		}
	}
	if l.WarningThreshold > 0 && l.CriticalThreshold > 0 && l.CriticalThreshold < l.WarningThreshold {
		errs = append(errs, fmt.Errorf("loopDetection.criticalThreshold (%d) is below warningThreshold (%d)", l.CriticalThreshold, l.WarningThreshold))
	}
	if eff := DefaultConfig().Merge(c).LoopDetection; l.HistorySize > 0 {
		need, name := eff.CircuitBreakerThreshold, "circuitBreakerThreshold"
		if eff.CriticalThreshold > need {
			need, name = eff.CriticalThreshold, "criticalThreshold"
		}
		if l.HistorySize < need {
			errs = append(errs, fmt.Errorf("loopDetection.historySize (%d) is below %s (%d); the detectors look at the last %d calls so that it can be reached", l.HistorySize, name, need, need))
		}
	}
	return errors.Join(errs...)
}

// configFiles are where a workspace's configuration is looked for: rein's
// own file, then pi's when rein's is absent.
var configFiles = [...]string{".rein/harness-config.json", ".pi/harness-config.json"}

// FindConfig returns the configuration file the workspace uses, or ""
// when it has none.
func FindConfig(workdir string) string {
	for _, f := range configFiles {
		p := filepath.Join(workdir, f)
		if _, err := os.Stat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
	return ""
}

// Discover returns the configuration of the workspace at workdir: its
// .rein/harness-config.json, else .pi/harness-config.json, merged over
// DefaultConfig, and the file it came from ("" for none, with the
// defaults). A broken file gives a *ConfigError and the defaults, as
// LoadConfig does. Guard configuration is found here, by the package
// that defines it, so that what builds prompts need not know of guards.
func Discover(workdir string) (Config, string, error) {
	p := FindConfig(workdir)
	if p == "" {
		return DefaultConfig(), "", nil
	}
	cfg, err := LoadConfig(p)
	return cfg, p, err
}

// ConfigError says what is wrong with a configuration file. The
// configuration that comes with it is still usable.
type ConfigError struct {
	Path string
	Err  error
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("guard config %s: %v; using the defaults", e.Path, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// LoadConfig reads the file at path and merges it over DefaultConfig. It
// always returns a usable configuration: when the file is missing,
// unreadable or invalid, the error says why and the configuration is the
// default one. Fields it does not know are reported and ignored; invalid
// values are reported and replaced by defaults.
func LoadConfig(path string) (Config, error) {
	def := DefaultConfig()
	data, err := os.ReadFile(path)
	if err != nil {
		return def, &ConfigError{Path: path, Err: err}
	}
	var over Config
	if err := json.Unmarshal(data, &over); err != nil {
		return def, &ConfigError{Path: path, Err: fmt.Errorf("not valid JSON for this file: %w", err)}
	}
	var problems []error
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(new(Config)); err != nil {
		problems = append(problems, fmt.Errorf("%v (ignored)", err))
	}
	if err := over.Check(); err != nil {
		problems = append(problems, err)
		over = sanitize(over)
	}
	cfg := def.Merge(over)
	if len(problems) > 0 {
		return cfg, &ConfigError{Path: path, Err: errors.Join(problems...)}
	}
	return cfg, nil
}

// sanitize drops the invalid values of a configuration.
func sanitize(c Config) Config {
	tools := make(map[string]ToolConfig, len(c.Tools))
	for name, t := range c.Tools {
		tools[name] = t
	}
	c.Tools = tools
	for name, t := range c.Tools {
		if t.CascadeThreshold < 0 {
			t.CascadeThreshold = 0
			c.Tools[name] = t
		}
	}
	for _, p := range []*int{&c.LoopDetection.HistorySize, &c.LoopDetection.WarningThreshold,
		&c.LoopDetection.CriticalThreshold, &c.LoopDetection.CircuitBreakerThreshold,
		&c.ErrorRetryLimit, &c.ReadCacheTurns} {
		if *p < 0 {
			*p = 0
		}
	}
	if c.Mismatch != MismatchBlock && c.Mismatch != MismatchAlways {
		c.Mismatch = ""
	}
	if c.ReadCache != ReadCacheCopy {
		c.ReadCache = ""
	}
	if l := &c.LoopDetection; l.WarningThreshold > 0 && l.CriticalThreshold > 0 && l.CriticalThreshold < l.WarningThreshold {
		l.WarningThreshold, l.CriticalThreshold = 0, 0
	}
	return c
}

// Loader loads workspace configurations and reports each distinct
// problem once, however often the same broken file is loaded. The zero
// value is ready to use; it is safe for concurrent use.
type Loader struct {
	// Warn receives each problem once; nil discards them.
	Warn func(msg string)

	mu     sync.Mutex
	warned map[string]bool
}

// Load returns the configuration of the workspace at workdir: its
// .rein/harness-config.json, else its .pi/harness-config.json, merged over
// the defaults; the defaults when it has neither. It never fails.
func (l *Loader) Load(workdir string) Config {
	p := FindConfig(workdir)
	if p == "" {
		return DefaultConfig()
	}
	return l.LoadFile(p)
}

// LoadFile is Load for an explicit file.
func (l *Loader) LoadFile(path string) Config {
	cfg, err := LoadConfig(path)
	if err != nil {
		l.warn(err.Error())
	}
	return cfg
}

func (l *Loader) warn(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.warned[msg] {
		return
	}
	if l.warned == nil {
		l.warned = map[string]bool{}
	}
	l.warned[msg] = true
	if l.Warn != nil {
		l.Warn(msg)
	}
}

// settings is a configuration resolved for fast lookups.
type settings struct {
	off        map[string]bool
	pass       map[string]bool
	cascade    map[string]int
	cascadeAll int
	retries    int
	readTurns  int
	history    int
	warn       int
	critical   int
	breaker    int
	block      bool // mismatch blocks instead of hinting
	hintAlways bool // mismatch hints whatever the output's length
	copyReads  bool // the read cache sends copies instead of references
}

func resolve(c Config) settings {
	c = DefaultConfig().Merge(sanitize(c))
	s := settings{
		off:        map[string]bool{},
		pass:       map[string]bool{},
		cascade:    map[string]int{},
		cascadeAll: DefaultCascadeThreshold,
		retries:    c.ErrorRetryLimit,
		readTurns:  c.ReadCacheTurns,
		history:    c.LoopDetection.HistorySize,
		warn:       c.LoopDetection.WarningThreshold,
		critical:   c.LoopDetection.CriticalThreshold,
		breaker:    c.LoopDetection.CircuitBreakerThreshold,
		block:      c.Mismatch == MismatchBlock,
		hintAlways: c.Mismatch == MismatchAlways,
		copyReads:  c.ReadCache == ReadCacheCopy,
	}
	for _, id := range c.Disable {
		if id == "loop" {
			for _, r := range Rules() {
				if strings.HasPrefix(r, "loop.") {
					s.off[r] = true
				}
			}
			continue
		}
		s.off[id] = true
	}
	if t, ok := c.Tools["*"]; ok && t.CascadeThreshold > 0 {
		s.cascadeAll = t.CascadeThreshold
	}
	for name, t := range c.Tools {
		if t.PassThrough != nil && *t.PassThrough {
			s.pass[name] = true // "*": every tool
		}
		if t.CascadeThreshold > 0 {
			s.cascade[name] = t.CascadeThreshold
		}
	}
	if s.off[RulePassthrough] {
		clear(s.pass) // no tool is exempt
	}
	// history counts the past calls kept; with the call being decided
	// they make the window of HistorySize calls, which must hold enough
	// calls for every threshold to be reached.
	s.history = max(s.history-1, s.breaker-1, s.critical-1, s.warn-1, 2)
	return s
}

// passes reports whether calls to tool skip the rules.
func (s *settings) passes(tool string) bool { return s.pass[tool] || s.pass["*"] }

func (s *settings) cascadeLimit(tool string) int {
	if n, ok := s.cascade[tool]; ok {
		return n
	}
	return s.cascadeAll
}

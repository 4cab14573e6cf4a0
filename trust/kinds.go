package trust

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// settings reads a settings file (.claude/settings*.json,
// .rein/settings*.json): hooks, allow rules, a permissive default mode,
// an env block, and the enforce object's sensors, commit gate, blocker
// and default sensors. Deny and ask rules and the approval timeout only
// tighten, and are left out.
func (sc *scanner) settings(doc map[string]json.RawMessage) {
	var perms struct {
		Allow       []string `json:"allow"`
		DefaultMode string   `json:"defaultMode"`
	}
	if raw, ok := doc["permissions"]; ok && json.Unmarshal(raw, &perms) != nil {
		sc.add("permissions %s", compact(raw))
	}
	for _, r := range perms.Allow {
		sc.add("allow %s", r)
	}
	if m := strings.TrimSpace(perms.DefaultMode); m != "" && !tightMode(m) {
		sc.add("defaultMode %s", m)
	}
	if raw, ok := doc["hooks"]; ok {
		sc.hooks(raw)
	}
	if raw, ok := doc["env"]; ok {
		var env map[string]string
		if json.Unmarshal(raw, &env) != nil {
			sc.add("env %s", compact(raw))
		}
		for _, k := range sortedKeys(env) {
			sc.add("env %s=%s", k, env[k])
		}
	}
	if raw, ok := doc["enforce"]; ok {
		var e struct {
			Blocker string `json:"blocker"`
			Sensors []struct {
				Name    string `json:"name"`
				Files   string `json:"files"`
				Command string `json:"command"`
			} `json:"sensors"`
			DefaultSensors *bool `json:"defaultSensors"`
			CommitGate     *struct {
				Command string `json:"command"`
			} `json:"commitGate"`
		}
		if json.Unmarshal(raw, &e) != nil {
			sc.add("enforce %s", compact(raw))
			return
		}
		if b := strings.TrimSpace(e.Blocker); b != "" && b != "deny" {
			sc.add("enforce.blocker %s (the destructive-command blocker loosened)", b)
		}
		for _, s := range e.Sensors {
			sc.add("sensor %s on %s: %s", s.Name, s.Files, s.Command)
			sc.script(s.Command)
		}
		if e.DefaultSensors != nil && !*e.DefaultSensors {
			sc.add("enforce.defaultSensors false (the built-in checks off)")
		}
		if e.CommitGate != nil && e.CommitGate.Command != "" {
			sc.add("commit gate: %s", e.CommitGate.Command)
			sc.script(e.CommitGate.Command)
		}
	}
}

// tightMode reports whether a defaultMode asks at least as much as
// rein's own default: such a mode applies before trust.
func tightMode(m string) bool {
	switch m {
	case "ask", "auto_read", "auto-read", "default", "plan", "dontAsk":
		return true
	}
	return false
}

// hooks reads a hooks object: event -> [{matcher, hooks: [{type,
// command | url | prompt}]}].
func (sc *scanner) hooks(raw json.RawMessage) {
	var events map[string][]struct {
		Matcher string            `json:"matcher"`
		Hooks   []json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(raw, &events) != nil {
		if s := compact(raw); s != "{}" && s != "null" {
			sc.add("hooks %s", s)
		}
		return
	}
	for _, ev := range sortedKeys(events) {
		for _, group := range events[ev] {
			where := ev
			if group.Matcher != "" {
				where += " (" + group.Matcher + ")"
			}
			for _, h := range group.Hooks {
				var one struct {
					Command string `json:"command"`
					URL     string `json:"url"`
				}
				_ = json.Unmarshal(h, &one)
				switch {
				case one.Command != "":
					sc.add("hook %s: %s", where, one.Command)
					sc.script(one.Command)
				case one.URL != "":
					sc.add("hook %s: %s", where, one.URL)
				default:
					sc.add("hook %s: %s", where, compact(h))
				}
			}
		}
	}
}

// mcpServers reads an mcpServers block; prefix names where it sits.
// A server that is only disabled does nothing and is left out.
func (sc *scanner) mcpServers(prefix string, raw json.RawMessage) {
	if len(raw) == 0 || compact(raw) == "null" {
		return
	}
	var servers map[string]json.RawMessage
	if json.Unmarshal(raw, &servers) != nil {
		sc.add("%smcpServers %s", prefix, compact(raw))
		return
	}
	for _, name := range sortedKeys(servers) {
		var s struct {
			Command  string            `json:"command"`
			Args     []string          `json:"args"`
			Env      map[string]string `json:"env"`
			Cwd      string            `json:"cwd"`
			URL      string            `json:"url"`
			Headers  map[string]string `json:"headers"`
			Disabled bool              `json:"disabled"`
		}
		if json.Unmarshal(servers[name], &s) != nil {
			sc.add("%smcp server %s: %s", prefix, name, compact(servers[name]))
			continue
		}
		if s.Command == "" && s.URL == "" {
			continue
		}
		what := s.URL
		if s.Command != "" {
			what = strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
		}
		sc.add("%smcp server %s: %s", prefix, name, what)
		if s.Cwd != "" {
			sc.add("%smcp server %s cwd %s", prefix, name, s.Cwd)
		}
		for _, k := range sortedKeys(s.Env) {
			sc.add("%smcp server %s env %s=%s", prefix, name, k, s.Env[k])
		}
		for _, k := range sortedKeys(s.Headers) {
			sc.add("%smcp server %s header %s: %s", prefix, name, k, s.Headers[k])
		}
		if s.Command != "" {
			sc.script(append([]string{s.Command}, s.Args...)...)
		}
	}
}

// config reads .rein/config.json: where each provider's requests and
// keys go (api, base_url, headers, the key fields and profiles), the
// same fields of models, where the failover writes its state, and MCP
// servers. Model names, aliases, fallbacks, skills, limits and
// compatibility switches are left out: they apply before trust.
func (sc *scanner) config(doc map[string]json.RawMessage) {
	if raw, ok := doc["providers"]; ok {
		var ps map[string]map[string]json.RawMessage
		if json.Unmarshal(raw, &ps) != nil {
			sc.add("providers %s", compact(raw))
		}
		for _, name := range sortedKeys(ps) {
			sc.routing("providers."+name, ps[name])
		}
	}
	if raw, ok := doc["models"]; ok {
		var ms []map[string]json.RawMessage
		if json.Unmarshal(raw, &ms) != nil {
			sc.add("models %s", compact(raw))
		}
		for i, m := range ms {
			var id, prov string
			_ = json.Unmarshal(m["id"], &id)
			_ = json.Unmarshal(m["provider"], &prov)
			at := fmt.Sprintf("models[%d]", i)
			if prov != "" || id != "" {
				at = "models[" + prov + "/" + id + "]"
			}
			for _, k := range []string{"api", "base_url", "headers"} {
				if v, ok := m[k]; ok {
					sc.add("%s.%s = %s", at, k, compact(v))
				}
			}
		}
	}
	if raw, ok := doc["failover"]; ok {
		var f map[string]json.RawMessage
		if json.Unmarshal(raw, &f) != nil {
			sc.add("failover %s", compact(raw))
		}
		if v, ok := f["state_file"]; ok {
			sc.add("failover.state_file = %s", compact(v))
		}
	}
	sc.mcpServers("config ", doc["mcpServers"])
}

// routingFields are the provider fields that decide where requests and
// keys go, or run a command.
var routingFields = []string{"api", "base_url", "headers", "api_key", "api_key_env", "api_key_command"}

func (sc *scanner) routing(at string, p map[string]json.RawMessage) {
	for _, k := range routingFields {
		v, ok := p[k]
		if !ok {
			continue
		}
		switch k {
		case "api_key":
			sc.add("%s.api_key (a key written in the file)", at)
		case "api_key_command":
			sc.add("%s.%s = %s", at, k, compact(v))
			var cmd string
			if json.Unmarshal(v, &cmd) == nil {
				sc.script(cmd)
			}
		default:
			sc.add("%s.%s = %s", at, k, compact(v))
		}
	}
	if raw, ok := p["profiles"]; ok {
		var prs []map[string]json.RawMessage
		if json.Unmarshal(raw, &prs) != nil {
			sc.add("%s.profiles %s", at, compact(raw))
		}
		for i, pr := range prs {
			var name string
			_ = json.Unmarshal(pr["name"], &name)
			if name == "" {
				name = fmt.Sprint(i)
			}
			sc.routing(at+".profiles["+name+"]", pr)
		}
	}
}

// defaultMaxReply is rein's bound on one reply; a larger one loosens it.
const defaultMaxReply = 32 << 20

// security reads .rein/security.json: only what loosens confinement
// (sandbox off, more writable directories, secret variables let through,
// a larger reply bound). What tightens applies before trust.
func (sc *scanner) security(doc map[string]json.RawMessage) {
	var c struct {
		Sandbox       string   `json:"sandbox"`
		Writable      []string `json:"writable"`
		EnvAllow      []string `json:"env_allow"`
		MaxReplyBytes int64    `json:"max_reply_bytes"`
	}
	raw, _ := json.Marshal(doc)
	if json.Unmarshal(raw, &c) != nil {
		sc.add("security settings %s", compact(raw))
		return
	}
	if c.Sandbox == "off" {
		sc.add("sandbox = off")
	}
	for _, w := range c.Writable {
		sc.add("writable %s", w)
	}
	for _, e := range c.EnvAllow {
		sc.add("env_allow %s", e)
	}
	if c.MaxReplyBytes > defaultMaxReply {
		sc.add("max_reply_bytes = %d", c.MaxReplyBytes)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

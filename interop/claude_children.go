package interop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinhq/rein/session"
)

// claudeMeta is what Claude Code writes beside a sub-agent's transcript
// (agent-ID.meta.json).
type claudeMeta struct {
	AgentType   string `json:"agentType"`
	Description string `json:"description"`
	ToolUseID   string `json:"toolUseId"`
	SpawnDepth  int    `json:"spawnDepth"`
}

// claudeChildren reads the transcripts of the sub-agents Claude Code
// keeps beside the session file path — SESSION/subagents/agent-ID.jsonl,
// with agent-ID.meta.json naming the agent type and the Agent call that
// started it — each as a child conversation, ordered by when it began.
// A transcript that cannot be read is reported, not fatal.
func claudeChildren(path string, r *Report) []*Conversation {
	dir := filepath.Join(strings.TrimSuffix(path, filepath.Ext(path)), "subagents")
	files, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	var out []*Conversation
	for _, f := range files {
		c, err := ReadFile(f, Claude)
		if err != nil {
			r.drop(f, "a sub-agent's transcript", err.Error())
			continue
		}
		var meta claudeMeta
		if data, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".meta.json"); err == nil {
			if err := json.Unmarshal(data, &meta); err != nil {
				r.drop(f, "its meta.json", err.Error())
			}
		}
		c.Link = &session.AgentLink{ParentCall: meta.ToolUseID, Type: meta.AgentType, Depth: max(meta.SpawnDepth, 1)}
		if c.Link.Type == "" {
			c.Link.Type = "general-purpose"
		}
		c.Name = meta.Description
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b *Conversation) int { return a.Created.Compare(b.Created) })
	return out
}

// ImportChildren imports the children of c (see Conversation.Children)
// as sessions of sub-agents of parent, the imported c, in opts'
// directory. It returns them open; a child that cannot be imported stops
// it, with those imported so far.
func ImportChildren(c *Conversation, parent *session.Session, opts session.Options) ([]*session.Session, error) {
	var out []*session.Session
	for _, child := range c.Children {
		o := opts
		link := *child.Link
		link.ParentSession, link.ParentPath = parent.ID(), parent.Path()
		o.Agent = &link
		s, err := Import(child, o)
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

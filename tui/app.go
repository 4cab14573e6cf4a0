package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/llm"
)

// Options configure the UI.
type Options struct {
	// Commands are added to the built-in slash commands (a command of
	// the same name replaces the built-in one).
	Commands []Command
	// History holds earlier prompts, oldest first, for up/down; they
	// come after those of PromptStore.
	History []string
	// PromptStore, when set, keeps the prompts beyond this UI: New loads
	// it and every prompt sent is added to it. Nil keeps them in memory.
	PromptStore PromptStore
	// Conversation is shown first: the messages of a resumed session.
	Conversation []llm.Message
	// Plain drops colours (NO_COLOR).
	Plain bool
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// EventMsg carries one harness event to the UI; see Snapshot.
type EventMsg Event

// StatusMsg sets the status note, such as why the model call is being
// retried; "" clears it.
type StatusMsg string

// NoticeMsg adds a notice (IsError: an error line) to the transcript.
type NoticeMsg struct {
	Text    string
	IsError bool
}

type promptDoneMsg struct{ err error }

type navigatedMsg struct {
	msgs   []llm.Message
	editor string
	err    error
}

type frameMsg struct{}

type tickMsg struct{}

type treeMsg struct {
	entries []TreeEntry
	leaf    string
	err     error
}

// bigPaste is the size from which a paste is kept aside and shown as a
// placeholder in the editor; the whole text is sent.
const bigPaste = 8 << 10

// frameInterval bounds how often streamed text is re-rendered.
const frameInterval = 33 * time.Millisecond

// App is the bubbletea model of the UI. Create it with New; it must be
// used by one program.
type App struct {
	ctx      context.Context
	b        Backend
	tr       Transcript
	r        *renderer
	editor   textarea.Model
	commands []Command
	now      func() time.Time

	width, height int
	flags         viewFlags
	// agents are the sub-agents running (SubagentsMsg).
	agents []AgentLine
	scroll int // lines scrolled up from the bottom

	busy    bool
	cancel  context.CancelFunc // cancels the running prompt, even before it reached the agent
	started time.Time
	note    string // retry note
	aborted bool

	history []string
	histPos int
	store   PromptStore // nil: history in memory only
	storeOK bool        // no Add has failed yet: the first failure is shown
	draft   string
	pastes  []string

	tree    *treeView
	dialogs []Dialog

	quitting bool
	// quitArmed is when a first ctrl+c on an empty editor asked for a
	// second (zero: it did not, or the window passed).
	quitArmed time.Time
	// pending is what a dialog's answer started, run when it closes.
	pending tea.Cmd

	// Rendering of streamed text is throttled to one frame per
	// frameInterval.
	lastFrame    time.Time
	framePending bool
	cachedView   string
	cursor       *tea.Cursor
	stale        bool
}

// New returns the UI over b. ctx bounds the prompts it starts.
func New(ctx context.Context, b Backend, o Options) *App {
	ed := textarea.New()
	ed.Placeholder = "Ask rein to do something · /help for commands"
	ed.ShowLineNumbers = false
	ed.Prompt = "› "
	ed.SetHeight(1)
	ed.DynamicHeight = true
	ed.MinHeight = 1
	ed.MaxHeight = 8
	ed.CharLimit = 0
	ed.KeyMap.InsertNewline.SetEnabled(false)
	// The terminal's own cursor is placed at the editor's (see View), so
	// the editor draws none and needs no blink timer.
	ed.SetVirtualCursor(false)
	if o.Plain {
		plain := textarea.StyleState{}
		ed.SetStyles(textarea.Styles{Focused: plain, Blurred: plain})
	}
	ed.Focus()
	a := &App{ctx: ctx, b: b, r: newRenderer(o.Plain), editor: ed, now: o.Now, width: 80, height: 24,
		store: o.PromptStore, storeOK: true}
	if a.now == nil {
		a.now = time.Now
	}
	if a.store != nil {
		saved, err := a.store.Load()
		if err != nil {
			a.tr.Notice("prompt history: " + err.Error())
		}
		a.history = append(a.history, saved...)
	}
	a.history = append(a.history, o.History...)
	a.histPos = len(a.history)
	a.commands = append(builtinCommands(), sessionCommands()...)
	for _, c := range o.Commands {
		a.addCommand(c)
	}
	if len(o.Conversation) > 0 {
		a.tr.Load(o.Conversation)
		a.tr.Notice(fmt.Sprintf("resumed: %d message%s", len(o.Conversation), plural(len(o.Conversation))))
	}
	a.stale = true
	return a
}

func (a *App) addCommand(c Command) {
	for i := range a.commands {
		if a.commands[i].Name == c.Name {
			a.commands[i] = c
			return
		}
	}
	a.commands = append(a.commands, c)
}

// Transcript returns the transcript (for tests and other views).
func (a *App) Transcript() *Transcript { return &a.tr }

// Init does nothing: the UI waits for the window size and keys.
func (a *App) Init() tea.Cmd { return nil }

// inspectMsg runs a function on the UI goroutine (tests and
// measurements read the model with it).
type inspectMsg func(a *App)

// Update handles one message.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case inspectMsg:
		msg(a)
		return a, nil
	case EventMsg:
		a.tr.Apply(Event(msg))
		return a, a.frame()
	case frameMsg:
		a.framePending = false
		a.stale = true
		return a, nil
	case tickMsg:
		a.stale = true
		if a.busy {
			return a, tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
		}
		return a, nil
	case StatusMsg:
		a.note = string(msg)
	case SubagentsMsg:
		a.agents = append([]AgentLine(nil), msg...)
	case NoticeMsg:
		if msg.IsError {
			a.tr.Error(msg.Text)
		} else {
			a.tr.Notice(msg.Text)
		}
	case promptDoneMsg:
		a.busy, a.note, a.aborted, a.cancel = false, "", false, nil
		if msg.err != nil && (a.tr.lastError == "" || !strings.Contains(msg.err.Error(), a.tr.lastError)) {
			a.tr.Error(msg.err.Error())
		}
		a.tr.lastError = ""
	case commandDoneMsg:
		if msg.err != nil {
			a.tr.Error("/" + msg.name + ": " + msg.err.Error())
		} else if msg.text != "" {
			a.tr.Notice(msg.text)
		}
	case treeMsg:
		if msg.err != nil {
			a.tr.Error("/tree: " + msg.err.Error())
		} else {
			a.tree = newTreeView(msg.entries, msg.leaf)
		}
	case forkedMsg:
		a.forked(msg)
	case switchedMsg:
		a.switched(msg)
	case sessionsMsg:
		a.pickSession(msg)
	case quitExpiredMsg:
		if a.quitArmed.Equal(msg.armed) {
			a.quitArmed = time.Time{}
		}
	case navigatedMsg:
		if msg.err != nil {
			a.tr.Error(msg.err.Error())
		} else {
			a.tr.Load(msg.msgs)
			a.tr.Notice("moved in the session tree; the next prompt continues from here")
			if msg.editor != "" {
				a.editor.SetValue(msg.editor)
			}
		}
	case OpenDialogMsg:
		if msg.Dialog != nil {
			a.dialogs = append(a.dialogs, msg.Dialog)
		}
	case tea.WindowSizeMsg:
		a.width, a.height = max(msg.Width, 1), max(msg.Height, 1)
		a.editor.SetWidth(max(a.width, 4))
	case tea.PasteMsg:
		a.paste(msg.Content)
	case tea.KeyPressMsg:
		if cmd, handled := a.key(msg); handled {
			a.stale = true
			return a, cmd
		}
		var cmd tea.Cmd
		a.editor, cmd = a.editor.Update(msg)
		a.stale = true
		return a, cmd
	default:
		var cmd tea.Cmd
		a.editor, cmd = a.editor.Update(msg)
		a.stale = true
		return a, cmd
	}
	a.stale = true
	return a, nil
}

// frame marks the screen stale now, or schedules it when a frame was
// drawn less than frameInterval ago.
func (a *App) frame() tea.Cmd {
	wait := frameInterval - a.now().Sub(a.lastFrame)
	if wait <= 0 {
		a.stale = true
		return nil
	}
	if a.framePending {
		return nil
	}
	a.framePending = true
	return tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{} })
}

// key handles the keys of the UI itself; the rest go to the editor.
func (a *App) key(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if len(a.dialogs) > 0 {
		if p, ok := a.dialogs[0].(interface{ Passes(tea.KeyPressMsg) bool }); ok && p.Passes(k) {
			if k.String() == "enter" {
				return nil, true // a typed prompt waits in the editor until the question is answered
			}
			return nil, false
		}
		if a.dialogs[0].Key(k) {
			a.dialogs = a.dialogs[1:]
			cmd := a.pending
			a.pending = nil
			return cmd, true
		}
		return nil, true
	}
	s := k.String()
	if s != "ctrl+c" {
		a.quitArmed = time.Time{}
	}
	if a.tree != nil && !a.tree.labeling {
		return a.treeKey(k), true
	}
	switch s {
	case "ctrl+c":
		return a.interrupt(), true
	case "shift+tab":
		a.cycleMode()
		return nil, true
	case "esc":
		if a.tree != nil {
			a.tree.labeling = false
			a.editor.Reset()
			return nil, true
		}
		if a.busy {
			return a.abort(), true
		}
		return nil, true
	case "ctrl+d":
		if a.editor.Value() == "" && !a.busy {
			return a.quit(), true
		}
		return nil, false
	case "enter":
		return a.submit(), true
	case "ctrl+j", "alt+enter", "shift+enter":
		a.editor.InsertString("\n")
		return nil, true
	case "ctrl+t":
		a.flags.thinking = !a.flags.thinking
		return nil, true
	case "ctrl+o":
		a.flags.tools = !a.flags.tools
		return nil, true
	case "pgup":
		a.scroll += max(a.transcriptHeight()-2, 1)
		return nil, true
	case "pgdown":
		a.scroll = max(a.scroll-max(a.transcriptHeight()-2, 1), 0)
		return nil, true
	case "up":
		if a.editor.Line() == 0 && len(a.history) > 0 && a.histPos > 0 {
			if a.histPos == len(a.history) {
				a.draft = a.editor.Value()
			}
			a.histPos--
			a.editor.SetValue(a.history[a.histPos])
			return nil, true
		}
	case "down":
		if a.editor.Line() == a.editor.LineCount()-1 && a.histPos < len(a.history) {
			a.histPos++
			if a.histPos == len(a.history) {
				a.editor.SetValue(a.draft)
			} else {
				a.editor.SetValue(a.history[a.histPos])
			}
			return nil, true
		}
	}
	return nil, false
}

func (a *App) abort() tea.Cmd {
	if !a.aborted {
		a.aborted = true
		a.note = "stopping…"
		if a.cancel != nil {
			a.cancel()
		}
		a.b.Abort()
	}
	return nil
}

func (a *App) quit() tea.Cmd {
	a.quitting = true
	if a.busy {
		a.b.Abort()
	}
	return tea.Quit
}

// submit sends the editor's text: a command, a steering message while
// the agent works, or a new prompt.
func (a *App) submit() tea.Cmd {
	raw := a.editor.Value()
	text := strings.TrimSpace(a.expand(raw))
	if a.tree != nil && a.tree.labeling {
		a.tree.labeling = false
		a.editor.Reset()
		return a.label(text)
	}
	if text == "" {
		return nil
	}
	a.editor.Reset()
	a.scroll = 0
	a.remember(raw)
	a.pastes = nil
	if strings.HasPrefix(text, "/") && !strings.HasPrefix(text, "//") {
		return a.runCommand(text)
	}
	return a.send(strings.TrimPrefix(text, "/"))
}

// send starts a prompt with text, or steers the running one with it.
func (a *App) send(text string) tea.Cmd {
	if a.busy {
		if sd, ok := a.b.(Sender); ok {
			if out, err := sd.Send(text); err != nil {
				a.tr.Error(err.Error())
			} else {
				a.tr.Notice(out)
			}
			return nil
		}
		if err := a.b.Steer(text); err != nil {
			a.tr.Error(err.Error())
		} else {
			a.tr.Notice("steering: delivered at the agent's next step — " + oneLine(truncate(text, 200)))
		}
		return nil
	}
	return a.startPrompt(text)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (a *App) startPrompt(text string) tea.Cmd {
	a.tr.User(text)
	a.busy, a.started, a.note, a.aborted = true, a.now(), "", false
	ctx, cancel := context.WithCancel(a.ctx)
	a.cancel = cancel
	b := a.b
	run := func() tea.Msg {
		defer cancel()
		return promptDoneMsg{err: b.Prompt(ctx, text)}
	}
	return tea.Batch(run, tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} }))
}

// transcriptHeight is the number of lines left for the transcript.
func (a *App) transcriptHeight() int {
	h := a.height - a.editor.Height() - 2
	if len(a.agents) > 0 {
		h--
	}
	return max(h, 1)
}

// View draws the screen: the transcript (or the tree browser), a dialog,
// the status line and the editor.
func (a *App) View() tea.View {
	if a.stale || a.cachedView == "" {
		a.cachedView = a.render()
		a.stale = false
		a.lastFrame = a.now()
		a.cursor = nil
		if !a.quitting && len(a.dialogs) == 0 && (a.tree == nil || a.tree.labeling) {
			if c := a.editor.Cursor(); c != nil {
				c.Y += a.height - a.editor.Height()
				a.cursor = c
			}
		}
	}
	v := tea.NewView(a.cachedView)
	v.AltScreen = true
	if a.cursor != nil {
		c := *a.cursor
		v.Cursor = &c
	}
	return v
}

func (a *App) render() string {
	if a.quitting {
		return ""
	}
	w := max(a.width, 8)
	h := a.transcriptHeight()
	panel := a.workPanel(w)
	if len(panel) >= h {
		panel = nil // no room: the transcript comes first
	}
	h -= len(panel)
	var body []string
	switch {
	case len(a.dialogs) > 0:
		body = a.transcriptLines(w, h-lineCount(a.dialogs[0].View(w))-1)
		body = append(body, strings.Repeat("─", w))
		body = append(body, strings.Split(a.dialogs[0].View(w), "\n")...)
	case a.tree != nil:
		body = a.tree.view(w, h, a.r.st)
	default:
		body = a.transcriptLines(w, h)
	}
	if len(body) > h {
		body = body[len(body)-h:]
	}
	for len(body) < h {
		body = append([]string{""}, body...)
	}
	var b strings.Builder
	for _, l := range append(body, panel...) {
		b.WriteString(l)
		b.WriteString("\n")
	}
	if l := a.agentsLine(w); l != "" {
		b.WriteString(l)
		b.WriteString("\n")
	}
	b.WriteString(a.statusLine(w))
	b.WriteString("\n")
	b.WriteString(a.editor.View())
	return b.String()
}

// transcriptLines renders the last h lines of the transcript above the
// scroll position, rendering only the blocks that show.
func (a *App) transcriptLines(w, h int) []string {
	h = max(h, 1)
	need := h + a.scroll
	var rev [][]string
	n := 0
	for i := len(a.tr.Blocks) - 1; i >= 0 && n < need; i-- {
		ls := a.r.lines(a.tr.Blocks[i], w, a.flags)
		rev = append(rev, ls)
		n += len(ls)
	}
	a.r.forget(a.tr.Blocks)
	out := make([]string, 0, n)
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i]...)
	}
	if a.scroll > 0 {
		a.scroll = min(a.scroll, max(len(out)-h, 0))
		out = out[:len(out)-a.scroll]
	}
	if len(out) > h {
		out = out[len(out)-h:]
	}
	return out
}

package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Dialog is a modal question over the transcript, such as a permission
// request. While one is open, keys go to it. Key reports whether the
// dialog is done (and closes).
type Dialog interface {
	View(width int) string
	Key(k tea.KeyPressMsg) (done bool)
}

// OpenDialogMsg opens a dialog; send it with Program.Send from any
// goroutine. Dialogs queue: a second one opens when the first closes.
type OpenDialogMsg struct{ Dialog Dialog }

// Approval is a dialog that asks to allow an action: Title says what
// (a tool call, say), Detail shows it, Choices are the answers (default
// "allow once", "allow always", "deny"), and Reply receives the index of
// the chosen one, or -1 when the dialog was dismissed with esc. Reply is
// called on the UI goroutine and must not block.
//
// A question never takes what the user was typing: letters typed while
// it is open go to the editor (see Passes), and once they have, enter
// goes there too until the user moves the selection or presses a
// choice's number.
type Approval struct {
	Title, Detail string
	Choices       []string
	Reply         func(choice int)
	// ReasonFor is the index of the choice after which the dialog asks
	// for an optional reason (deny, say); -1 or no ReplyReason means none.
	ReasonFor int
	// ReplyReason, when set, is called instead of Reply with the reason
	// typed ("" when none, or when the choice asks for none).
	ReplyReason func(choice int, reason string)

	sel      int
	typed    bool // letters went to the editor since the last choice key
	reasonOn bool
	reason   []rune
}

func (d *Approval) choices() []string {
	if len(d.Choices) == 0 {
		return []string{"allow once", "allow always", "deny"}
	}
	return d.Choices
}

// View renders the dialog.
func (d *Approval) View(width int) string {
	st := newStyles(false)
	var b strings.Builder
	b.WriteString(st.title.Render(d.Title) + "\n")
	for _, l := range capLines(wrap(d.Detail, width-4), 10) {
		b.WriteString("  " + l + "\n")
	}
	if d.reasonOn {
		fmt.Fprintf(&b, " %s, reason (optional): %s█\n", d.choices()[d.sel], string(d.reason))
		b.WriteString(st.dim.Render("enter sends; esc goes back"))
		return b.String()
	}
	for i, c := range d.choices() {
		line := fmt.Sprintf(" %d. %s ", i+1, c)
		if i == d.sel {
			line = st.sel.Render(line)
		}
		b.WriteString(line + "\n")
	}
	if d.typed {
		b.WriteString(st.dim.Render("your typing stays in the editor; ↑/↓ then enter, or the number, answers"))
	} else {
		b.WriteString(st.dim.Render("↑/↓ and enter, or the number; esc dismisses"))
	}
	return b.String()
}

// Passes reports whether k belongs to the editor under the dialog: a
// letter or space typed while the question is open, or the enter that
// ends such typing (digits too, once typing began). The caller hands
// those keys on.
func (d *Approval) Passes(k tea.KeyPressMsg) bool {
	if d.reasonOn {
		return false
	}
	s := k.String()
	digit := len(s) == 1 && s[0] >= '1' && int(s[0]-'1') < len(d.choices())
	if k.Text != "" && (d.typed || !digit) {
		d.typed = true
		return true
	}
	if d.typed && (s == "enter" || s == "backspace") {
		return true
	}
	return false
}

// Key handles one key.
func (d *Approval) Key(k tea.KeyPressMsg) bool {
	if d.reasonOn {
		return d.reasonKey(k)
	}
	n := len(d.choices())
	switch s := k.String(); s {
	case "up":
		d.sel = (d.sel + n - 1) % n
		d.typed = false
	case "down", "tab":
		d.sel = (d.sel + 1) % n
		d.typed = false
	case "enter":
		return d.choose(d.sel)
	case "esc":
		d.reply(-1)
		return true
	default:
		if len(s) == 1 && s[0] >= '1' && int(s[0]-'1') < n {
			return d.choose(int(s[0] - '1'))
		}
	}
	return false
}

// choose answers with choice i, or first asks for a reason.
func (d *Approval) choose(i int) bool {
	if d.ReplyReason != nil && i == d.ReasonFor {
		d.sel, d.reasonOn = i, true
		return false
	}
	d.reply(i)
	return true
}

func (d *Approval) reasonKey(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "enter":
		d.ReplyReason(d.sel, strings.TrimSpace(string(d.reason)))
		return true
	case "esc":
		d.reasonOn, d.reason = false, nil
	case "backspace":
		if len(d.reason) > 0 {
			d.reason = d.reason[:len(d.reason)-1]
		}
	default:
		if k.Text != "" {
			d.reason = append(d.reason, []rune(k.Text)...)
		}
	}
	return false
}

func (d *Approval) reply(i int) {
	switch {
	case d.ReplyReason != nil:
		d.ReplyReason(i, "")
	case d.Reply != nil:
		d.Reply(i)
	}
}

package work

import (
	"context"
	"fmt"
	"strings"
)

// Todo is one element of Claude Code's TodoWrite list. Note and the
// status cancelled are rein's additions: the only way to drop an open
// item.
type Todo struct {
	Content    string `json:"content"`
	Status     Status `json:"status"`
	ActiveForm string `json:"activeForm"`
	Note       string `json:"note,omitempty"`
}

// OmittedError is the refusal of a TodoWrite that leaves out open items.
type OmittedError struct {
	Omitted List // the open items left out
	Current List // the whole list as it stays
}

func (e *OmittedError) Error() string {
	return fmt.Sprintf("TodoWrite refused: the new list leaves out %d open item(s), and open items are never dropped silently. Send the whole list again with them, or with status \"cancelled\" and a \"note\" saying why for each one to drop. Left out:\n%sThe current list (unchanged):\n%s",
		len(e.Omitted), e.Omitted.Render(), e.Current.Render())
}

// Replace applies a TodoWrite: todos is the whole list as the model now
// sees it. Items are matched to the current ones by their text (content
// = title); unmatched todos are added; closed items left out are kept
// as they are; open items left out refuse the whole write with an
// *OmittedError naming them. Returns the new list.
func (l *Ledger) Replace(ctx context.Context, agent string, todos []Todo) (List, error) {
	var out List
	err := l.change(func(list List) (List, error) {
		if err := checkTodos(todos); err != nil {
			return nil, err
		}
		used := make([]bool, len(list))
		match := make([]int, len(todos))
		for k, t := range todos {
			match[k] = -1
			title := strings.TrimSpace(t.Content)
			for i := range list {
				if !used[i] && list[i].Title == title {
					used[i], match[k] = true, i
					break
				}
			}
		}
		var omitted List
		for i, it := range list {
			if !used[i] && it.Status.Open() {
				omitted = append(omitted, it)
			}
		}
		if len(omitted) > 0 {
			return nil, &OmittedError{Omitted: omitted, Current: list.Clone()}
		}
		// Statuses move one at a time, in-progress last, so that the
		// one-per-agent rule sees the list as it ends up.
		next := nextID(list)
		var later []int
		for k, t := range todos {
			i := match[k]
			if i < 0 {
				list = append(list, Item{ID: fmt.Sprint(next), Title: strings.TrimSpace(t.Content), Status: Pending})
				next++
				i = len(list) - 1
				match[k] = i
			}
			if a := strings.TrimSpace(t.ActiveForm); a != "" {
				list[i].ActiveForm = a
			}
			if n := strings.TrimSpace(t.Note); n != "" {
				list[i].Note = n
			}
			if t.Status == InProgress {
				later = append(later, k)
				continue
			}
			if err := setStatus(ctx, l.opts.Gate, list, i, agent, t.Status, t.Note); err != nil {
				return nil, err
			}
		}
		for _, k := range later {
			if err := setStatus(ctx, l.opts.Gate, list, match[k], agent, InProgress, ""); err != nil {
				return nil, err
			}
		}
		out = list
		return list, nil
	})
	return out.Clone(), err
}

func checkTodos(todos []Todo) error {
	seen := map[string]bool{}
	progress := 0
	for k, t := range todos {
		c := strings.TrimSpace(t.Content)
		switch {
		case c == "":
			return fmt.Errorf("todos[%d]: content is empty", k)
		case !t.Status.Valid():
			return fmt.Errorf("todos[%d] (%s): unknown status %q: use pending, in_progress, completed or cancelled", k, c, t.Status)
		case t.Status == Cancelled && strings.TrimSpace(t.Note) == "":
			return fmt.Errorf("todos[%d] (%s): cancelling needs a note saying why", k, c)
		case seen[c]:
			return fmt.Errorf("todos[%d]: %q appears twice; each item once", k, c)
		}
		seen[c] = true
		if t.Status == InProgress {
			progress++
		}
	}
	if progress > 1 {
		return fmt.Errorf("%d items are in_progress: one item at a time per agent", progress)
	}
	return nil
}

package long

import (
	"errors"
	"fmt"
	"strings"
)

// names are the file's names of the fields validation talks about.
type names struct{ title, acceptance string }

func fieldNames(p Preset) names {
	if p == PresetAnthropic {
		return names{title: "description", acceptance: "steps"}
	}
	return names{title: "title", acceptance: "acceptance_criteria"}
}

// Parse reads the progress file data (named file in messages) in the
// layout of preset and checks it. Every problem is reported with its line
// as a Problems error; a plan is returned only when there are none.
func Parse(preset Preset, file string, data []byte) (*Plan, error) {
	p, els, err := decode(preset, file, data)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			return nil, Problems{fe}
		}
		return nil, err
	}
	if probs := validate(preset, file, data, p, els); len(probs) > 0 {
		return nil, probs
	}
	return p, nil
}

// validate checks what the types cannot: required fields, unique ids,
// known statuses, one task in progress, a verify command for every open
// task (the harness marks nothing done without one), a note on every
// cancelled task.
func validate(preset Preset, file string, data []byte, p *Plan, els []element) Problems {
	n := fieldNames(preset)
	var probs Problems
	add := func(i int, key, format string, args ...any) {
		line := 0
		if i < len(els) {
			line = fieldLine(data, els[i], key)
		}
		probs = append(probs, &FileError{File: file, Line: line, Msg: fmt.Sprintf("task %d: ", i+1) + fmt.Sprintf(format, args...)})
	}
	if len(p.Tasks) == 0 {
		return Problems{{File: file, Line: 1, Msg: "the task list is empty: a plan needs at least one task"}}
	}
	seen := map[string]int{}
	inProgress := -1
	for i, t := range p.Tasks {
		switch {
		case strings.TrimSpace(t.ID) == "":
			add(i, "id", "no \"id\": give the task a short unique id such as \"t%d\"", i+1)
		case strings.ContainsAny(t.ID, "\n\r\t"):
			add(i, "id", "id %q holds a tab or line break", t.ID)
		case seen[t.ID] > 0:
			add(i, "id", "id %q is already used by task %d", t.ID, seen[t.ID])
		default:
			seen[t.ID] = i + 1
		}
		if strings.TrimSpace(t.Title) == "" {
			add(i, n.title, "no %q: say in one line what the task delivers", n.title)
		}
		if !t.Status.Valid() {
			if t.Status == "" {
				add(i, "status", "no \"status\": use todo for a new task")
			} else {
				add(i, "status", "status %q is not one of todo, in_progress, done, cancelled", t.Status)
			}
		}
		if t.Status == StatusInProgress {
			if inProgress >= 0 {
				add(i, "status", "task %d is in_progress too: only one task may be in progress", inProgress+1)
			} else {
				inProgress = i
			}
		}
		if t.Status == StatusCancelled && strings.TrimSpace(t.Note) == "" {
			add(i, "status", "a cancelled task needs a \"note\" saying why")
		}
		if t.Failures < 0 {
			add(i, "failures", "failures %d is negative", t.Failures)
		}
		if t.Status.Open() || t.Status == "" {
			if len(t.Acceptance) == 0 {
				add(i, n.acceptance, "no %q: list what must be true when the task is done", n.acceptance)
			}
			if len(t.Verify) == 0 {
				add(i, "verify", "no \"verify\" commands: list at least one command (such as \"go test ./...\") whose exit status 0 proves the task done")
			}
		}
		for j, a := range t.Acceptance {
			if strings.TrimSpace(a) == "" {
				add(i, n.acceptance, "%s item %d is empty", n.acceptance, j+1)
			}
		}
		for j, v := range t.Verify {
			if strings.TrimSpace(v.Command) == "" {
				add(i, "verify", "verify command %d is empty", j+1)
			}
		}
	}
	return probs
}

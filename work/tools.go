package work

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reinhq/rein/tool"
)

// Tool names.
const (
	AddTool       = "work_item_add"
	UpdateTool    = "work_item_update"
	ListTool      = "work_item_list"
	TodoWriteTool = "TodoWrite"
)

// ToolNames are the names Tools uses, in order.
var ToolNames = []string{AddTool, UpdateTool, ListTool, TodoWriteTool}

// Tools returns the work-item tools acting for agent ("" for the main
// agent): work_item_add, work_item_update, work_item_list and TodoWrite.
// They change no files and run no commands of the model's (ReadOnly),
// and run one call at a time (Sequential).
func (l *Ledger) Tools(agent string) []*tool.Tool {
	add := tool.MustNew(AddTool,
		"Add work items to the plan of this task: one (title) or several (items). Each starts pending. Use them for multi-step work; keep them current with work_item_update.",
		func(_ context.Context, _ *tool.Call, in addArgs) (tool.Result, error) {
			items := in.Items
			if in.Title != "" {
				items = append([]NewItem{{Title: in.Title, ActiveForm: in.ActiveForm, Acceptance: in.Acceptance, Verify: in.Verify}}, items...)
			}
			added, err := l.Add(items...)
			if err != nil {
				return tool.Result{}, err
			}
			return result(fmt.Sprintf("Added %d work item(s).", len(added)), l.List()), nil
		})
	update := tool.MustNew(UpdateTool,
		"Change one work item: its status (pending, in_progress, completed, or cancelled with a note), title, acceptance criteria, verify commands or note. One item may be in progress at a time.",
		func(ctx context.Context, _ *tool.Call, in Update) (tool.Result, error) {
			it, err := l.Update(ctx, agent, in)
			if err != nil {
				return tool.Result{}, err
			}
			return result(fmt.Sprintf("#%s is %s.", it.ID, it.Status), l.List()), nil
		})
	list := tool.MustNew(ListTool,
		"List the work items of this task with their statuses.",
		func(context.Context, *tool.Call, struct{}) (tool.Result, error) {
			ls := l.List()
			if len(ls) == 0 {
				return tool.Text("There are no work items."), nil
			}
			return tool.Text(ls.Render()), nil
		})
	todo := tool.Deferred(&tool.Tool{
		Name:        TodoWriteTool,
		Description: "Replace the task list with todos (the whole list each time). Exactly one item in_progress while working. An open item may not be left out: to drop one, send it with status \"cancelled\" and a \"note\".",
		Schema:      json.RawMessage(todoSchema),
		Run: func(ctx context.Context, call *tool.Call) tool.Result {
			var in struct {
				Todos []Todo `json:"todos"`
			}
			if err := json.Unmarshal(call.Args, &in); err != nil {
				return tool.Errorf("TodoWrite: invalid arguments: %v", err)
			}
			ls, err := l.Replace(ctx, agent, in.Todos)
			if err != nil {
				var om *OmittedError
				if errors.As(err, &om) {
					return tool.Errorf("%s", om.Error())
				}
				return tool.Errorf("TodoWrite refused: %v", err)
			}
			return result("Todos have been modified successfully.", ls)
		},
	})
	for _, t := range []*tool.Tool{add, update, list, todo} {
		t.ReadOnly, t.Mode = true, tool.Sequential
	}
	return []*tool.Tool{add, update, list, todo}
}

type addArgs struct {
	Title      string    `json:"title,omitempty" jsonschema:"what is to be done, in the imperative (or use items for several)"`
	ActiveForm string    `json:"active_form,omitempty" jsonschema:"the same in the present continuous"`
	Acceptance string    `json:"acceptance,omitempty" jsonschema:"how to tell it is done"`
	Verify     []string  `json:"verify,omitempty" jsonschema:"shell commands that must exit 0 before it may be completed"`
	Items      []NewItem `json:"items,omitempty" jsonschema:"several items to add at once"`
}

func result(head string, ls List) tool.Result {
	open := ls.Open()
	if len(open) == 0 {
		return tool.Text(head + " No open items remain.")
	}
	return tool.Text(fmt.Sprintf("%s Open items (%d of %d):\n%s", head, len(open), len(ls), open.Render()))
}

// todoSchema is Claude Code's TodoWrite schema, with rein's cancelled
// status and note added.
const todoSchema = `{"type":"object","properties":{"todos":{"type":"array","description":"The updated todo list","items":{"type":"object","properties":{"content":{"type":"string","minLength":1},"status":{"type":"string","enum":["pending","in_progress","completed","cancelled"]},"activeForm":{"type":"string","minLength":1},"note":{"type":"string","description":"why the item is cancelled (required with cancelled)"}},"required":["content","status","activeForm"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`

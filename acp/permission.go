package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/permission"
)

// The permission options rein offers, by id.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// ask puts an approval request to the client and answers it. Anything
// but a selected allow option denies the call: a cancelled request, an
// error, a connection that closed, an answer that did not come within
// PermissionTimeout, or an option id rein did not offer.
func (ss *acpSession) ask(ap *coding.Approval) {
	ctx, cancel := context.WithTimeout(context.Background(), ss.srv.o.PermissionTimeout)
	defer cancel()
	ss.mu.Lock()
	if ss.closing {
		ss.mu.Unlock()
		_ = ap.Answer(permission.Answer{Kind: permission.DenyCall, Reason: "the session is closing", By: "acp"})
		return
	}
	ss.asks[ap.ID] = cancel
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		delete(ss.asks, ap.ID)
		ss.mu.Unlock()
	}()
	resp, err := ss.srv.conn.RequestPermission(ctx, ss.permissionRequest(ap))
	ans := decide(resp, err)
	if ans.Kind == permission.DenyCall && ans.Reason == "" {
		ans.Reason = "the user denied it"
	}
	if id := selected(resp, err); id == optRejectAlways {
		ss.rejectAlways(ap)
	}
	if ans.Kind != permission.DenyCall {
		// Before the answer, which lets the call run and end.
		ss.update(sdk.UpdateToolCall(sdk.ToolCallId(ap.CallID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	}
	_ = ap.Answer(ans)
}

// decide maps the client's outcome onto rein's answer, failing closed.
func decide(resp sdk.RequestPermissionResponse, err error) permission.Answer {
	switch selected(resp, err) {
	case optAllowOnce:
		return permission.Answer{Kind: permission.AllowOnce, By: "acp"}
	case optAllowAlways:
		return permission.Answer{Kind: permission.AllowAlways, By: "acp"}
	case optRejectOnce, optRejectAlways:
		return permission.Answer{Kind: permission.DenyCall, By: "acp"}
	}
	reason := "the request was cancelled"
	if err != nil {
		reason = fmt.Sprintf("no answer from the editor (%v)", err)
	} else if resp.Outcome.Selected != nil {
		reason = fmt.Sprintf("the editor chose an option rein did not offer (%q)", resp.Outcome.Selected.OptionId)
	}
	return permission.Answer{Kind: permission.DenyCall, Reason: reason, By: "acp"}
}

func selected(resp sdk.RequestPermissionResponse, err error) string {
	if err != nil || resp.Outcome.Selected == nil {
		return ""
	}
	return string(resp.Outcome.Selected.OptionId)
}

// rejectAlways adds deny rules for what "allow always" would have
// allowed, for the rest of the session.
func (ss *acpSession) rejectAlways(ap *coding.Approval) {
	g := ss.agent.Harness().Permission()
	if g == nil {
		return
	}
	home, _ := os.UserHomeDir()
	base := permission.PathBase{Root: ss.agent.Workspace(), Cwd: ss.agent.Workspace(), Home: home}
	for _, text := range ap.SuggestRules {
		if r, err := permission.ParseRule(text, permission.Deny, "acp", base); err == nil {
			g.AddRule(r)
		}
	}
}

// permissionRequest builds the question: the tool call it is about,
// titled with the command or the file, and the four options.
func (ss *acpSession) permissionRequest(ap *coding.Approval) sdk.RequestPermissionRequest {
	c, locs := describe(llm.Content{Type: llm.ContentToolCall, ID: ap.CallID, Name: ap.Tool, Arguments: json.RawMessage(ap.Args)}, ss.agent.Workspace())
	title := c.title
	if ap.Reason != "" {
		title += " — " + ap.Reason
	}
	always := "Always allow"
	if ap.Suggest != "" {
		always += " " + ap.Suggest
	}
	never := "Always reject"
	if ap.Suggest != "" {
		never += " " + ap.Suggest
	}
	return sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(ss.id),
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(ap.CallID),
			Title:      sdk.Ptr(title),
			Kind:       sdk.Ptr(c.kind),
			Status:     sdk.Ptr(sdk.ToolCallStatusPending),
			Locations:  locs,
			RawInput:   rawInput(ap.Args),
		},
		Options: []sdk.PermissionOption{
			{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow once", OptionId: optAllowOnce},
			{Kind: sdk.PermissionOptionKindAllowAlways, Name: always, OptionId: optAllowAlways},
			{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: optRejectOnce},
			{Kind: sdk.PermissionOptionKindRejectAlways, Name: never, OptionId: optRejectAlways},
		},
	}
}

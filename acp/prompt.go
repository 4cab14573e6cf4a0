package acp

import (
	"context"
	"errors"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/telemetry"
)

// Prompt implements sdk.Agent: the prompt goes through coding's one
// submit path (templates, hooks, the model) while its events stream as
// session updates; the answer comes when the run ends, with its stop
// reason. "/name args" naming one of rein's commands (model, mode,
// status…) runs that command and answers with its output. A prompt sent
// while another runs in the same session waits for it (the SDK cancels
// the earlier one, as ACP asks).
func (s *server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, images, reason := promptText(p.Prompt)
	if reason != "" {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": reason})
	}
	if strings.TrimSpace(text) == "" && len(images) == 0 {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": "the prompt is empty"})
	}
	ss.run.Lock()
	defer ss.run.Unlock()
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if c, args, ok, cerr := ss.agent.Command(text); ok && cerr == nil && !c.Prompt && len(images) == 0 {
		return ss.command(ctx, c, args), nil
	}
	res, err := ss.agent.Submit(ctx, text, images...)
	resp := sdk.PromptResponse{Usage: usage(res.Usage)}
	var blocked *coding.BlockedError
	var budget *telemetry.BudgetError
	switch {
	case errors.As(err, &blocked):
		ss.update(sdk.UpdateAgentMessageText(blocked.Error()))
		resp.StopReason = sdk.StopReasonRefusal
	case ctx.Err() != nil || res.Stop == harness.StopAborted:
		resp.StopReason = sdk.StopReasonCancelled
	case errors.As(err, &budget):
		ss.update(sdk.UpdateAgentMessageText(budget.Error()))
		resp.StopReason = sdk.StopReasonMaxTokens
	case res.Stop == harness.StopLength:
		resp.StopReason = sdk.StopReasonMaxTokens
	case res.Stop == harness.StopMaxTurns:
		resp.StopReason = sdk.StopReasonMaxTurnRequests
	case err != nil || res.Stop == harness.StopError:
		msg := res.Detail
		if err != nil {
			msg = err.Error()
		}
		data := map[string]any{"error": msg}
		if code := llm.CodeOf(err); code != "" {
			data["code"] = string(code)
		}
		return resp, sdk.NewInternalError(data)
	default:
		resp.StopReason = sdk.StopReasonEndTurn
	}
	return resp, nil
}

// command runs one of rein's slash commands and streams its output as
// the agent's message; a mode or model change is announced.
func (ss *acpSession) command(ctx context.Context, c coding.Command, args string) sdk.PromptResponse {
	out, err := c.Run(ctx, args)
	if err != nil {
		out = "/" + c.Name + ": " + err.Error()
	}
	if out != "" {
		ss.update(sdk.UpdateAgentMessageText(out))
	}
	switch c.Name {
	case "mode":
		ss.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(ss.agent.PermissionMode())}})
	case "model", "thinking":
		ss.update(sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: ss.configOptions()}})
	}
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}
}

// Cancel implements sdk.Agent. The SDK has already cancelled the
// prompt's context; Cancel also aborts the agent (a hook or tool that
// ignores the context is killed with its process group) and ends the
// permission requests in flight, each as a deny.
func (s *server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return nil // a cancel for a session that is gone has nothing to do
	}
	ss.mu.Lock()
	for id, cancel := range ss.asks {
		cancel()
		delete(ss.asks, id)
	}
	ss.mu.Unlock()
	ss.agent.Abort()
	return nil
}

func usage(u llm.Usage) *sdk.Usage {
	if u.Total == 0 && u.Input == 0 && u.Output == 0 {
		return nil
	}
	out := &sdk.Usage{InputTokens: u.Input, OutputTokens: u.Output, TotalTokens: u.Total}
	if u.CacheRead > 0 {
		out.CachedReadTokens = sdk.Ptr(u.CacheRead)
	}
	if u.CacheWrite > 0 {
		out.CachedWriteTokens = sdk.Ptr(u.CacheWrite)
	}
	return out
}

func asRequestError(err error, re **sdk.RequestError) bool { return errors.As(err, re) }

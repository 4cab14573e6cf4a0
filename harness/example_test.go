package harness_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/tool"
)

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city to look up"`
}

// An application embeds rein: a typed tool, a scripted model (a real one
// is an llm.Provider from llm/anthropic, llm/openai or llm/gemini), a
// listener that shows what happens, and a prompt.
func Example() {
	weather := tool.MustNew("weather", "Current weather in a city.",
		func(_ context.Context, _ *tool.Call, in weatherArgs) (tool.Result, error) {
			return tool.Text("Sunny, 21°C in " + in.City), nil
		})
	tools, err := tool.NewRegistry(weather)
	if err != nil {
		panic(err)
	}
	model := faux.New(
		faux.Calls("Let me check.", faux.Call("weather", `{"city":"Lisbon"}`)),
		// The second reply reads the tool result from the request.
		faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
			result := req.Messages[len(req.Messages)-1].Text()
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("It is " + strings.ToLower(result) + ".")}}, nil
		}},
	)
	h, err := harness.New(harness.Options{
		Provider: model,
		Model:    faux.Model(),
		System:   []llm.SystemPart{{Text: "You are a helpful assistant."}},
		Tools:    tools,
	})
	if err != nil {
		panic(err)
	}
	h.Subscribe(func(_ context.Context, e harness.Event) error {
		switch e.Type {
		case agent.EventToolStart:
			fmt.Printf("calling %s %s\n", e.Call.Name, e.Call.Arguments)
		case agent.EventToolEnd:
			fmt.Printf("result: %s\n", e.Result.Text())
		}
		return nil
	})
	res, err := h.Prompt(context.Background(), "What is the weather in Lisbon?")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s after %d turns: %s\n", res.Stop, res.Turns, res.Text())
	// Output:
	// calling weather {"city":"Lisbon"}
	// result: Sunny, 21°C in Lisbon
	// completed after 2 turns: It is sunny, 21°c in lisbon.
}

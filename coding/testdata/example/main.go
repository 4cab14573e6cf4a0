// Command example opens a coding agent on a directory, sends it a
// prompt and prints what happens: go run . DIR "read hello.txt".
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm/faux"
)

func main() {
	ctx := context.Background()
	a, err := coding.Open(ctx, coding.Options{
		Workdir: os.Args[1],
		// A scripted model; for a real one set Model: "sonnet" instead.
		Provider:  faux.New(faux.Calls("", faux.Call("read", `{"path": "hello.txt"}`)), faux.Text("It says hello.")),
		ModelInfo: faux.Model(),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	a.Subscribe(func(_ context.Context, ev coding.Event) error {
		switch {
		case ev.Type == agent.EventToolEnd:
			fmt.Printf("tool %s: %s\n", ev.Call.Name, ev.Result.Text())
		case ev.Type == agent.EventMessageEnd && ev.Message.Text() != "":
			fmt.Printf("%s: %s\n", ev.Message.Role, ev.Message.Text())
		}
		return nil
	})
	res, err := a.Submit(ctx, os.Args[2])
	fmt.Println("stop:", res.Stop, err)
}

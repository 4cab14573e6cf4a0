package work

import (
	"os"
	"path/filepath"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/sandbox"
)

func userText(s string) llm.Message { return llm.UserText(s) }

func harnessInput(final *llm.Message) harness.VerifyInput {
	return harness.VerifyInput{Final: final, FinalText: final.Text(), Attempt: 1}
}

func mkdirWrite(p, text string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o644)
}

func sandboxOff() *sandbox.Policy { return &sandbox.Policy{Mode: sandbox.Off} }

package work

import "github.com/reinhq/rein/llm"

func userText(s string) llm.Message { return llm.UserText(s) }

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// messagesRequest is what the Claude Code comparison mocks read from a
// Messages API request.
type messagesRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// readMessagesRequest answers what the mocks need not script (requests
// other than POST /v1/messages get {}, token counts get 10) and reports
// false for them; a Messages request is decoded into req.
func readMessagesRequest(w http.ResponseWriter, r *http.Request) (req messagesRequest, ok bool) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") {
		io.WriteString(w, "{}")
		return req, false
	}
	if strings.Contains(r.URL.Path, "count_tokens") {
		io.WriteString(w, `{"input_tokens": 10}`)
		return req, false
	}
	json.Unmarshal(body, &req)
	return req, true
}

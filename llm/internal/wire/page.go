package wire

import (
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/reinhq/rein/llm"
)

// WebPage returns an error when a successful reply is a web page
// (text/html) instead of the event stream asked for, as a proxy, a
// captive portal or a wrong base URL sends; it returns nil for any other
// content type. It reads at most 8 KiB of body, for the page's title. The
// error names the content type and the status so that a person can tell
// what answered. It is classed server_error: the request itself was fine.
func WebPage(resp *http.Response, body io.Reader, provider string, secrets ...string) error {
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if mt != "text/html" && mt != "application/xhtml+xml" {
		return nil
	}
	head, _ := io.ReadAll(io.LimitReader(body, 8<<10))
	msg := "the server answered " + resp.Status + " with a web page (Content-Type " + ct + ") instead of an event stream"
	if m := pageTitle().FindSubmatch(head); m != nil {
		if t := strings.Join(strings.Fields(string(m[1])), " "); t != "" {
			msg += ", titled " + `"` + t + `"`
		}
	}
	msg += "; check the base URL and any proxy in between"
	return &llm.Error{Code: llm.CodeServerError, Status: resp.StatusCode, Provider: provider, Message: Redact(msg, secrets...)}
}

var pageTitle = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<title[^>]*>(.{0,200}?)</title>`) })

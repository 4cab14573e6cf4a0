package server

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// apiError is an error answered to a client: an HTTP status and the
// JSON body {"error": {"code": …, "message": …}}. RetryAfter, in
// seconds, is sent with 503s.
type apiError struct {
	Status     int    `json:"-"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	RetryAfter int    `json:"-"`
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// errorBody is the JSON shape of every error answer.
type errorBody struct {
	Error *apiError `json:"error"`
}

func badRequest(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: "bad_request", Message: fmt.Sprintf(format, args...)}
}

func unavailable(code, msg string) *apiError {
	return &apiError{Status: http.StatusServiceUnavailable, Code: code, Message: msg, RetryAfter: 1}
}

// writeError answers err: an *apiError as it is, anything else as a 500.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{Status: http.StatusInternalServerError, Code: "internal", Message: err.Error()}
	}
	if ae.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
	}
	if ae.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="rein"`)
	}
	writeJSON(w, ae.Status, errorBody{Error: ae})
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"the answer could not be encoded"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// decodeBody reads the JSON body of r into v: a body over the limit is a
// 413, malformed JSON or unknown members a 400 that says where. An empty
// body leaves v as it is.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		if dec.More() {
			return badRequest("the body holds more than one JSON value")
		}
		return nil
	case errors.As(err, &tooBig):
		return &apiError{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large", Message: fmt.Sprintf("the body is over the limit of %d bytes", tooBig.Limit)}
	case errors.Is(err, io.EOF):
		return nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return badRequest("malformed JSON at byte %d: %v", syn.Offset, err)
	}
	return badRequest("invalid body: %v", err)
}

func randomID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

package server

import (
	"fmt"
	"os"
	"strings"
)

// TokenEnv is the environment variable that holds the bearer token when
// no token file is named.
const TokenEnv = "REIN_SERVER_TOKEN"

// Token is the bearer token clients must send (Options.Token): the
// content of file when one is named, else the value of TokenEnv read
// through getenv, both without surrounding white space; "" is no token.
// A named file that cannot be read, or holds only white space, is an
// error naming it: a server meant to need a token must not start
// without one.
func Token(getenv func(string) string, file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(getenv(TokenEnv)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("--token-file %s is empty", file)
	}
	return token, nil
}

// Access says in a few words who may use a server given token, serving
// on a Unix socket or on TCP (where, without a token, CheckListen has
// kept it on loopback): for the line a server prints when it starts.
func Access(token string, socket bool) string {
	switch {
	case token != "":
		return "bearer token required"
	case socket:
		return "no token: the socket's permissions decide"
	}
	return "no token: loopback clients only"
}

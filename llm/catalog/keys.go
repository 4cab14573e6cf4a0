package catalog

import (
	"bytes"
	"context"
	"fmt"
	"github.com/reinhq/rein/redact"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/reinhq/rein/llm"
)

// DefaultKeyTTL is how long the output of an api_key_command is reused
// when the config sets no api_key_ttl.
const DefaultKeyTTL = 10 * time.Minute

// KeyFunc returns an API key for one request. It is called per request so
// that keys that expire can be refreshed.
type KeyFunc func(ctx context.Context) (string, error)

// MissingKeyError says that a provider needs an API key and none was
// found, and what to set to provide one.
type MissingKeyError struct {
	Provider string
	// Profile is the profile whose key is missing, if any.
	Profile string
	// Env lists the environment variables consulted.
	Env []string
	// Field is the config field to fill instead, such as
	// "providers.anthropic.api_key_env".
	Field string
	// File is the config file to put it in.
	File string
}

func (e *MissingKeyError) Error() string {
	var b strings.Builder
	if e.Profile != "" {
		fmt.Fprintf(&b, "no API key for profile %s of provider %s", e.Profile, e.Provider)
	} else {
		fmt.Fprintf(&b, "no API key for provider %s", e.Provider)
	}
	if len(e.Env) > 0 {
		vars := make([]string, len(e.Env))
		for i, v := range e.Env {
			vars[i] = "$" + v
		}
		verb := "is"
		if len(vars) > 1 {
			verb = "are"
		}
		fmt.Fprintf(&b, ": %s %s empty or unset; set %s", strings.Join(vars, " and "), verb, e.Env[0])
		if e.Field != "" {
			b.WriteString(", or fill " + e.Field)
		}
	} else if e.Field != "" {
		b.WriteString(": fill " + e.Field)
	}
	if e.Field != "" {
		b.WriteString(" (or api_key / api_key_command)")
		if e.File != "" {
			b.WriteString(" in " + e.File)
		} else {
			b.WriteString(" in the config file")
		}
	}
	return b.String()
}

// authError wraps a key failure as an auth error so that the failover
// rotates to another profile and callers can classify it.
func authError(provider string, err error) error {
	return &llm.Error{Code: llm.CodeAuth, Provider: provider, Message: err.Error(), Err: err}
}

// configFile is the file a user should edit: the last one read, or the
// user-level file.
func (c *Catalog) configFile() string {
	if n := len(c.cfg.Files); n > 0 {
		return c.cfg.Files[n-1]
	}
	return UserConfigPath(c.getenv)
}

// keyFunc returns the key source of a provider or one of its profiles.
// kc is the configured source (possibly empty); envs are the provider's
// usual variables, consulted when kc is empty. A nil KeyFunc means no key
// is sent. The second result is non-nil when a key that can be checked
// without side effects (a literal or a variable) is missing now.
func (c *Catalog) keyFunc(provider, profile string, kc KeyConfig, envs []string, field string) (KeyFunc, error) {
	missing := func(env ...string) *MissingKeyError {
		return &MissingKeyError{Provider: provider, Profile: profile, Env: env, Field: field, File: c.configFile()}
	}
	switch {
	case kc.APIKey != "":
		key := kc.APIKey
		return func(context.Context) (string, error) { return key, nil }, nil
	case kc.APIKeyCommand != "":
		ck := c.command(kc.APIKeyCommand, time.Duration(kc.APIKeyTTL))
		return func(ctx context.Context) (string, error) {
			k, err := ck.get(ctx)
			if err != nil {
				return "", authError(provider, err)
			}
			return k, nil
		}, nil
	case kc.APIKeyEnv != "":
		envs = []string{kc.APIKeyEnv}
	case len(envs) == 0:
		return nil, nil
	}
	getenv := c.getenv
	f := func(context.Context) (string, error) {
		for _, v := range envs {
			if k := strings.TrimSpace(getenv(v)); k != "" {
				return k, nil
			}
		}
		return "", authError(provider, missing(envs...))
	}
	if _, err := f(context.Background()); err != nil {
		return f, missing(envs...)
	}
	return f, nil
}

// command returns the shared cache of one key command.
func (c *Catalog) command(cmd string, ttl time.Duration) *commandKey {
	if ttl <= 0 {
		ttl = DefaultKeyTTL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	id := fmt.Sprintf("%s\x00%d", cmd, ttl)
	ck := c.commands[id]
	if ck == nil {
		ck = &commandKey{command: cmd, ttl: ttl, now: c.now, sem: make(chan struct{}, 1)}
		c.commands[id] = ck
	}
	return ck
}

// commandKey runs a shell command for a key and caches its output for a
// while. It is safe for concurrent use; concurrent callers share one run.
type commandKey struct {
	command string
	ttl     time.Duration
	now     func() time.Time
	sem     chan struct{}
	key     string
	expires time.Time
	runs    int
}

// maxCommandOutput caps what is read from a key command.
const maxCommandOutput = 64 << 10

func (ck *commandKey) get(ctx context.Context) (string, error) {
	select {
	case ck.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-ck.sem }()
	if ck.key != "" && ck.now().Before(ck.expires) {
		return ck.key, nil
	}
	name, flag := "sh", "-c"
	if runtime.GOOS == "windows" {
		name, flag = "cmd", "/C"
	}
	cmd := exec.CommandContext(ctx, name, flag, ck.command)
	var out, errOut limitedBuffer
	out.max, errOut.max = maxCommandOutput, 512
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = 2 * time.Second
	ck.runs++
	err := cmd.Run()
	key := strings.TrimSpace(out.String())
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		msg := strings.TrimSpace(redactKey(errOut.String(), key, ck.key))
		if msg != "" {
			msg = ": " + msg
		}
		return "", fmt.Errorf("api_key_command %q failed: %v%s", ck.command, err, msg)
	}
	switch {
	case key == "":
		return "", fmt.Errorf("api_key_command %q printed nothing; it must print the API key on standard output", ck.command)
	case strings.ContainsAny(key, "\r\n"):
		return "", fmt.Errorf("api_key_command %q printed several lines; it must print only the API key", ck.command)
	}
	ck.key, ck.expires = key, ck.now().Add(ck.ttl)
	return key, nil
}

func redactKey(s string, keys ...string) string { return redact.Values(s, keys...) }

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}

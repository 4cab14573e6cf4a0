package coding

import (
	"errors"
	"slices"

	"github.com/reinhq/rein/permission"
)

// ModeCycle is the order shift+tab moves through the permission modes,
// as Claude Code's: default (rein's auto_read), acceptEdits (auto_edit),
// plan. A session started in another mode (ask, or auto_all from
// bypassPermissions) keeps it in the cycle: ask before default,
// auto_all after plan, so the user can always come back to it.
func (a *Agent) ModeCycle() []permission.Mode {
	var cycle []permission.Mode
	for _, name := range []string{"default", "acceptEdits", "plan"} {
		if m, err := permission.ParseMode(name); err == nil && !slices.Contains(cycle, m) {
			cycle = append(cycle, m)
		}
	}
	start := a.perm.mode
	if start == "" || slices.Contains(cycle, start) {
		return cycle
	}
	if start == permission.ModeAutoAll {
		return append(cycle, start)
	}
	return append([]permission.Mode{start}, cycle...)
}

// CycleMode moves the permission gate to the next mode of ModeCycle and
// returns it; a mode outside the cycle (set with /mode) moves to the
// cycle's first. The new mode applies from the next tool call.
func (a *Agent) CycleMode() (permission.Mode, error) {
	g := a.h.Permission()
	if g == nil {
		return "", errors.New("no permission gate")
	}
	cycle := a.ModeCycle()
	next := cycle[0]
	if i := slices.Index(cycle, g.Mode()); i >= 0 {
		next = cycle[(i+1)%len(cycle)]
	}
	if err := g.SetMode(next); err != nil {
		return "", err
	}
	return next, nil
}

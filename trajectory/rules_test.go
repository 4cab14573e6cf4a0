package trajectory

import (
	"testing"

	"github.com/reinhq/rein/guard"
)

// TestRuleIDs holds the rule ids this package reads from rein's logs equal
// to the guard's.
func TestRuleIDs(t *testing.T) {
	for _, p := range [][2]string{{ruleReadCache, guard.RuleReadCache}, {ruleSameOutput, guard.RuleSameOutput}, {ruleUnknownTool, guard.RuleUnknownTool}} {
		if p[0] != p[1] {
			t.Errorf("rule id %q here, %q in package guard", p[0], p[1])
		}
	}
}

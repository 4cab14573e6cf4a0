package tui

import (
	"testing"

	"github.com/reinhq/rein/permission"
)

// The approval dialog's deny carries the reason typed after it.
func TestApprovalDenyCarriesReason(t *testing.T) {
	if a := approvalAnswer(2, "use the staging db"); a.Kind != permission.DenyCall || a.Reason != "use the staging db" {
		t.Errorf("deny with reason: %+v", a)
	}
	if a := approvalAnswer(-1, ""); a.Kind != permission.DenyCall || a.Reason == "" {
		t.Errorf("dismissed: %+v", a)
	}
	if a := approvalAnswer(1, ""); a.Kind != permission.AllowAlways {
		t.Errorf("always: %+v", a)
	}
}

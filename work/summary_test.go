package work

import "testing"

func TestListSummary(t *testing.T) {
	l := List{{ID: "1", Status: Pending}, {ID: "2", Status: InProgress}, {ID: "3", Status: Pending}, {ID: "4", Status: Completed}, {ID: "5", Status: Cancelled}}
	if got, want := l.Summary(), "5 work items: 3 open (1 in progress), 1 completed, 1 cancelled"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

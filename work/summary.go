package work

import "fmt"

// Summary is one line counting the items of l by status, for people:
// "5 work items: 3 open (1 in progress), 1 completed, 1 cancelled".
func (l List) Summary() string {
	c := l.Counts()
	return fmt.Sprintf("%d work items: %d open (%d in progress), %d completed, %d cancelled",
		len(l), c[Pending]+c[InProgress], c[InProgress], c[Completed], c[Cancelled])
}

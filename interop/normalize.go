package interop

// alias resolves the parents of entries that were removed.
type alias map[string]string

func (a alias) resolve(id string) string {
	for {
		p, ok := a[id]
		if !ok {
			return id
		}
		id = p
	}
}

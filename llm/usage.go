package llm

// Usage counts the tokens of one model reply and what they cost.
//
// Input counts prompt tokens that were neither read from nor written to a
// prompt cache; CacheRead and CacheWrite count those that were. Total is
// the sum of all four counts.
type Usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
	// Reasoning is the part of Output the provider reported as reasoning
	// (thinking) tokens; zero where the provider does not say. It is not
	// added to Total: Output already holds it.
	Reasoning int  `json:"reasoning,omitempty"`
	Total     int  `json:"total"`
	Cost      Cost `json:"cost,omitzero"`
}

// Cost is the price of a Usage in US dollars, split like the counts.
type Cost struct {
	Input      float64 `json:"input,omitempty"`
	Output     float64 `json:"output,omitempty"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
	Total      float64 `json:"total,omitempty"`
}

// PromptTokens returns every input-side token: fresh, cached and written
// to cache. It is the size of the context the model saw.
func (u *Usage) PromptTokens() int { return u.Input + u.CacheRead + u.CacheWrite }

// Finish sets Total from the counts and Cost from the model's prices.
func (u *Usage) Finish(p Price) {
	u.Total = u.Input + u.Output + u.CacheRead + u.CacheWrite
	const million = 1e6
	u.Cost = Cost{
		Input:      float64(u.Input) * p.Input / million,
		Output:     float64(u.Output) * p.Output / million,
		CacheRead:  float64(u.CacheRead) * p.CacheRead / million,
		CacheWrite: float64(u.CacheWrite) * p.CacheWrite / million,
	}
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
}

// Add accumulates o into u, counts and costs alike.
func (u *Usage) Add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.CacheRead += o.CacheRead
	u.CacheWrite += o.CacheWrite
	u.Reasoning += o.Reasoning
	u.Total += o.Total
	u.Cost.Input += o.Cost.Input
	u.Cost.Output += o.Cost.Output
	u.Cost.CacheRead += o.Cost.CacheRead
	u.Cost.CacheWrite += o.Cost.CacheWrite
	u.Cost.Total += o.Cost.Total
}

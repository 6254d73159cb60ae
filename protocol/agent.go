package protocol

// PromptResult is the result of agent/prompt.
type PromptResult struct {
	Accepted bool   `json:"accepted"`
	Delivery string `json:"delivery"` // prompt | steer | followUp | interrupt
}

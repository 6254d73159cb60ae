package protocol

// Model is one configured model of model/list.
type Model struct {
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	Name          string `json:"name"`
	ContextWindow int    `json:"contextWindow"`
	MaxTokens     int    `json:"maxTokens"`
	Reasoning     bool   `json:"reasoning"`
	Authenticated bool   `json:"authenticated"`
}

// ModelListResult is the result of model/list.
type ModelListResult struct {
	Current string  `json:"current"` // provider/id, "" when none is usable
	Models  []Model `json:"models"`
}

// ModelSetResult is the result of model/set.
type ModelSetResult struct {
	Model string `json:"model"` // provider/id
}

// ThinkingSetResult is the result of thinking/set.
type ThinkingSetResult struct {
	ThinkingLevel string `json:"thinkingLevel"`
}

// AutoCompactionResult is the result of compaction/setAuto.
type AutoCompactionResult struct {
	Enabled bool `json:"enabled"`
}

package protocol

// MemoryConfigureParams are memory/configure's params. Omitted fields keep
// their current value; thresholds of 0 are scaled to the model's window.
type MemoryConfigureParams struct {
	Mode          string `json:"mode,omitempty"` // "compaction" | "observational"
	ObserveTokens *int   `json:"observeTokens,omitempty"`
	ReflectTokens *int   `json:"reflectTokens,omitempty"`
	Model         string `json:"model,omitempty"`         // provider/id of the observer and reflector
	FailurePolicy string `json:"failurePolicy,omitempty"` // "throw" | "warn" | "bypass"
	// ShareTokenBudget: raw messages may use the reflect budget the
	// observations leave unused (default true).
	ShareTokenBudget *bool `json:"shareTokenBudget,omitempty"`
}

// MemorySettings are a session's memory settings.
type MemorySettings struct {
	Mode             string `json:"mode"`
	ObserveTokens    int    `json:"observeTokens,omitempty"`
	ReflectTokens    int    `json:"reflectTokens,omitempty"`
	Model            string `json:"model,omitempty"`
	FailurePolicy    string `json:"failurePolicy,omitempty"`
	ShareTokenBudget *bool  `json:"shareTokenBudget,omitempty"`
}

// MemoryBudget is what the thresholds come to for the current model.
type MemoryBudget struct {
	Window            int    `json:"window"`
	ObserveTokens     int    `json:"observeTokens"`
	ReflectTokens     int    `json:"reflectTokens"`
	KeepTokens        int    `json:"keepTokens"`
	BufferEveryTokens int    `json:"bufferEveryTokens"`
	ReserveTokens     int    `json:"reserveTokens"`
	Notice            string `json:"notice,omitempty"`
	// ShareTokenBudget: observeTokens grows into the reflect budget the
	// observations leave unused.
	ShareTokenBudget bool `json:"shareTokenBudget"`
}

// MemoryConfigureResult is memory/configure's result. Notice says what was
// clamped to fit the window.
type MemoryConfigureResult struct {
	Settings MemorySettings `json:"settings"`
	Budget   *MemoryBudget  `json:"budget,omitempty"`
	Notice   string         `json:"notice,omitempty"`
}

// MemoryStatus is the display state's memory field (null in compaction
// mode before any memory event) and part of memory/show.
type MemoryStatus struct {
	Mode              string                `json:"mode"`
	ObservedMessages  int                   `json:"observedMessages"`
	ObservationTokens int                   `json:"observationTokens"`
	BufferedChunks    int                   `json:"bufferedChunks"`
	BufferedTokens    int                   `json:"bufferedTokens"`
	UnobservedTokens  int                   `json:"unobservedTokens"`
	ObserveTokens     int                   `json:"observeTokens"`
	ReflectTokens     int                   `json:"reflectTokens"`
	Observing         bool                  `json:"observing"`
	Reflecting        bool                  `json:"reflecting"`
	LastReflection    *MemoryReflectionInfo `json:"lastReflection,omitempty"`
	ObserverCalls     int                   `json:"observerCalls"`
	ReflectorCalls    int                   `json:"reflectorCalls"`
	LastError         string                `json:"lastError,omitempty"`
}

// MemoryReflectionInfo describes the last reflection.
type MemoryReflectionInfo struct {
	TokensBefore int   `json:"tokensBefore"`
	Tokens       int   `json:"tokens"`
	Level        int   `json:"level"`
	At           int64 `json:"at"`
}

// MemoryChunk is one buffered observation chunk.
type MemoryChunk struct {
	Seq           int    `json:"seq"`
	From          string `json:"from"`
	To            string `json:"to"`
	Tokens        int    `json:"tokens"`
	MessageTokens int    `json:"messageTokens"`
	Messages      int    `json:"messages"`
}

// MemoryShowResult is memory/show's result: the observation log the model
// sees, the current task, the suggested continuation and the buffer.
type MemoryShowResult struct {
	Settings          MemorySettings `json:"settings"`
	Budget            *MemoryBudget  `json:"budget,omitempty"`
	Status            MemoryStatus   `json:"status"`
	Observations      string         `json:"observations"`
	CurrentTask       string         `json:"currentTask"`
	SuggestedResponse string         `json:"suggestedResponse"`
	Buffered          []MemoryChunk  `json:"buffered"`
}

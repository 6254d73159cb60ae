package protocol

// Goal is the session's goal (goal/set): session/state's and the display
// state's `goal`, null when the session has none.
type Goal struct {
	Text     string `json:"text"`
	Check    string `json:"check"` // "" = judged by the model's goal_done
	Turns    int    `json:"turns"` // runs started toward it, the first included
	MaxTurns int    `json:"maxTurns"`
	// MaxCostUSD is the cost limit (0 = none); CostUSD what its runs cost.
	MaxCostUSD float64    `json:"maxCostUsd,omitempty"`
	CostUSD    float64    `json:"costUsd"`
	Status     GoalStatus `json:"status"`
	Reason     string     `json:"reason,omitempty"` // why it ended
}

// GoalStatus is Goal.Status.
type GoalStatus string

// Goal statuses.
const (
	GoalActive    GoalStatus = "active"
	GoalMet       GoalStatus = "met"
	GoalExhausted GoalStatus = "exhausted"
	GoalStopped   GoalStatus = "stopped"
)

// GoalSetParams are goal/set's params. MaxTurns defaults to 20 (1–1000);
// MaxCostUSD, when set, is more than 0 and at most 10000.
type GoalSetParams struct {
	Text       string   `json:"text"`
	Check      string   `json:"check,omitempty"`
	MaxTurns   *int     `json:"maxTurns,omitempty"`
	MaxCostUSD *float64 `json:"maxCostUsd,omitempty"`
}

// GoalSetResult is goal/set's result: the goal as set (turns is 1 when its
// first run started at once).
type GoalSetResult struct {
	Goal Goal `json:"goal"`
}

// GoalClearParams are goal/clear's params (none).
type GoalClearParams struct{}

// GoalClearResult is goal/clear's result: the goal, stopped (null when the
// session had none).
type GoalClearResult struct {
	Goal *Goal `json:"goal"`
}

package protocol

// Mode is one mode of mode/list.
type Mode struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
	Model string `json:"model,omitempty"` // the model this mode runs with, provider/id
}

// ModeListResult is the result of mode/list.
type ModeListResult struct {
	Current string `json:"current"`
	Yolo    bool   `json:"yolo"`
	Modes   []Mode `json:"modes"`
}

// ModeSetResult is the result of mode/set.
type ModeSetResult struct {
	Mode  string `json:"mode"`
	Model string `json:"model"`
	Yolo  bool   `json:"yolo"`
}

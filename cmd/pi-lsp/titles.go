package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	settingsfile "github.com/pi-lsp/pi-lsp/settings"
)

// sessionSection is the "session" section of the user's settings file:
// {"session": {"generateTitle": true}}.
type sessionSection struct {
	GenerateTitle *bool `json:"generateTitle"`
}

// generateTitles reads session.generateTitle from the user's settings file
// (off unless set: the title is one more model call, which a user pays for).
func generateTitles(path string) (bool, error) {
	f, err := settingsfile.ReadFile(path)
	if err != nil || f == nil {
		return false, err
	}
	raw, ok := f.Raw["session"]
	if !ok {
		return false, nil
	}
	var s sessionSection
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return false, fmt.Errorf("settings: %s: session: %w", path, err)
	}
	return s.GenerateTitle != nil && *s.GenerateTitle, nil
}

package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

func TestBuiltins(t *testing.T) {
	want := map[string]Category{
		"read": CategoryRead, "write": CategoryEdit, "edit": CategoryEdit, "bash": CategoryExecute,
		"grep": CategoryRead, "find": CategoryRead, "ls": CategoryRead,
		"ask_user": CategoryOther, "submit_plan": CategoryOther,
		"task_write": CategoryOther, "task_update": CategoryOther, "task_complete": CategoryOther, "task_check": CategoryOther,
		"subagent": CategoryOther, "diagnostics": CategoryRead, "lsp": CategoryRead,
		"job_output": CategoryRead, "job_kill": CategoryExecute,
	}
	ts := Builtins()
	if len(ts) != len(want) {
		t.Fatalf("%d tools", len(ts))
	}
	byName := ByName(ts)
	for name, cat := range want {
		tool, ok := byName[name]
		if !ok {
			t.Fatalf("missing %s", name)
		}
		if tool.Category() != cat {
			t.Errorf("%s category %s, want %s", name, tool.Category(), cat)
		}
		def := tool.Definition()
		if def.Description == "" {
			t.Errorf("%s has no description", name)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(def.Parameters, &schema); err != nil || schema.Type != "object" || schema.Properties == nil {
			t.Errorf("%s schema: %v %s", name, err, def.Parameters)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s requires undeclared %s", name, r)
			}
		}
	}
}

// panicEnv panics on every file operation.
type panicEnv struct{ *env.Local }

func (panicEnv) ReadFile(context.Context, string) ([]byte, error) { panic("disk on fire") }

func TestToolsNeverPanic(t *testing.T) {
	f := newFixture(t)
	x := Exec{Env: panicEnv{f.env}}
	r := f.tools["read"].Execute(context.Background(), Call{Args: json.RawMessage(`{"path":"x"}`)}, x)
	fails(t, r, "internal error in read: disk on fire")
	r = f.tools["read"].Execute(context.Background(), Call{Args: json.RawMessage(`{"path":"x"}`)}, Exec{})
	fails(t, r, "read: no execution environment")
}

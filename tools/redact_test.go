package tools

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
)

func TestRedactor(t *testing.T) {
	r := NewRedactor([]string{
		"MY_API_KEY=abcdef123456",
		"GITHUB_TOKEN=tok_value_99",
		"DB_PASSWORD=hunter22",
		"client_secret=s3cr3t-lower",
		"SHORT_KEY=abc",       // too short to mask
		"HOME=/home/someone",  // not a secret name
		"OTHER_KEY=abcdef123", // contained in MY_API_KEY's value: masked whole first
		"MALFORMED",
	})
	tests := []struct{ name, in, want string }{
		{"env value", "key is abcdef123456!", "key is ••••••!"},
		{"overlapping values", "abcdef123456 and abcdef123", "•••••• and ••••••"},
		{"lower-case name", "s3cr3t-lower", "••••••"},
		{"short value kept", "abc", "abc"},
		{"other env kept", "/home/someone", "/home/someone"},
		{"openai key", "sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA", "••••••"},
		{"github token", "ghp_" + strings.Repeat("a", 36), "••••••"},
		{"slack token", "xoxb-1234567890-abcdefghij", "••••••"},
		{"aws key id", "AKIAIOSFODNN7EXAMPLE", "••••••"},
		{"bearer", "Authorization: Bearer eyJhbGciOi.x.y", "Authorization: Bearer ••••••"},
		{".env line", "STRIPE_SECRET_KEY=rk_live_zzzzzzzz\nPORT=8080", "STRIPE_SECRET_KEY=••••••\nPORT=8080"},
		{"export quoted", `export SERVICE_TOKEN="q1w2e3r4t5"`, `export SERVICE_TOKEN="••••••"`},
		{"json config", `{"apiKey": "zzzz-1234-yyyy"}`, `{"apiKey": "••••••"}`},
		{"yaml password", "password: 'correct horse'", "password: '••••••'"},
		{"yaml password no space", "password: 'correcthorse'", "password: '••••••'"},
		{"code is left alone", "token := strings.TrimSpace(tokenString)", "token := strings.TrimSpace(tokenString)"},
		{"plain text", "nothing to see", "nothing to see"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Redact(tt.in); got != tt.want {
				t.Fatalf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	var nilR *Redactor
	if nilR.Redact("sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA") != "sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA" {
		t.Fatal("nil redactor must not mask")
	}
}

// TestSecretsNeverReachDisplay runs real tools that see a secret: the model's
// Content keeps it, and Display and Diff, as the wire's egress masks them
// (RedactJSON over the encoded result), never show it.
func TestSecretsNeverReachDisplay(t *testing.T) {
	const secret = "live-value-7f3a9c2e"
	f := newFixture(t)
	red := NewRedactor(append(os.Environ(), "MY_API_KEY="+secret))
	f.write(map[string]string{".env": "MY_API_KEY=" + secret + "\nDB_PASSWORD=notinenv99\n"})
	x := Exec{Env: envWith(f, map[string]string{"MY_API_KEY": secret})}

	cases := []struct {
		name string
		call Call
	}{
		{"bash echo", Call{ID: "1", Name: "bash", Args: json.RawMessage(`{"command":"echo $MY_API_KEY"}`)}},
		{"read .env", Call{ID: "2", Name: "read", Args: json.RawMessage(`{"path":".env"}`)}},
		{"grep .env", Call{ID: "3", Name: "grep", Args: json.RawMessage(`{"pattern":"KEY","path":".env"}`)}},
		{"edit .env", Call{ID: "4", Name: "edit", Args: json.RawMessage(`{"path":".env","edits":[{"oldText":"DB_PASSWORD=notinenv99","newText":"DB_PASSWORD=` + secret + `"}]}`)}},
		{"bash failing", Call{ID: "5", Name: "bash", Args: json.RawMessage(`{"command":"echo $MY_API_KEY; exit 1"}`)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.tools[c.call.Name].Execute(context.Background(), c.call, x)
			if c.name != "edit .env" && !strings.Contains(r.Text(), secret) {
				t.Fatalf("the model must see the real value: %q", r.Text())
			}
			if r.Display == "" {
				t.Fatal("no display copy")
			}
			doc, _ := json.Marshal(map[string]string{"display": r.Display, "diff": r.Diff})
			wire, err := red.RedactJSON(doc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(wire), secret) || strings.Contains(string(wire), "notinenv99") {
				t.Fatalf("secret on the wire: %s", wire)
			}
			if !strings.Contains(string(wire), Mask) {
				t.Fatalf("nothing masked: %s", wire)
			}
		})
	}
}

// envWith is the fixture's env with extra variables for commands.
func envWith(f *fixture, vars map[string]string) env.Env {
	return &extraEnv{Local: f.env, vars: vars}
}

type extraEnv struct {
	*env.Local
	vars map[string]string
}

func (e *extraEnv) Exec(ctx context.Context, req env.ExecRequest, on func([]byte)) (env.ExecResult, error) {
	req.Env = e.vars
	return e.Local.Exec(ctx, req, on)
}

func TestFinalize(t *testing.T) {
	res := Finalize(Result{Content: []llm.ContentBlock{llm.TextBlock("t=abcdefgh")}, Diff: "+abcdefgh"})
	if res.Display != "t=abcdefgh" || res.Diff != "+abcdefgh" || res.Text() != "t=abcdefgh" {
		t.Fatalf("%+v", res)
	}
	if res := Finalize(Result{Content: []llm.ContentBlock{llm.TextBlock("model")}, Display: "editor"}); res.Display != "editor" {
		t.Fatalf("Finalize replaced a tool's own display: %+v", res)
	}
}

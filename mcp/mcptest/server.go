// Package mcptest holds a fake MCP server for pi-lsp's tests: the "ok"
// server (in process, or over Streamable HTTP behind a bearer-token check)
// and, in fakemcp/, a process that also misbehaves on purpose.
package mcptest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// LogLine appends s to $FAKEMCP_LOG (if set): tests read what happened.
func LogLine(s string) {
	path := os.Getenv("FAKEMCP_LOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintln(f, s)
	f.Close()
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo back"`
}

// NewServer is the "ok" server: tools echo, slow (waits until cancelled,
// then logs "cancelled slow"), crash (exits the process), grow (adds the
// tool extra, which announces notifications/tools/list_changed) and env
// (returns $FAKEMCP_SECRET); the prompt greet; the resource fake://readme.
func NewServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "fakemcp", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes the text back"}, func(ctx context.Context, req *sdk.CallToolRequest, in echoArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Waits until cancelled"}, func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
		select {
		case <-ctx.Done():
			LogLine("cancelled slow")
			return nil, nil, ctx.Err()
		case <-time.After(10 * time.Minute):
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "finally"}}}, nil, nil
		}
	})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits the server"}, func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "fakemcp: crashing on purpose")
		os.Exit(7)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds the tool extra"}, func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
		sdk.AddTool(s, &sdk.Tool{Name: "extra", Description: "Appeared later"}, func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "extra!"}}}, nil, nil
		})
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "Returns $FAKEMCP_SECRET"}, func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "secret=" + os.Getenv("FAKEMCP_SECRET")}}}, nil, nil
	})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets someone", Arguments: []*sdk.PromptArgument{{Name: "who", Required: true}}},
		func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Say hello to " + req.Params.Arguments["who"] + "."}}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "fake://readme", Name: "readme", MIMEType: "text/plain"},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "fake://readme", MIMEType: "text/plain", Text: "The readme says: fake content 42."}}}, nil
		})
	return s
}

// HTTPHandler serves NewServer over Streamable HTTP and answers 401 unless
// the request carries "Authorization: Bearer <token>". seen, if not nil,
// gets every Authorization header that arrived.
func HTTPHandler(token string, seen func(auth string)) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return NewServer() }, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if seen != nil {
			seen(auth)
		}
		if auth != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

package mcp

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// npmServers returns node and the directory of the pinned npm MCP servers
// (test/mcp, installed by `npm ci` from make test). Without node the test
// is skipped; with node but without the packages it fails, saying how to
// install them.
func npmServers(t *testing.T) (node, modules string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the tests against the npm MCP servers")
	}
	modules = filepath.Join(repoRoot(), "test", "mcp", "node_modules", "@modelcontextprotocol")
	for _, pkg := range []string{"server-everything", "server-filesystem"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			t.Fatalf("the npm MCP servers are not installed: run `npm ci --prefix test/mcp` (make test does): %v", err)
		}
	}
	return node, modules
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startNode runs a server-everything transport on a free loopback port and
// waits until it listens.
func startNode(t *testing.T, node, script, mode string) int {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(node, script, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return port
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s did not listen on %d", script, mode, port)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestServerEverything(t *testing.T) {
	node, modules := npmServers(t)
	script := filepath.Join(modules, "server-everything", "dist", "index.js")
	httpPort := startNode(t, node, script, "streamableHttp")
	ssePort := startNode(t, node, script, "sse")
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"mcpServers": {
  "everything": {"command": %q, "args": [%q, "stdio"]},
  "everyhttp": {"type": "http", "url": "http://127.0.0.1:%d/mcp"},
  "everysse": {"type": "sse", "url": "http://127.0.0.1:%d/sse"}
}}`, node, script, httpPort, ssePort)
	m := NewManager(Options{Cwd: dir, UserFile: writeConfig(t, dir, "mcp.json", cfg), StartTimeout: 30 * time.Second})
	defer func() {
		start := time.Now()
		m.Close()
		t.Logf("closing the three sessions took %s", time.Since(start).Round(time.Millisecond))
	}()
	ctx := context.Background()
	start := time.Now()
	m.Start(ctx, nil)
	t.Logf("three server-everything transports started in %s", time.Since(start).Round(time.Millisecond))
	for _, name := range []string{"everything", "everyhttp", "everysse"} {
		s := status(t, m, name)
		if s.State != StateReady {
			t.Fatalf("%s: %+v", name, s)
		}
		echo := findTool(t, m, "mcp__"+name+"__echo")
		if !strings.Contains(string(echo.Definition().Parameters), `"message"`) {
			t.Fatalf("%s echo schema: %s", name, echo.Definition().Parameters)
		}
		r := call(ctx, echo, `{"message":"hello `+name+`"}`)
		if r.IsError || !strings.Contains(text(r), "hello "+name) {
			t.Fatalf("%s echo: %+v", name, r)
		}
		t.Logf("%s: %d tools, %d prompts, %d resources", name, len(s.Tools), len(s.Prompts), len(s.Resources))
	}
	// An image result.
	img := call(ctx, findTool(t, m, "mcp__everything__get-tiny-image"), `{}`)
	var images int
	for _, b := range img.Content {
		if b.Type == "image" && b.MimeType == "image/png" && len(b.Data) > 100 {
			images++
		}
	}
	if img.IsError || images != 1 {
		t.Fatalf("tiny image: %+v", img.Content)
	}
	// Resource links.
	links := call(ctx, findTool(t, m, "mcp__everything__get-resource-links"), `{"count":2}`)
	if links.IsError || strings.Count(text(links), "[resource link: ") != 2 {
		t.Fatalf("resource links: %s", text(links))
	}
	// A long operation cancelled by the caller (abort).
	actx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	long := call(actx, findTool(t, m, "mcp__everything__trigger-long-running-operation"), `{"duration":30,"steps":5}`)
	t.Logf("the cancelled call returned after %s", time.Since(t0).Round(time.Millisecond))
	if !long.IsError || !strings.Contains(text(long), "aborted") {
		t.Fatalf("long operation: %+v", long)
	}
	// Prompts and resources.
	if len(m.Commands()) == 0 {
		t.Fatal("server-everything has prompts; no commands")
	}
	st := status(t, m, "everything")
	if len(st.Resources) == 0 {
		t.Fatal("no resources listed")
	}
	body, err := m.ReadResource(ctx, "everything", st.Resources[0].URI)
	if err != nil || body == "" {
		t.Fatalf("read %s: %q %v", st.Resources[0].URI, body, err)
	}
}

func TestServerFilesystem(t *testing.T) {
	node, modules := npmServers(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("filesystem server sees this\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(modules, "server-filesystem", "dist", "index.js")
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"mcpServers": {"fs": {"command": %q, "args": [%q, "${ROOT}"]}}}`, node, script)
	m := NewManager(Options{Cwd: dir, UserFile: writeConfig(t, dir, "mcp.json", cfg), Environ: append(os.Environ(), "ROOT="+root)})
	defer m.Close()
	ctx := context.Background()
	m.Start(ctx, nil)
	if s := status(t, m, "fs"); s.State != StateReady {
		t.Fatalf("fs: %+v", s)
	}
	r := call(ctx, findTool(t, m, "mcp__fs__read_text_file"), fmt.Sprintf(`{"path":%q}`, filepath.Join(root, "notes.txt")))
	if r.IsError || !strings.Contains(text(r), "filesystem server sees this") {
		t.Fatalf("read_text_file: %+v", r)
	}
	// Outside the allowed directory: the server's own error, as an error result.
	r = call(ctx, findTool(t, m, "mcp__fs__read_text_file"), `{"path":"/etc/hostname"}`)
	if !r.IsError {
		t.Fatalf("outside the root: %+v", r)
	}
}

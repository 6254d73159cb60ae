package integration

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

var (
	fakeMCPOnce sync.Once
	fakeMCPBin  string
	fakeMCPErr  error
)

// fakeMCP builds mcp/mcptest/fakemcp once, next to the pi-lsp binary.
func fakeMCP(t *testing.T) string {
	t.Helper()
	fakeMCPOnce.Do(func() {
		fakeMCPBin = filepath.Join(filepath.Dir(binPath), "fakemcp")
		cmd := exec.Command("go", "build", "-o", fakeMCPBin, "./mcp/mcptest/fakemcp")
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			fakeMCPErr = fmt.Errorf("building fakemcp: %v\n%s", err, out)
		}
	})
	if fakeMCPErr != nil {
		t.Fatal(fakeMCPErr)
	}
	return fakeMCPBin
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// npmMCP returns node and the directory of the pinned npm MCP servers
// (test/mcp, installed by `npm ci` from make test). Without node the test
// is skipped; with node but without the packages it fails.
func npmMCP(t *testing.T) (node, modules string) {
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

func everythingScript(modules string) string {
	return filepath.Join(modules, "server-everything", "dist", "index.js")
}

// startEverythingHTTP runs server-everything in Streamable HTTP mode on a
// free loopback port and returns its /mcp URL.
func startEverythingHTTP(t *testing.T, node, modules string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(node, everythingScript(modules), "streamableHttp")
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
			return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not listen on %d", port)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// userMCP writes the user's ~/.pi/agent/mcp.json.
func (e *env) userMCP(content string) {
	writeFile(e.t, filepath.Join(e.home, ".pi", "agent", "mcp.json"), content)
}

// mcpList is mcp/list.
type mcpList struct {
	Servers []struct {
		Name        string `json:"name"`
		Source      string `json:"source"`
		State       string `json:"state"`
		Error       string `json:"error"`
		ApprovalKey string `json:"approvalKey"`
		Tools       []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Prompts []struct {
			Command string `json:"command"`
		} `json:"prompts"`
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	} `json:"servers"`
	Diagnostics []struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Server  string `json:"server"`
		Message string `json:"message"`
	} `json:"diagnostics"`
}

func (s *server) mcpList() mcpList {
	s.t.Helper()
	var l mcpList
	s.call("mcp/list", nil, &l)
	return l
}

func (l mcpList) server(t *testing.T, name string) int {
	t.Helper()
	for i, s := range l.Servers {
		if s.Name == name {
			return i
		}
	}
	t.Fatalf("mcp/list has no server %q: %+v", name, l)
	return -1
}

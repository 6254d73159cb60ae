// Command fakemcp is a misbehaving MCP server for pi-lsp's tests. The first
// argument picks the behaviour:
//
//	ok       a stdio server with the tools echo, slow (waits until
//	         cancelled and appends "cancelled <id>" to $FAKEMCP_LOG), crash
//	         (exits the process) and grow (adds the tool extra and sends
//	         notifications/tools/list_changed), a prompt "greet" and a
//	         resource fake://readme
//	garbage  writes lines that are not JSON-RPC to stdout and never answers
//	exit     writes a message to stderr and exits 3
//	hang     reads stdin and never answers (exits when stdin closes)
//
// Every start appends "start" to $FAKEMCP_LOG.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-lsp/pi-lsp/mcp/mcptest"
)

func main() {
	mode := "ok"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	mcptest.LogLine("start " + mode)
	switch mode {
	case "garbage":
		for i := 0; ; i++ {
			fmt.Printf("this is not JSON-RPC %d {{{\n", i)
			time.Sleep(50 * time.Millisecond)
		}
	case "exit":
		fmt.Fprintln(os.Stderr, "fakemcp: cannot open the database: no such file")
		os.Exit(3)
	case "hang":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
		}
		os.Exit(0) // stdin closed: the client gave up
	}
	s := mcptest.NewServer()
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "fakemcp:", err)
		os.Exit(1)
	}
}

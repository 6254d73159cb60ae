package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/tools"
)

// common holds the flags serve, acp and exec share.
type common struct {
	model        string
	skills       multiFlag
	sessionsDir  string
	cwd          string
	yolo         bool
	logLevel     string
	roots        multiFlag
	allowOutside bool
	sandbox      string
	memory       string

	authOnce sync.Once
	authFile llm.AuthFile
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.model, "model", "", "default model (provider/id)")
	fs.Var(&c.skills, "skill", "extra skill file or directory (repeatable)")
	fs.StringVar(&c.sessionsDir, "sessions-dir", "", "sessions directory")
	fs.StringVar(&c.cwd, "cwd", "", "working directory")
	fs.BoolVar(&c.yolo, "yolo", false, "approve every tool call no policy denies")
	fs.StringVar(&c.logLevel, "log-level", "info", "stderr log level: debug|info|warn|error")
	fs.StringVar(&c.memory, "memory", "", "context management of new sessions: compaction|observational (default: settings, else compaction)")
	fs.Var(&c.roots, "root", "extra workspace root (repeatable)")
	fs.BoolVar(&c.allowOutside, "allow-outside", false, "let tools reach paths outside the workspace without asking")
	fs.StringVar(&c.sandbox, "sandbox", "", "sandbox of commands: workspace-write|read-only|off (default from settings, else workspace-write)")
}

// checkFlags validates what must stop start-up: a --root that does not
// exist, an unknown --sandbox mode.
func (c *common) checkFlags() error {
	for _, r := range c.roots {
		fi, err := os.Stat(r)
		if err != nil {
			return fmt.Errorf("--root %s: %w", r, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("--root %s: not a directory", r)
		}
	}
	if c.sandbox != "" {
		if _, err := env.ParseSandboxMode(c.sandbox); err != nil {
			return fmt.Errorf("--sandbox: %w", err)
		}
	}
	return nil
}

func agentDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".pi", "agent")
}

// newLogger is a command's logger on w at level. It masks secrets
// (maskHandler) with the process's environment; setLogMask adds auth.json's
// keys once they are read.
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(newMaskHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}), tools.NewRedactor(os.Environ())))
}

func (c *common) root() string {
	if c.sessionsDir != "" {
		return c.sessionsDir
	}
	return session.DefaultRoot()
}

func (c *common) registry(log *slog.Logger) *llm.Registry {
	return llm.NewRegistry(llm.RegistryOptions{AuthKeys: c.auth(log).Keys})
}

// newHarness wires a harness from the flags and the environment.
// newHarness builds the harness for cwd (the --cwd flag, else cwd, else the
// process's directory); buffers, when the editor serves its buffers, is what
// reads prefer.
func (c *common) newHarness(log *slog.Logger, reg *llm.Registry, cwd string, buffers env.BufferReader, writes env.BufferWriter) (*harness.Harness, error) {
	var wrap func(env.Env) env.Env
	if buffers != nil || writes != nil {
		// The native protocol's fs/writeTextFile falls back to the disk when the
		// editor fails (docs/protocol.md).
		wrap = func(e env.Env) env.Env { return &env.Editor{Env: e, Read: buffers, Write: writes, DiskOnError: true} }
	}
	return c.newHarnessEnv(log, reg, cwd, wrap)
}

// newHarnessEnv is newHarness with the local Env passed through wrap (when
// non-nil): the ACP adapter routes reads and writes through its client.
func (c *common) newHarnessEnv(log *slog.Logger, reg *llm.Registry, cwd string, wrap func(env.Env) env.Env) (*harness.Harness, error) {
	if c.cwd != "" {
		cwd = c.cwd
	}
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("cwd: %w", err)
		}
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("cwd: %w", err)
	}
	root := c.root()
	skillPaths := append([]string{}, c.skills...)
	if v := os.Getenv("PI_LSP_SKILLS"); v != "" {
		skillPaths = append(filepath.SplitList(v), skillPaths...)
	}
	modesPath := os.Getenv("PI_LSP_MODES")
	if modesPath == "" {
		modesPath = filepath.Join(agentDir(), "modes.json")
	}
	modes, err := harness.LoadModes(modesPath)
	if err != nil {
		return nil, err
	}
	overrides, err := budgetOverrides(settingsPath())
	if err != nil {
		return nil, err
	}
	mem, idle, err := memorySettings(settingsPath(), c.memory)
	if err != nil {
		return nil, err
	}
	subagents, err := subagentSettings(settingsPath())
	if err != nil {
		return nil, err
	}
	diag, servers, err := diagnosticsSettings(settingsPath())
	if err != nil {
		return nil, err
	}
	bc, err := c.boundary(abs)
	if err != nil {
		return nil, err
	}
	checkpoints, err := checkpointSettings(settingsPath())
	if err != nil {
		return nil, err
	}
	titles, err := generateTitles(settingsPath()) // titles.go
	if err != nil {
		return nil, err
	}
	local := env.NewLocal(abs)
	local.SandboxHelper = sandboxHelper() // pi-lsp __sandbox-exec
	var e env.Env = local
	if wrap != nil {
		e = wrap(e)
	}
	h := harness.New(harness.Config{
		Env:          e,
		Models:       reg,
		Streamer:     llm.NewClient(llm.ClientOptions{}),
		SessionsRoot: root,
		AgentDir:     agentDir(),
		SkillPaths:   skillPaths,
		DefaultModel: c.model,
		Yolo:         c.yolo,
		Modes:        modes,

		Roots:        bc.roots,
		AllowOutside: bc.allowOutside,
		Sandbox:      bc.sandbox,
		Policies:     bc.policies,
		Notices:      bc.notices,

		BudgetOverrides: overrides,
		Memory:          mem,
		MemoryIdle:      idle,
		Subagents:       subagents,
		Diagnostics:     diag,
		LangServers:     servers,
		Checkpoints:     checkpoints,
		GenerateTitles:  titles,
		// auth.json's keys are secrets for the redactor, like $*_API_KEY.
		// So are the MCP servers' OAuth tokens (mcp-auth.json).
		Environ:      append(append(os.Environ(), c.auth(log).Secrets()...), mcpTokens().Secrets()...),
		Logger:       log,
		MCP:          newMCP(log, abs, os.Environ()),
		CommandHooks: commandHooks(abs),
	})
	return h, nil
}

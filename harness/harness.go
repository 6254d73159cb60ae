package harness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/langserver"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/mcp"
	"github.com/pi-lsp/pi-lsp/memory"
	"github.com/pi-lsp/pi-lsp/skills"
	"github.com/pi-lsp/pi-lsp/tools"
)

// ModelSource resolves models; llm.Registry implements it.
type ModelSource interface {
	Find(ctx context.Context, ref string) (llm.Model, error)
	Default(ctx context.Context) (llm.Model, error)
}

// UI is how the harness asks the user. The wire layer implements it; a
// method returns tools.ErrNoUI when the client cannot answer.
type UI interface {
	RequestApproval(ctx context.Context, req ApprovalRequest) (Decision, error)
	AskQuestion(ctx context.Context, q tools.Question) (string, error)
	ApprovePlan(ctx context.Context, p tools.Plan) (tools.PlanVerdict, error)
}

// Config wires a Harness.
type Config struct {
	Env          env.Env
	Models       ModelSource
	Streamer     llm.Streamer
	SessionsRoot string
	AgentDir     string   // ~/.pi/agent: skills, prompts, AGENTS.md
	SkillPaths   []string // $PI_LSP_SKILLS and --skill
	DefaultModel string   // provider/id; "" = the registry's default
	Yolo         bool
	// Roots are workspace roots besides the cwd (--root, permissions.roots).
	Roots []string
	// AllowOutside lets tools reach paths outside the workspace without
	// asking (--allow-outside, permissions.outsideWorkspace "allow").
	AllowOutside bool
	// Sandbox configures the Landlock sandbox of bash and agent/bash.
	Sandbox env.SandboxSettings
	// Policies are the standing tool and category policies of the user's
	// settings (and the denies of the project's): a new session starts
	// with them, and their denies hold in every session.
	Policies Policies
	// Notices are told to the user once the editor is connected (ignored
	// project settings, for example).
	Notices []string
	Tools   []tools.Tool // nil = tools.Builtins()
	Modes   []Mode       // nil = DefaultModes()
	Environ []string     // names the secrets masked in provider errors before they are stored
	Logger  *slog.Logger
	Now     func() time.Time
	// BudgetOverrides are per-model compaction settings, keyed by provider/id.
	BudgetOverrides map[string]compaction.Settings
	// MCP, if set, is the workspace's MCP servers (started at the first
	// turn; Close closes it).
	MCP *mcp.Manager
	// CommandHooks, if set, are the settings' shell-command hooks.
	CommandHooks *CommandHooks
	// Memory is the memory mode of sessions that chose none (--memory,
	// settings); MemoryIdle overrides the idle trigger per model.
	Memory     memory.Settings
	MemoryIdle map[string]time.Duration
	// Subagents configure the subagent tool (cap, model aliases).
	Subagents SubagentSettings
	// Diagnostics configure the problems appended after changes.
	Diagnostics DiagnosticsSettings
	// LangServers are the language servers pi-lsp may start itself
	// (langserver.Resolve); nil: none.
	LangServers []langserver.ServerConfig
	// GoalCheckTimeout bounds one run of a goal's check command (0 =
	// DefaultGoalCheckTimeout).
	GoalCheckTimeout time.Duration
	// Checkpoints configure the workspace checkpoints (checkpoints.go).
	Checkpoints CheckpointSettings
	// GenerateTitles names an unnamed session after its first answer with
	// one short model call (title.go).
	GenerateTitles bool
}

// Harness is one agent: a current session, a model, a mode and a run at a
// time. All methods are safe for concurrent use.
type Harness struct {
	cfg    Config
	log    *slog.Logger
	redact *tools.Redactor
	tools  []tools.Tool
	ws     *env.Workspace
	// sandbox probes Landlock once and warns once when it is missing.
	sandbox sandboxProbe

	hooks hooks
	mcpState
	hookState
	jobState // background jobs (jobs.go)

	// sessions owns the current session and the operations on it
	// (sessionops.go).
	sessions sessionHost

	// owner owns the run lifecycle: the phase, the queue, the changes
	// queued during a run and who holds the harness (runner.go).
	owner *runner

	mu          sync.Mutex
	model       llm.Model
	hasModel    bool
	thinking    llm.ThinkingLevel
	mode        string
	modeModels  map[string]string
	yolo        bool
	perms       Permissions
	taskList    []tools.Task
	autoCompact bool
	compactions int
	ui          UI
	notices     []string // notices given (EvNotice), for late clients
	// pendingNotices wait for the session_change event of the session
	// being opened.
	pendingNotices []string
	warnReported   int      // session warnings already given as notices
	spills         []string // bash spill files of the current session
	shown          int      // messages shown since the last session_change (reseedEvent)

	bashCancel  context.CancelFunc // a user command (agent/bash) in progress
	lastUsage   llm.Usage
	cumulative  llm.Usage
	ctxm        contextMgrs // context managers per model (contextmgr.go)
	skillsRes   *skills.Result
	skillsDirty bool
	ctxFiles    contextFilesCache

	startedSessions map[string]bool // sessions whose session_start hooks ran
	mem             memoryHolder    // observational memory (memory.go)
	sa              subagentState   // subagents: see subagent.go
	code            codeState       // language servers: see diagnostics.go
	ck              checkpointState // workspace checkpoints: see checkpoints.go
	titles          titler          // generated session titles: see title.go
}

// New builds a harness. It opens no session: the first prompt creates one
// unless NewSession or OpenSession was called.
func New(cfg Config) *Harness {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Modes == nil {
		cfg.Modes = DefaultModes()
	}
	ts := cfg.Tools
	if ts == nil {
		ts = tools.Builtins()
	}
	h := &Harness{
		cfg:         cfg,
		log:         cfg.Logger,
		redact:      tools.NewRedactor(cfg.Environ),
		tools:       ts,
		ws:          newWorkspace(cfg),
		thinking:    llm.ThinkingOff,
		mode:        cfg.Modes[0].ID,
		modeModels:  map[string]string{},
		yolo:        cfg.Yolo,
		perms:       cfg.Policies.apply(DefaultPermissions()),
		notices:     append([]string(nil), cfg.Notices...),
		autoCompact: true,
		skillsDirty: true,
	}
	h.owner = newRunner(h)
	h.sessions.h = h
	// The editor overlay asks the editor only about workspace files: the
	// context files of ~/.pi/agent and of the root's ancestors, the user's
	// skills and agents are read from the disk (an editor logs every
	// fs/readTextFile it cannot answer as an error).
	if ed, ok := cfg.Env.(*env.Editor); ok && ed.Inside == nil {
		ed.Inside = h.ws.Contains
	}
	h.newLangServers()
	if cfg.CommandHooks != nil {
		h.installCommandHooks(cfg.CommandHooks)
	}
	if cfg.MCP != nil {
		cfg.MCP.SetUI(mcpUI{h})
	}
	return h
}

// Subscribe registers fn for every event, in order. fn runs synchronously on
// the emitting goroutine and must not block or call back into the harness
// (the run owner delivers a transition's events holding the event lock).
// The returned func unsubscribes. A display subscribes with Attach.
func (h *Harness) Subscribe(fn func(Event)) (unsubscribe func()) {
	b := &h.owner.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.subscribeLocked(fn)
}

// emit delivers ev on the run owner's event bus.
func (h *Harness) emit(ev Event) { h.owner.bus.emit(ev) }

// SetUI sets (or clears, with nil) the user interface the harness asks.
func (h *Harness) SetUI(ui UI) {
	h.mu.Lock()
	h.ui = ui
	h.mu.Unlock()
}

func (h *Harness) getUI() UI {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ui
}

// BusyError is returned by entry points that need the idle phase.
type BusyError struct{ Phase Phase }

func (e *BusyError) Error() string { return fmt.Sprintf("busy: the agent is in phase %q", e.Phase) }

// ErrNoSession is returned when an operation needs a session and none is open.
var ErrNoSession = errors.New("no session is open")

// Phase returns the current phase.
func (h *Harness) Phase() Phase { return h.owner.Phase() }

// Close aborts any run, waits for it and closes the session.
func (h *Harness) Close() error {
	h.owner.close()
	h.cancelBash()
	_ = h.owner.wait(context.Background())
	_ = h.settleCheckpoint(context.Background()) // the end checkpoint is recorded before the session closes
	h.titles.stop()
	h.closeJobs()
	if h.cfg.MCP != nil {
		h.cfg.MCP.Close()
	}
	h.closeMemory()
	h.closeCode()
	h.mu.Lock()
	s := h.sessions.cur
	h.sessions.cur = nil
	h.mu.Unlock()
	h.removeSpills()
	if s != nil {
		return s.Close()
	}
	return nil
}

// Wait blocks until the current run (if any) ends or ctx is done. A run
// that starts from the ending one — with the messages queued too late for
// it, an interrupt's, an approved plan's build run — is waited for too.
func (h *Harness) Wait(ctx context.Context) error { return h.owner.wait(ctx) }

// Cwd is the working directory of the agent.
func (h *Harness) Cwd() string { return h.cfg.Env.Cwd() }

func (h *Harness) now() int64 { return h.cfg.Now().UnixMilli() }

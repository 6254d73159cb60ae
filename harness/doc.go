// Package harness is pi-lsp's AgentHarness: phases, the turn loop, ordered
// events and hooks, the open channel (prompt, steer, followUp, interrupt,
// abort), modes, the approval chain, tasks and subagents. It knows nothing of
// the wire: rpc and acp drive it.
package harness

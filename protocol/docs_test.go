package protocol_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/protocol"
)

// docTypes maps a method of docs/protocol.md to the types of its example:
// params (or the notification's params) and result; nil when the example is
// not one of protocol's types.
var docTypes = map[string][2]func() any{
	"model/list":            {nil, func() any { return new(protocol.ModelListResult) }},
	"model/set":             {nil, func() any { return new(protocol.ModelSetResult) }},
	"thinking/set":          {nil, func() any { return new(protocol.ThinkingSetResult) }},
	"mode/list":             {nil, func() any { return new(protocol.ModeListResult) }},
	"mode/set":              {nil, func() any { return new(protocol.ModeSetResult) }},
	"compaction/setAuto":    {nil, func() any { return new(protocol.AutoCompactionResult) }},
	"memory/configure":      {func() any { return new(protocol.MemoryConfigureParams) }, func() any { return new(protocol.MemoryConfigureResult) }},
	"memory/show":           {nil, func() any { return new(protocol.MemoryShowResult) }},
	"skills/list":           {nil, func() any { return new(protocol.SkillsListResult) }},
	"templates/list":        {nil, func() any { return new(protocol.TemplatesListResult) }},
	"commands/list":         {nil, func() any { return new(protocol.CommandsListResult) }},
	"files/search":          {func() any { return new(protocol.FilesSearchParams) }, func() any { return new(protocol.FilesSearchResult) }},
	"agents/list":           {nil, func() any { return new(protocol.AgentsListResult) }},
	"tasks/list":            {nil, func() any { return new(protocol.TasksListResult) }},
	"mcp/list":              {nil, func() any { return new(protocol.MCPListResult) }},
	"mcp/restart":           {func() any { return new(protocol.MCPRestartParams) }, func() any { return new(protocol.MCPRestartResult) }},
	"mcp/login":             {func() any { return new(protocol.MCPLoginParams) }, func() any { return new(protocol.MCPLoginResult) }},
	"mcp/logout":            {func() any { return new(protocol.MCPLoginParams) }, func() any { return new(protocol.MCPLoginResult) }},
	"mcp/resources":         {func() any { return new(protocol.MCPResourcesParams) }, func() any { return new(protocol.MCPResourcesResult) }},
	"ui/elicit":             {func() any { return new(protocol.ElicitParams) }, func() any { return new(protocol.ElicitResult) }},
	"window/showDocument":   {func() any { return new(protocol.ShowDocumentParams) }, func() any { return new(protocol.ShowDocumentResult) }},
	"agent/prompt":          {nil, func() any { return new(protocol.PromptResult) }},
	"agent/interrupt":       {nil, func() any { return new(protocol.DraftsResult) }},
	"agent/abort":           {nil, func() any { return new(protocol.DraftsResult) }},
	"session/tree":          {func() any { return new(protocol.TreeParams) }, func() any { return new(protocol.TreeResult) }},
	"session/entries":       {nil, func() any { return new(protocol.EntriesResult) }},
	"session/image":         {func() any { return new(protocol.SessionImageParams) }, func() any { return new(protocol.SessionImageResult) }},
	"session/export":        {nil, func() any { return new(protocol.ExportResult) }},
	"display/snapshot":      {nil, func() any { return new(protocol.DisplaySnapshot) }},
	"display/history":       {func() any { return new(protocol.HistoryParams) }, func() any { return new(protocol.HistoryResult) }},
	"display/state":         {func() any { return new(protocol.DisplayFrame) }, nil},
	"harness/event":         {func() any { return new(protocol.EventParams) }, nil},
	"$/progress":            {func() any { return new(protocol.ProgressParams) }, nil},
	"window/logMessage":     {func() any { return new(protocol.LogMessageParams) }, nil},
	"ui/requestApproval":    {func() any { return new(protocol.ApprovalParams) }, func() any { return new(protocol.ApprovalReply) }},
	"fs/writeTextFile":      {func() any { return new(protocol.WriteTextFileParams) }, nil},
	"ui/askQuestion":        {func() any { return new(protocol.QuestionParams) }, func() any { return new(protocol.QuestionResult) }},
	"ui/approvePlan":        {func() any { return new(protocol.PlanParams) }, func() any { return new(protocol.PlanResult) }},
	"editor/diagnostics":    {func() any { return new(protocol.EditorDiagnosticsParams) }, func() any { return new(protocol.EditorDiagnosticsResult) }},
	"editor/lsp":            {func() any { return new(protocol.EditorLSPParams) }, func() any { return new(protocol.EditorLSPResult) }},
	"fs/readTextFile":       {func() any { return new(protocol.ReadTextFileParams) }, func() any { return new(protocol.ReadTextFileResult) }},
	"goal/set":              {func() any { return new(protocol.GoalSetParams) }, func() any { return new(protocol.GoalSetResult) }},
	"goal/clear":            {func() any { return new(protocol.GoalClearParams) }, func() any { return new(protocol.GoalClearResult) }},
	"jobs/list":             {func() any { return new(protocol.JobsListParams) }, func() any { return new(protocol.JobsListResult) }},
	"jobs/output":           {func() any { return new(protocol.JobsOutputParams) }, func() any { return new(protocol.JobsOutputResult) }},
	"jobs/kill":             {func() any { return new(protocol.JobsKillParams) }, func() any { return new(protocol.JobsKillResult) }},
	"session/fork":          {func() any { return new(protocol.ForkParams) }, func() any { return new(protocol.SessionResult) }},
	"session/clone":         {func() any { return new(protocol.CloneParams) }, func() any { return new(protocol.SessionResult) }},
	"session/navigate":      {func() any { return new(protocol.NavigateParams) }, func() any { return new(protocol.NavigateResult) }},
	"session/rewindPreview": {func() any { return new(protocol.RewindTargetParams) }, func() any { return new(protocol.RewindPreviewResult) }},
	"session/restoreFiles":  {func() any { return new(protocol.RewindTargetParams) }, func() any { return new(protocol.RestoreFilesResult) }},
}

var (
	heading = regexp.MustCompile(`(?m)^### (\S+)[^\n]*`)
	// The example of a section: its first code (inline or a json block),
	// then, after an arrow, the result.
	example = regexp.MustCompile("(?s)(?:`(\\{[^`]*\\})`|```json\n(.*?)\n```)(?:\\s*→\\s*(?:`(\\{[^`]*\\}|null)`|```json\n(.*?)\n```))?")
)

// TestDocExamplesDecode checks docs/protocol.md's examples against the
// protocol types: each decodes with unknown members refused. Examples that
// are not JSON (they elide with …) are skipped and listed.
func TestDocExamplesDecode(t *testing.T) {
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	locs := heading.FindAllStringSubmatchIndex(doc, -1)
	checked := 0
	var skipped []string
	for i, loc := range locs {
		method := doc[loc[2]:loc[3]]
		types, ok := docTypes[method]
		if !ok {
			continue
		}
		end := len(doc)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		m := example.FindStringSubmatch(doc[loc[1]:end])
		if m == nil {
			t.Errorf("%s: no example found", method)
			continue
		}
		params := m[1] + m[2]
		for j, text := range []string{params, m[3] + m[4]} {
			if types[j] == nil || text == "" || text == "null" {
				continue
			}
			if !json.Valid([]byte(text)) {
				skipped = append(skipped, method)
				continue
			}
			dec := json.NewDecoder(bytes.NewReader([]byte(text)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(types[j]()); err != nil {
				t.Errorf("%s: the example %s does not decode into protocol's type: %v", method, text, err)
			}
			checked++
		}
	}
	t.Logf("%d examples checked; skipped (not JSON): %s", checked, strings.Join(skipped, ", "))
	if checked < 20 {
		t.Errorf("only %d examples checked", checked)
	}
}

package compaction

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/pi-lsp/pi-lsp/llm"
)

// FileOps are the files a summarized stretch of conversation read and
// modified, as stored in a compaction or branch_summary entry's details.
type FileOps struct {
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
}

// fileSets is pi's FileOperations: the raw sets before computeFileLists.
type fileSets struct {
	read, written, edited map[string]struct{}
}

func newFileSets() *fileSets {
	return &fileSets{read: map[string]struct{}{}, written: map[string]struct{}{}, edited: map[string]struct{}{}}
}

// addDetails merges a previous summary's lists: read files stay read,
// modified files count as edited (pi).
func (f *fileSets) addDetails(d *FileOps) {
	if d == nil {
		return
	}
	for _, p := range d.ReadFiles {
		f.read[p] = struct{}{}
	}
	for _, p := range d.ModifiedFiles {
		f.edited[p] = struct{}{}
	}
}

// addMessage is pi's extractFileOpsFromMessage: the path argument of read,
// write and edit tool calls in an assistant message.
func (f *fileSets) addMessage(m *llm.Message) {
	if m == nil || m.Role != llm.RoleAssistant {
		return
	}
	for i := range m.Content {
		b := &m.Content[i]
		if b.Type != llm.BlockToolCall {
			continue
		}
		var set map[string]struct{}
		switch b.Name {
		case "read":
			set = f.read
		case "write":
			set = f.written
		case "edit":
			set = f.edited
		default:
			continue
		}
		if p := pathArg(b.Arguments); p != "" {
			set[p] = struct{}{}
		}
	}
}

// pathArg returns the string "path" member of tool call arguments. A map is
// used instead of a struct so the key matches exactly, as in JavaScript.
func pathArg(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil {
		return ""
	}
	var p string
	if err := json.Unmarshal(args["path"], &p); err != nil {
		return ""
	}
	return p
}

// lists is pi's computeFileLists: modified = edited ∪ written, read = read
// minus modified, both sorted.
func (f *fileSets) lists() FileOps {
	mod := make(map[string]struct{}, len(f.edited)+len(f.written))
	for p := range f.edited {
		mod[p] = struct{}{}
	}
	for p := range f.written {
		mod[p] = struct{}{}
	}
	out := FileOps{ReadFiles: []string{}, ModifiedFiles: []string{}}
	for p := range f.read {
		if _, ok := mod[p]; !ok {
			out.ReadFiles = append(out.ReadFiles, p)
		}
	}
	for p := range mod {
		out.ModifiedFiles = append(out.ModifiedFiles, p)
	}
	sort.Strings(out.ReadFiles)
	sort.Strings(out.ModifiedFiles)
	return out
}

// formatFileOperations is pi's: <read-files> and <modified-files> blocks
// after a blank line, or "" when both lists are empty.
func formatFileOperations(f FileOps) string {
	var sections []string
	if len(f.ReadFiles) > 0 {
		sections = append(sections, "<read-files>\n"+strings.Join(f.ReadFiles, "\n")+"\n</read-files>")
	}
	if len(f.ModifiedFiles) > 0 {
		sections = append(sections, "<modified-files>\n"+strings.Join(f.ModifiedFiles, "\n")+"\n</modified-files>")
	}
	if len(sections) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(sections, "\n\n")
}

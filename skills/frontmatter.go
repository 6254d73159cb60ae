package skills

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// frontmatter is a Markdown file split into its YAML header and body.
type frontmatter struct {
	// fields maps each top-level key to its value node.
	fields map[string]*yaml.Node
	// lineOffset converts a yaml.Node line into a file line.
	lineOffset int
	body       string
	// warnings are problems that do not spoil the header (a repeated key).
	warnings []fmWarning
}

type fmWarning struct {
	line    int
	message string
}

// splitFrontmatter cuts content into the YAML text between a first line
// "---" and the next line "---", and the body after it. pi trims the body
// when there is a header and keeps it as is when there is none; so do we.
// CRLF and CR are normalised to LF first, and a UTF-8 BOM is dropped.
// closed is false when the header opens but never closes (then the whole
// text is the body, as in pi).
func splitFrontmatter(content string) (yamlText, body string, has, closed bool) {
	content = strings.TrimPrefix(content, "\ufeff")
	content = strings.ReplaceAll(content, "\r\n", "\n")
	content = strings.ReplaceAll(content, "\r", "\n")
	first, rest, found := strings.Cut(content, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", content, false, false
	}
	if !found {
		return "", content, true, false
	}
	off := 0
	for off <= len(rest) {
		line, _, more := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" {
			after := ""
			if more {
				after = rest[off+len(line)+1:]
			}
			return rest[:off], strings.TrimSpace(after), true, true
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", content, true, false
}

var yamlLineRe = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// parseFrontmatter parses content's header. A problem comes back as a
// diagnostic-ready message and 1-based file line; fm is still usable (with
// no fields) so callers can fall back to defaults.
func parseFrontmatter(content string) (fm frontmatter, problem string, line int) {
	yamlText, body, has, closed := splitFrontmatter(content)
	fm = frontmatter{fields: map[string]*yaml.Node{}, lineOffset: 1, body: body}
	if !has {
		return fm, "", 0
	}
	if !closed {
		return fm, "frontmatter starts with --- but is never closed by a --- line", 1
	}
	if strings.TrimSpace(yamlText) == "" {
		return fm, "", 0
	}
	var doc yaml.Node
	if err := safeUnmarshal(yamlText, &doc); err != nil {
		// yaml.v3 says "yaml: line N: what"; N counts from the header's
		// first line, so it moves into the diagnostic's Line, in file lines.
		msg, l := splitYAMLError(err)
		if exact := locateYAMLError(yamlText, msg); exact > 0 {
			l = exact
		}
		if l > 0 {
			l += fm.lineOffset
		}
		return fm, "invalid YAML frontmatter: " + msg, l
	}
	if len(doc.Content) == 0 {
		return fm, "", 0
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return fm, "", 0
	}
	if root.Kind != yaml.MappingNode {
		return fm, "frontmatter is not a mapping of fields", root.Line + fm.lineOffset
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if _, dup := fm.fields[k.Value]; dup {
			fm.warnings = append(fm.warnings, fmWarning{k.Line + fm.lineOffset,
				fmt.Sprintf("duplicate frontmatter key %q; the first one is used", k.Value)})
			continue
		}
		fm.fields[k.Value] = root.Content[i+1]
	}
	return fm, "", 0
}

// splitYAMLError cuts yaml.v3's "yaml: line N: what" into what and N.
func splitYAMLError(err error) (msg string, line int) {
	msg = err.Error()
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		return msg[len(m[0]):], line
	}
	return strings.TrimPrefix(msg, "yaml: "), 0
}

// Bounds of locateYAMLError's search.
const (
	locateMaxLines = 200
	locateMaxBytes = 64 << 10
)

// locateYAMLError finds the line a YAML error is really on. yaml.v3 reports
// the line where the enclosing construct began (its "context mark"), often
// a line or more above the fault; so this parses growing prefixes of text
// and returns the first line at which the same error appears. 0 when it
// cannot tell (then yaml's own line stands).
func locateYAMLError(text, msg string) int {
	if len(text) > locateMaxBytes {
		return 0
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > locateMaxLines {
		return 0
	}
	n := 0
	for i, l := range lines {
		n += len(l)
		var doc yaml.Node
		if err := safeUnmarshal(text[:n], &doc); err != nil {
			if m, _ := splitYAMLError(err); m == msg {
				return i + 1
			}
		}
	}
	return 0
}

// safeUnmarshal guards against a panic inside the YAML decoder: bad input
// must give an error, never take the process down.
func safeUnmarshal(text string, out *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml decoder panic: %v", r)
		}
	}()
	return yaml.Unmarshal([]byte(text), out)
}

// line returns the file line of a field's value (0 if absent).
func (fm frontmatter) line(key string) int {
	if n := fm.fields[key]; n != nil {
		return n.Line + fm.lineOffset
	}
	return 0
}

// str returns a scalar field as a string. ok is false when the field is
// present but not a scalar; a null counts as absent.
func (fm frontmatter) str(key string) (v string, present, ok bool) {
	n := fm.fields[key]
	if n == nil {
		return "", false, true
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return "", true, false
	}
	if n.Tag == "!!null" {
		return "", false, true
	}
	return n.Value, true, true
}

// boolean returns a boolean field; ok is false when it is not a boolean.
func (fm frontmatter) boolean(key string) (v, present, ok bool) {
	n := fm.fields[key]
	if n == nil {
		return false, false, true
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		return false, true, false
	}
	return b, true, true
}

// mapping decodes a mapping field into JSON-safe values.
func (fm frontmatter) mapping(key string) (v map[string]any, present, ok bool) {
	n := fm.fields[key]
	if n == nil {
		return nil, false, true
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, false, true
	}
	if n.Kind != yaml.MappingNode {
		return nil, true, false
	}
	var raw map[string]any
	if err := n.Decode(&raw); err != nil {
		return nil, true, false
	}
	out, _ := jsonSafe(raw).(map[string]any)
	return out, true, true
}

// words returns a space-separated string or a list of strings.
func (fm frontmatter) words(key string) (v []string, present, ok bool) {
	n := fm.fields[key]
	if n == nil {
		return nil, false, true
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, false, true
		}
		return strings.Fields(n.Value), true, true
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, true, false
			}
			v = append(v, strings.Fields(item.Value)...)
		}
		return v, true, true
	}
	return nil, true, false
}

// jsonSafe turns YAML's map[any]any (non-string keys) into map[string]any
// so a skill's metadata always marshals to JSON.
func jsonSafe(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = jsonSafe(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = jsonSafe(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = jsonSafe(x)
		}
		return out
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return strconv.FormatFloat(t, 'g', -1, 64)
		}
	}
	return v
}

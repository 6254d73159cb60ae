// Command gen writes the client types of the native protocol from package
// protocol's Go declarations: TypeScript for the VS Code extension
// (editors/vscode/src/protocol.gen.ts) and a JSON Schema (protocol/
// protocol.schema.json) that the Neovim and Node tests validate received
// messages with. `go generate ./protocol` runs it; TestGeneratedFilesAreFresh
// fails when either file is stale.
//
// It reads the package with go/types (from source, so it needs no build of
// protocol) and follows encoding/json's rules: json tags, omitempty (an
// optional member), embedded structs (their fields inlined), pointers (may be
// null), json.RawMessage (any JSON). Types that marshal themselves declare
// their wire shape in the wire table below.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"log"
	"os"
	"path/filepath"

	"reflect"
	"sort"
	"strings"
)

// shape is a type's TypeScript and JSON Schema form.
type shape struct {
	ts     string
	schema map[string]any
}

// customTypes are the types with their own MarshalJSON: their TypeScript
// and JSON Schema shapes.
func customTypes() map[string]shape {
	return map[string]shape{
		// Item marshals as the variant of its kind (protocol/display.go). The
		// TypeScript type is the struct with every member optional, so a
		// client reads any kind's fields; the schema checks the variants.
		"Item": {"", map[string]any{"anyOf": []any{ref("UserItem"), ref("AssistantItem"), ref("ToolItem"), ref("BashItem"), ref("SummaryItem"), ref("TextItem")}}},
		// Op is the array [code, path, value] ([code, path] for delete).
		"Op": {"[OpCode, PathElem[], unknown] | ['d', PathElem[]]", map[string]any{
			"type": "array", "minItems": 2, "maxItems": 3,
			"prefixItems": []any{map[string]any{"enum": []any{"s", "a", "p", "d", "m"}}, map[string]any{"type": "array", "items": map[string]any{"type": []any{"string", "integer"}}}},
		}},
		// AgentMessage and ContentBlock marshal as the variant of their role
		// and type (protocol/event.go).
		"AgentMessage": {"UserMessage | AssistantMessage | ToolResultMessage | BashExecutionMessage | CustomMessage | BranchSummaryMessage | CompactionSummaryMessage",
			map[string]any{"anyOf": []any{ref("UserMessage"), ref("AssistantMessage"), ref("ToolResultMessage"), ref("BashExecutionMessage"), ref("CustomMessage"), ref("BranchSummaryMessage"), ref("CompactionSummaryMessage")}}},
		"ContentBlock": {"TextContent | ImageContent | ThinkingContent | ToolCallContent",
			map[string]any{"anyOf": []any{ref("TextContent"), ref("ImageContent"), ref("ThinkingContent"), ref("ToolCallContent")}}},
		"Fields": {"Record<string, unknown>", map[string]any{"type": "object"}},
		"Field":  {"never", nil},
	}
}

// variant is a wire variant of a custom type: the member that tells the
// variants apart and its values.
type variant struct {
	member string
	values []string
}

// variantTypes are the wire variants of the custom types.
func variantTypes() map[string]variant {
	return map[string]variant{
		"UserItem": {"kind", []string{"user"}}, "AssistantItem": {"kind", []string{"assistant"}}, "ToolItem": {"kind", []string{"tool"}},
		"BashItem": {"kind", []string{"bash"}}, "SummaryItem": {"kind", []string{"summary"}}, "TextItem": {"kind", []string{"error", "info"}},
		"UserMessage": {"role", []string{"user"}}, "AssistantMessage": {"role", []string{"assistant"}}, "ToolResultMessage": {"role", []string{"toolResult"}},
		"BashExecutionMessage": {"role", []string{"bashExecution"}}, "CustomMessage": {"role", []string{"custom"}},
		"BranchSummaryMessage": {"role", []string{"branchSummary"}}, "CompactionSummaryMessage": {"role", []string{"compactionSummary"}},
		"TextContent": {"type", []string{"text"}}, "ImageContent": {"type", []string{"image"}}, "ThinkingContent": {"type", []string{"thinking"}},
		"ToolCallContent": {"type", []string{"toolCall"}},
	}
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/$defs/" + name} }

func main() {
	dir := flag.String("dir", ".", "the protocol package's directory")
	tsOut := flag.String("ts", "../editors/vscode/src/protocol.gen.ts", "TypeScript output")
	schemaOut := flag.String("schema", "protocol.schema.json", "JSON Schema output")
	flag.Parse()
	g, err := load(*dir)
	if err != nil {
		log.Fatal(err)
	}
	ts, schema, err := g.generate()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*tsOut, ts, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*schemaOut, schema, 0o644); err != nil {
		log.Fatal(err)
	}
}

type gen struct {
	pkg      *types.Package
	docs     map[string]string // type name -> doc comment
	custom   map[string]shape
	variants map[string]variant
}

func load(dir string) (*gen, error) {
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	var names []string
	for _, m := range matches {
		if !strings.HasSuffix(m, "_test.go") {
			names = append(names, m)
		}
	}
	sort.Strings(names)
	var files []*ast.File
	docs := map[string]string{}
	for _, n := range names {
		f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("gen: parse: %w", err)
		}
		if f.Name.Name != "protocol" {
			continue
		}
		files = append(files, f)
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if doc != nil {
					docs[ts.Name.Name] = strings.TrimSpace(doc.Text())
				}
			}
		}
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("github.com/pi-lsp/pi-lsp/protocol", fset, files, nil)
	if err != nil {
		return nil, fmt.Errorf("gen: type-check: %w", err)
	}
	return &gen{pkg: pkg, docs: docs, custom: customTypes(), variants: variantTypes()}, nil
}

// member is one JSON member of a struct.
type member struct {
	name     string
	typ      types.Type
	optional bool
}

func (g *gen) members(st *types.Struct) []member {
	var out []member
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Exported() && !f.Embedded() {
			continue
		}
		tag := reflect.StructTag(st.Tag(i)).Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Embedded() && name == "" {
			if inner, ok := f.Type().Underlying().(*types.Struct); ok {
				out = append(out, g.members(inner)...)
				continue
			}
		}
		if name == "" {
			name = f.Name()
		}
		out = append(out, member{name: name, typ: f.Type(), optional: strings.Contains(opts, "omitempty")})
	}
	return out
}

func (g *gen) generate() (ts, schema []byte, err error) {
	scope := g.pkg.Scope()
	names := scope.Names()
	enums := map[string][]string{} // named string type -> its constants' values
	for _, n := range names {
		c, ok := scope.Lookup(n).(*types.Const)
		if !ok || !c.Exported() {
			continue
		}
		if nt, ok := c.Type().(*types.Named); ok && nt.Obj().Pkg() == g.pkg && c.Val().Kind() == constant.String {
			enums[nt.Obj().Name()] = append(enums[nt.Obj().Name()], constant.StringVal(c.Val()))
		}
	}
	var tb bytes.Buffer
	tb.WriteString("// Code generated by protocol/internal/gen from package protocol; DO NOT EDIT.\n")
	tb.WriteString("// Run `go generate ./protocol` after changing a wire type. docs/protocol.md is the reference.\n\n")
	tb.WriteString("export type PathElem = string | number;\nexport type OpCode = 's' | 'a' | 'p' | 'd' | 'm';\n")
	defs := map[string]any{}
	for _, n := range names {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || !tn.Exported() || tn.IsAlias() {
			continue
		}
		doc := g.docs[n]
		tb.WriteString("\n")
		if doc != "" {
			tb.WriteString("/** " + strings.ReplaceAll(doc, "\n", "\n * ") + " */\n")
		}
		if c, ok := g.custom[n]; ok && c.ts != "" {
			fmt.Fprintf(&tb, "export type %s = %s;\n", n, c.ts)
			if c.schema != nil {
				defs[n] = c.schema
			}
			continue
		}
		switch u := tn.Type().Underlying().(type) {
		case *types.Struct:
			fmt.Fprintf(&tb, "export interface %s {\n", n)
			props := map[string]any{}
			var required []any
			for _, m := range g.members(u) {
				opt := m.optional
				if n == "Item" && m.name != "id" && m.name != "kind" {
					opt = true
				}
				q := ""
				if opt {
					q = "?"
				}
				t, st := g.tsType(m.typ), g.schemaType(m.typ)
				if v, ok := g.variants[n]; ok && v.member == m.name {
					lits, enum := make([]string, len(v.values)), make([]any, len(v.values))
					for i, x := range v.values {
						lits[i], enum[i] = fmt.Sprintf("%q", x), x
					}
					t, st = strings.Join(lits, " | "), map[string]any{"enum": enum}
				}
				fmt.Fprintf(&tb, "  %s%s: %s;\n", m.name, q, t)
				props[m.name] = st
				if !opt {
					required = append(required, m.name)
				}
			}
			tb.WriteString("}\n")
			if c, ok := g.custom[n]; ok {
				defs[n] = c.schema
				continue
			}
			d := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
			if len(required) > 0 {
				d["required"] = required
			}
			defs[n] = d
		case *types.Basic:
			if vals, ok := enums[n]; ok && u.Info()&types.IsString != 0 {
				lits := make([]string, len(vals))
				enum := make([]any, len(vals))
				for i, v := range vals {
					lits[i] = fmt.Sprintf("%q", v)
					enum[i] = v
				}
				fmt.Fprintf(&tb, "export type %s = %s;\n", n, strings.Join(lits, " | "))
				defs[n] = map[string]any{"enum": enum}
			} else {
				fmt.Fprintf(&tb, "export type %s = %s;\n", n, g.tsType(u))
				defs[n] = g.schemaType(u)
			}
		default:
			fmt.Fprintf(&tb, "export type %s = %s;\n", n, g.tsType(u))
			defs[n] = g.schemaType(u)
		}
	}
	doc := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "https://github.com/pi-lsp/pi-lsp/protocol/protocol.schema.json",
		"title":   "pi-lsp native protocol (generated from package protocol by protocol/internal/gen; do not edit)",
		"$defs":   defs,
	}
	schema, err = json.MarshalIndent(doc, "", " ")
	if err != nil {
		return nil, nil, fmt.Errorf("gen: schema: %w", err)
	}
	return tb.Bytes(), append(schema, '\n'), nil
}

func (g *gen) named(t types.Type) (string, bool) {
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() == g.pkg {
		return n.Obj().Name(), true
	}
	return "", false
}

func isRaw(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "encoding/json" && n.Obj().Name() == "RawMessage"
}

func isTime(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Time"
}

func (g *gen) tsType(t types.Type) string {
	if name, ok := g.named(t); ok {
		return name
	}
	switch {
	case isRaw(t):
		return "unknown"
	case isTime(t):
		return "string"
	}
	switch u := t.(type) {
	case *types.Pointer:
		return g.tsType(u.Elem()) + " | null"
	case *types.Slice:
		e := g.tsType(u.Elem())
		if strings.Contains(e, " ") {
			e = "(" + e + ")"
		}
		return e + "[]"
	case *types.Map:
		return "Record<string, " + g.tsType(u.Elem()) + ">"
	case *types.Interface:
		return "unknown"
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return "string"
		case u.Info()&types.IsNumeric != 0:
			return "number"
		case u.Info()&types.IsBoolean != 0:
			return "boolean"
		}
	case *types.Named:
		return g.tsType(u.Underlying())
	}
	return "unknown"
}

func (g *gen) schemaType(t types.Type) map[string]any {
	if name, ok := g.named(t); ok {
		return ref(name)
	}
	switch {
	case isRaw(t):
		return map[string]any{}
	case isTime(t):
		return map[string]any{"type": "string"}
	}
	switch u := t.(type) {
	case *types.Pointer:
		return map[string]any{"anyOf": []any{g.schemaType(u.Elem()), map[string]any{"type": "null"}}}
	case *types.Slice:
		// encoding/json writes a nil slice as null.
		return map[string]any{"type": []any{"array", "null"}, "items": g.schemaType(u.Elem())}
	case *types.Map:
		return map[string]any{"type": []any{"object", "null"}, "additionalProperties": g.schemaType(u.Elem())}
	case *types.Interface:
		return map[string]any{}
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return map[string]any{"type": "string"}
		case u.Info()&types.IsInteger != 0:
			return map[string]any{"type": "integer"}
		case u.Info()&types.IsNumeric != 0:
			return map[string]any{"type": "number"}
		case u.Info()&types.IsBoolean != 0:
			return map[string]any{"type": "boolean"}
		}
	case *types.Named:
		return g.schemaType(u.Underlying())
	}
	return map[string]any{}
}

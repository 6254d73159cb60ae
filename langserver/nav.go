package langserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pi-lsp/pi-lsp/langserver/internal/protocol"
	"go.lsp.dev/uri"
)

// Navigation operations (the lsp tool's ops).
const (
	OpDefinition    = "definition"
	OpReferences    = "references"
	OpHover         = "hover"
	OpSymbols       = "symbols"
	OpRenamePreview = "rename_preview"
)

// Location is a place a server pointed to, with a label (a symbol's
// name and kind, a rename's new text) when there is one.
type Location struct {
	Path  string
	Range Range
	Label string
}

// NavResult is the answer to a navigation request.
type NavResult struct {
	Locations []Location
	Hover     string // markdown
}

// Navigate asks path's server for op at pos (0-based). query is the new
// name of rename_preview and, for symbols, a workspace symbol search
// (empty: the file's symbols).
func (m *Manager) Navigate(ctx context.Context, op, path string, pos Position, query string) (NavResult, error) {
	srv, sl, err := m.prepare(ctx, path)
	if err != nil {
		return NavResult{}, err
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.opts.Root, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return NavResult{}, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := srv.sync(ctx, path, string(data)); err != nil {
		return NavResult{}, &UnavailableError{sl.cfg.Name, err.Error()}
	}
	doc := protocol.TextDocumentIdentifier{URI: uri.File(path)}
	tdp := protocol.TextDocumentPositionParams{TextDocument: doc, Position: pos}
	var raw json.RawMessage
	var method string
	var params any
	switch op {
	case OpDefinition:
		method, params = protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: tdp}
	case OpReferences:
		method, params = protocol.MethodTextDocumentReferences, protocol.ReferenceParams{TextDocumentPositionParams: tdp, Context: protocol.ReferenceContext{IncludeDeclaration: true}}
	case OpHover:
		method, params = protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: tdp}
	case OpSymbols:
		if query != "" {
			method, params = protocol.MethodWorkspaceSymbol, protocol.WorkspaceSymbolParams{Query: query}
		} else {
			method, params = protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: doc}
		}
	case OpRenamePreview:
		if query == "" {
			return NavResult{}, fmt.Errorf("rename_preview needs the new name in query")
		}
		method, params = protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: tdp, NewName: query}
	default:
		return NavResult{}, fmt.Errorf("unknown op %q (want definition, references, hover, symbols or rename_preview)", op)
	}
	if err := srv.call(ctx, method, params, &raw); err != nil {
		if why := srv.dead(); why != "" {
			return NavResult{}, &UnavailableError{sl.cfg.Name, why}
		}
		return NavResult{}, fmt.Errorf("%s: %s: %w", sl.cfg.Name, method, err)
	}
	res, err := decodeNav(op, path, raw)
	if err != nil {
		return NavResult{}, fmt.Errorf("%s: %s: %w", sl.cfg.Name, method, err)
	}
	// Places outside the workspace (the standard library) are shown but
	// never sent back to a server; keep the order stable.
	sort.SliceStable(res.Locations, func(i, j int) bool {
		a, b := res.Locations[i], res.Locations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Range.Start.Line < b.Range.Start.Line
	})
	return res, nil
}

// decodeNav reads the answer of op: Location | Location[] | LocationLink[]
// for definitions and references, Hover, DocumentSymbol[] |
// SymbolInformation[] for symbols, WorkspaceEdit for a rename.
func decodeNav(op, path string, raw json.RawMessage) (NavResult, error) {
	var res NavResult
	if len(raw) == 0 || string(raw) == "null" {
		return res, nil
	}
	switch op {
	case OpDefinition, OpReferences:
		var items []json.RawMessage
		if raw[0] == '{' {
			items = []json.RawMessage{raw}
		} else if err := json.Unmarshal(raw, &items); err != nil {
			return res, err
		}
		for _, it := range items {
			var l struct {
				protocol.Location
				TargetURI   protocol.DocumentURI `json:"targetUri"`
				TargetRange *protocol.Range      `json:"targetSelectionRange"`
			}
			if err := json.Unmarshal(it, &l); err != nil {
				return res, err
			}
			if l.TargetURI != "" && l.TargetRange != nil {
				res.Locations = append(res.Locations, Location{Path: l.TargetURI.Filename(), Range: *l.TargetRange})
			} else if l.URI != "" {
				res.Locations = append(res.Locations, Location{Path: l.URI.Filename(), Range: l.Range})
			}
		}
	case OpHover:
		var h struct {
			Contents json.RawMessage `json:"contents"`
		}
		if err := json.Unmarshal(raw, &h); err != nil {
			return res, err
		}
		res.Hover = hoverText(h.Contents)
	case OpSymbols:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return res, err
		}
		for _, it := range items {
			var probe map[string]json.RawMessage
			if err := json.Unmarshal(it, &probe); err != nil {
				return res, err
			}
			if _, ok := probe["location"]; ok {
				var si protocol.SymbolInformation
				if err := json.Unmarshal(it, &si); err != nil {
					return res, err
				}
				res.Locations = append(res.Locations, Location{Path: si.Location.URI.Filename(), Range: si.Location.Range, Label: si.Name + " (" + si.Kind.String() + ")"})
				continue
			}
			var ds protocol.DocumentSymbol
			if err := json.Unmarshal(it, &ds); err != nil {
				return res, err
			}
			res.Locations = appendSymbols(res.Locations, path, "", ds)
		}
	case OpRenamePreview:
		var we protocol.WorkspaceEdit
		if err := json.Unmarshal(raw, &we); err != nil {
			return res, err
		}
		for u, edits := range we.Changes {
			for _, e := range edits {
				res.Locations = append(res.Locations, Location{Path: u.Filename(), Range: e.Range, Label: "→ " + e.NewText})
			}
		}
		for _, dc := range we.DocumentChanges {
			for _, e := range dc.Edits {
				res.Locations = append(res.Locations, Location{Path: dc.TextDocument.URI.Filename(), Range: e.Range, Label: "→ " + e.NewText})
			}
		}
	}
	return res, nil
}

func appendSymbols(out []Location, path, parent string, ds protocol.DocumentSymbol) []Location {
	name := ds.Name
	if parent != "" {
		name = parent + "." + name
	}
	out = append(out, Location{Path: path, Range: ds.SelectionRange, Label: name + " (" + ds.Kind.String() + ")"})
	for _, c := range ds.Children {
		out = appendSymbols(out, path, name, c)
	}
	return out
}

// hoverText reads MarkupContent, MarkedString or MarkedString[].
func hoverText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Value    string `json:"value"`
		Language string `json:"language"`
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, it := range list {
			if t := hoverText(it); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

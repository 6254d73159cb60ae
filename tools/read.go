package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
)

// maxImageBytes bounds an image sent inline (providers cap base64 payloads at
// about 5 MB).
const maxImageBytes = 3_750_000

const readSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},` +
	`"offset":{"type":"number","description":"Line number to start reading from (1-indexed)"},` +
	`"limit":{"type":"number","description":"Maximum number of lines to read"}},` +
	`"required":["path"]}`

func readTool() Tool {
	desc := fmt.Sprintf("Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as attachments. For text files, output is truncated to %d lines or %dKB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.", DefaultMaxLines, DefaultMaxBytes/1024)
	return newTool("read", desc, CategoryRead, readSchema, runRead)
}

type readArgs struct {
	Path     string `json:"path"`
	FilePath string `json:"file_path"` // alias some models use
	Offset   optInt `json:"offset"`
	Limit    optInt `json:"limit"`
}

func runRead(ctx context.Context, call Call, x Exec) Result {
	var a readArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("read", err)
	}
	if a.Path == "" {
		a.Path = a.FilePath
	}
	if a.Path == "" {
		return errorResult("read: path is required")
	}
	abs := resolveReadPath(ctx, x.Env, a.Path)
	data, err := x.Env.ReadFile(ctx, abs)
	if err != nil {
		return errorResult(fsErrorText(err, a.Path))
	}
	if mime := imageMIME(data); mime != "" {
		return readImage(data, mime)
	}
	if looksBinary(data) {
		return errorResult(fmt.Sprintf("%s is a binary file (%s); read shows text files and png/jpg/gif/webp images only.", a.Path, formatSize(len(data))))
	}
	return readText(string(data), a)
}

func readImage(data []byte, mime string) Result {
	note := fmt.Sprintf("Read image file [%s]", mime)
	if len(data) > maxImageBytes {
		return textResult(note + fmt.Sprintf("\n[Image omitted: %s is over the %s inline image size limit.]", formatSize(len(data)), formatSize(maxImageBytes)))
	}
	res := Result{Content: []llm.ContentBlock{
		llm.TextBlock(note),
		{Type: llm.BlockImage, Data: base64.StdEncoding.EncodeToString(data), MimeType: mime},
	}}
	res.Display = note
	return res
}

func readText(text string, a readArgs) Result {
	text = strings.ToValidUTF8(text, "\uFFFD")
	all := strings.Split(text, "\n")
	start := 0
	if a.Offset.Set && a.Offset.V > 0 {
		start = a.Offset.V - 1
	}
	if start >= len(all) {
		return errorResult(fmt.Sprintf("Offset %d is beyond end of file (%d lines total)", a.Offset.V, len(all)))
	}
	end := len(all)
	userLimited := false
	if a.Limit.Set {
		if a.Limit.V < 1 {
			return errorResult("read: limit must be at least 1")
		}
		if start+a.Limit.V < end {
			end = start + a.Limit.V
			userLimited = true
		}
	}
	selected := strings.Join(all[start:end], "\n")
	out, t := truncateHead(selected, DefaultMaxLines, DefaultMaxBytes)
	first := start + 1
	switch {
	case t.FirstLineExceedsLimit:
		size := formatSize(len(all[start]))
		msg := fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			first, size, formatSize(DefaultMaxBytes), first, a.Path, DefaultMaxBytes)
		return withDetails(textResult(msg), map[string]any{"truncation": t})
	case t.Truncated:
		last := first + t.OutputLines - 1
		if t.TruncatedBy == "lines" {
			out += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", first, last, len(all), last+1)
		} else {
			out += fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). Use offset=%d to continue.]", first, last, len(all), formatSize(DefaultMaxBytes), last+1)
		}
		return withDetails(textResult(out), map[string]any{"truncation": t})
	case userLimited:
		out += fmt.Sprintf("\n\n[%d more lines in file. Use offset=%d to continue.]", len(all)-end, end+1)
	}
	return textResult(out)
}

// imageMIME detects png, jpeg, gif and webp by their magic bytes.
func imageMIME(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// looksBinary reports a NUL byte, or mostly invalid UTF-8, in the first 8 KB.
func looksBinary(b []byte) bool {
	if len(b) > 8192 {
		b = b[:8192]
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	bad := 0
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 && len(b) >= utf8.UTFMax {
			bad++
		}
		b = b[n:]
	}
	return bad > 32
}

// fsErrorText turns an env error into a sentence for the model.
func fsErrorText(err error, path string) string {
	switch env.CodeOf(err) {
	case env.CodeNotFound:
		return "File not found: " + path
	case env.CodePermissionDenied:
		return "Permission denied: " + path
	case env.CodeIsDirectory:
		return path + " is a directory (use ls to list it)"
	case env.CodeNotDirectory:
		return "Not a directory in path: " + path
	case env.CodeTooLarge:
		return fmt.Sprintf("%s is too large to load: %v", path, err)
	case env.CodeAborted:
		return "Operation aborted"
	}
	return err.Error()
}

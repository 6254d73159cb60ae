package main

import (
	_ "github.com/coder/acp-go-sdk"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/go-git/go-git/v5/plumbing/format/gitignore"
	_ "github.com/gofrs/flock"
	_ "github.com/google/uuid"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/tiktoken-go/tokenizer"
	_ "go.lsp.dev/jsonrpc2"
	_ "gopkg.in/yaml.v3"
)

func main() {}

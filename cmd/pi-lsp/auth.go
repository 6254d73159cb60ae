package main

import (
	"log/slog"
	"os"

	"github.com/pi-lsp/pi-lsp/llm"
)

// auth reads pi's auth.json once ($PI_LSP_AUTH, else ~/.pi/agent/auth.json)
// and logs its warnings (a file others can read, unusable entries). A
// broken file is logged and ignored: the environment and models.json still
// work.
func (c *common) auth(log *slog.Logger) llm.AuthFile {
	c.authOnce.Do(func() {
		path := os.Getenv("PI_LSP_AUTH")
		if path == "" {
			home, _ := os.UserHomeDir()
			path = llm.DefaultAuthPath(home)
		}
		a, err := llm.ReadAuthFile(path)
		if err != nil {
			log.Warn("pi credentials", "err", err)
		}
		for _, w := range a.Warnings {
			log.Warn("pi credentials: " + w)
		}
		c.authFile = a
	})
	return c.authFile
}

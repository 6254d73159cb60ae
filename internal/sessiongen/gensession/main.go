// Command gensession writes a large, realistic pi v3 session file for
// benchmarks (see scripts/bench-session.sh).
//
//	go run ./internal/sessiongen/gensession -o big.jsonl -mb 133
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pi-lsp/pi-lsp/internal/sessiongen"
)

func main() {
	out := flag.String("o", "session.jsonl", "output file")
	mb := flag.Float64("mb", 133, "approximate size in MB (10^6 bytes)")
	seed := flag.Uint64("seed", 1, "random seed")
	compact := flag.Int64("compact-every", 800_000, "bytes of conversation between compactions (0: never)")
	branch := flag.Int("branch-every", 25, "turns between abandoned branches (0: none)")
	short := flag.Bool("short-turns", false, "short shell turns (4 entries, about 3.8 KB each; see sessiongen.Options.ShortTurns)")
	cwd := flag.String("cwd", "", "cwd recorded in the header (default: the current directory; pi requires it to exist)")
	flag.Parse()
	if *cwd == "" {
		*cwd, _ = os.Getwd()
	}
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	st, err := sessiongen.Write(f, sessiongen.Options{Bytes: int64(*mb * 1e6), Seed: *seed, Cwd: *cwd, CompactEvery: *compact, BranchEvery: *branch, ShortTurns: *short})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d bytes, %d entries, %d turns, %d compactions, %d branches\n", *out, st.Bytes, st.Entries, st.Turns, st.Compactions, st.Branches)
}

package skills

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   \t ", nil},
		{"a b  c", []string{"a", "b", "c"}},
		{`Button "onClick handler" 'disabled support'`, []string{"Button", "onClick handler", "disabled support"}},
		{`"it's" 'say "hi"'`, []string{"it's", `say "hi"`}},
		{`pre"fix mid"post`, []string{"prefix midpost"}},
		{`a "" b`, []string{"a", "", "b"}},
		{`"unclosed rest of line`, []string{"unclosed rest of line"}},
		{"line1\nline2", []string{"line1", "line2"}},
		{`back\slash`, []string{`back\slash`}},
		{"日本 語", []string{"日本", "語"}},
	}
	for _, tc := range tests {
		if got := ParseArgs(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSubstituteArgs(t *testing.T) {
	args := []string{"one", "two words", "three", "four"}
	tests := []struct {
		body string
		args []string
		want string
	}{
		{"$1 and $2", args, "one and two words"},
		{"$5 missing, $0 zero", args, " missing,  zero"},
		{"$10 is not $1 then 0", args, " is not one then 0"},
		{"all: $@", args, "all: one two words three four"},
		{"all: $ARGUMENTS.", args, "all: one two words three four."},
		{"${@:2}", args, "two words three four"},
		{"${@:2:2}", args, "two words three"},
		{"${@:0}", args, "one two words three four"},
		{"${@:9}|${@:3:0}|${@:4:99}", args, "||four"},
		{"${1}${2}", args, "onetwo words"},
		{"${1:-default}", args, "one"},
		{"${5:-fallback value}", args, "fallback value"},
		{"${1:-d}", []string{""}, "d"},
		{"${1:-}x", nil, "x"},
		{"$", args, "$"},
		{"cost $$ and $x and ${x} and ${@:a} and ${unclosed", args, "cost $$ and $x and ${x} and ${@:a} and ${unclosed"},
		{"$@", []string{"$1", "$@", "${@:1}"}, "$1 $@ ${@:1}"}, // never re-substituted
		{"$1", []string{"$2", "x"}, "$2"},
		{"$99999999999999999999999", args, ""},
		{"${@:99999999999999999999999}", args, ""},
		{"naïve $1 ✓", []string{"é"}, "naïve é ✓"},
	}
	for _, tc := range tests {
		if got := SubstituteArgs(tc.body, tc.args); got != tc.want {
			t.Errorf("SubstituteArgs(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
		}
	}
}

// FuzzParseArgs checks that quoting every argument and parsing the result
// gives the arguments back, and that parsing never panics.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"", "a b", `"a b" 'c'`, `a "" b`, "x\ty\nz", `"unclosed`, "'it''s'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := ParseArgs(s)
		var quoted []string
		for _, a := range args {
			switch {
			case !strings.Contains(a, `"`):
				quoted = append(quoted, `"`+a+`"`)
			case !strings.Contains(a, "'"):
				quoted = append(quoted, "'"+a+"'")
			default:
				return // holds both quote kinds: not expressible in one group
			}
		}
		again := ParseArgs(strings.Join(quoted, " "))
		if !reflect.DeepEqual(again, args) && !(len(again) == 0 && len(args) == 0) {
			t.Fatalf("round trip of %q: %q -> %q", s, args, again)
		}
		_ = SubstituteArgs(s, args)
	})
}

// FuzzSubstituteArgs checks that substitution never panics and that a body
// without '$' is returned unchanged.
func FuzzSubstituteArgs(f *testing.F) {
	f.Add("$1 ${@:2:1} ${3:-d} $ARGUMENTS", "a b c")
	f.Add("plain text", "x")
	f.Add("${", "")
	f.Fuzz(func(t *testing.T, body, argLine string) {
		got := SubstituteArgs(body, ParseArgs(argLine))
		if !strings.Contains(body, "$") && got != body {
			t.Fatalf("body without $ changed: %q -> %q", body, got)
		}
	})
}

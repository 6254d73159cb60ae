package tools

// UnifiedDiff renders a unified diff (3 lines of context) of file name
// changing from old to new, as the edit and write tools show it; "" when
// nothing changed. The harness uses it for the rewind preview.
func UnifiedDiff(name, old, new string) string { return unifiedDiff(name, old, new) }

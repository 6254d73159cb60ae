package session

import "syscall"

// adviseHuge asks for 2 MB pages (madvise MADV_HUGEPAGE) on the whole
// 2 MB pages inside [p, p+n). Transparent huge pages set to "madvise" (a
// common default) serve only ranges that ask; set to "always" this is a
// no-op, set to "never" it is ignored. Best effort: an error changes nothing.
func adviseHuge(p, n uintptr) {
	const huge = 2 << 20
	start := (p + huge - 1) &^ (huge - 1)
	end := (p + n) &^ (huge - 1)
	if end <= start {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_HUGEPAGE)
}

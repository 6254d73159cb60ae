package session

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// vmFlagsAt returns the VmFlags of the mapping holding address a.
func vmFlagsAt(t *testing.T, a uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line)[0], "-"); ok && !strings.HasSuffix(line, ":") && !strings.Contains(line, ": ") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(a) >= l && uint64(a) < h
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping holds %#x", a)
	return nil
}

// A large index array is advised for huge pages ("hg" in its mapping's
// VmFlags); its contents are an ordinary zeroed slice.
func TestMakeHugeAdvisesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	s := makeHuge[rec](10, 200_000) // 9.6 MB
	if len(s) != 10 || cap(s) != 200_000 || s[9] != (rec{}) {
		t.Fatalf("len %d cap %d, last %+v", len(s), cap(s), s[9])
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	mid := (p + 4<<20) &^ (2<<20 - 1) // a 2 MB page inside the array
	flags := vmFlagsAt(t, mid)
	hg := false
	for _, f := range flags {
		hg = hg || f == "hg"
	}
	if !hg {
		t.Fatalf("the array's mapping is not advised for huge pages: VmFlags %v", flags)
	}
	small := makeHuge[byte](0, 1024)
	if cap(small) != 1024 {
		t.Fatalf("cap %d", cap(small))
	}
}

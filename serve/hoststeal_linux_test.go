package serve

import (
	"bytes"
	"os"
	"strconv"
)

// hostCPU reads the machine's CPU time from /proc/stat (proc(5)): what
// the hypervisor gave other guests while this one wanted to run (steal)
// and all of it (total), in clock ticks; 0, 0 when unreadable.
func hostCPU() (steal, total uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	fields := bytes.Fields(line) // cpu user nice system idle iowait irq softirq steal …
	for i, f := range fields[1:] {
		n, err := strconv.ParseUint(string(f), 10, 64)
		if err != nil {
			return 0, 0
		}
		total += n
		if i == 7 {
			steal = n
		}
	}
	return steal, total
}

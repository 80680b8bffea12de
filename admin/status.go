package admin

// CallCounts are one tool's call outcomes (/status "calls").
type CallCounts struct {
	OK      int64 `json:"ok"`
	Error   int64 `json:"error"`
	Invalid int64 `json:"invalid"`
}

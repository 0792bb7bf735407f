package llmlat

// ReportCap lets tests shrink Report's first buffer to take its second path.
var ReportCap = &reportCap

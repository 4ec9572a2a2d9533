package docmill

// DiskSpace is the state of one local area a node writes to (the embedded
// file store, the jobs' scratch directory), as /readyz reports it. It
// names the area, never its path.
type DiskSpace struct {
	Name         string `json:"-"`
	FreeBytes    int64  `json:"free_bytes"`
	TotalBytes   int64  `json:"total_bytes"`
	MinFreeBytes int64  `json:"min_free_bytes"`
	// OK is false when the area has less than MinFreeBytes free, or when
	// its free space cannot be measured; the node is then not ready.
	OK bool `json:"ok"`
}

// SpaceGuard holds the local file systems a node writes to to a minimum
// of free space (--min-free-space).
type SpaceGuard interface {
	// Check measures every area now.
	Check() []DiskSpace
	// Admit returns an insufficient_storage *Error when writing n more
	// bytes to the areas that uploads land on would leave less than their
	// minimum free; n < 0 (a body of unknown length) admits whatever is
	// not already below the minimum.
	Admit(n int64) error
}

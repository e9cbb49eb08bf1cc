package ir

// SpanDepths returns, for each position of blocks (a function's blocks
// in some order: position order, or a layout), how many back-edge spans
// cover it: an edge from the block at position t to one at h <= t spans
// [h, t]. The spans are summed with a difference array, linear in blocks
// and edges however many overlap; successors not in blocks are ignored.
//
// Every block of a cycle has a depth above zero (the path from the
// cycle's last block back to its first steps down past each block
// between them, and only an edge to a block at or before its source
// steps down), so a block at depth zero is in no loop, natural or not:
// a pass may skip finding loops for it. The depth of a block in a loop
// estimates its nesting. The result is c's scratch (see Make).
func SpanDepths(c *Cache, blocks []*Block) []int32 {
	n := 0
	for _, b := range blocks {
		n = max(n, b.ID+1)
	}
	pos := Make[int32](c, n) // block ID -> position + 1 (0: not in blocks)
	for i, b := range blocks {
		pos[b.ID] = int32(i + 1)
	}
	depth := Make[int32](c, len(blocks)+1) // differences, then depths
	for t, b := range blocks {
		for _, s := range b.Succs {
			if s.ID < n {
				if h := pos[s.ID] - 1; h >= 0 && int(h) <= t {
					depth[h]++
					depth[t+1]--
				}
			}
		}
	}
	d := int32(0)
	for i := range depth {
		d += depth[i]
		depth[i] = d
	}
	return depth[:len(blocks)]
}

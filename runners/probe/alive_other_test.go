//go:build !unix

package probe

// alive is false where no signal 0 can ask: the test that kills a
// command's process group runs on Unix.
func alive(int) bool { return false }

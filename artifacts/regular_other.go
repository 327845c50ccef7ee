//go:build !unix

package artifacts

// openNonBlock is no flag where FIFOs do not block an open.
const openNonBlock = 0

//go:build !linux

package evloop

// Supported says whether the epoll clients run here: Linux only.
const Supported = false

package watch

import "syscall"

// setDeathSignal makes the kernel SIGKILL the child when its forking
// thread (see StartTied) exits, which happens when benchtui dies.
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

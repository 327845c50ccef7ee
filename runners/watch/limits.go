package watch

// FDCostPerUnit is the fds a server spends per SSE subscriber or held
// connection, as measured in the seed reports (1.41 measured, 1.5
// budgeted; an earlier estimate of 64 was off by 4,000%). doctor uses it to
// tell whether a plan's unit count fits an fd limit.
const FDCostPerUnit = 1.5

// QUICWantUDPBuffer is the UDP receive (and send) buffer a QUIC endpoint
// (quic-go) asks for, 7 MiB. With a smaller net.core.rmem_max it warns and
// loses packets under load; raise the limits (as root) with
//
//	sysctl -w net.core.rmem_max=7500000 net.core.wmem_max=7500000
const QUICWantUDPBuffer = 7 << 20

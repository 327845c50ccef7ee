package main

// The QUIC runner (`runner: quic`) registers itself.
import _ "github.com/benchtui/benchtui/runners/quicload"
